//! The stream parser fed event by event, one server quirk per test.

use serde_json::{Value, json};

use super::stream::{StreamParser, parse_arguments};
use crate::event::{AgentId, Usage};
use crate::model::drive::{EventParser, Step};
use crate::model::http::RetryHint;
use crate::model::sse::SseEvent;
use crate::model::{
    ContentBlock, Message, ModelError, ModelRequest, ModelResponse, StopReason, StreamSink,
};

#[derive(Default)]
struct Collect(Vec<String>);

impl StreamSink for Collect {
    fn text_delta(&mut self, text: &str) {
        self.0.push(text.to_string());
    }
}

fn request() -> ModelRequest<'static> {
    ModelRequest {
        agent: AgentId::Main,
        model: "m".into(),
        system: "sys".into(),
        messages: vec![Message::user_text("question")].into(),
        tools: vec![].into(),
        max_tokens: 100,
    }
}

fn data(value: Value) -> SseEvent {
    SseEvent {
        event: None,
        data: value.to_string(),
    }
}

fn done() -> SseEvent {
    SseEvent {
        event: None,
        data: "[DONE]".into(),
    }
}

fn delta(delta: Value) -> SseEvent {
    data(json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]}))
}

fn finish(reason: &str) -> SseEvent {
    data(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}))
}

fn run(events: Vec<SseEvent>) -> (Result<ModelResponse, ModelError>, Vec<String>) {
    let mut parser = StreamParser::new();
    let mut sink = Collect::default();
    for event in &events {
        match parser.handle(event, &mut sink) {
            Ok(Step::Continue) => {}
            Ok(Step::Done) => break,
            Err(failure) => return (Err(failure.error), sink.0),
        }
    }
    (parser.finish(&request()), sink.0)
}

fn calls(response: &ModelResponse) -> Vec<(String, String, Value)> {
    response
        .message
        .tool_calls()
        .into_iter()
        .map(|c| (c.id, c.name, c.input))
        .collect()
}

#[test]
fn text_goes_to_the_sink_as_it_arrives_and_usage_excludes_cached_input() {
    let (response, deltas) = run(vec![
        delta(json!({"role": "assistant", "content": ""})),
        delta(json!({"content": "Hel"})),
        delta(json!({"reasoning_content": "thinking…", "content": null})),
        delta(json!({"content": "lo"})),
        finish("stop"),
        data(
            json!({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 7,
            "prompt_tokens_details": {"cached_tokens": 60}}}),
        ),
        done(),
    ]);
    let response = response.unwrap();
    assert_eq!(deltas, ["Hel", "lo"]);
    // Reasoning is kept apart from the answer (and never sent back).
    assert_eq!(
        response.message.content,
        [
            ContentBlock::Thinking {
                thinking: "thinking…".into(),
                signature: String::new()
            },
            ContentBlock::Text {
                text: "Hello".into()
            }
        ]
    );
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 40,
            output_tokens: 7,
            cache_read_tokens: 60,
            cache_write_tokens: 0,
            reasoning_tokens: 0,
            estimated: false,
        }
    );
}

#[test]
fn incremental_calls_are_assembled_by_index() {
    let (response, _) = run(vec![
        delta(
            json!({"tool_calls": [{"index": 0, "id": "a", "type": "function",
            "function": {"name": "grep", "arguments": ""}}]}),
        ),
        delta(
            json!({"tool_calls": [{"index": 1, "id": "b", "type": "function",
            "function": {"name": "glob", "arguments": "{\"pat"}}]}),
        ),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"pattern\":"}}]})),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"x\"}"}}]})),
        delta(json!({"tool_calls": [{"index": 1, "function": {"arguments": "tern\":\"*\"}"}}]})),
        finish("tool_calls"),
        done(),
    ]);
    let response = response.unwrap();
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        calls(&response),
        [
            ("a".into(), "grep".into(), json!({"pattern": "x"})),
            ("b".into(), "glob".into(), json!({"pattern": "*"})),
        ]
    );
}

#[test]
fn parallel_calls_all_at_index_zero_are_split_by_their_ids() {
    // Same tool twice, so only the new id tells the calls apart.
    let (response, _) = run(vec![
        delta(json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "grep"}}]})),
        delta(json!({"tool_calls": [{"index": 0, "id": "a", "function": {"arguments": "{}"}}]})),
        delta(json!({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "grep"}}]})),
        delta(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"pattern\":\"*\"}"}}]}),
        ),
        finish("tool_calls"),
    ]);
    let response = response.unwrap();
    assert_eq!(
        calls(&response),
        [
            ("a".into(), "grep".into(), json!({})),
            ("b".into(), "grep".into(), json!({"pattern": "*"})),
        ]
    );
    assert!(response.usage.estimated, "no usage chunk was sent");
}

