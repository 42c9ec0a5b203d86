//! Extended thinking and reasoning through the binary: Anthropic's signed
//! `thinking` and `redacted_thinking` blocks go back exactly as they came
//! (across tool calls and across a resume), an OpenAI-compatible server's
//! `reasoning_content` is shown and traced but never sent back.

mod common;

use common::anthropic_sse::{
    block_stop, message_end, message_start, results_of, text_turn, tool_block, without_breakpoints,
};
use common::stream_server::{Reply, StreamServer, sse_data, sse_event};
use common::{Sandbox, stderr, stdout, trace_events};
use serde_json::{Value, json};

const SIGNATURE: &str = "EqQBCkgIARABGAIiQL1cXx3Kb4pZ+signature/of+the+thinking==";
const REDACTED: &str = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP";

/// Thinks (in two deltas, signed), has one block redacted, then calls a tool.
fn thinking_turn() -> String {
    let mut out = message_start(400);
    out += &sse_event(
        "content_block_start",
        &json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
    );
    for piece in [
        "The user wants the notes. ",
        "I should read notes.txt first.",
    ] {
        out += &sse_event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "thinking_delta", "thinking": piece}}),
        );
    }
    out += &sse_event(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "signature_delta", "signature": SIGNATURE}}),
    );
    out += &block_stop(0);
    out += &sse_event(
        "content_block_start",
        &json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "redacted_thinking", "data": REDACTED}}),
    );
    out += &block_stop(1);
    out += &tool_block(2, "toolu_1", "read_file", &[r#"{"path":"notes.txt"}"#]);
    out + &message_end("tool_use", 80)
}

#[test]
fn signed_thinking_goes_back_unchanged_across_calls_and_a_resume() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "remember the milk\n");
    let server = StreamServer::start(|request, _| {
        let body = request.json();
        let stream = match results_of(&body).len() {
            0 => thinking_turn(),
            _ => text_turn(500, "The notes say: remember the milk."),
        };
        Reply::sse_per_event(&stream, std::time::Duration::ZERO)
    });
    let out = sb.run_anthropic(
        &server.base_url(),
        &["--thinking-budget", "2048", "read the notes"],
    );
    assert!(stdout(&out).contains("✻ thinking…"), "{}", stdout(&out));
    let bodies: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert_eq!(bodies.len(), 2, "{}", stderr(&out));
    assert_eq!(
        bodies[0]["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(bodies[0]["max_tokens"], 8192 + 2048);
    // The answer goes back first thing, as the API requires, unchanged.
    assert_eq!(
        bodies[1]["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking":
                "The user wants the notes. I should read notes.txt first.",
                "signature": SIGNATURE},
            {"type": "redacted_thinking", "data": REDACTED},
            {"type": "tool_use", "id": "toolu_1", "name": "read_file",
                "input": {"path": "notes.txt"}},
        ]})
    );
    let trace = sb.traces().remove(0);
    let events = trace_events(&trace);
    let thinking: Vec<&Value> = events.iter().filter(|e| e["type"] == "thinking").collect();
    assert_eq!(thinking.len(), 2);
    assert_eq!(thinking[0]["signature"], SIGNATURE);
    assert_eq!(thinking[1]["redacted"], REDACTED);
    assert_eq!(
        events
            .iter()
            .filter(|e| e["type"] == "thinking_delta")
            .count(),
        2
    );

    // A resume sends the signed blocks back as the session did.
    sb.run_anthropic(
        &server.base_url(),
        &["--thinking-budget", "2048", "--continue", "thanks"],
    );
    let bodies: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    let resumed = without_breakpoints(bodies[2].clone());
    assert_eq!(resumed["messages"][1], bodies[1]["messages"][1]);
    assert_eq!(
        without_breakpoints(json!(resumed["messages"].as_array().unwrap()[..3])),
        without_breakpoints(bodies[1]["messages"].clone())
    );
}

#[test]
fn reasoning_from_an_openai_compatible_server_is_shown_and_kept_but_not_sent_back() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "remember the milk\n");
    let server = StreamServer::start(|request, _| {
        let body = request.json();
        let answered = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool");
        let chunk = |delta: Value, finish: Value| {
            sse_data(
                &json!({"id": "c", "object": "chat.completion.chunk", "model": "r1",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
            )
        };
        let mut out = chunk(
            json!({"role": "assistant", "reasoning_content": "Look at the file. "}),
            Value::Null,
        );
        out += &chunk(json!({"reasoning_content": "Then answer."}), Value::Null);
        out += &match answered {
            false => chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                    "function": {"name": "read_file", "arguments": "{\"path\":\"notes.txt\"}"}}]}),
                json!("tool_calls"),
            ),
            true => chunk(
                json!({"content": "It says: remember the milk."}),
                json!("stop"),
            ),
        };
        out += &sse_data(
            &json!({"id": "c", "object": "chat.completion.chunk", "choices": [],
            "usage": {"prompt_tokens": 300, "completion_tokens": 40,
                "completion_tokens_details": {"reasoning_tokens": 25}}}),
        );
        out += "data: [DONE]\n\n";
        Reply::sse(out)
    });
    let out = sb
        .command(&[
            "run",
            "--provider",
            "openai",
            "--model",
            "deepseek-r1",
            "read the notes",
        ])
        .env("OPENAI_BASE_URL", format!("{}/v1", server.base_url()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("✻ thinking…"), "{}", stdout(&out));
    let bodies: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert_eq!(bodies.len(), 2);
    let sent = bodies[1].to_string();
    assert!(
        !sent.contains("Look at the file"),
        "reasoning was sent back: {sent}"
    );
    let trace = sb.traces().remove(0);
    let thinking: Vec<Value> = trace_events(&trace)
        .into_iter()
        .filter(|e| e["type"] == "thinking")
        .collect();
    assert_eq!(thinking.len(), 2);
    assert_eq!(thinking[0]["text"], "Look at the file. Then answer.");
    assert!(thinking[0].get("signature").is_none());
    // Of each answer's 40 output tokens, 25 were reasoning.
    let answers: Vec<Value> = trace_events(&trace)
        .into_iter()
        .filter(|e| e["type"] == "assistant_message")
        .collect();
    assert_eq!(answers[0]["usage"]["reasoning_tokens"], 25);
    assert_eq!(answers[0]["usage"]["output_tokens"], 40);
}
