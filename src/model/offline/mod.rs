//! `offline`: a deterministic, clearly labelled driver that needs no LLM, no key
//! and no network, so `brood demo` can show delegation doing real work on the
//! user's folder.
//!
//! It is stateless: every reply is decided from the request alone. The parent
//! (`main`) splits a question into up to three parts and sends one `task` per
//! part; when the task results come back it assembles their summaries into an
//! answer. A child (`sub-N`) searches the workspace the way an engineer would
//! (file names, definitions and mentions of the part's terms, matched on
//! identifier boundaries), ranks every file found, reads the best ones and
//! answers with an `ExploreResult` JSON object built only from what the tools
//! returned, so nothing in its answer is invented.

mod child;
mod manifest;
mod parent;
mod query;
mod rank;
mod results;
mod words;

#[cfg(test)]
mod tests;

use crate::protocol::estimate_tokens;
use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{
    ContentBlock, Message, Model, ModelError, ModelRequest, ModelResponse, Role, StopReason,
    StreamSink,
};
use crate::event::{AgentId, Usage};

/// The pause between streamed words at speed 1: slow enough to watch, fast
/// enough not to bore.
const BASE_PAUSE: Duration = Duration::from_millis(25);
/// A reply waits this many word pauses before it starts (0.6 s at speed 1).
const THINK_PAUSES: u32 = 24;

/// At this speed or above there is no pause at all.
const INSTANT_SPEED: f64 = 1000.0;
/// Speeds below this are raised to it, so a tiny speed cannot stall a demo for
/// hours (or overflow the pause).
const MIN_SPEED: f64 = 0.01;

/// The no-LLM driver. `speed` scales how fast its text streams.
#[derive(Debug, Clone)]
pub struct OfflineModel {
    pause: Option<Duration>,
}

impl OfflineModel {
    /// Streams words `25 ms / speed` apart; a speed of 1000 or more, or one that
    /// is not a finite number, streams with no pause. A speed of zero or less
    /// is taken as 1.
    pub fn new(speed: f64) -> Self {
        let pause = match speed {
            s if !s.is_finite() || s >= INSTANT_SPEED => None,
            s if s <= 0.0 => Some(BASE_PAUSE),
            s => Some(BASE_PAUSE.div_f64(s.max(MIN_SPEED))),
        };
        OfflineModel { pause }
    }

    /// The pause between streamed words, if any.
    pub fn pause(&self) -> Option<Duration> {
        self.pause
    }

    /// Sends `text` to `sink` word by word, pausing between words.
    /// A pause before each reply, as a model takes before its first token, so a
    /// person watching sees each child's steps one by one.
    async fn think(&self, cancel: &CancellationToken) -> Result<(), ModelError> {
        let Some(pause) = self.pause else {
            return Ok(());
        };
        tokio::select! {
            _ = cancel.cancelled() => Err(ModelError::Cancelled),
            _ = tokio::time::sleep(pause * THINK_PAUSES) => Ok(()),
        }
    }

