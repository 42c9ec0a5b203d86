//! The Chat Completions stream as a pure state machine: each SSE event's data goes
//! in, text deltas go to the sink at once, and the assembled message comes out at
//! the end. Kept free of I/O so every server quirk can be unit-tested on its own.
//!
//! Real servers disagree on the details, so the parser is lenient where the
//! meaning is still clear: tool-call fragments are matched by `index`, but a new
//! `id` at a known index starts a new call (vLLM and some proxies number parallel
//! calls all `0`), fragments without an index continue the latest call unless they
//! carry a new id, a whole call may arrive in one chunk (Ollama), and a stream may
//! end without `[DONE]` once a `finish_reason` was seen (llama.cpp).

use crate::protocol::estimate_tokens;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use crate::event::Usage;
use crate::model::drive::{EventParser, Step};
use crate::model::http::{AttemptFailure, retryable_status};
use crate::model::sse::SseEvent;
use crate::model::{
    ContentBlock, Message, ModelError, ModelRequest, ModelResponse, Role, StopReason, StreamSink,
};

/// Ids for calls a server sent without one; process-wide so that two responses in
/// one conversation never hand the model the same id twice.
static GENERATED_IDS: AtomicU64 = AtomicU64::new(1);

/// One tool call being assembled from fragments.
#[derive(Debug, Default)]
struct PartialCall {
    index: Option<u64>,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// The state of one streamed response.
#[derive(Debug, Default)]
pub struct StreamParser {
    text: String,
    /// `reasoning_content` (DeepSeek, vLLM, llama.cpp) or `reasoning`
    /// (Ollama, OpenRouter) pieces: shown and kept, never sent back.
    reasoning: String,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
    /// Any event at all was read (to tell "not a stream" from "cut short").
    events: usize,
    /// Pieces of the reply that arrived (text, reasoning, tool-call fragments,
    /// usage, a finish reason): the idle timer restarts only when this grows,
    /// never on keep-alive chunks with an empty delta.
    progress: u64,
}

impl EventParser for StreamParser {
    fn handle(
        &mut self,
        event: &SseEvent,
        sink: &mut dyn StreamSink,
    ) -> Result<Step, AttemptFailure> {
        self.feed(event, sink)
    }

    /// Pieces of the reply that arrived (see the field).
    fn progress(&self) -> u64 {
        self.progress
    }

