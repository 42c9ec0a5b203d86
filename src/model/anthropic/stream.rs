//! The Messages API stream as a pure state machine: [`SseEvent`]s in, text
//! deltas to the sink as they arrive, one [`ModelResponse`] out at
//! `message_stop`. No I/O here, so every rule about the wire format is tested
//! without a socket.
//!
//! Wire format (documented by Anthropic under "Streaming Messages"):
//! `message_start` (usage so far), then per content block `content_block_start`,
//! any number of `content_block_delta`s and `content_block_stop`, then
//! `message_delta` (stop reason and cumulative usage) and `message_stop`. `ping`
//! may come anywhere, and an `error` event may replace the rest of the stream.

use crate::protocol::estimate_tokens;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::event::Usage;
use crate::model::drive::{EventParser, Step};
use crate::model::http::AttemptFailure;
use crate::model::sse::SseEvent;
use crate::model::{
    ContentBlock, Message, ModelError, ModelResponse, Role, StopReason, StreamSink,
};

/// A content block while its deltas arrive.
#[derive(Debug)]
enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        /// The concatenated `partial_json` pieces.
        json: String,
    },
    /// Extended thinking, with the signature the API checks when it is
    /// sent back.
    Thinking {
        text: String,
        signature: String,
    },
    Redacted {
        data: String,
    },
    /// A block brood does not keep (`server_tool_use`, anything newer); its
    /// deltas are dropped.
    Skipped,
}

/// Usage as the API reports it; every field may be missing or `null`.
#[derive(Debug, Default, Deserialize)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct MessageStart {
    message: StartedMessage,
}

#[derive(Deserialize)]
struct StartedMessage {
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct BlockStart {
    index: usize,
    content_block: Value,
}

#[derive(Deserialize)]
struct BlockDelta {
    index: usize,
    delta: Value,
}

#[derive(Deserialize)]
struct BlockStop {
    index: usize,
}

#[derive(Deserialize)]
struct MessageDelta {
    #[serde(default)]
    delta: MessageDeltaBody,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Default, Deserialize)]
struct MessageDeltaBody {
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct ErrorEvent {
    #[serde(default)]
    error: ErrorBody,
}

#[derive(Default, Deserialize)]
struct ErrorBody {
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    message: String,
}

/// Folds one response stream into a [`ModelResponse`].
#[derive(Debug, Default)]
pub struct StreamParser {
    /// Blocks by their `index`, finished or not; the message keeps this order.
    blocks: BTreeMap<usize, (Block, bool)>,
    usage: Usage,
    usage_reported: bool,
    stop_reason: Option<String>,
    /// Text reached the sink or a text/tool block began: a retry would repeat
    /// what the user already saw, so failures from here on are final.
    output_started: bool,
    done: bool,
    /// How many events arrived, and the type of the last, for the message of a
    /// stream that ends early.
    events: usize,
    last_event: Option<String>,
    /// Events that carry the reply (not pings, not types added since): the
    /// idle timer restarts only when this grows.
    progress: u64,
}

impl EventParser for StreamParser {
    fn handle(
        &mut self,
        event: &SseEvent,
        sink: &mut dyn StreamSink,
    ) -> Result<Step, AttemptFailure> {
        self.handle_event(event, sink)?;
        Ok(match self.done {
            true => Step::Done,
            false => Step::Continue,
        })
    }

    fn progress(&self) -> u64 {
        self.progress
    }

