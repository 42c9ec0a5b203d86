//! Hostile text through every printer of the binary: model text, a tool name,
//! tool output and a model error carrying terminal escapes (clear screen,
//! OSC 52 clipboard, OSC 8 links, C1 CSI, bidi overrides) are shown by
//! `brood run` and `replay --print`, never obeyed; `--json` stays exact JSON
//! holding the original text.

mod common;

use common::{Sandbox, stderr, stdout};
use serde_json::json;

/// Sets the clipboard, clears the screen, rings the bell, fakes a link.
const HOSTILE: &str = "ok \u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{1b}]8;;http://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\ \u{9b}31m red \u{202e}txt.exe\r";

/// Bytes and characters a terminal acts on; none may reach it.
fn assert_inert(what: &str, text: &str) {
    let bad: Vec<char> = text
        .chars()
        .filter(|&c| {
            (c < ' ' && c != '\n' && c != '\t')
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{what} printed raw controls {bad:?}:\n{text}"
    );
}

fn script() -> serde_json::Value {
    json!({"agents": {"main": [
        {"text": HOSTILE, "tool_calls": [
            {"name": "bash", "input": {"command": "printf 'out \\033[2J\\033]52;c;eA==\\007 done'"}},
            {"name": format!("evil\u{1b}[2Jtool"), "input": {}}
        ]},
        {"error": format!("server said \u{1b}]52;c;eA==\u{7}\u{1b}[2J {HOSTILE}")}
    ]}})
}

#[test]
fn run_and_replay_print_show_escapes_instead_of_obeying_them() {
    let sb = Sandbox::new();
    let out = sb.run_script(script(), &["--yes"]);
    let (shown, errors) = (stdout(&out), stderr(&out));
    assert_inert("brood run stdout", &shown);
    assert_inert("brood run stderr", &errors);
    // Shown visibly, so a person can see what the model tried.
    assert!(shown.contains("^[]52;c;cm0gLXJmIH4=^G"), "{shown}");
    assert!(shown.contains("<U+202E>txt.exe"), "{shown}");
    assert!(shown.contains("out ^[[2J"), "the tool output: {shown}");
    assert!(shown.contains("evil^[[2Jtool"), "the tool name: {shown}");
    assert!(errors.contains("server said ^[]52;c;eA==^G"), "{errors}");

    let traces = sb.traces();
    let trace = traces.first().expect("a trace");
    let trace_arg = trace.to_str().expect("utf-8 path");
    let printed = sb.run(&["replay", "--print", trace_arg]);
    assert_inert("replay --print stdout", &stdout(&printed));
    assert_inert("replay --print stderr", &stderr(&printed));
    assert!(stdout(&printed).contains("^[]52;c;cm0gLXJmIH4=^G"));

    // --json is exact: no raw control character on the wire, the original
    // text back once parsed.
    let json = sb.run(&["replay", "--print", "--json", trace_arg]);
    let lines = stdout(&json);
    assert_inert("replay --json", &lines);
    let texts: Vec<String> = lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .filter(|e| e["type"] == "assistant_message")
        .filter_map(|e| e["text"].as_str().map(String::from))
        .collect();
    assert!(texts.iter().any(|t| t == HOSTILE), "{texts:?}");

    let live = sb.run_script(script(), &["--yes", "--json", "--no-trace"]);
    assert_inert("brood run --json", &stdout(&live));
    assert!(
        stdout(&live)
            .lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
    );
}

#[test]
fn a_corrupt_trace_line_is_reported_visibly() {
    let sb = Sandbox::new();
    let out = sb.run_script(json!([{"text": "fine"}]), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let traces = sb.traces();
    let trace = traces.first().expect("a trace");
    let mut text = std::fs::read_to_string(trace).expect("trace");
    text.insert_str(
        text.find('\n').map_or(0, |n| n + 1),
        "garbage \u{1b}]52;c;eA==\u{7}\u{1b}[2J\n",
    );
    std::fs::write(trace, text).expect("write");
    let printed = sb.run(&["replay", "--print", trace.to_str().expect("path")]);
    assert_inert("replay notes", &stderr(&printed));
    assert!(
        stderr(&printed).contains("skipped line 2"),
        "{}",
        stderr(&printed)
    );
}
