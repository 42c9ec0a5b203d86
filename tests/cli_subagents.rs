//! Subagents and the offline demo through the real binary.

mod common;

use common::{Sandbox, stderr, stdout};
use serde_json::json;

const VALID: &str = r#"{"status":"completed","summary":"Login is handled in src/auth.rs.","findings":["login() checks the password"],"evidence":["src/auth.rs:1"],"unresolved_questions":[]}"#;

#[test]
fn run_prints_each_childs_start_calls_and_end_then_the_token_totals() {
    let sb = Sandbox::new();
    sb.write("src/auth.rs", "fn login() {}\nfn refresh_token() {}\n");
    let out = sb.run_script(
        json!({"agents": {
            "main": [
                {"text": "Two questions; I'll ask two explorers.", "tool_calls": [
                    {"name": "task", "input": {"prompt": "Find login", "description": "find login", "subagent_type": "explore"}},
                    {"name": "task", "input": {"prompt": "Find refresh", "description": "token refresh", "subagent_type": "explore"}}
                ], "usage": {"input_tokens": 900, "output_tokens": 100}},
                {"text": "Login is in src/auth.rs:1; refresh could not be traced.", "usage": {"input_tokens": 1300, "output_tokens": 40}}
            ],
            "sub-1": [
                {"tool_calls": [{"name": "grep", "input": {"pattern": "fn login"}}], "usage": {"input_tokens": 700, "output_tokens": 50}},
                {"text": VALID, "usage": {"input_tokens": 800, "output_tokens": 90}}
            ],
            "sub-2": [
                {"tool_calls": [{"name": "glob", "input": {"pattern": "**/*.rs"}}], "usage": {"input_tokens": 700, "output_tokens": 50}},
                {"error": "upstream went away"}
            ]
        }}),
        &["--no-trace", "--max-parallel", "1"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // What stayed out of the parent's context is the children's 2390 tokens less
    // the envelopes it received, whose size varies with their elapsed_ms digits.
    let text = stdout(&out);
    let marker = "kept out of main's context: ";
    let at = text.find(marker).unwrap() + marker.len();
    let kept: u64 = text[at..].trim().parse().unwrap();
    assert!((2000..2390).contains(&kept), "{kept}");
    insta::assert_snapshot!(text.replace(&kept.to_string(), "N"));
}

#[test]
fn demo_explores_the_folder_with_parallel_children_and_real_evidence() {
    let sb = Sandbox::new();
    sb.write(
        "src/main.rs",
        "mod config;\n\nfn main() {\n    let cfg = config::load();\n    run(cfg);\n}\n",
    );
    sb.write(
        "src/config.rs",
        "pub fn load() -> Config {\n    // configuration is loaded from brood.toml\n    Config::default()\n}\n",
    );
    sb.write(
        "src/errors.rs",
        "pub enum Error {\n    Io,\n}\n// errors are handled by returning Error\n",
    );
    let trace = sb.root.path().join("demo.jsonl");
    let out = sb.run(&[
        "demo",
        "--speed",
        "1000",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("no LLM"),
        "the demo must say it is not a model:\n{text}"
    );
    for n in 1..=3 {
        assert!(
            text.contains(&format!("[Subagent started] sub-{n} explore")),
            "{text}"
        );
        assert!(
            text.contains(&format!("[Subagent done] sub-{n} completed")),
            "{text}"
        );
    }
    assert!(text.contains("[sub-1] grep"), "{text}");
    // Evidence lines point at real lines holding what was asked about.
    let evidence: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(|l| l.trim().trim_matches('`'))
        .filter(|l| l.contains(".rs:"))
        .collect();
    assert!(!evidence.is_empty(), "{text}");
    for location in evidence {
        let (path, line) = location.trim().rsplit_once(':').unwrap();
        let line: usize = line.parse().unwrap();
        let content = std::fs::read_to_string(sb.workspace().join(path)).unwrap();
        assert!(
            content.lines().nth(line - 1).is_some(),
            "{location} is not a real line"
        );
    }
    let header = std::fs::read_to_string(&trace).unwrap();
    let header: serde_json::Value = serde_json::from_str(header.lines().next().unwrap()).unwrap();
    assert_eq!(header["provider"], "offline");
    assert!(header["note"].as_str().unwrap().contains("no LLM"));
}

#[test]
fn demo_in_an_empty_folder_says_it_found_nothing() {
    let sb = Sandbox::new();
    let out = sb.run(&["demo", "--speed", "1000", "--no-trace"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out).to_lowercase();
    assert!(text.contains("nothing"), "{text}");
}

#[test]
fn a_count_of_one_step_or_turn_reads_in_the_singular() {
    let sb = Sandbox::new();
    sb.write("src/auth.rs", "fn login() {}\n");
    sb.write(
        "brood.toml",
        "[profiles.hasty]\ndescription = \"gives up fast\"\ntools = [\"grep\"]\nmax_steps = 1\n",
    );
    let grep = json!({"tool_calls": [{"name": "grep", "input": {"pattern": "fn"}}]});
    let out = sb.run_script(
        json!({"agents": {
            "main": [
                {"tool_calls": [
                    {"name": "task", "input": {"prompt": "Find login", "description": "quick", "subagent_type": "explore"}},
                    {"name": "task", "input": {"prompt": "Find login", "description": "hasty", "subagent_type": "hasty"}}
                ]},
                {"text": "Done."}
            ],
            "sub-1": [{"text": VALID}],
            "sub-2": [grep, grep]
        }}),
        &["--no-trace", "--max-parallel", "1"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("[Subagent done] sub-1 completed · 1 step · "),
        "{text}"
    );
    assert!(
        text.contains("Subagent stopped after 1 turn without a final answer."),
        "{text}"
    );
    assert!(
        !text.contains("1 steps") && !text.contains("1 turns"),
        "{text}"
    );
}