    /// Whether anything the model produced has arrived: after that a retry would
    /// repeat visible text, so failures are final.
    fn output_started(&self) -> bool {
        !self.text.is_empty() || !self.calls.is_empty()
    }
}

impl StreamParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one SSE event (see [`EventParser::handle`]); `[DONE]` ends it.
    fn feed(
        &mut self,
        event: &SseEvent,
        sink: &mut dyn StreamSink,
    ) -> Result<Step, AttemptFailure> {
        self.events += 1;
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            self.progress += 1;
            return Ok(Step::Done);
        }
        if data.is_empty() {
            return Ok(Step::Continue);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            AttemptFailure::fatal(ModelError::Stream(format!(
                "the model's stream sent a chunk that is not valid JSON ({e}): {}",
                preview(data)
            )))
        })?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(self.stream_error(error));
        }
        if event.event.as_deref() == Some("error") {
            return Err(self.stream_error(&chunk));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(read_usage(usage));
            self.progress += 1;
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        // We ask for one choice; a server echoing `n` > 1 only gets its first read.
        for choice in choices.into_iter().flatten() {
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue;
            }
            if let Some(delta) = choice.get("delta").or_else(|| choice.get("message")) {
                self.delta(delta, sink);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_string());
                self.progress += 1;
            }
        }
        Ok(Step::Continue)
    }

    /// One `delta`: text, reasoning, tool-call fragments.
    fn delta(&mut self, delta: &Value, sink: &mut dyn StreamSink) {
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            self.text.push_str(text);
            sink.text_delta(text);
            self.progress += 1;
        }
        // A server sends one of the two names; the first that holds text.
        let reasoning = ["reasoning_content", "reasoning"]
            .iter()
            .filter_map(|key| delta.get(*key).and_then(Value::as_str))
            .find(|text| !text.is_empty());
        if let Some(text) = reasoning {
            self.reasoning.push_str(text);
            sink.thinking_delta(text);
            self.progress += 1;
        }
        let fragments = delta.get("tool_calls").and_then(Value::as_array);
        for (position, fragment) in fragments.into_iter().flatten().enumerate() {
            self.fragment(fragment, position > 0);
            self.progress += 1;
        }
        // The deprecated single `function_call` shape, still sent by some servers.
        if let Some(function) = delta.get("function_call").filter(|f| f.is_object()) {
            self.fragment(
                &serde_json::json!({ "index": 0, "function": function }),
                false,
            );
        }
    }

    /// One tool-call fragment. `later_in_delta` is set for all but the first
    /// fragment of a delta: one delta never holds two pieces of the same call, so
    /// an index-less fragment there starts a call of its own.
    fn fragment(&mut self, fragment: &Value, later_in_delta: bool) {
        let index = fragment.get("index").and_then(Value::as_u64);
        let id = fragment
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let function = fragment.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        let current = match index {
            Some(i) => self.calls.iter().rposition(|c| c.index == Some(i)),
            None if later_in_delta => None,
            None => self.calls.len().checked_sub(1),
        };
        let continues = current.is_some_and(|at| {
            let call = &self.calls[at];
            let same_id = match (id, &call.id) {
                (Some(new), Some(old)) => new == old,
                _ => true,
            };
            let same_name = match name {
                Some(new) => call.name.is_empty() || call.name == new,
                None => true,
            };
            same_id && same_name
        });
        let at = match current {
            Some(at) if continues => at,
            _ => {
                self.calls.push(PartialCall {
                    index,
                    ..PartialCall::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[at];
        if call.id.is_none() {
            call.id = id.map(String::from);
        }
        if call.name.is_empty()
            && let Some(name) = name
        {
            call.name = name.to_string();
        }
        match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(more)) => call.arguments.push_str(more),
            // Not the documented shape, but its meaning is plain.
            Some(Value::Null) | None => {}
            Some(object) => call.arguments.push_str(&object.to_string()),
        }
    }

    /// An `{"error": …}` object in the stream: retryable when it looks transient
    /// and nothing was produced yet, otherwise final.
    fn stream_error(&self, error: &Value) -> AttemptFailure {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| error.as_str())
            .map(String::from)
            .unwrap_or_else(|| preview(&error.to_string()));
        if self.output_started() {
            return AttemptFailure::fatal(ModelError::Stream(format!(
                "the model's stream failed after output had started: {message}"
            )));
        }
        let failure =
            ModelError::Stream(format!("the model's stream reported an error: {message}"));
        if looks_transient(error, &message) {
            AttemptFailure::retryable(failure, None)
        } else {
            AttemptFailure::fatal(failure)
        }
    }

    /// Builds the response once the stream is over, by `[DONE]` or by the server
    /// closing it; the latter is accepted only after a `finish_reason`.
    pub fn finish(self, request: &ModelRequest) -> Result<ModelResponse, ModelError> {
        if !self.done && self.finish_reason.is_none() {
            return Err(ModelError::Stream(
                match (self.events, self.output_started()) {
                    (0, _) => "the server closed the response without sending any events; \
                           is the base URL an OpenAI-compatible /v1 endpoint?"
                        .to_string(),
                    (_, false) => {
                        "the model's stream ended before any output or finish_reason".to_string()
                    }
                    (_, true) => "the model's stream ended before a finish_reason or [DONE]; \
                              the answer is incomplete"
                        .to_string(),
                },
            ));
        }
        let stop_reason = match self.finish_reason.as_deref() {
            Some("length") => StopReason::MaxTokens,
            Some("tool_calls" | "function_call") => StopReason::ToolUse,
            Some("stop" | "eos" | "end_turn") | None if !self.calls.is_empty() => {
                StopReason::ToolUse
            }
            Some("stop" | "eos" | "end_turn") | None => StopReason::EndTurn,
            Some(other) => StopReason::Other(other.to_string()),
        };
        let usage = match self.usage {
            Some(usage) => usage,
            None => Usage {
                input_tokens: request.estimate_input_tokens(),
                output_tokens: estimate_tokens(&self.text)
                    + self
                        .calls
                        .iter()
                        .map(|c| estimate_tokens(&c.name) + estimate_tokens(&c.arguments))
                        .sum::<u64>(),
                estimated: true,
                ..Usage::default()
            },
        };
        let mut content = Vec::new();
        if !self.reasoning.is_empty() {
            content.push(ContentBlock::Thinking {
                thinking: self.reasoning,
                signature: String::new(),
            });
        }
        if !self.text.is_empty() {
            content.push(ContentBlock::Text { text: self.text });
        }
        for call in self.calls {
            content.push(ContentBlock::ToolUse {
                id: call.id.unwrap_or_else(|| {
                    format!("call_{}", GENERATED_IDS.fetch_add(1, Ordering::Relaxed))
                }),
                name: call.name,
                input: parse_arguments(&call.arguments),
            });
        }
        Ok(ModelResponse {
            message: Message {
                role: Role::Assistant,
                content,
            },
            usage,
            stop_reason,
        })
    }
}

