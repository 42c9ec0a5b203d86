use serde_json::json;

use super::*;
use crate::model::drive::{EventParser, Step};
use crate::model::http::RetryHint;

#[derive(Default)]
struct Collect {
    deltas: Vec<String>,
    thinking: Vec<String>,
}

impl StreamSink for Collect {
    fn text_delta(&mut self, text: &str) {
        self.deltas.push(text.to_string());
    }

    fn thinking_delta(&mut self, text: &str) {
        self.thinking.push(text.to_string());
    }
}

fn ev(kind: &str, data: Value) -> SseEvent {
    SseEvent {
        event: Some(kind.to_string()),
        data: data.to_string(),
    }
}

fn message_start(usage: Value) -> SseEvent {
    ev(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "content": [], "model": "claude-test",
            "stop_reason": null, "stop_sequence": null, "usage": usage}}),
    )
}

fn text_start(index: usize) -> SseEvent {
    ev(
        "content_block_start",
        json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "text", "text": ""}}),
    )
}

fn tool_start(index: usize, id: &str, name: &str) -> SseEvent {
    ev(
        "content_block_start",
        json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
    )
}

fn text_delta(index: usize, text: &str) -> SseEvent {
    ev(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "text_delta", "text": text}}),
    )
}

fn json_delta(index: usize, partial: &str) -> SseEvent {
    ev(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": partial}}),
    )
}

fn stop(index: usize) -> SseEvent {
    ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    )
}

fn message_delta(reason: &str, output_tokens: u64) -> SseEvent {
    ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
            "usage": {"output_tokens": output_tokens}}),
    )
}

fn message_stop() -> SseEvent {
    ev("message_stop", json!({"type": "message_stop"}))
}

fn error_event(kind: &str, message: &str) -> SseEvent {
    ev(
        "error",
        json!({"type": "error", "error": {"type": kind, "message": message}}),
    )
}

/// Feeds every event; panics on the first failure, and unless the reply is
/// done exactly at `message_stop`.
fn run(events: &[SseEvent]) -> (StreamParser, Collect) {
    let mut parser = StreamParser::new();
    let mut sink = Collect::default();
    for event in events {
        match parser.handle(event, &mut sink) {
            Err(f) => panic!("event {event:?} failed: {}", f.error),
            Ok(step) => assert_eq!(
                step == Step::Done,
                event.data.contains("\"message_stop\""),
                "{event:?}"
            ),
        }
    }
    (parser, sink)
}

/// Feeds events until one fails; returns that failure.
fn fail(events: &[SseEvent]) -> AttemptFailure {
    let mut parser = StreamParser::new();
    let mut sink = Collect::default();
    for event in events {
        if let Err(f) = parser.handle(event, &mut sink) {
            return f;
        }
    }
    panic!("no event failed");
}

fn usage(input: u64, output: u64) -> Value {
    json!({"input_tokens": input, "output_tokens": output})
}

#[test]
fn text_deltas_reach_the_sink_in_order_and_make_the_message() {
    let (parser, sink) = run(&[
        message_start(usage(12, 1)),
        text_start(0),
        ev("ping", json!({"type": "ping"})),
        text_delta(0, "héllo "),
        text_delta(0, "✓ 世界"),
        stop(0),
        message_delta("end_turn", 9),
        message_stop(),
    ]);
    assert_eq!(sink.deltas, ["héllo ", "✓ 世界"]);
    let response = parser.finish(0).unwrap();
    assert_eq!(response.message.role, Role::Assistant);
    assert_eq!(
        response.message.content,
        [ContentBlock::Text {
            text: "héllo ✓ 世界".into()
        }]
    );
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (12, 9)
    );
    assert!(!response.usage.estimated);
}