    async fn stream(
        &self,
        text: &str,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<(), ModelError> {
        for (i, word) in words_of(text).into_iter().enumerate() {
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            if let Some(pause) = self.pause
                && i > 0
            {
                tokio::select! {
                    _ = cancel.cancelled() => return Err(ModelError::Cancelled),
                    _ = tokio::time::sleep(pause) => {}
                }
            }
            sink.text_delta(word);
        }
        Ok(())
    }
}

/// `text` cut before each word, a word keeping the whitespace after it, so an
/// indented line streams as one pause rather than one per space.
fn words_of(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let (mut after_space, mut has_word) = (false, false);
    for (at, c) in text.char_indices() {
        let space = c.is_whitespace();
        if after_space && !space && has_word {
            pieces.push(&text[start..at]);
            start = at;
        }
        after_space = space;
        has_word |= !space;
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// What the driver decided to say and call.
#[derive(Debug, Clone, PartialEq)]
struct Reply {
    text: String,
    calls: Vec<PlannedCall>,
}

impl Reply {
    fn text(text: impl Into<String>) -> Self {
        Reply {
            text: text.into(),
            calls: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct PlannedCall {
    name: &'static str,
    input: Value,
}

#[async_trait]
impl Model for OfflineModel {
    fn provider(&self) -> &str {
        "offline"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ModelError> {
        if cancel.is_cancelled() {
            return Err(ModelError::Cancelled);
        }
        let reply = match request.agent {
            AgentId::Main => parent::respond(request),
            AgentId::Sub(_) => child::respond(request),
        };
        self.think(cancel).await?;
        self.stream(&reply.text, sink, cancel).await?;
        Ok(response(request, reply))
    }
}

/// Turns a decided reply into the assistant message, with ids unique within the
/// agent's history (`offline_<agent>_<turn>_<index>`) and estimated usage.
fn response(request: &ModelRequest, reply: Reply) -> ModelResponse {
    let turn = assistant_turns(&request.messages) + 1;
    let mut content = Vec::with_capacity(reply.calls.len() + 1);
    if !reply.text.is_empty() {
        content.push(ContentBlock::Text {
            text: reply.text.clone(),
        });
    }
    let mut output_tokens = estimate_tokens(&reply.text);
    for (i, call) in reply.calls.iter().enumerate() {
        output_tokens += estimate_tokens(call.name) + estimate_tokens(&call.input.to_string());
        content.push(ContentBlock::ToolUse {
            id: format!("offline_{}_{turn}_{i}", request.agent),
            name: call.name.to_string(),
            input: call.input.clone(),
        });
    }
    let stop_reason = match reply.calls.is_empty() {
        true => StopReason::EndTurn,
        false => StopReason::ToolUse,
    };
    ModelResponse {
        message: Message {
            role: Role::Assistant,
            content,
        },
        usage: Usage {
            input_tokens: request.estimate_input_tokens(),
            output_tokens,
            estimated: true,
            ..Usage::default()
        },
        stop_reason,
    }
}

/// How many replies the agent has already given in this history.
fn assistant_turns(messages: &[Message]) -> usize {
    messages
        .iter()
        .filter(|m| match m.role {
            Role::Assistant => true,
            Role::User => false,
        })
        .count()
}

/// The input of a call that is not in the history.
static NO_INPUT: Value = Value::Null;

/// A tool result with the call it answers.
#[derive(Debug, Clone, Copy)]
struct Answered<'a> {
    name: &'a str,
    input: &'a Value,
    content: &'a str,
    is_error: bool,
}

/// The tool calls of every assistant message, by id.
fn calls_by_id(messages: &[Message]) -> HashMap<&str, (&str, &Value)> {
    messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|block| match block {
            ContentBlock::ToolUse { id, name, input } => {
                Some((id.as_str(), (name.as_str(), input)))
            }
            ContentBlock::Text { .. }
            | ContentBlock::ToolResult { .. }
            | ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. } => None,
        })
        .collect()
}

/// The tool results in `message`, each joined to its call; a result whose call
/// is not in `messages` is named `?`.
fn answered<'a>(messages: &'a [Message], message: &'a Message) -> Vec<Answered<'a>> {
    let calls = calls_by_id(messages);
    message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                let (name, input) = calls
                    .get(tool_use_id.as_str())
                    .copied()
                    .unwrap_or(("?", &NO_INPUT));
                Some(Answered {
                    name,
                    input,
                    content,
                    is_error: *is_error,
                })
            }
            ContentBlock::Text { .. }
            | ContentBlock::ToolUse { .. }
            | ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. } => None,
        })
        .collect()
}

/// Whether `message` carries tool results (as opposed to text from the user, a
/// hook or the contract checker).
fn has_tool_results(message: &Message) -> bool {
    message.content.iter().any(|block| match block {
        ContentBlock::ToolResult { .. } => true,
        ContentBlock::Text { .. }
        | ContentBlock::ToolUse { .. }
        | ContentBlock::Thinking { .. }
        | ContentBlock::RedactedThinking { .. } => false,
    })
}
