//! The one vocabulary of brood: every step of every agent is an [`Event`] on the
//! [`EventBus`]. The headless printer, the trace writer and (later) the TUI reducer
//! are all subscribers; a trace file is this stream serialized, and replay is
//! re-publishing it. There is deliberately no second log format.
//!
//! This file is the vocabulary; `bus.rs` is the bus that numbers, redacts
//! and delivers it.

mod bus;
mod input;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

pub use bus::{EventBus, Recorder};
pub use input::ToolInput;

/// Which agent an event belongs to: the parent (`main`) or a child (`sub-N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AgentId {
    Main,
    Sub(u32),
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentId::Main => f.write_str("main"),
            AgentId::Sub(n) => write!(f, "sub-{n}"),
        }
    }
}

/// The text was not `main` or `sub-N`.
#[derive(Debug, thiserror::Error)]
#[error("invalid agent id {0:?}: expected \"main\" or \"sub-N\"")]
pub struct AgentIdError(String);

impl FromStr for AgentId {
    type Err = AgentIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "main" {
            return Ok(AgentId::Main);
        }
        s.strip_prefix("sub-")
            .and_then(|n| n.parse().ok())
            .map(AgentId::Sub)
            .ok_or_else(|| AgentIdError(s.to_string()))
    }
}

impl Serialize for AgentId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AgentId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Token counts of one model request, as the provider reported them (or estimated
/// when it did not; `estimated` says so).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Of `output_tokens`, those spent reasoning, where the provider says
    /// (OpenAI-compatible `completion_tokens_details.reasoning_tokens`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    #[serde(default, skip_serializing_if = "is_false")]
    pub estimated: bool,
}

impl Usage {
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens
    }

    /// Every input token of the request, cached or not: how full its
    /// context was.
    pub fn input_total(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
    }

    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
        self.estimated |= other.estimated;
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The outcome of the permission check for one tool call, ordered by
/// strictness: `Allow < Ask < Deny`, so the strictest of several is their max.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        })
    }
}

/// Who settled a permission decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The policy (or another PreToolUse hook) settled it alone.
    Policy,
    /// The policy asked and the user (or headless `--yes`/default) answered.
    User,
}

/// How a command hook ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookOutcome {
    /// Exit 0: the session goes on as it would have.
    Continued,
    /// Exit 2, or a `block`/`deny` answer: the call is refused, or the agent
    /// goes on instead of stopping.
    Blocked,
    /// Any other exit, or an answer brood cannot read: said, and ignored.
    Failed,
    /// It ran past its timeout and was killed: said, and ignored.
    TimedOut,
}

impl HookOutcome {
    pub fn as_str(&self) -> &'static str {
        match self {
            HookOutcome::Continued => "continued",
            HookOutcome::Blocked => "blocked",
            HookOutcome::Failed => "failed",
            HookOutcome::TimedOut => "timed out",
        }
    }
}

/// Why an agent's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerminalReason {
    Completed,
    MaxSteps,
    TokenBudget,
    /// The run spent its `cost_budget_usd`.
    CostBudget,
    ContextBudget,
    ContractViolation,
    ModelError,
    Interrupted,
}