#[test]
fn tool_input_is_assembled_from_partial_json_pieces() {
    let pieces = [
        "",
        "{\"pat",
        "tern\": \"h",
        "éllo ✓",
        " 世界\", \"pa",
        "th\": \"src\"}",
    ];
    let mut events = vec![message_start(usage(5, 1)), text_start(0)];
    events.push(text_delta(0, "Searching."));
    events.push(stop(0));
    events.push(tool_start(1, "toolu_01", "grep"));
    events.extend(pieces.iter().map(|p| json_delta(1, p)));
    events.extend([stop(1), message_delta("tool_use", 40), message_stop()]);
    let (parser, _) = run(&events);
    let response = parser.finish(0).unwrap();
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    let calls = response.message.tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "toolu_01");
    assert_eq!(calls[0].name, "grep");
    assert_eq!(
        calls[0].input,
        json!({"pattern": "héllo ✓ 世界", "path": "src"})
    );
    assert_eq!(response.message.text(), "Searching.");
}

#[test]
fn a_tool_call_without_input_gets_an_empty_object() {
    let (parser, _) = run(&[
        message_start(usage(5, 1)),
        tool_start(0, "toolu_a", "glob"),
        json_delta(0, ""),
        stop(0),
        tool_start(1, "toolu_b", "glob"),
        stop(1),
        message_delta("tool_use", 20),
        message_stop(),
    ]);
    let calls = parser.finish(0).unwrap().message.tool_calls();
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.input == json!({})));
}

#[test]
fn usage_takes_cache_counts_and_the_cumulative_output_count() {
    let (parser, _) = run(&[
        message_start(
            json!({"input_tokens": 3, "cache_creation_input_tokens": 1200,
            "cache_read_input_tokens": 8000, "output_tokens": 1,
            "cache_creation": {"ephemeral_5m_input_tokens": 1200}, "service_tier": "standard"}),
        ),
        text_start(0),
        text_delta(0, "ok"),
        stop(0),
        message_delta("end_turn", 30),
        // Some streams carry more than one message_delta; each is a running total.
        message_delta("end_turn", 42),
        message_stop(),
    ]);
    let usage = parser.finish(0).unwrap().usage;
    assert_eq!(usage.input_tokens, 3);
    assert_eq!(usage.cache_write_tokens, 1200);
    assert_eq!(usage.cache_read_tokens, 8000);
    assert_eq!(usage.output_tokens, 42, "cumulative, not 1 + 30 + 42");
}

#[test]
fn null_cache_counts_and_missing_usage_are_tolerated() {
    let (parser, _) = run(&[
        message_start(
            json!({"input_tokens": 7, "cache_creation_input_tokens": null,
            "cache_read_input_tokens": null, "output_tokens": 1}),
        ),
        text_start(0),
        text_delta(0, "ok"),
        stop(0),
        ev(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
        ),
        message_stop(),
    ]);
    let usage = parser.finish(0).unwrap().usage;
    assert_eq!((usage.input_tokens, usage.output_tokens), (7, 1));
    assert_eq!((usage.cache_read_tokens, usage.cache_write_tokens), (0, 0));
}

#[test]
fn a_stream_without_any_usage_is_estimated_and_says_so() {
    let (parser, _) = run(&[
        ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": "m"}}),
        ),
        text_start(0),
        text_delta(0, "twelve chars"),
        stop(0),
        ev(
            "message_delta",
            json!({"type": "message_delta", "delta": {}}),
        ),
        message_stop(),
    ]);
    let response = parser.finish(100).unwrap();
    assert!(response.usage.estimated);
    assert_eq!(response.usage.input_tokens, 100);
    assert_eq!(response.usage.output_tokens, 3);
    assert_eq!(response.stop_reason, StopReason::EndTurn, "inferred");
}

