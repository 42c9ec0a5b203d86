//! Project instructions through the binary: `AGENTS.md` and `CLAUDE.md` from
//! the user's folders and the repository go into the parent's system prompt
//! and a general child's, not an explore child's, and the trace header lists
//! them.

mod common;

use std::time::Duration;

use common::Sandbox;
use common::anthropic_sse::*;
use common::stream_server::*;
use serde_json::Value;

#[test]
fn instructions_reach_the_parent_and_a_general_child_but_not_an_explorer() {
    let sb = Sandbox::new();
    let home = sb.root.path();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude/CLAUDE.md"),
        "USER RULE: answer in English.",
    )
    .unwrap();
    std::fs::create_dir_all(sb.workspace().join(".git")).unwrap();
    sb.write(
        "AGENTS.md",
        "REPO RULE: run cargo test.\nStyle: @docs/style.md\n",
    );
    sb.write("docs/style.md", "IMPORTED RULE: no unwrap.");
    let server = StreamServer::start(|request, _| {
        let body = request.json();
        let names = tool_names(&body);
        let stream = if names.iter().any(|n| n == "task") {
            if answered(&body) {
                text_turn(1000, "Done.")
            } else {
                tool_turn(
                    900,
                    &[
                        (
                            "toolu_01Explore",
                            "task",
                            r#"{"prompt": "Find main", "subagent_type": "explore"}"#,
                        ),
                        (
                            "toolu_01General",
                            "task",
                            r#"{"prompt": "Fix main", "subagent_type": "general"}"#,
                        ),
                    ],
                )
            }
        } else if names.iter().any(|n| n == "bash") {
            text_turn(400, "Fixed.")
        } else {
            let report = r#"{"status": "completed", "summary": "main is in src/main.rs", "findings": [], "evidence": ["src/main.rs:1"], "unresolved_questions": []}"#;
            text_turn(300, report)
        };
        Reply::sse_per_event(&stream, Duration::ZERO)
    });
    let trace = sb.root.path().join("t.jsonl");
    sb.run_anthropic(
        &server.base_url(),
        &[
            "--model",
            "claude-test",
            "--trace",
            trace.to_str().unwrap(),
            "Fix main",
        ],
    );
    let requests: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    let of = |tool: &str| {
        requests
            .iter()
            .find(|b| {
                let names = tool_names(b);
                names.iter().any(|n| n == tool)
                    && !names.iter().any(|n| n == "task" && tool != "task")
            })
            .map(system_text)
            .unwrap_or_else(|| panic!("no request offering {tool}"))
    };
    let parent = of("task");
    let at = |s: &str| {
        parent
            .find(s)
            .unwrap_or_else(|| panic!("{s} not in {parent}"))
    };
    assert!(at("USER RULE") < at("REPO RULE"), "the user's file first");
    assert!(at("Style: IMPORTED RULE: no unwrap.") > at("REPO RULE"));
    assert!(parent.contains("Instructions from AGENTS.md:"), "{parent}");
    let general = of("bash");
    assert!(
        general.contains("REPO RULE") && general.contains("USER RULE"),
        "{general}"
    );
    let explorer = requests
        .iter()
        .find(|b| tool_names(b) == ["glob", "grep", "read_file"])
        .map(system_text)
        .expect("the explorer asked");
    assert!(!explorer.contains("REPO RULE"), "{explorer}");

    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        header["instructions"],
        serde_json::json!(["~/.claude/CLAUDE.md", "AGENTS.md"])
    );
}