    fn output_started(&self) -> bool {
        self.output_started
    }
}

impl StreamParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Handles one event (see [`EventParser::handle`]).
    fn handle_event(
        &mut self,
        event: &SseEvent,
        sink: &mut dyn StreamSink,
    ) -> Result<(), AttemptFailure> {
        if event.event.as_deref() == Some("ping") {
            return Ok(());
        }
        let named = event.event.as_deref().unwrap_or("unnamed");
        let value: Value = serde_json::from_str(&event.data).map_err(|e| {
            ModelError::Stream(format!(
                "the API sent a malformed {named} event ({e}): {}",
                excerpt(&event.data)
            ))
        })?;
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(named)
            .to_string();
        self.events += 1;
        self.last_event = Some(kind.clone());
        let carries_reply = matches!(
            kind.as_str(),
            "message_start"
                | "content_block_start"
                | "content_block_delta"
                | "content_block_stop"
                | "message_delta"
                | "message_stop"
        );
        self.progress += u64::from(carries_reply);
        match kind.as_str() {
            "message_start" => {
                let start: MessageStart = typed(&kind, value)?;
                if let Some(usage) = start.message.usage {
                    self.take_usage(&usage);
                }
            }
            "content_block_start" => {
                let start: BlockStart = typed(&kind, value)?;
                self.start_block(start, sink)?;
            }
            "content_block_delta" => {
                let delta: BlockDelta = typed(&kind, value)?;
                self.delta(delta, sink)?;
            }
            "content_block_stop" => {
                let stop: BlockStop = typed(&kind, value)?;
                match self.blocks.get_mut(&stop.index) {
                    Some((_, finished)) => *finished = true,
                    None => return Err(unknown_block("content_block_stop", stop.index)),
                }
            }
            "message_delta" => {
                let delta: MessageDelta = typed(&kind, value)?;
                if let Some(reason) = delta.delta.stop_reason {
                    self.stop_reason = Some(reason);
                }
                if let Some(usage) = delta.usage {
                    self.take_usage(&usage);
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let error: ErrorEvent = typed(&kind, value)?;
                return Err(self.stream_error(error.error));
            }
            // `ping` without an `event:` line, and event types added after this
            // was written: the API promises new ones may appear.
            _ => {}
        }
        Ok(())
    }

    /// The finished response. `estimated_input_tokens` is used only when the
    /// API never reported usage (some proxies strip it).
    pub fn finish(self, estimated_input_tokens: u64) -> Result<ModelResponse, ModelError> {
        if !self.done {
            return Err(ModelError::Stream(self.early_end()));
        }
        let mut content = Vec::new();
        for (block, _) in self.blocks.into_values() {
            match block {
                Block::Text(text) if text.is_empty() => {}
                Block::Text(text) => content.push(ContentBlock::Text { text }),
                Block::ToolUse { id, name, json } => content.push(ContentBlock::ToolUse {
                    id,
                    name,
                    input: parse_input(json),
                }),
                Block::Thinking { text, signature } => content.push(ContentBlock::Thinking {
                    thinking: text,
                    signature,
                }),
                Block::Redacted { data } => content.push(ContentBlock::RedactedThinking { data }),
                Block::Skipped => {}
            }
        }
        let has_calls = content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolUse { .. }));
        let stop_reason = match self.stop_reason.as_deref() {
            Some("end_turn") => StopReason::EndTurn,
            Some("tool_use") => StopReason::ToolUse,
            Some("max_tokens") => StopReason::MaxTokens,
            Some(other) => StopReason::Other(other.to_string()),
            // Not sent: judge by what the message holds.
            None if has_calls => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        let mut usage = self.usage;
        if !self.usage_reported {
            let message = Message {
                role: Role::Assistant,
                content: content.clone(),
            };
            usage = Usage {
                input_tokens: estimated_input_tokens,
                output_tokens: estimate_tokens(&message.text())
                    + message
                        .tool_calls()
                        .iter()
                        .map(|c| estimate_tokens(&c.input.to_string()))
                        .sum::<u64>(),
                estimated: true,
                ..Usage::default()
            };
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

    /// Every count the API sends is a running total for the whole request
    /// (`message_delta`'s `output_tokens` included), so the latest value
    /// replaces the earlier one; adding would count tokens twice.
    fn take_usage(&mut self, usage: &WireUsage) {
        self.usage_reported = true;
        if let Some(n) = usage.input_tokens {
            self.usage.input_tokens = n;
        }
        if let Some(n) = usage.output_tokens {
            self.usage.output_tokens = n;
        }
        if let Some(n) = usage.cache_creation_input_tokens {
            self.usage.cache_write_tokens = n;
        }
        if let Some(n) = usage.cache_read_input_tokens {
            self.usage.cache_read_tokens = n;
        }
    }

    fn start_block(
        &mut self,
        start: BlockStart,
        sink: &mut dyn StreamSink,
    ) -> Result<(), AttemptFailure> {
        // A block started again would lose what it streamed: the user saw
        // text the answer would not hold.
        if self.blocks.contains_key(&start.index) {
            return Err(AttemptFailure::fatal(ModelError::Stream(format!(
                "the API started content block {} twice",
                start.index
            ))));
        }
        // Blocks stream one after another in index order; the message keeps
        // index order, so one started out of order would reorder text the
        // user saw.
        if let Some((&last, _)) = self.blocks.last_key_value()
            && last > start.index
        {
            return Err(AttemptFailure::fatal(ModelError::Stream(format!(
                "the API started content block {} after block {last}",
                start.index
            ))));
        }
        let field = |name: &str| {
            start
                .content_block
                .get(name)
                .and_then(Value::as_str)
                .map(String::from)
        };
        let block = match start.content_block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = field("text").unwrap_or_default();
                if !text.is_empty() {
                    sink.text_delta(&text);
                }
                Block::Text(text)
            }
            Some("tool_use") => {
                let (Some(id), Some(name)) = (field("id"), field("name")) else {
                    return Err(AttemptFailure::fatal(ModelError::Stream(format!(
                        "the API started a tool_use block without an id or name: {}",
                        excerpt(&start.content_block.to_string())
                    ))));
                };
                Block::ToolUse {
                    id,
                    name,
                    json: String::new(),
                }
            }
            Some("thinking") => {
                let text = field("thinking").unwrap_or_default();
                if !text.is_empty() {
                    sink.thinking_delta(&text);
                }
                Block::Thinking {
                    text,
                    signature: field("signature").unwrap_or_default(),
                }
            }
            Some("redacted_thinking") => Block::Redacted {
                data: field("data").unwrap_or_default(),
            },
            _ => Block::Skipped,
        };
        if !matches!(block, Block::Skipped) {
            self.output_started = true;
        }
        self.blocks.insert(start.index, (block, false));
        Ok(())
    }

