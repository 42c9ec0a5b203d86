//! Anthropic Messages stream events, hand-written in the documented wire
//! format, for tests that play a model over a local server.

use serde_json::{Value, json};

use super::stream_server::{Reply, StreamServer, sse_event};

pub fn message_start(input_tokens: u64) -> String {
    sse_event(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_e2e", "type": "message",
            "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": input_tokens,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
    )
}

pub fn text_block(index: usize, pieces: &[&str]) -> String {
    let mut out = sse_event(
        "content_block_start",
        &json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "text", "text": ""}}),
    );
    for piece in pieces {
        out += &sse_event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "text_delta", "text": piece}}),
        );
    }
    out + &block_stop(index)
}

pub fn tool_block(index: usize, id: &str, name: &str, json_pieces: &[&str]) -> String {
    let mut out = sse_event(
        "content_block_start",
        &json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
    );
    for piece in json_pieces {
        out += &sse_event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece}}),
        );
    }
    out + &block_stop(index)
}

pub fn block_stop(index: usize) -> String {
    sse_event(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": index}),
    )
}

pub fn message_end(stop_reason: &str, output_tokens: u64) -> String {
    sse_event(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason,
            "stop_sequence": null}, "usage": {"output_tokens": output_tokens}}),
    ) + &sse_event("message_stop", &json!({"type": "message_stop"}))
}

pub fn ping() -> String {
    sse_event("ping", &json!({"type": "ping"}))
}

/// The tool names a request offers, sorted.
pub fn tool_names(body: &Value) -> Vec<String> {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let mut names: Vec<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// Whether some user turn answers a tool call.
pub fn answered(body: &Value) -> bool {
    body["messages"].as_array().unwrap().iter().any(|m| {
        m["role"] == "user"
            && m["content"]
                .as_array()
                .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"))
    })
}

/// A request's system prompt, from a string or from text blocks.
pub fn system_text(body: &Value) -> String {
    match &body["system"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A whole answer of one text block.
pub fn text_turn(input_tokens: u64, text: &str) -> String {
    [
        message_start(input_tokens),
        text_block(0, &[text]),
        message_end("end_turn", 5),
    ]
    .concat()
}

/// A whole answer of tool calls, each `(id, name, input as JSON)`.
pub fn tool_turn(input_tokens: u64, calls: &[(&str, &str, &str)]) -> String {
    let mut out = message_start(input_tokens);
    for (i, (id, name, input)) in calls.iter().enumerate() {
        out += &tool_block(i, id, name, &[input]);
    }
    out + &message_end("tool_use", 20)
}

/// The `tool_result` blocks of a request's messages, in order.
pub fn results_of(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .collect()
}

/// A model that makes each of `calls` (`(tool, input)`) in turn, one per
/// request, then ends with "All done.".
pub fn calls_in_turn(calls: Vec<(&'static str, Value)>) -> StreamServer {
    StreamServer::start(move |request, _| {
        let done = results_of(&request.json()).len();
        let stream = match calls.get(done) {
            Some((name, input)) => {
                tool_turn(400, &[(&format!("toolu_{done}"), name, &input.to_string())])
            }
            None => text_turn(500, "All done."),
        };
        Reply::sse_per_event(&stream, std::time::Duration::ZERO)
    })
}

/// A request body without its `cache_control` marks: they move with the end
/// of the conversation, so two requests that send the same history differ
/// only in them.
pub fn without_breakpoints(mut body: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("cache_control");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    strip(&mut body);
    body
}

/// The text of the request's last message, if it has any.
pub fn last_text(body: &Value) -> Option<String> {
    let last = body["messages"].as_array()?.last()?;
    last["content"]
        .as_array()?
        .iter()
        .find(|b| b["type"] == "text")
        .and_then(|b| b["text"].as_str())
        .map(String::from)
}