#[test]
fn calls_without_index_follow_their_order_and_missing_ids_are_generated() {
    let (response, _) = run(vec![
        delta(json!({"tool_calls": [
            {"function": {"name": "grep", "arguments": "{\"pattern\":"}},
        ]})),
        // The first fragment continues the open call; a second one in the same
        // delta can only be a call of its own, even with the same name.
        delta(json!({"tool_calls": [
            {"function": {"arguments": "\"a\"}"}},
            {"function": {"name": "grep", "arguments": "{\"pattern\":\"b\"}"}},
        ]})),
        delta(json!({"tool_calls": [{"id": "z", "function": {"name": "glob", "arguments": "{"}}]})),
        delta(json!({"tool_calls": [{"function": {"arguments": "}"}}]})),
        finish("stop"),
    ]);
    let response = response.unwrap();
    // "stop" after calls still means the model wants them run.
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    let calls = calls(&response);
    let inputs: Vec<_> = calls.iter().map(|c| (c.1.as_str(), c.2.clone())).collect();
    assert_eq!(
        inputs,
        [
            ("grep", json!({"pattern": "a"})),
            ("grep", json!({"pattern": "b"})),
            ("glob", json!({})),
        ]
    );
    assert!(calls[0].0.starts_with("call_"), "{}", calls[0].0);
    assert!(calls[1].0.starts_with("call_"), "{}", calls[1].0);
    assert_ne!(calls[0].0, calls[1].0);
    assert_eq!(calls[2].0, "z");
}

#[test]
fn a_cut_off_answer_is_max_tokens_with_the_raw_arguments_kept() {
    let (response, _) = run(vec![
        delta(json!({"tool_calls": [{"index": 0, "id": "a",
            "function": {"name": "grep", "arguments": "{\"pattern\": \"unfini"}}]})),
        finish("length"),
        done(),
    ]);
    let response = response.unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    assert_eq!(calls(&response)[0].2, json!("{\"pattern\": \"unfini"));
}

#[test]
fn estimated_usage_counts_the_request_and_the_output() {
    let (response, _) = run(vec![delta(json!({"content": "12345678"})), finish("stop")]);
    let usage = response.unwrap().usage;
    assert!(usage.estimated);
    assert_eq!(usage.output_tokens, 2);
    assert_eq!(usage.input_tokens, request().estimate_input_tokens());
}

#[test]
fn a_close_before_any_finish_reason_is_a_clear_stream_error() {
    let (response, _) = run(vec![delta(json!({"content": "partial"}))]);
    match response {
        Err(ModelError::Stream(message)) => assert!(message.contains("incomplete"), "{message}"),
        other => panic!("{other:?}"),
    }
    let (response, _) = run(vec![]);
    match response {
        Err(ModelError::Stream(message)) => assert!(message.contains("any events"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_json_fails_cleanly() {
    let mut parser = StreamParser::new();
    let event = SseEvent {
        event: None,
        data: "{\"choices\": [".into(),
    };
    let failure = parser.handle(&event, &mut Collect::default()).unwrap_err();
    assert_eq!(failure.retry, RetryHint::Never);
    assert!(matches!(failure.error, ModelError::Stream(m) if m.contains("not valid JSON")));
}

#[test]
fn error_objects_are_retryable_only_when_transient_and_before_output() {
    let feed = |events: Vec<SseEvent>| {
        let mut parser = StreamParser::new();
        let mut sink = Collect::default();
        events
            .iter()
            .map(|e| parser.handle(e, &mut sink))
            .find_map(Result::err)
            .unwrap()
    };
    let overloaded = data(json!({"error": {"message": "The server is overloaded", "type": null}}));
    let rate = data(json!({"error": {"message": "slow down", "code": "rate_limit_exceeded"}}));
    let numeric = data(json!({"error": {"message": "boom", "code": 503}}));
    for event in [overloaded.clone(), rate, numeric] {
        assert!(matches!(feed(vec![event]).retry, RetryHint::Retry(None)));
    }
    let invalid = feed(vec![data(json!({"error": {"message": "bad tool schema",
        "type": "invalid_request_error"}}))]);
    assert_eq!(invalid.retry, RetryHint::Never);
    assert!(invalid.error.to_string().contains("bad tool schema"));
    let late = feed(vec![delta(json!({"content": "hi"})), overloaded]);
    assert_eq!(late.retry, RetryHint::Never);
    assert!(
        late.error.to_string().contains("after output had started"),
        "{}",
        late.error
    );
}

#[test]
fn unknown_fields_and_extra_choices_are_ignored() {
    let (response, deltas) = run(vec![
        data(json!({"id": "x", "system_fingerprint": "fp", "choices": [
            {"index": 1, "delta": {"content": "other choice"}},
            {"index": 0, "delta": {"content": "mine", "refusal": null}, "logprobs": null},
        ]})),
        data(
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": null}),
        ),
        done(),
    ]);
    assert_eq!(deltas, ["mine"]);
    assert_eq!(response.unwrap().message.text(), "mine");
}

#[test]
fn arguments_parse_to_objects_empty_or_raw_strings() {
    assert_eq!(parse_arguments(""), json!({}));
    assert_eq!(parse_arguments(" {\"a\": 1} "), json!({"a": 1}));
    assert_eq!(parse_arguments("{\"a\": "), json!("{\"a\": "));
    assert_eq!(parse_arguments("null"), json!({}));
    assert_eq!(parse_arguments("\"{\\\"a\\\": 1}\""), json!({"a": 1}));
    assert_eq!(parse_arguments("[1, 2]"), json!("[1, 2]"));
    assert_eq!(parse_arguments("\"just text\""), json!("\"just text\""));
}
