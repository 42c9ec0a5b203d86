//! Resuming a session from its trace, through the binary against a loopback
//! Anthropic server: the first request after the resume is the last one
//! before it, byte for byte, with the last answer and the new prompt added.

mod common;

use common::anthropic_sse::{
    last_text, results_of, text_turn, tool_names, tool_turn, without_breakpoints,
};
use common::stream_server::{RecordedRequest, Reply, StreamServer};
use common::{Sandbox, stderr, stdout, trace_events};
use serde_json::{Value, json};

/// The parent reads a file, has a command denied, starts a child, then
/// answers; a child answers at once. Each parent request is told apart by how
/// many results it carries; the second session's prompt gets its own answer.
fn server() -> StreamServer {
    StreamServer::start(move |request, _| {
        let body = request.json();
        let stream = if !tool_names(&body).iter().any(|t| t == "task") {
            text_turn(300, "The child found the notes.")
        } else if last_text(&body).as_deref() == Some("and now the second question") {
            text_turn(900, "Second answer.")
        } else {
            match results_of(&body).len() {
                0 => tool_turn(
                    400,
                    &[("toolu_read", "read_file", r#"{"path":"notes.txt"}"#)],
                ),
                1 => tool_turn(500, &[("toolu_rm", "bash", r#"{"command":"rm -rf /"}"#)]),
                2 => tool_turn(
                    600,
                    &[(
                        "toolu_task",
                        "task",
                        r#"{"prompt":"look at the notes","description":"notes","subagent_type":"general"}"#,
                    )],
                ),
                _ => text_turn(700, "All done."),
            }
        };
        Reply::sse_per_event(&stream, std::time::Duration::ZERO)
    })
}

fn parent_requests(server: &StreamServer) -> Vec<RecordedRequest> {
    server
        .requests()
        .into_iter()
        .filter(|r| tool_names(&r.json()).iter().any(|t| t == "task"))
        .collect()
}

#[test]
fn a_continued_session_sends_what_it_sent_before_and_appends_to_the_same_trace() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "remember the milk\n");
    let server = server();
    let first = sb.run_anthropic(&server.base_url(), &["read the notes"]);
    assert!(stdout(&first).contains("All done."), "{}", stdout(&first));
    let before = parent_requests(&server);
    assert_eq!(before.len(), 4);
    let traces = sb.traces();
    assert_eq!(traces.len(), 1);
    let events_before = trace_events(&traces[0]);

    let second = sb.run_anthropic(
        &server.base_url(),
        &["--continue", "and now the second question"],
    );
    assert!(
        stdout(&second).contains("Second answer."),
        "{}\n{}",
        stdout(&second),
        stderr(&second)
    );
    let after = parent_requests(&server);
    assert_eq!(after.len(), 5);

    // The last request before, and the first after the resume.
    let last = before[3].json();
    let resumed = after[4].json();
    let sent_before = last["messages"].as_array().unwrap();
    let sent_after = resumed["messages"].as_array().unwrap();
    assert_eq!(sent_after.len(), sent_before.len() + 2);
    // The cache breakpoints move with the end of the conversation: the
    // resumed request marks where the last one ended (so the provider's
    // cache serves it) and its own end. Apart from them, the bytes match.
    let marked =
        |m: &Value| m["content"].as_array().unwrap().last().unwrap()["cache_control"].clone();
    assert_eq!(
        marked(&sent_after[sent_before.len() - 1]),
        json!({"type": "ephemeral"})
    );
    let mut prefix = resumed.clone();
    prefix["messages"] = Value::Array(sent_after[..sent_before.len()].to_vec());
    assert_eq!(
        serde_json::to_string(&without_breakpoints(prefix)).unwrap(),
        serde_json::to_string(&without_breakpoints(last.clone())).unwrap(),
        "the resumed request differs from the last one sent"
    );
    assert_eq!(
        sent_after[sent_before.len()],
        json!({"role": "assistant", "content": [{"type": "text", "text": "All done."}]})
    );
    assert_eq!(
        last_text(&resumed).as_deref(),
        Some("and now the second question")
    );
    // The denied call's refusal and the child's summary went back as before.
    let results = results_of(&resumed);
    assert_eq!(results.len(), 3);
    assert!(
        results[1]["content"]
            .as_str()
            .unwrap()
            .contains("Permission denied")
    );
    assert!(
        results[2]["content"]
            .as_str()
            .unwrap()
            .contains("The child found the notes.")
    );

    // One trace tells the whole story: the seam is marked, numbering goes on.
    assert_eq!(sb.traces(), traces, "the resumed session wrote a new trace");
    let events = trace_events(&traces[0]);
    assert_eq!(events[..events_before.len()], events_before[..]);
    let seam = &events[events_before.len()];
    assert_eq!(seam["type"], "resumed", "{seam}");
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&traces[0])
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(
        stderr(&second).contains(header["session"].as_str().unwrap()),
        "the resumed run does not name its session: {}",
        stderr(&second)
    );
}

#[test]
fn a_resumed_session_numbers_new_children_after_the_old_ones() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "remember the milk\n");
    let server = StreamServer::start(move |request, _| {
        let body = request.json();
        let stream = if !tool_names(&body).iter().any(|t| t == "task") {
            text_turn(300, "child answer")
        } else if body["messages"].as_array().unwrap().last().unwrap()["content"][0]["type"]
            == "text"
        {
            tool_turn(
                400,
                &[(
                    &format!("toolu_{}", results_of(&body).len()),
                    "task",
                    r#"{"prompt":"look","description":"look","subagent_type":"general"}"#,
                )],
            )
        } else {
            text_turn(500, "ok")
        };
        Reply::sse_per_event(&stream, std::time::Duration::ZERO)
    });
    sb.run_anthropic(&server.base_url(), &["first"]);
    let trace = sb.traces().remove(0);
    let id = serde_json::from_str::<Value>(
        std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap()["session"]
        .as_str()
        .unwrap()
        .to_string();
    // By the end of its id, as people type it.
    sb.run_anthropic(
        &server.base_url(),
        &["--resume", &id[id.len() - 6..], "second"],
    );
    let starts: Vec<String> = trace_events(&trace)
        .iter()
        .filter(|e| e["type"] == "subagent_start")
        .map(|e| e["agent"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(starts, ["sub-1", "sub-2"]);
}

#[test]
fn resuming_what_is_not_there_says_what_is() {
    let sb = Sandbox::new();
    let out = sb.run(&["run", "--provider", "offline", "--continue", "hello"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no brood session of this workspace"),
        "{}",
        stderr(&out)
    );
    let out = sb.run(&[
        "run",
        "--provider",
        "offline",
        "--resume",
        "nosuchid",
        "hello",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("nosuchid"), "{}", stderr(&out));
    assert!(sb.traces().is_empty());
}
