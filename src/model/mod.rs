//! The `Model` trait: a request (system prompt, messages, tools) in, a stream of
//! text deltas and one final message with usage out. Providers live in submodules.

pub mod anthropic;
pub mod drive;
pub mod http;
pub mod offline;
pub mod openai;
pub mod scripted;
pub mod sse;

use std::borrow::Cow;

use crate::protocol::estimate_tokens;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::event::{AgentId, Usage};

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// One block of a message, in the provider-neutral shape brood keeps its history in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
        is_error: bool,
    },
    /// The model's reasoning before it answered (Anthropic's extended
    /// thinking, an OpenAI-compatible server's `reasoning_content`). Its
    /// `signature` must go back to Anthropic exactly as it came; an
    /// OpenAI-compatible server gets none back.
    Thinking {
        thinking: String,
        #[serde(default)]
        signature: String,
    },
    /// Reasoning the provider encrypted; sent back as it came.
    RedactedThinking {
        data: String,
    },
}

impl ContentBlock {
    /// Whether this is reasoning rather than an answer.
    pub fn is_thinking(&self) -> bool {
        match self {
            ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => true,
            ContentBlock::Text { .. }
            | ContentBlock::ToolUse { .. }
            | ContentBlock::ToolResult { .. } => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }

    /// An assistant's answer in the one shape brood keeps it in: its text
    /// (when there is any) as one block, then its tool calls in order. The
    /// loop keeps what the model sent this way, and a resumed session
    /// rebuilds it from the trace's events the same way, so both send the
    /// same bytes.
    pub fn assistant(text: String, calls: Vec<ContentBlock>) -> Self {
        Message::assistant_thinking(Vec::new(), text, calls)
    }

    /// [`Message::assistant`] after the reasoning that came before it, which
    /// the API wants first and unchanged.
    pub fn assistant_thinking(
        thinking: Vec<ContentBlock>,
        text: String,
        calls: Vec<ContentBlock>,
    ) -> Self {
        let text = (!text.is_empty()).then_some(ContentBlock::Text { text });
        Message {
            role: Role::Assistant,
            content: thinking.into_iter().chain(text).chain(calls).collect(),
        }
    }

    /// This message as [`Message::assistant_thinking`] keeps it.
    pub fn canonical_assistant(self) -> Self {
        let text = self.text();
        let (thinking, rest): (Vec<_>, Vec<_>) = self
            .content
            .into_iter()
            .partition(ContentBlock::is_thinking);
        let calls = rest
            .into_iter()
            .filter(|b| matches!(b, ContentBlock::ToolUse { .. }))
            .collect();
        Message::assistant_thinking(thinking, text, calls)
    }

    /// All text blocks joined.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                ContentBlock::ToolUse { .. }
                | ContentBlock::ToolResult { .. }
                | ContentBlock::Thinking { .. }
                | ContentBlock::RedactedThinking { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }

    /// Gives every tool call of this message an id no other call in it has
    /// and none of the history's (`taken`, which the agent keeps as the
    /// history grows): some servers send empty ids, or the same id twice in
    /// one turn (`call_0`), and a result sent back under a repeated id answers
    /// the wrong call or is refused by the API. A repeat becomes `ID_2`,
    /// `ID_3`, …; an empty id `call_N`.
    pub fn make_tool_ids_unique(&mut self, taken: &std::collections::HashSet<String>) {
        // Ids this message takes, besides those before it.
        let mut own: std::collections::HashSet<String> = std::collections::HashSet::new();
        for (index, block) in self.content.iter_mut().enumerate() {
            let ContentBlock::ToolUse { id, .. } = block else {
                continue;
            };
            let base = match id.trim().is_empty() {
                true => format!("call_{index}"),
                false => id.clone(),
            };
            let mut unique = base.clone();
            let mut n = 2;
            while taken.contains(&unique) || own.contains(&unique) {
                unique = format!("{base}_{n}");
                n += 1;
            }
            own.insert(unique.clone());
            *id = unique;
        }
    }

    /// The tool calls in this message, in order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { id, name, input } => Some(ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    input: input.clone(),
                }),
                ContentBlock::Text { .. }
                | ContentBlock::ToolResult { .. }
                | ContentBlock::Thinking { .. }
                | ContentBlock::RedactedThinking { .. } => None,
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// Everything one model call needs. It borrows the agent's history and
/// tool specs rather than copying them: a long session would otherwise copy
/// its whole history for every request (tests and one-off requests own
/// theirs, through the same `Cow`s).
#[derive(Debug, Clone)]
pub struct ModelRequest<'a> {
    /// Which agent is asking; providers ignore it, the scripted model picks its
    /// script by it.
    pub agent: AgentId,
    pub model: Cow<'a, str>,
    pub system: Cow<'a, str>,
    pub messages: Cow<'a, [Message]>,
    pub tools: Cow<'a, [ToolSpec]>,
    pub max_tokens: u32,
}

