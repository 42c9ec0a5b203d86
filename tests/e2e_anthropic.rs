//! The real binary against a local server speaking the Anthropic Messages
//! stream: the parent delegates to an explore child, the child greps the
//! workspace and reports, and only the child's report reaches the parent. The
//! streams are hand-written in the documented wire format.

mod common;

use std::time::Duration;

use common::anthropic_sse::*;
use common::stream_server::*;
use common::{Sandbox, stderr, stdout};
use serde_json::{Value, json};

/// A line only the child's grep output contains.
const SECRET_LINE: &str = "pepper-héllo-42";
const SUMMARY: &str = "Passwords are checked by check_password in src/auth.rs.";
const FINAL: &str = "The password check lives in src/auth.rs:2 (check_password) ✓";

fn is_parent(body: &Value) -> bool {
    tool_names(body).iter().any(|n| n == "task")
}

/// Plays both sides of the conversation, deciding by the request: the parent's
/// requests offer `task`, the child's only the read-only tools.
fn respond(request: &RecordedRequest) -> Reply {
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("test-key-not-real"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    let body = request.json();
    assert_eq!(body["model"], "claude-test");
    assert_eq!(body["stream"], true);
    let parent = is_parent(&body);
    if !parent {
        assert_eq!(
            tool_names(&body),
            ["glob", "grep", "read_file"],
            "the explore child's tools"
        );
    }
    let stream = match (parent, answered(&body)) {
        // Parent, first turn: a sentence, then `task` with its input in pieces.
        (true, false) => [
            message_start(900),
            text_block(0, &["I'll ask ", "an explorer."]),
            ping(),
            tool_block(
                1,
                "toolu_01TaskE2e",
                "task",
                &[
                    "",
                    "{\"prompt\": \"Find where pass",
                    "words are checked\", \"descr",
                    "iption\": \"password check\", \"subagent_type\": \"explore\"}",
                ],
            ),
            message_end("tool_use", 60),
        ]
        .concat(),
        // Child, first turn: a grep call and nothing else.
        (false, false) => [
            message_start(700),
            tool_block(
                0,
                "toolu_01GrepE2e",
                "grep",
                &["{\"pattern\": ", "\"check_password\"}"],
            ),
            message_end("tool_use", 30),
        ]
        .concat(),
        // Child, second turn: its report as text in two deltas.
        (false, true) => {
            let report = json!({"status": "completed", "summary": SUMMARY,
                "findings": ["check_password compares the salted hash"],
                "evidence": ["src/auth.rs:2"], "unresolved_questions": []})
            .to_string();
            let (head, tail) = report.split_at(report.len() / 2);
            [
                message_start(800),
                text_block(0, &[head, tail]),
                message_end("end_turn", 90),
            ]
            .concat()
        }
        // Parent, second turn: the final answer.
        (true, true) => [
            message_start(1300),
            text_block(0, &[FINAL]),
            message_end("end_turn", 40),
        ]
        .concat(),
    };
    let cuts = char_boundary_cuts(stream.as_bytes());
    Reply::sse_cut_at(stream, cuts, Duration::ZERO)
}

#[test]
fn a_parent_delegates_to_an_explore_child_over_the_anthropic_wire_format() {
    let sb = Sandbox::new();
    sb.write(
        "src/auth.rs",
        &format!("// auth\nfn check_password(p: &str) -> bool {{ hash(p, \"{SECRET_LINE}\") }}\n"),
    );
    let server = StreamServer::start(|request, _| respond(request));
    let out = sb
        .command(&[
            "run",
            "--provider",
            "anthropic",
            "--model",
            "claude-test",
            "--no-trace",
            "Where are passwords checked?",
        ])
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env("ANTHROPIC_API_KEY", "test-key-not-real")
        .output()
        .unwrap();
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{text}\nstderr:\n{err}"
    );
    assert!(text.contains("I'll ask an explorer."), "{text}");
    assert!(text.contains("[Subagent started] sub-1 explore"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("  [sub-1] grep: ") && l.contains("src/auth.rs")),
        "{text}"
    );
    assert!(text.contains("[Subagent done] sub-1 completed"), "{text}");
    assert!(text.contains(FINAL), "{text}");
    // The streamed usage, end to end: 900+60+1300+40 and 700+30+800+90.
    assert!(text.contains("tokens: main 2300 · sub-1 1620"), "{text}");
    assert!(!err.contains("test-key-not-real"), "the key leaked: {err}");
    assert!(
        !text.contains("test-key-not-real"),
        "the key leaked: {text}"
    );

    let bodies: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert_eq!(bodies.len(), 4, "two turns each for parent and child");
    let (parents, children): (Vec<&Value>, Vec<&Value>) = bodies.iter().partition(|b| is_parent(b));
    assert_eq!((parents.len(), children.len()), (2, 2));
    // The child saw its grep output; the parent got only the child's report.
    let child_second = children[1].to_string();
    assert!(child_second.contains(SECRET_LINE), "{child_second}");
    let parent_second = parents[1].to_string();
    assert!(parent_second.contains(SUMMARY), "{parent_second}");
    assert!(
        !parent_second.contains(SECRET_LINE),
        "the child's grep output reached the parent: {parent_second}"
    );
    // The parent's history carries its own task call back, input intact.
    let task_call = parents[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_use")
        .expect("the task call in the parent's history");
    assert_eq!(task_call["id"], "toolu_01TaskE2e");
    assert_eq!(task_call["input"]["subagent_type"], "explore");
}
