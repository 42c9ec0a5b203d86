//! What a session cost, in dollars: priced per model from the provider's
//! usage, shown by `brood run` and `brood traces`, and spent by a child's
//! `cost_budget_usd` until it stops.

mod common;

use common::anthropic_sse::{message_end, results_of, text_block, tool_names, tool_turn};
use common::stream_server::{Reply, StreamServer, sse_event};
use common::{Sandbox, stderr, stdout, trace_events};
use serde_json::json;

/// An answer with the usage a cached request reports.
fn priced_turn(input: u64, written: u64, read: u64, text: &str) -> String {
    sse_event(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "content": [], "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": input, "cache_creation_input_tokens": written,
                "cache_read_input_tokens": read, "output_tokens": 1}}}),
    ) + &text_block(0, &[text])
        + &message_end("end_turn", 10_000)
}

#[test]
fn the_closing_line_and_the_listing_say_what_the_session_cost() {
    let sb = Sandbox::new();
    let server = StreamServer::start(|_, _| {
        Reply::sse_per_event(
            &priced_turn(100_000, 200_000, 1_000_000, "Done."),
            std::time::Duration::ZERO,
        )
    });
    let out = sb.run_anthropic(
        &server.base_url(),
        &["--model", "claude-sonnet-4-5-20250929", "go"],
    );
    // 0.1M in at $3, 10k out at $15, 0.2M written at $3.75, 1M read at $0.30.
    let expected = 0.3 + 0.15 + 0.75 + 0.3;
    let text = stdout(&out);
    assert!(text.contains("cost $1.50"), "{text}");
    let listing = stdout(&sb.run(&["traces"]));
    assert!(
        listing.contains("COST") && listing.contains("$1.50"),
        "{listing}"
    );
    let json = stdout(&sb.run(&["traces", "--json"]));
    let line: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert!(
        (line["cost_usd"].as_f64().unwrap() - expected).abs() < 1e-9,
        "{line}"
    );
}

#[test]
fn a_model_without_a_price_shows_tokens_only() {
    let sb = Sandbox::new();
    let server = StreamServer::start(|_, _| {
        Reply::sse_per_event(
            &priced_turn(1_000, 0, 0, "Done."),
            std::time::Duration::ZERO,
        )
    });
    let out = sb.run_anthropic(&server.base_url(), &["--model", "house-model-7", "go"]);
    assert!(!stdout(&out).contains('$'), "{}", stdout(&out));
    let listing = stdout(&sb.run(&["traces"]));
    assert!(!listing.contains('$'), "{listing}");
}

#[test]
fn a_child_over_its_cost_budget_stops_with_cost_budget() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "a note\n");
    sb.write(
        "brood.toml",
        "[profiles.thrifty]\ndescription = \"looks, cheaply\"\ncost_budget_usd = 0.05\n",
    );
    // Every child request reads 100k tokens ($0.30 at Sonnet's price): the
    // first spends the budget, so the second is never sent.
    let server = StreamServer::start(|request, _| {
        let body = request.json();
        let stream = if tool_names(&body).iter().any(|t| t == "task") {
            match results_of(&body).len() {
                0 => tool_turn(
                    400,
                    &[(
                        "toolu_task",
                        "task",
                        r#"{"prompt":"look","description":"look","subagent_type":"thrifty"}"#,
                    )],
                ),
                _ => priced_turn(500, 0, 0, "ok"),
            }
        } else {
            sse_event(
                "message_start",
                &json!({"type": "message_start", "message": {"id": "m", "type": "message",
                    "role": "assistant", "content": [], "model": "claude-sonnet-4-5",
                    "usage": {"input_tokens": 100_000, "output_tokens": 1}}}),
            ) + &common::anthropic_sse::tool_block(
                0,
                &format!("toolu_c{}", results_of(&body).len()),
                "read_file",
                &[r#"{"path":"notes.txt"}"#],
            ) + &message_end("tool_use", 10)
        };
        Reply::sse_per_event(&stream, std::time::Duration::ZERO)
    });
    let out = sb.run_anthropic(
        &server.base_url(),
        &["--model", "claude-sonnet-4-5", "look around"],
    );
    let trace = sb.traces().remove(0);
    let end = trace_events(&trace)
        .into_iter()
        .find(|e| e["type"] == "subagent_end")
        .unwrap_or_else(|| panic!("no child ended: {}", stderr(&out)));
    assert_eq!(end["reason"], "cost_budget", "{end}");
    assert_eq!(end["steps"], 1, "{end}");
    assert!(end["summary"].as_str().unwrap().contains("$0.05"), "{end}");
    let child_requests = server
        .requests()
        .iter()
        .filter(|r| !tool_names(&r.json()).iter().any(|t| t == "task"))
        .count();
    assert_eq!(child_requests, 1);
}