impl ModelRequest<'_> {
    /// Estimated input tokens of the whole request: system prompt, messages and
    /// tool schemas. Used where the provider has not told us (yet), such as the
    /// context budget check before a request is sent.
    /// The request owning all it holds, to keep past the call (tests that
    /// record what a model was sent).
    pub fn to_owned_request(&self) -> ModelRequest<'static> {
        ModelRequest {
            agent: self.agent,
            model: Cow::Owned(self.model.to_string()),
            system: Cow::Owned(self.system.to_string()),
            messages: Cow::Owned(self.messages.to_vec()),
            tools: Cow::Owned(self.tools.to_vec()),
            max_tokens: self.max_tokens,
        }
    }

    pub fn estimate_input_tokens(&self) -> u64 {
        let messages: u64 = self
            .messages
            .iter()
            .flat_map(|m| m.content.iter())
            .map(block_tokens)
            .sum();
        self.estimate_fixed_tokens() + messages
    }

    /// The estimate of what every request of an agent carries whatever its
    /// history: the system prompt and the tool schemas.
    pub fn estimate_fixed_tokens(&self) -> u64 {
        let tools: u64 = self
            .tools
            .iter()
            .map(|t| estimate_tokens(&t.description) + estimate_tokens(&t.input_schema.to_string()))
            .sum();
        estimate_tokens(&self.system) + tools
    }
}

/// A block's estimated tokens, as requests count them.
pub fn block_tokens(block: &ContentBlock) -> u64 {
    match block {
        ContentBlock::Text { text } => estimate_tokens(text),
        ContentBlock::ToolUse { name, input, .. } => {
            estimate_tokens(name) + estimate_tokens(&input.to_string())
        }
        ContentBlock::ToolResult { content, .. } => estimate_tokens(content),
        ContentBlock::Thinking { thinking, .. } => estimate_tokens(thinking),
        ContentBlock::RedactedThinking { data } => estimate_tokens(data),
    }
}

/// Why the model stopped generating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    Other(String),
}

impl StopReason {
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::MaxTokens => "max_tokens",
            StopReason::Other(s) => s,
        }
    }
}

/// The finished response of one model call.
#[derive(Debug, Clone)]
pub struct ModelResponse {
    pub message: Message,
    pub usage: Usage,
    pub stop_reason: StopReason,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("{0}")]
    Script(String),
    #[error("request cancelled")]
    Cancelled,
    /// 401 or 403: retrying cannot help; the key is wrong or lacks access.
    #[error("the API refused the credentials (HTTP {status}): {message}. Check {variable}.")]
    Auth {
        status: u16,
        message: String,
        variable: &'static str,
    },
    /// Any other error status, with the API's own message.
    #[error("the API answered HTTP {status}: {message}")]
    Api { status: u16, message: String },
    #[error("cannot reach {url}: {message}")]
    Connect { url: String, message: String },
    #[error("the model's stream went silent for {secs} s (idle timeout)")]
    IdleTimeout { secs: u64 },
    /// The server took the request and sent no response headers in time.
    #[error("{url} sent no response within {secs} s of the request")]
    NoResponse { url: String, secs: u64 },
    /// The stream broke, or said something we cannot read.
    #[error("{0}")]
    Stream(String),
    /// Every retry was spent.
    #[error("{last} (gave up after {})", crate::text::count(*attempts, "attempt"))]
    RetriesExhausted {
        attempts: u32,
        last: Box<ModelError>,
    },
}

/// A request failed and will be tried again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// 1 for the first retry.
    pub attempt: u32,
    pub max_attempts: u32,
    pub wait_ms: u64,
    pub reason: String,
}

/// Receives streamed output while a model call runs.
pub trait StreamSink: Send {
    fn text_delta(&mut self, text: &str);

    /// A piece of the model's reasoning, shown apart from its answer.
    fn thinking_delta(&mut self, _text: &str) {}

    /// The request failed in a way worth retrying; it is tried again after
    /// `notice.wait_ms`.
    fn retry(&mut self, _notice: &RetryNotice) {}
}

#[async_trait]
pub trait Model: Send + Sync {
    /// A short label for status lines and trace headers, e.g. `scripted`.
    fn provider(&self) -> &str;

    /// Runs one request. Text is reported to `sink` as it arrives; cancelling
    /// `cancel` abandons the request and returns [`ModelError::Cancelled`].
    async fn complete(
        &self,
        request: &ModelRequest,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ModelError>;
}

/// The main model's context window, for the parent's gauge. Providers do not
/// report it, so it is a known size per family (`provider` as in the trace
/// header: `anthropic`, `openai`, `scripted`, `offline`).
pub fn context_window(provider: &str, model: &str) -> u64 {
    let model = model.to_ascii_lowercase();
    match provider {
        "openai" if model.starts_with("gpt-4.1") => 1_000_000,
        "openai" if model.starts_with("gpt-") || model.starts_with('o') => 128_000,
        "openai" => 32_768,
        _ => 200_000,
    }
}

#[cfg(test)]
mod message_tests {
    use super::*;

    fn call(id: &str) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: "grep".into(),
            input: serde_json::json!({}),
        }
    }

    #[test]
    fn repeated_and_empty_tool_ids_are_made_unique() {
        let earlier: std::collections::HashSet<String> = ["call_0".to_string()].into();
        let mut message = Message {
            role: Role::Assistant,
            content: vec![call("call_0"), call("call_0"), call(""), call("x")],
        };
        message.make_tool_ids_unique(&earlier);
        let ids: Vec<String> = message.tool_calls().into_iter().map(|c| c.id).collect();
        assert_eq!(ids, ["call_0_2", "call_0_3", "call_2", "x"]);
    }
}