impl TerminalReason {
    pub fn as_str(&self) -> &'static str {
        match self {
            TerminalReason::Completed => "completed",
            TerminalReason::MaxSteps => "max_steps",
            TerminalReason::TokenBudget => "token_budget",
            TerminalReason::CostBudget => "cost_budget",
            TerminalReason::ContextBudget => "context_budget",
            TerminalReason::ContractViolation => "contract_violation",
            TerminalReason::ModelError => "model_error",
            TerminalReason::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for TerminalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an `approval_requested` event asks. Boxed in its event: it is the
/// biggest of the rare events, and every event is as big as its biggest kind,
/// so unboxed it made each of a long session's events 8 bytes bigger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalAsk {
    /// Pairs the question with the user's reply.
    pub id: u64,
    pub call_id: String,
    pub tool: String,
    pub summary: String,
    pub reason: String,
    /// What "allow for the session" would approve: the command's prefix
    /// for `bash` (`git push`), else the tool's name. Empty in older traces.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub session_rule: String,
}

/// What a `subagent_start` event tells: who started the child, with which
/// profile and model, for what, and within which limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentStart {
    /// The agent whose `task` call started it.
    pub parent: AgentId,
    pub parent_call_id: String,
    pub profile: String,
    /// `light` or `main`: the model that actually runs.
    pub model: String,
    pub model_name: String,
    pub description: String,
    pub prompt: String,
    /// The profile's limits, so a viewer can draw gauges without the profile.
    #[serde(default)]
    pub max_steps: Option<u32>,
    #[serde(default)]
    pub token_budget: Option<u64>,
    #[serde(default)]
    pub context_budget: Option<u64>,
    /// The color its profile asks for its id on screen (an agent file's
    /// `color`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

/// What happened. Serialized with a `type` tag next to `seq`, `t_ms` and `agent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A message from the user (for a child: the prompt it was started with).
    UserMessage { text: String },
    /// What UserPromptSubmit hooks added to the prompt before it: the model
    /// read it after the prompt, apart by a blank line.
    PromptContext { text: String },
    /// The session was continued from its trace (`brood --resume`): what
    /// follows was added later, to the history rebuilt from what came before.
    Resumed {
        /// When, RFC 3339 UTC.
        at: String,
        /// The parent's messages rebuilt from the trace.
        messages: usize,
    },
    /// The history was compacted: the model summarised it, and it became the
    /// summary and the last `kept_messages` messages.
    Compacted {
        /// `auto` (the window was filling) or `asked` (`/compact`).
        trigger: String,
        before_tokens: u64,
        after_tokens: u64,
        kept_messages: usize,
        summary: String,
        /// What the summary request used. Boxed, as the rare event's biggest
        /// part: every event is as big as the biggest kind.
        usage: Box<Usage>,
    },
    /// A request is about to be sent to the model.
    ModelRequest {
        step: u32,
        model: String,
        messages: usize,
        tools: usize,
    },
    /// A piece of streamed assistant text.
    TextDelta { text: String },
    /// A piece of the model's reasoning as it streams.
    ThinkingDelta { text: String },
    /// One block of the model's reasoning, whole, before its answer's
    /// `assistant_message`: what a resumed session sends back.
    Thinking {
        text: String,
        /// Anthropic's signature, which must go back unchanged; empty for
        /// other providers' reasoning.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        signature: String,
        /// Reasoning the provider encrypted (`redacted_thinking`'s data).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        redacted: Option<String>,
    },
    /// The model finished one response.
    AssistantMessage {
        text: String,
        tool_calls: usize,
        usage: Usage,
        stop_reason: String,
    },
    /// The model asked for a tool.
    ToolCall {
        call_id: String,
        name: String,
        input: ToolInput,
        /// The call in one line for people (`grep fn main in src`), made by the
        /// tool itself, so no reader needs the tools. Empty in traces of older
        /// versions and other tools: see [`crate::protocol::call_label`].
        ///
        /// A box, not a `String`: the capacity word it saves keeps a call
        /// event, and so every event, at 104 bytes.
        #[serde(default, skip_serializing_if = "str::is_empty")]
        summary: Box<str>,
    },
    /// A PreToolUse decision needs the user's answer.
    ApprovalRequested(Box<ApprovalAsk>),
    /// The final permission decision for one tool call.
    PermissionDecision {
        call_id: String,
        decision: Decision,
        reason: String,
        by: DecidedBy,
    },
    /// The result the model will see for one tool call.
    ToolResult {
        call_id: String,
        name: String,
        is_error: bool,
        /// Shared, not copied, by everything that keeps it (the TUI state, its
        /// replay checkpoints): tool output is most of a session's bytes.
        content: Arc<str>,
        duration_ms: u64,
    },
    /// A Stop hook asked the agent to continue with this message.
    HookContinue { text: String },
    /// A message the user sent this agent while it ran (`m` on a child): it
    /// read it before its next model call, after the results it was waiting on.
    Steer { text: String },
    /// A command hook of the user's ran (`PreToolUse`, `Stop`, …).
    HookRun {
        /// The hook point, as Claude Code names it: `PreToolUse`…
        hook: String,
        command: String,
        outcome: HookOutcome,
        #[serde(default)]
        exit_code: Option<i32>,
        /// What it said: the reason of a block, the stderr of a failure.
        #[serde(default)]
        message: String,
        duration_ms: u64,
    },
    /// An MCP server that was running stopped (it crashed, or closed its
    /// end); its tools are withdrawn.
    McpServerDown { server: String, error: String },
    /// The agent's run ended.
    TurnEnd {
        reason: TerminalReason,
        steps: u32,
        usage: Usage,
    },
    /// Something failed; the run may or may not go on (see the following events).
    Error { message: String },
    /// A model request failed in a retryable way and will be sent again after
    /// `wait_ms` ("retrying in 2 s (1/4)").
    Retry {
        attempt: u32,
        max_attempts: u32,
        wait_ms: u64,
        reason: String,
    },
    /// The user interrupted the run.
    Interrupted {},
    /// `/model` chose another model for the next turns.
    ModelChanged { slot: ModelSlot, model: String },
    /// A child agent started (published under the child's id). Boxed: it is
    /// the largest event by far and one of the rarest, and every event is as
    /// big as the largest kind.
    SubagentStart(Box<SubagentStart>),
    /// A child agent ended (published under the child's id).
    SubagentEnd {
        reason: TerminalReason,
        /// The text the parent receives: the answer, or why there is none.
        summary: String,
        steps: u32,
        /// Boxed, as the rare event's biggest part: every event is as big as
        /// the biggest kind.
        tool_usage: Box<BTreeMap<String, u32>>,
        usage: Usage,
        elapsed_ms: u64,
    },
}