#[test]
fn thinking_is_kept_with_its_signature_and_unknown_events_fields_and_deltas_are_ignored() {
    let (parser, sink) = run(&[
        message_start(usage(5, 1)),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
        ),
        ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "signature_delta", "signature": "abc"}}),
        ),
        stop(0),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1,
                "content_block": {"type": "redacted_thinking", "data": "xyz"}}),
        ),
        stop(1),
        ev(
            "brand_new_event",
            json!({"type": "brand_new_event", "whatever": [1, 2]}),
        ),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "future_field": true,
                "content_block": {"type": "text", "text": "", "citations": null}}),
        ),
        ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2,
                "delta": {"type": "citations_delta", "citation": {}}}),
        ),
        text_delta(2, "answer"),
        stop(2),
        // A `ping` whose `event:` line is missing.
        SseEvent {
            event: None,
            data: r#"{"type": "ping"}"#.into(),
        },
        message_delta("end_turn", 10),
        message_stop(),
    ]);
    assert_eq!(sink.deltas, ["answer"]);
    assert_eq!(sink.thinking, ["hmm"]);
    let response = parser.finish(0).unwrap();
    assert_eq!(
        response.message.content,
        [
            ContentBlock::Thinking {
                thinking: "hmm".into(),
                signature: "abc".into()
            },
            ContentBlock::RedactedThinking { data: "xyz".into() },
            ContentBlock::Text {
                text: "answer".into()
            }
        ]
    );
    assert_eq!(response.message.text(), "answer");
}

#[test]
fn an_empty_reply_has_no_blocks() {
    let (parser, _) = run(&[
        message_start(usage(5, 1)),
        text_start(0),
        stop(0),
        message_delta("end_turn", 1),
        message_stop(),
    ]);
    assert!(parser.finish(0).unwrap().message.content.is_empty());
}

#[test]
fn overload_before_output_is_retryable() {
    for kind in ["overloaded_error", "api_error"] {
        let failure = fail(&[message_start(usage(5, 1)), error_event(kind, "Overloaded")]);
        assert_eq!(failure.retry, RetryHint::Retry(None), "{kind}");
        let text = failure.error.to_string();
        assert!(text.contains(kind) && text.contains("Overloaded"), "{text}");
    }
}

#[test]
fn overload_after_output_fails_for_good_and_says_why() {
    let failure = fail(&[
        message_start(usage(5, 1)),
        text_start(0),
        text_delta(0, "partial"),
        error_event("overloaded_error", "Overloaded"),
    ]);
    assert_eq!(failure.retry, RetryHint::Never);
    let text = failure.error.to_string();
    assert!(text.contains("after output began"), "{text}");
    assert!(text.contains("overloaded_error"), "{text}");
}

#[test]
fn other_stream_errors_are_fatal_with_their_message() {
    let failure = fail(&[error_event("invalid_request_error", "prompt is too long")]);
    assert_eq!(failure.retry, RetryHint::Never);
    assert_eq!(
        failure.error,
        ModelError::Stream("the API reported invalid_request_error: prompt is too long".into())
    );
}

#[test]
fn malformed_json_names_the_event_and_the_parse_error() {
    let failure = fail(&[
        message_start(usage(5, 1)),
        SseEvent {
            event: Some("content_block_delta".into()),
            data: r#"{"type": "content_block_delta", "index": 0, "delta": {"#.into(),
        },
    ]);
    assert_eq!(failure.retry, RetryHint::Never);
    let text = failure.error.to_string();
    assert!(
        text.contains("malformed content_block_delta event"),
        "{text}"
    );
    assert!(text.contains("EOF"), "the parse error: {text}");
}

#[test]
fn a_known_event_of_the_wrong_shape_is_a_clear_error() {
    let failure = fail(&[ev(
        "content_block_start",
        json!({"type": "content_block_start", "content_block": {"type": "text"}}),
    )]);
    let text = failure.error.to_string();
    assert!(
        text.contains("malformed content_block_start event"),
        "{text}"
    );
    assert!(text.contains("index"), "{text}");
}