/// Whether a stream error object describes a passing condition (overload, rate
/// limit, server fault) rather than a problem with the request.
fn looks_transient(error: &Value, message: &str) -> bool {
    const KINDS: [&str; 8] = [
        "server_error",
        "rate_limit_exceeded",
        "rate_limit_error",
        "overloaded_error",
        "overloaded",
        "internal_error",
        "service_unavailable",
        "timeout",
    ];
    let named = ["type", "code"]
        .iter()
        .any(|field| match error.get(*field) {
            Some(Value::String(kind)) => KINDS.contains(&kind.to_ascii_lowercase().as_str()),
            Some(Value::Number(code)) => code
                .as_u64()
                .and_then(|c| u16::try_from(c).ok())
                .is_some_and(retryable_status),
            _ => false,
        });
    let message = message.to_lowercase();
    named
        || ["overloaded", "rate limit", "try again"]
            .iter()
            .any(|hint| message.contains(hint))
}

/// `usage` as OpenAI reports it. `prompt_tokens` includes the cached ones, which
/// brood counts separately, so they are taken out of the input count.
fn read_usage(usage: &Value) -> Usage {
    let count = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let prompt = count(usage.get("prompt_tokens"));
    let cached = count(
        usage
            .get("prompt_tokens_details")
            .and_then(|d| d.get("cached_tokens")),
    )
    .min(prompt);
    let output = count(usage.get("completion_tokens"));
    Usage {
        input_tokens: prompt - cached,
        output_tokens: output,
        cache_read_tokens: cached,
        reasoning_tokens: count(
            usage
                .get("completion_tokens_details")
                .and_then(|d| d.get("reasoning_tokens")),
        )
        .min(output),
        ..Usage::default()
    }
}

/// Tool arguments as sent: empty (or `null`) means no arguments, an object
/// encoded twice (some small models do that) is unwrapped, and anything else that
/// is not an object (a cut or confused model) is kept as the raw string, so the
/// agent loop can tell the model what went wrong instead of failing the turn.
pub fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    match serde_json::from_str(raw) {
        Ok(Value::Object(object)) => Value::Object(object),
        Ok(Value::Null) => Value::Object(serde_json::Map::new()),
        Ok(Value::String(inner)) => match serde_json::from_str(&inner) {
            Ok(Value::Object(object)) => Value::Object(object),
            _ => Value::String(raw.to_string()),
        },
        Ok(_) | Err(_) => Value::String(raw.to_string()),
    }
}

/// The start of a long text, for error messages.
fn preview(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