    fn delta(
        &mut self,
        delta: BlockDelta,
        sink: &mut dyn StreamSink,
    ) -> Result<(), AttemptFailure> {
        // Deltas go to the block started last: one for an earlier block
        // would put its text before text the user already saw.
        match self.blocks.last_key_value() {
            Some((&last, _)) if last != delta.index && self.blocks.contains_key(&delta.index) => {
                return Err(AttemptFailure::fatal(ModelError::Stream(format!(
                    "the API sent a delta for content block {} after block {last} started",
                    delta.index
                ))));
            }
            Some(_) | None => {}
        }
        let Some((block, _)) = self.blocks.get_mut(&delta.index) else {
            return Err(unknown_block("content_block_delta", delta.index));
        };
        let piece = |name: &str| delta.delta.get(name).and_then(Value::as_str).unwrap_or("");
        match (delta.delta.get("type").and_then(Value::as_str), block) {
            (Some("text_delta"), Block::Text(text)) => {
                let piece = piece("text");
                if !piece.is_empty() {
                    sink.text_delta(piece);
                    text.push_str(piece);
                    self.output_started = true;
                }
            }
            (Some("input_json_delta"), Block::ToolUse { json, .. }) => {
                json.push_str(piece("partial_json"));
            }
            (Some("thinking_delta"), Block::Thinking { text, .. }) => {
                let piece = piece("thinking");
                if !piece.is_empty() {
                    sink.thinking_delta(piece);
                    text.push_str(piece);
                }
            }
            (Some("signature_delta"), Block::Thinking { signature, .. }) => {
                signature.push_str(piece("signature"));
            }
            (Some(kind @ "input_json_delta"), Block::Text(_))
            | (Some(kind @ "text_delta"), Block::ToolUse { .. }) => {
                return Err(AttemptFailure::fatal(ModelError::Stream(format!(
                    "the API sent a {kind} for content block {}, which is not of that kind",
                    delta.index
                ))));
            }
            // citations_delta, deltas of skipped blocks, and delta types
            // added later.
            (
                _,
                Block::Text(_)
                | Block::ToolUse { .. }
                | Block::Thinking { .. }
                | Block::Redacted { .. }
                | Block::Skipped,
            ) => {}
        }
        Ok(())
    }