impl EventKind {
    /// The event's `type` as in the trace, for readers that show it (the trace
    /// pane) without serializing; a test holds it to serde's tag.
    pub fn wire_name(&self) -> &'static str {
        match self {
            EventKind::UserMessage { .. } => "user_message",
            EventKind::PromptContext { .. } => "prompt_context",
            EventKind::Resumed { .. } => "resumed",
            EventKind::Compacted { .. } => "compacted",
            EventKind::ModelRequest { .. } => "model_request",
            EventKind::TextDelta { .. } => "text_delta",
            EventKind::ThinkingDelta { .. } => "thinking_delta",
            EventKind::Thinking { .. } => "thinking",
            EventKind::AssistantMessage { .. } => "assistant_message",
            EventKind::ToolCall { .. } => "tool_call",
            EventKind::ApprovalRequested(_) => "approval_requested",
            EventKind::PermissionDecision { .. } => "permission_decision",
            EventKind::ToolResult { .. } => "tool_result",
            EventKind::HookContinue { .. } => "hook_continue",
            EventKind::Steer { .. } => "steer",
            EventKind::HookRun { .. } => "hook_run",
            EventKind::McpServerDown { .. } => "mcp_server_down",
            EventKind::TurnEnd { .. } => "turn_end",
            EventKind::Error { .. } => "error",
            EventKind::Retry { .. } => "retry",
            EventKind::Interrupted {} => "interrupted",
            EventKind::ModelChanged { .. } => "model_changed",
            EventKind::SubagentStart(_) => "subagent_start",
            EventKind::SubagentEnd { .. } => "subagent_end",
        }
    }
}