#[test]
fn deltas_for_blocks_that_never_started_are_errors() {
    let failure = fail(&[message_start(usage(5, 1)), text_delta(3, "x")]);
    assert!(failure.error.to_string().contains("content block 3"));
    let failure = fail(&[
        message_start(usage(5, 1)),
        tool_start(0, "t", "grep"),
        text_delta(0, "x"),
    ]);
    assert!(failure.error.to_string().contains("text_delta"));
}

#[test]
fn a_stream_that_ends_early_says_what_arrived() {
    let (parser, _) = run(&[
        message_start(usage(5, 1)),
        text_start(0),
        text_delta(0, "héllo"),
    ]);
    assert!(parser.output_started());
    let ModelError::Stream(text) = parser.finish(0).unwrap_err() else {
        panic!("not a stream error");
    };
    assert!(
        text.starts_with("the stream ended before message_stop"),
        "{text}"
    );
    assert!(text.contains("3 events"), "{text}");
    assert!(text.contains("content_block_delta"), "{text}");
    assert!(text.contains("5 characters of text"), "{text}");

    let ModelError::Stream(text) = StreamParser::new().finish(0).unwrap_err() else {
        panic!("not a stream error");
    };
    assert!(text.contains("no events arrived"), "{text}");
}

#[test]
fn max_tokens_keeps_a_cut_tool_input_as_a_string() {
    let (parser, _) = run(&[
        message_start(usage(5, 1)),
        tool_start(0, "toolu_cut", "write_file"),
        json_delta(0, "{\"path\": \"a.txt\", \"content\": \"héllo"),
        stop(0),
        message_delta("max_tokens", 64),
        message_stop(),
    ]);
    let response = parser.finish(0).unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    assert_eq!(
        response.message.tool_calls()[0].input,
        Value::String("{\"path\": \"a.txt\", \"content\": \"héllo".into())
    );
}

#[test]
fn other_stop_reasons_are_kept_by_name() {
    let (parser, _) = run(&[
        message_start(usage(5, 1)),
        message_delta("stop_sequence", 2),
        message_stop(),
    ]);
    assert_eq!(
        parser.finish(0).unwrap().stop_reason,
        StopReason::Other("stop_sequence".into())
    );
}

/// Found by fuzzing (fuzz/artifacts, kept in fuzz/corpus/sse_anthropic): a
/// second `content_block_start` for an index that already streamed text
/// reset the block, so the answer lost text the user had seen. It is a
/// malformed stream, said as such.
#[test]
fn a_block_started_twice_is_a_stream_error_not_lost_text() {
    let failure = fail(&[
        message_start(usage(5, 1)),
        text_start(0),
        text_delta(0, "Hello"),
        text_start(0),
        text_delta(0, " world"),
    ]);
    assert_eq!(failure.retry, RetryHint::Never);
    assert!(
        failure
            .error
            .to_string()
            .contains("started content block 0 twice"),
        "{}",
        failure.error
    );
}

/// Found by fuzzing (fuzz/corpus/sse_anthropic keeps the input): text
/// blocks started out of index order, or deltas sent back to an earlier
/// block, made an answer whose text was in another order than the user saw
/// it stream. The API streams one block at a time, in order: anything else
/// is a malformed stream, said as such.
#[test]
fn blocks_out_of_order_or_interleaved_are_a_stream_error_not_reordered_text() {
    for (events, said) in [
        (
            vec![
                message_start(usage(5, 1)),
                text_start(5),
                text_delta(5, "Hello"),
                text_start(0),
                text_delta(0, " world"),
            ],
            "started content block 0 after block 5",
        ),
        (
            vec![
                message_start(usage(5, 1)),
                text_start(0),
                text_delta(0, "Hello"),
                text_start(1),
                text_delta(1, " world"),
                text_delta(0, "!"),
            ],
            "sent a delta for content block 0 after block 1 started",
        ),
    ] {
        let failure = fail(&events);
        assert_eq!(failure.retry, RetryHint::Never);
        assert!(
            failure.error.to_string().contains(said),
            "{}",
            failure.error
        );
    }
}
