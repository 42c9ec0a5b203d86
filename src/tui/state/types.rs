//! What the screen keeps about a session: tool and task cells, entries of the
//! conversation, children with their live lines and transcripts, approvals.

use std::sync::Arc;

use crate::event::{AgentId, TerminalReason, Usage};

/// Where a tool call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallStatus {
    Running,
    Done,
    Failed,
    Denied,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCell {
    pub call_id: String,
    pub name: String,
    pub input: Arc<serde_json::Value>,
    /// The call in one line (see [`call_label`]).
    pub label: String,
    pub status: CallStatus,
    pub started_ms: u64,
    pub duration_ms: Option<u64>,
    /// Shared with the event it came from.
    pub output: Arc<str>,
    /// What a file tool's call changes (`edit_file`, `write_file`).
    pub diff: Option<Arc<crate::tui::diff::FileDiff>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TaskCell {
    pub call_id: String,
    pub child: Option<AgentId>,
    pub profile: String,
    pub description: String,
    pub status: CallStatus,
    pub started_ms: u64,
    /// The child's answer summary, or why there is none.
    pub summary: Option<String>,
    pub reason: Option<TerminalReason>,
    pub elapsed_ms: Option<u64>,
    pub tokens: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// One item of the parent conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    User(String),
    /// Markdown; `streaming` while deltas still arrive. Shared with replay
    /// checkpoints; appending copies it only if a checkpoint holds it.
    Assistant {
        text: Arc<String>,
        streaming: bool,
    },
    Tool(ToolCell),
    Task(TaskCell),
    /// The model's reasoning before an answer: shown dimmed and folded.
    Thinking {
        text: Arc<String>,
        streaming: bool,
    },
    Notice {
        level: NoticeLevel,
        text: String,
    },
}

/// An entry and its revision: the revision changes whenever the entry does, so
/// views can cache its wrapped lines per (revision, width).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub rev: u64,
    pub kind: EntryKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildStatus {
    Running,
    Done,
    Failed,
}

/// One `[sub-N]` tool-call line of a child.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveLine {
    pub seq: u64,
    pub call_id: String,
    pub tool: String,
    pub input: Arc<serde_json::Value>,
    /// The call in one line (see [`call_label`]).
    pub label: String,
    pub status: CallStatus,
    /// The first line of the result, once there is one.
    pub result: Option<String>,
}

/// Everything a child said and did, for its transcript overlay.
#[derive(Debug, Clone, PartialEq)]
pub enum TranscriptItem {
    Prompt(String),
    /// What the user told the child while it ran (`m`).
    Told(String),
    Assistant(Arc<str>),
    ToolCall {
        name: String,
        input: Arc<serde_json::Value>,
        /// The call in one line (see [`call_label`]).
        label: String,
    },
    ToolResult {
        name: String,
        content: Arc<str>,
        is_error: bool,
    },
    Note(String),
    /// The child's reasoning before an answer: folded unless shown.
    Thinking(Arc<str>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Child {
    pub id: AgentId,
    pub profile: String,
    /// The color its profile asks for its id (an agent file's `color`).
    pub color: Option<String>,
    pub description: String,
    /// `light` or `main`.
    pub model: String,
    pub model_name: String,
    pub status: ChildStatus,
    pub reason: Option<TerminalReason>,
    pub steps: u32,
    pub max_steps: Option<u32>,
    pub tokens: u64,
    /// What its requests cost; `None` while its model has no price.
    pub cost: Option<f64>,
    pub token_budget: Option<u64>,
    /// Input tokens of its latest request.
    pub context_tokens: u64,
    pub context_budget: Option<u64>,
    pub started_ms: u64,
    pub ended_ms: Option<u64>,
    /// The parent's turn it started in (see [`super::State::turn`]).
    pub turn: u32,
    pub live: Vec<LiveLine>,
    pub transcript: Vec<TranscriptItem>,
    /// Text streamed for the response in progress.
    pub streaming: String,
}

/// The parent's gauges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MainStats {
    pub steps: u32,
    pub tokens: u64,
    pub context_tokens: u64,
    /// The parent's own requests summed, for the share read from the cache.
    pub usage: Usage,
    /// The model its requests name.
    pub model: String,
    /// What its own requests cost; `None` while its model has no price.
    pub cost: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    pub id: u64,
    pub agent: AgentId,
    pub call_id: String,
    pub tool: String,
    pub summary: String,
    pub reason: String,
    /// What "allow for the session" approves (the tool's name when the event
    /// did not say).
    pub session_rule: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RetryStatus {
    pub agent: AgentId,
    pub attempt: u32,
    pub max_attempts: u32,
    pub wait_ms: u64,
    pub reason: String,
    pub at_ms: u64,
}