impl EventKind {
    /// Replaces every occurrence of a secret in the event's text by `[redacted]`.
    fn redact(&mut self, secrets: &[String]) {
        let clean = |text: &mut String| {
            for secret in secrets {
                if text.contains(secret.as_str()) {
                    *text = text.replace(secret.as_str(), "[redacted]");
                }
            }
        };
        match self {
            EventKind::UserMessage { text }
            | EventKind::Compacted { summary: text, .. }
            | EventKind::PromptContext { text }
            | EventKind::ThinkingDelta { text }
            | EventKind::Thinking { text, .. }
            | EventKind::TextDelta { text }
            | EventKind::HookContinue { text }
            | EventKind::Steer { text }
            | EventKind::AssistantMessage { text, .. }
            | EventKind::Error { message: text }
            | EventKind::Retry { reason: text, .. } => clean(text),
            EventKind::ToolCall { input, summary, .. } => {
                // Only text that holds a secret, or may hide one behind an
                // escape, is parsed to be cleaned.
                let text = input.text();
                if text.contains('\\') || secrets.iter().any(|s| text.contains(s.as_str())) {
                    input.modify(|value| redact_value(value, &clean));
                }
                clean_held(summary, secrets, &clean);
            }
            EventKind::ApprovalRequested(ask) => {
                clean(&mut ask.summary);
                clean(&mut ask.reason);
            }
            EventKind::PermissionDecision { reason, .. } => clean(reason),
            EventKind::HookRun {
                command, message, ..
            } => {
                clean(command);
                clean(message);
            }
            EventKind::SubagentStart(start) => {
                clean(&mut start.description);
                clean(&mut start.prompt);
            }
            EventKind::SubagentEnd { summary, .. } => clean(summary),
            EventKind::McpServerDown { error, .. } => clean(error),
            EventKind::ToolResult { content, .. } => clean_held(content, secrets, &clean),
            EventKind::ModelRequest { .. }
            | EventKind::Resumed { .. }
            | EventKind::TurnEnd { .. }
            | EventKind::ModelChanged { .. }
            | EventKind::Interrupted {} => {}
        }
    }
}

/// Cleans text an event holds in a box or shares (a call's summary, a
/// tool's output), copied out only when a secret is in it: output is large.
fn clean_held<T>(text: &mut T, secrets: &[String], clean: &impl Fn(&mut String))
where
    T: std::ops::Deref<Target = str> + From<String>,
{
    if secrets.iter().any(|s| text.contains(s.as_str())) {
        let mut owned = text.to_string();
        clean(&mut owned);
        *text = owned.into();
    }
}

fn redact_value(value: &mut Value, clean: &impl Fn(&mut String)) {
    match value {
        Value::String(s) => clean(s),
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, clean)),
        Value::Object(map) => map.values_mut().for_each(|v| redact_value(v, clean)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// One step of one agent, numbered in the order it was published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub seq: u64,
    pub t_ms: u64,
    pub agent: AgentId,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// Which of a session's two models a `/model` changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelSlot {
    Main,
    Light,
}

/// How the user answered an approval dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalAnswer {
    AllowOnce,
    /// Allow, and allow bash commands with this prefix for the rest of the session.
    AllowPrefix(String),
    Deny,
    /// Deny, with the person's reason, which the model reads.
    DenyBecause(String),
}

/// What the user asks the session to do (the other direction from events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Send a user message to the parent agent.
    UserMessage(String),
    /// Answer an approval request.
    Approval { id: u64, answer: ApprovalAnswer },
    /// Interrupt the running turn and all its children.
    Interrupt,
    /// Stop one running child: it ends `interrupted`, its siblings and the
    /// parent go on, and the parent reads the failure.
    StopChild(AgentId),
    /// A message for one running child, read before its next model call.
    MessageChild { child: AgentId, text: String },
    /// Compact the parent's history now (`/compact`), or after the turn
    /// that runs.
    Compact,
    /// Use this main model (or, with `light`, this light model) for the
    /// next turns (`/model`).
    SetModel { slot: ModelSlot, name: String },
    /// End the session.
    Quit,
    /// End the session because brood was told to stop (SIGTERM, SIGHUP): the
    /// running turn is interrupted and the trace ends with `interrupted`.
    Terminate,
}

#[cfg(test)]
#[path = "../event_tests.rs"]
mod tests;
