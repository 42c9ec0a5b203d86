//! The real binary against a local OpenAI-compatible server with no key (like
//! Ollama): the parent delegates to an explore child, the child greps the
//! workspace and reports, and only the child's report reaches the parent.

mod common;

use std::time::Duration;

use common::stream_server::*;
use common::{Sandbox, stderr, stdout};
use serde_json::{Value, json};

/// A line only the child's grep output contains.
const SECRET_LINE: &str = "pepper-42";
const SUMMARY: &str = "Passwords are checked by check_password in src/auth.rs.";
const FINAL: &str = "The password check lives in src/auth.rs:2 (check_password).";

fn chunk(delta: Value, finish: Option<&str>) -> String {
    sse_data(
        &json!({"id": "chatcmpl-e2e", "object": "chat.completion.chunk",
        "model": "llama-test", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
    )
}

fn usage(prompt: u64, completion: u64) -> String {
    sse_data(&json!({"id": "chatcmpl-e2e", "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}))
}

fn tool_names(body: &Value) -> Vec<String> {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let mut names: Vec<String> = tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// Plays both sides of the conversation, deciding by the request: the parent's
/// requests offer `task`, the child's only the read-only tools; a `tool` message
/// means the previous call was answered.
fn respond(request: &RecordedRequest) -> Reply {
    let body = request.json();
    assert_eq!(body["model"], "llama-test");
    assert_eq!(body["stream"], true);
    let answered = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["role"] == "tool");
    let names = tool_names(&body);
    let parent = names.iter().any(|n| n == "task");
    if !parent {
        assert_eq!(
            names,
            ["glob", "grep", "read_file"],
            "the explore child's tools"
        );
    }
    let stream = match (parent, answered) {
        // Parent, first turn: text, then `task` streamed in pieces (OpenAI style).
        (true, false) => [
            chunk(json!({"role": "assistant", "content": ""}), None),
            chunk(json!({"content": "I'll ask an explorer."}), None),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_task1", "type": "function",
                "function": {"name": "task", "arguments": ""}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments":
                "{\"prompt\": \"Find where passwords are checked\", "}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments":
                "\"description\": \"password check\", \"subagent_type\": \"explore\"}"}}]}),
                None,
            ),
            chunk(json!({}), Some("tool_calls")),
            usage(900, 60),
            SSE_DONE.to_string(),
        ]
        .concat(),
        // Child, first turn: a whole grep call in one chunk, then "stop" (Ollama style).
        (false, false) => [
            chunk(
                json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_grep1",
                "index": 0, "type": "function", "function": {"name": "grep",
                "arguments": "{\"pattern\": \"check_password\"}"}}]}),
                None,
            ),
            chunk(json!({"role": "assistant", "content": ""}), Some("stop")),
            usage(700, 30),
            SSE_DONE.to_string(),
        ]
        .concat(),
        // Child, second turn: its report as text, no usage (estimated), no [DONE].
        (false, true) => {
            let report = json!({"status": "completed", "summary": SUMMARY,
                "findings": ["check_password compares the salted hash"],
                "evidence": ["src/auth.rs:2"], "unresolved_questions": []})
            .to_string();
            let (head, tail) = report.split_at(report.len() / 2);
            [
                chunk(json!({"content": head}), None),
                chunk(json!({"content": tail}), None),
                chunk(json!({}), Some("stop")),
            ]
            .concat()
        }
        // Parent, second turn: the final answer.
        (true, true) => [
            chunk(json!({"content": FINAL}), None),
            chunk(json!({}), Some("stop")),
            usage(1300, 40),
            SSE_DONE.to_string(),
        ]
        .concat(),
    };
    Reply::sse(stream)
}

#[test]
fn a_parent_delegates_to_an_explore_child_over_the_openai_wire_format() {
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
            "openai",
            "--model",
            "llama-test",
            "--no-trace",
            "Where are passwords checked?",
        ])
        .env("OPENAI_BASE_URL", format!("{}/v1", server.base_url()))
        .output()
        .unwrap();
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{text}\nstderr:\n{err}"
    );
    assert!(text.contains("[Subagent started] sub-1 explore"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("  [sub-1] grep: ")),
        "{text}"
    );
    assert!(text.contains("[Subagent done] sub-1 completed"), "{text}");
    assert!(text.contains(FINAL), "{text}");

    assert_eq!(server.wait_for_requests(4, Duration::from_secs(5)), 4);
    let requests = server.requests();
    assert!(requests.iter().all(|r| r.header("authorization").is_none()));
    assert!(requests.iter().all(|r| r.path == "/v1/chat/completions"));
    let parents: Vec<String> = requests
        .iter()
        .filter(|r| tool_names(&r.json()).iter().any(|n| n == "task"))
        .map(|r| r.text())
        .collect();
    assert_eq!(parents.len(), 2);
    let child_texts: Vec<String> = requests
        .iter()
        .map(|r| r.text())
        .filter(|t| !parents.contains(t))
        .collect();
    assert!(
        child_texts.iter().any(|t| t.contains(SECRET_LINE)),
        "the child saw its grep output"
    );
    let second: Value = serde_json::from_str(&parents[1]).unwrap();
    let answer = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("the task result goes back as a tool message");
    assert_eq!(answer["tool_call_id"], "call_task1");
    assert!(
        answer["content"].as_str().unwrap().contains(SUMMARY),
        "{answer}"
    );
    assert!(
        !parents[1].contains(SECRET_LINE),
        "the child's grep output leaked into the parent: {}",
        parents[1]
    );
}
