//! Compaction through the binary against a loopback Anthropic server: the
//! parent's history fills past `compact_at` of the window, the model is asked
//! for a summary, the next request carries the summary and the last call,
//! and a resumed session rebuilds exactly that history.

mod common;

use common::anthropic_sse::{last_text, results_of, text_turn, tool_turn, without_breakpoints};
use common::stream_server::{RecordedRequest, Reply, StreamServer};
use common::{Sandbox, stdout, trace_events};
use serde_json::Value;

const SUMMARY: &str = "SUMMARY: big.txt was read four times; it lists the config keys.";

fn first_text(body: &Value) -> String {
    body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn is_compaction(body: &Value) -> bool {
    last_text(body)
        .unwrap_or_default()
        .starts_with("Your context is nearly full")
}

/// Reads big.txt until four results are in, then answers; a compaction
/// request gets the summary; after it, and for the next prompt, an answer.
fn server() -> StreamServer {
    StreamServer::start(|request, _| {
        let body = request.json();
        let stream = if is_compaction(&body) {
            text_turn(100, SUMMARY)
        } else if last_text(&body).unwrap_or_default() == "and the next question" {
            text_turn(100, "Next answer.")
        } else if first_text(&body).starts_with("This conversation was compacted") {
            text_turn(100, "All done.")
        } else {
            let n = results_of(&body).len();
            tool_turn(
                100,
                &[(&format!("toolu_{n}"), "read_file", r#"{"path":"big.txt"}"#)],
            )
        };
        Reply::sse_per_event(&stream, std::time::Duration::ZERO)
    })
}

#[test]
fn a_filling_history_is_summarised_and_a_resume_rebuilds_the_summary() {
    let sb = Sandbox::new();
    // A 12k window compacted at half: 6k tokens. Each read adds about 1.1k.
    sb.write("brood.toml", "context_window = 12000\ncompact_at = 50\n");
    let line = "config key: a value that the project reads at start-up, see src/config.rs\n";
    sb.write("big.txt", &line.repeat(55));
    let server = server();
    let out = sb.run_anthropic(&server.base_url(), &["read big.txt"]);
    assert!(stdout(&out).contains("All done."), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("── compacted: about"),
        "{}",
        stdout(&out)
    );

    let requests: Vec<RecordedRequest> = server.requests();
    let bodies: Vec<Value> = requests.iter().map(RecordedRequest::json).collect();
    let at = bodies
        .iter()
        .position(is_compaction)
        .expect("no compaction request");
    // The summary is asked with the same system prompt and tools, after the
    // whole history.
    assert_eq!(bodies[at]["tools"], bodies[0]["tools"]);
    assert_eq!(bodies[at]["system"], bodies[0]["system"]);
    assert_eq!(results_of(&bodies[at]).len(), 4);
    // Then: the summary, the last call and its result.
    let after = &bodies[at + 1];
    let messages = after["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{after}");
    assert!(first_text(after).ends_with(SUMMARY), "{after}");
    assert_eq!(results_of(after).len(), 1);
    assert_eq!(results_of(after)[0]["tool_use_id"], "toolu_3");

    let trace = sb.traces().remove(0);
    let compacted: Vec<Value> = trace_events(&trace)
        .into_iter()
        .filter(|e| e["type"] == "compacted")
        .collect();
    assert_eq!(compacted.len(), 1);
    let event = &compacted[0];
    assert_eq!(event["trigger"], "auto");
    assert_eq!(event["kept_messages"], 2);
    assert_eq!(event["summary"], SUMMARY);
    let (before, after_tokens) = (
        event["before_tokens"].as_u64().unwrap(),
        event["after_tokens"].as_u64().unwrap(),
    );
    assert!(before > 6000 && after_tokens < 6000, "{event}");

    // A resume rebuilds the compacted history, not the whole one.
    sb.run_anthropic(&server.base_url(), &["--continue", "and the next question"]);
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(RecordedRequest::json)
        .collect();
    let last_before = without_breakpoints(bodies[bodies.len() - 2].clone());
    let resumed = without_breakpoints(bodies[bodies.len() - 1].clone());
    let sent = resumed["messages"].as_array().unwrap();
    assert_eq!(sent.len(), 5, "{resumed}");
    let mut prefix = resumed.clone();
    prefix["messages"] = Value::Array(sent[..3].to_vec());
    assert_eq!(prefix, last_before);
    assert_eq!(
        last_text(&resumed).unwrap_or_default(),
        "and the next question"
    );

    let replay = stdout(&sb.run(&["replay", "--print", trace.to_str().unwrap()]));
    assert!(replay.contains("── compacted: about"), "{replay}");
}