    /// An `error` event inside a 200 stream. Overload and internal errors are
    /// transient, so before any output the request is repeated; after output
    /// began a repeat would show the user a second, different reply.
    fn stream_error(&self, error: ErrorBody) -> AttemptFailure {
        let kind = if error.kind.is_empty() {
            "unknown error"
        } else {
            error.kind.as_str()
        };
        let message = if error.message.is_empty() {
            "no message"
        } else {
            error.message.as_str()
        };
        let transient = matches!(kind, "overloaded_error" | "api_error");
        if transient && !self.output_started {
            return AttemptFailure::retryable(
                ModelError::Stream(format!("the API reported {kind} mid-stream: {message}")),
                None,
            );
        }
        if transient {
            return AttemptFailure::fatal(ModelError::Stream(format!(
                "the stream failed after output began ({kind}: {message}); not retried, \
                 because a repeat would not continue the partial reply"
            )));
        }
        AttemptFailure::fatal(ModelError::Stream(format!(
            "the API reported {kind}: {message}"
        )))
    }

    /// What a stream that stopped before `message_stop` had delivered.
    fn early_end(&self) -> String {
        let Some(last) = &self.last_event else {
            return "the stream ended before message_stop: no events arrived".to_string();
        };
        let text: usize = self
            .blocks
            .values()
            .map(|(b, _)| match b {
                Block::Text(t) => t.chars().count(),
                Block::ToolUse { .. }
                | Block::Thinking { .. }
                | Block::Redacted { .. }
                | Block::Skipped => 0,
            })
            .sum();
        let calls = self
            .blocks
            .values()
            .filter(|(b, _)| matches!(b, Block::ToolUse { .. }))
            .count();
        format!(
            "the stream ended before message_stop: {} events arrived, the last a {last}, \
             with {text} characters of text and {calls} tool call(s) so far",
            self.events
        )
    }
}

/// The tool input from its `partial_json` pieces: none means `{}`; text that is
/// not JSON (a reply cut by `max_tokens`, say) stays a string, which the agent
/// loop reports back to the model as a bad call.
fn parse_input(json: String) -> Value {
    if json.trim().is_empty() {
        return Value::Object(Default::default());
    }
    serde_json::from_str(&json).unwrap_or(Value::String(json))
}

fn typed<T: serde::de::DeserializeOwned>(kind: &str, value: Value) -> Result<T, AttemptFailure> {
    serde_json::from_value(value).map_err(|e| {
        AttemptFailure::fatal(ModelError::Stream(format!(
            "the API sent a malformed {kind} event: {e}"
        )))
    })
}

fn unknown_block(kind: &str, index: usize) -> AttemptFailure {
    AttemptFailure::fatal(ModelError::Stream(format!(
        "the API sent {kind} for content block {index}, which never started"
    )))
}

/// The start of `data` for an error message, on one line.
fn excerpt(data: &str) -> String {
    const MAX: usize = 200;
    let mut out: String = data.chars().take(MAX).collect();
    if data.chars().count() > MAX {
        out.push('…');
    }
    out.replace('\n', "\\n")
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
