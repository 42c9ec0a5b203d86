//! The workbench's state: a pure reducer over events. Everything the screen shows
//! about the session is derived here from the event stream alone, so a live
//! session and a replayed trace look the same. What belongs to the person at the
//! keyboard (focus, scroll, overlays) lives in `ui`, not here.

use std::collections::HashMap;
use std::sync::Arc;

use crate::event::{AgentId, DecidedBy, Decision, Event, EventKind, TerminalReason, Usage};
use crate::protocol::{SessionInfo, estimate_tokens};
use crate::protocol::{TASK_TOOL, call_label, envelope_text};
use crate::text::count;

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
}

#[derive(Debug, Clone, PartialEq)]
pub struct Child {
    pub id: AgentId,
    pub profile: String,
    pub description: String,
    /// `light` or `main`.
    pub model: String,
    pub model_name: String,
    pub status: ChildStatus,
    pub reason: Option<TerminalReason>,
    pub steps: u32,
    pub max_steps: Option<u32>,
    pub tokens: u64,
    pub token_budget: Option<u64>,
    /// Input tokens of its latest request.
    pub context_tokens: u64,
    pub context_budget: Option<u64>,
    pub started_ms: u64,
    pub ended_ms: Option<u64>,
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

/// One row of the raw event timeline (the trace pane). Runs of streamed text
/// from one agent are folded into one row.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRow {
    pub seq: u64,
    pub t_ms: u64,
    pub agent: AgentId,
    pub kind: &'static str,
    pub detail: String,
    /// Events folded into this row.
    pub count: u32,
}

#[derive(Debug, Clone, Default)]
pub struct State {
    pub info: SessionInfo,
    pub entries: Vec<Entry>,
    pub children: Vec<Child>,
    pub main: MainStats,
    /// Tokens the children used that never entered the parent's context.
    pub kept_out_tokens: u64,
    pub approvals: Vec<PendingApproval>,
    pub retry: Option<RetryStatus>,
    pub last_error: Option<String>,
    /// Whether the parent's turn is running.
    pub running: bool,
    pub timeline: Vec<TimelineRow>,
    /// Events applied so far, and the time of the latest.
    pub events: u64,
    pub now_ms: u64,
    next_rev: u64,
    calls: HashMap<String, usize>,
    child_index: HashMap<AgentId, usize>,
    children_tokens: u64,
    returned_tokens: u64,
}

/// A saved state for replay seeking. The timeline is left out: it only ever
/// grows, so going back restores it by truncation instead of keeping a copy per
/// checkpoint.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    state: State,
    timeline_len: usize,
    /// The last row as it was (a text row keeps folding deltas into itself).
    last_row: Option<TimelineRow>,
}

/// Characters of a streamed-text run kept in its timeline row.
const TIMELINE_TEXT: usize = 60;

impl State {
    pub fn new(info: SessionInfo) -> Self {
        State {
            info,
            ..State::default()
        }
    }

    pub fn child(&self, id: AgentId) -> Option<&Child> {
        self.child_index.get(&id).map(|&i| &self.children[i])
    }

    pub fn running_children(&self) -> usize {
        self.children
            .iter()
            .filter(|c| c.status == ChildStatus::Running)
            .count()
    }

    /// Whether anything is in motion (a spinner needs ticks).
    pub fn busy(&self) -> bool {
        self.running || self.running_children() > 0
    }

    /// A copy to come back to (see [`Checkpoint`]).
    pub fn checkpoint(&mut self) -> Checkpoint {
        let timeline = std::mem::take(&mut self.timeline);
        let state = self.clone();
        self.timeline = timeline;
        Checkpoint {
            state,
            timeline_len: self.timeline.len(),
            last_row: self.timeline.last().cloned(),
        }
    }

    /// Goes back to `checkpoint`, which must be from earlier in the same stream.
    pub fn restore(&mut self, checkpoint: &Checkpoint) {
        let mut timeline = std::mem::take(&mut self.timeline);
        *self = checkpoint.state.clone();
        timeline.truncate(checkpoint.timeline_len);
        if let (Some(row), Some(last)) = (&checkpoint.last_row, timeline.last_mut()) {
            *last = row.clone();
        }
        self.timeline = timeline;
    }

    /// Applies one event.
    pub fn apply(&mut self, event: &Event) {
        self.events += 1;
        self.now_ms = self.now_ms.max(event.t_ms);
        self.record_timeline(event);
        match event.agent {
            AgentId::Main => self.apply_main(event),
            AgentId::Sub(_) => self.apply_child(event),
        }
        self.apply_shared(event);
    }

    /// What is the same for every agent: approvals, retries, errors.
    fn apply_shared(&mut self, event: &Event) {
        match &event.kind {
            EventKind::ApprovalRequested {
                id,
                call_id,
                tool,
                summary,
                reason,
                session_rule,
            } => self.approvals.push(PendingApproval {
                id: *id,
                agent: event.agent,
                call_id: call_id.clone(),
                tool: tool.clone(),
                summary: summary.clone(),
                reason: reason.clone(),
                session_rule: match session_rule.is_empty() {
                    true => tool.clone(),
                    false => session_rule.clone(),
                },
            }),
            EventKind::PermissionDecision {
                call_id,
                by: DecidedBy::User,
                ..
            } => self
                .approvals
                .retain(|a| !(a.agent == event.agent && &a.call_id == call_id)),
            EventKind::Retry {
                attempt,
                max_attempts,
                wait_ms,
                reason,
            } => {
                self.retry = Some(RetryStatus {
                    agent: event.agent,
                    attempt: *attempt,
                    max_attempts: *max_attempts,
                    wait_ms: *wait_ms,
                    reason: reason.clone(),
                    at_ms: event.t_ms,
                })
            }
            EventKind::TextDelta { .. } | EventKind::AssistantMessage { .. } => {
                if self.retry.as_ref().is_some_and(|r| r.agent == event.agent) {
                    self.retry = None;
                }
            }
            EventKind::Error { message } => self.last_error = Some(message.clone()),
            EventKind::UserMessage { .. }
            | EventKind::ModelRequest { .. }
            | EventKind::ToolCall { .. }
            | EventKind::PermissionDecision { .. }
            | EventKind::ToolResult { .. }
            | EventKind::HookContinue { .. }
            | EventKind::TurnEnd { .. }
            | EventKind::Interrupted {}
            | EventKind::SubagentStart { .. }
            | EventKind::SubagentEnd { .. } => {}
        }
    }

    fn apply_main(&mut self, event: &Event) {
        match &event.kind {
            EventKind::UserMessage { text } => {
                self.running = true;
                self.last_error = None;
                self.push(EntryKind::User(text.clone()));
            }
            EventKind::ModelRequest { step, .. } => self.main.steps = *step,
            EventKind::TextDelta { text } => self.stream_text(text),
            EventKind::AssistantMessage { text, usage, .. } => {
                self.main.tokens += usage.total();
                self.main.context_tokens = context_of(usage);
                self.finish_text(text);
            }
            EventKind::ToolCall {
                call_id,
                name,
                input,
                summary,
            } => self.open_call(event.t_ms, call_id, name, input, summary),
            EventKind::PermissionDecision {
                call_id,
                decision: Decision::Deny,
                ..
            } => self.update_call(call_id, |cell| match cell {
                EntryKind::Tool(c) => c.status = CallStatus::Denied,
                EntryKind::Task(c) => c.status = CallStatus::Denied,
                _ => {}
            }),
            EventKind::ToolResult {
                call_id,
                name,
                is_error,
                content,
                duration_ms,
            } => {
                if name == TASK_TOOL {
                    self.returned_tokens += estimate_tokens(content);
                    self.update_kept_out();
                }
                self.close_call(call_id, *is_error, content, *duration_ms);
            }
            EventKind::HookContinue { text } => {
                self.notice(NoticeLevel::Info, format!("stop hook: {text}"))
            }
            EventKind::Error { message } => self.notice(NoticeLevel::Error, message.clone()),
            EventKind::Interrupted {} => self.notice(NoticeLevel::Warning, "interrupted".into()),
            EventKind::TurnEnd { reason, .. } => {
                self.running = false;
                self.finish_text("");
                match reason {
                    TerminalReason::Completed
                    | TerminalReason::Interrupted
                    | TerminalReason::ModelError => {}
                    other => self.notice(NoticeLevel::Warning, format!("the turn ended: {other}")),
                }
            }
            EventKind::PermissionDecision { .. }
            | EventKind::ApprovalRequested { .. }
            | EventKind::Retry { .. }
            | EventKind::SubagentStart { .. }
            | EventKind::SubagentEnd { .. } => {}
        }
    }

    fn apply_child(&mut self, event: &Event) {
        if let EventKind::SubagentStart {
            parent_call_id,
            profile,
            model,
            model_name,
            description,
            max_steps,
            token_budget,
            context_budget,
            ..
        } = &event.kind
        {
            self.start_child(
                event,
                parent_call_id,
                profile,
                model,
                model_name,
                description,
                *max_steps,
                *token_budget,
                *context_budget,
            );
            return;
        }
        let Some(&index) = self.child_index.get(&event.agent) else {
            return;
        };
        let child = &mut self.children[index];
        match &event.kind {
            EventKind::UserMessage { text } => {
                child.transcript.push(TranscriptItem::Prompt(text.clone()))
            }
            EventKind::ModelRequest { step, .. } => child.steps = *step,
            EventKind::TextDelta { text } => child.streaming.push_str(text),
            EventKind::AssistantMessage { text, usage, .. } => {
                child.tokens += usage.total();
                child.context_tokens = context_of(usage);
                child.streaming.clear();
                if !text.is_empty() {
                    child
                        .transcript
                        .push(TranscriptItem::Assistant(text.as_str().into()));
                }
            }
            EventKind::ToolCall {
                call_id,
                name,
                input,
                summary,
            } => {
                let label = call_label(name, input, summary);
                let input = Arc::new(input.clone());
                child.live.push(LiveLine {
                    seq: event.seq,
                    call_id: call_id.clone(),
                    tool: name.clone(),
                    input: input.clone(),
                    label: label.clone(),
                    status: CallStatus::Running,
                    result: None,
                });
                child.transcript.push(TranscriptItem::ToolCall {
                    name: name.clone(),
                    input,
                    label,
                });
            }
            EventKind::PermissionDecision {
                call_id,
                decision: Decision::Deny,
                ..
            } => {
                if let Some(line) = child.live.iter_mut().rev().find(|l| &l.call_id == call_id) {
                    line.status = CallStatus::Denied;
                }
            }
            EventKind::ToolResult {
                call_id,
                name,
                is_error,
                content,
                ..
            } => {
                if let Some(line) = child.live.iter_mut().rev().find(|l| &l.call_id == call_id) {
                    if line.status != CallStatus::Denied {
                        line.status = if *is_error {
                            CallStatus::Failed
                        } else {
                            CallStatus::Done
                        };
                    }
                    line.result = Some(first_line(content));
                }
                child.transcript.push(TranscriptItem::ToolResult {
                    name: name.clone(),
                    content: content.clone(),
                    is_error: *is_error,
                });
            }
            EventKind::Error { message } => child
                .transcript
                .push(TranscriptItem::Note(format!("error: {message}"))),
            EventKind::HookContinue { text } => child
                .transcript
                .push(TranscriptItem::Note(format!("stop hook: {text}"))),
            EventKind::SubagentEnd {
                reason,
                summary,
                steps,
                usage,
                elapsed_ms,
                ..
            } => {
                child.status = match reason {
                    TerminalReason::Completed => ChildStatus::Done,
                    _ => ChildStatus::Failed,
                };
                child.reason = Some(*reason);
                child.steps = *steps;
                child.tokens = usage.total();
                child.ended_ms = Some(event.t_ms);
                child.streaming.clear();
                child
                    .transcript
                    .push(TranscriptItem::Note(format!("ended {reason}: {summary}")));
                self.children_tokens += usage.total();
                self.update_kept_out();
                let child_id = event.agent;
                let summary = summary.clone();
                let reason = *reason;
                let elapsed = *elapsed_ms;
                let tokens = usage.total();
                self.update_task_of(child_id, |task| {
                    task.summary = Some(summary);
                    task.reason = Some(reason);
                    task.elapsed_ms = Some(elapsed);
                    task.tokens = Some(tokens);
                });
            }
            EventKind::TurnEnd { .. }
            | EventKind::Interrupted {}
            | EventKind::PermissionDecision { .. }
            | EventKind::ApprovalRequested { .. }
            | EventKind::Retry { .. }
            | EventKind::SubagentStart { .. } => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn start_child(
        &mut self,
        event: &Event,
        parent_call_id: &str,
        profile: &str,
        model: &str,
        model_name: &str,
        description: &str,
        max_steps: Option<u32>,
        token_budget: Option<u64>,
        context_budget: Option<u64>,
    ) {
        let child = Child {
            id: event.agent,
            profile: profile.to_string(),
            description: description.to_string(),
            model: model.to_string(),
            model_name: model_name.to_string(),
            status: ChildStatus::Running,
            reason: None,
            steps: 0,
            max_steps,
            tokens: 0,
            token_budget,
            context_tokens: 0,
            context_budget,
            started_ms: event.t_ms,
            ended_ms: None,
            live: Vec::new(),
            transcript: Vec::new(),
            streaming: String::new(),
        };
        self.child_index.insert(event.agent, self.children.len());
        self.children.push(child);
        let id = event.agent;
        self.update_call(parent_call_id, |cell| {
            if let EntryKind::Task(task) = cell {
                task.child = Some(id);
            }
        });
    }

    fn next_rev(&mut self) -> u64 {
        self.next_rev += 1;
        self.next_rev
    }

    fn push(&mut self, kind: EntryKind) {
        let rev = self.next_rev();
        self.entries.push(Entry { rev, kind });
    }

    fn notice(&mut self, level: NoticeLevel, text: String) {
        self.push(EntryKind::Notice { level, text });
    }

    fn stream_text(&mut self, delta: &str) {
        let rev = self.next_rev();
        if let Some(Entry {
            rev: entry_rev,
            kind:
                EntryKind::Assistant {
                    text,
                    streaming: true,
                },
        }) = self.entries.last_mut()
        {
            Arc::make_mut(text).push_str(delta);
            *entry_rev = rev;
            return;
        }
        self.entries.push(Entry {
            rev,
            kind: EntryKind::Assistant {
                text: Arc::new(delta.to_string()),
                streaming: true,
            },
        });
    }

    /// Ends the streaming message; a complete message that never streamed (a
    /// provider without deltas) is added whole.
    fn finish_text(&mut self, full: &str) {
        let rev = self.next_rev();
        if let Some(Entry {
            rev: entry_rev,
            kind: EntryKind::Assistant { streaming, .. },
        }) = self.entries.last_mut()
            && *streaming
        {
            *streaming = false;
            *entry_rev = rev;
            return;
        }
        if !full.is_empty() {
            self.entries.push(Entry {
                rev,
                kind: EntryKind::Assistant {
                    text: Arc::new(full.to_string()),
                    streaming: false,
                },
            });
        }
    }

    fn open_call(
        &mut self,
        t_ms: u64,
        call_id: &str,
        name: &str,
        input: &serde_json::Value,
        summary: &str,
    ) {
        self.finish_text("");
        let kind = if name == TASK_TOOL {
            EntryKind::Task(TaskCell {
                call_id: call_id.to_string(),
                child: None,
                profile: input["subagent_type"]
                    .as_str()
                    .unwrap_or("explore")
                    .to_string(),
                description: input["description"]
                    .as_str()
                    .or_else(|| input["prompt"].as_str())
                    .unwrap_or_default()
                    .to_string(),
                status: CallStatus::Running,
                started_ms: t_ms,
                summary: None,
                reason: None,
                elapsed_ms: None,
                tokens: None,
            })
        } else {
            EntryKind::Tool(ToolCell {
                call_id: call_id.to_string(),
                name: name.to_string(),
                input: Arc::new(input.clone()),
                label: call_label(name, input, summary),
                status: CallStatus::Running,
                started_ms: t_ms,
                duration_ms: None,
                output: Arc::from(""),
            })
        };
        self.calls.insert(call_id.to_string(), self.entries.len());
        self.push(kind);
    }

    fn close_call(&mut self, call_id: &str, is_error: bool, content: &Arc<str>, duration_ms: u64) {
        self.update_call(call_id, |cell| match cell {
            EntryKind::Tool(c) => {
                if c.status != CallStatus::Denied {
                    c.status = if is_error {
                        CallStatus::Failed
                    } else {
                        CallStatus::Done
                    };
                }
                c.duration_ms = Some(duration_ms);
                c.output = content.clone();
            }
            EntryKind::Task(t) => {
                if t.status != CallStatus::Denied {
                    t.status = if is_error {
                        CallStatus::Failed
                    } else {
                        CallStatus::Done
                    };
                }
                t.elapsed_ms.get_or_insert(duration_ms);
                if t.summary.is_none() {
                    t.summary = Some(envelope_text(content));
                }
            }
            EntryKind::User(_) | EntryKind::Assistant { .. } | EntryKind::Notice { .. } => {}
        });
    }

    fn update_call(&mut self, call_id: &str, change: impl FnOnce(&mut EntryKind)) {
        let Some(&index) = self.calls.get(call_id) else {
            return;
        };
        let rev = self.next_rev();
        if let Some(entry) = self.entries.get_mut(index) {
            change(&mut entry.kind);
            entry.rev = rev;
        }
    }

    fn update_task_of(&mut self, child: AgentId, change: impl FnOnce(&mut TaskCell)) {
        let rev = self.next_rev();
        let found = self
            .entries
            .iter_mut()
            .rev()
            .find(|e| matches!(&e.kind, EntryKind::Task(t) if t.child == Some(child)));
        if let Some(entry) = found
            && let EntryKind::Task(task) = &mut entry.kind
        {
            change(task);
            entry.rev = rev;
        }
    }

    fn update_kept_out(&mut self) {
        self.kept_out_tokens = self.children_tokens.saturating_sub(self.returned_tokens);
    }

    fn record_timeline(&mut self, event: &Event) {
        if let EventKind::TextDelta { text } = &event.kind
            && let Some(last) = self.timeline.last_mut()
            && last.kind == "text_delta"
            && last.agent == event.agent
        {
            last.count += 1;
            if last.detail.len() < TIMELINE_TEXT {
                last.detail.extend(
                    text.chars()
                        .map(|c| if c == '\n' { ' ' } else { c })
                        .take(TIMELINE_TEXT),
                );
            }
            return;
        }
        self.timeline.push(TimelineRow {
            seq: event.seq,
            t_ms: event.t_ms,
            agent: event.agent,
            kind: event.kind.wire_name(),
            detail: timeline_detail(&event.kind),
            count: 1,
        });
    }
}

/// The input tokens of a request, cached ones included: how full the context was.
fn context_of(usage: &Usage) -> u64 {
    usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
}

fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let extra = text.lines().count().saturating_sub(1);
    let mut out: String = line.chars().take(120).collect();
    if extra > 0 {
        out.push_str(&format!(" (+{})", count(extra as u64, "line")));
    }
    out
}

fn timeline_detail(kind: &EventKind) -> String {
    let short = |s: &str| {
        s.chars()
            .take(TIMELINE_TEXT)
            .map(|c| if c == '\n' { ' ' } else { c })
            .collect::<String>()
    };
    match kind {
        EventKind::UserMessage { text }
        | EventKind::TextDelta { text }
        | EventKind::HookContinue { text } => short(text),
        EventKind::ModelRequest {
            step,
            model,
            messages,
            ..
        } => format!(
            "step {step} · {model} · {}",
            count(*messages as u64, "message")
        ),
        EventKind::AssistantMessage {
            tool_calls,
            usage,
            stop_reason,
            ..
        } => {
            format!(
                "{stop_reason} · {} · {} tokens",
                count(*tool_calls as u64, "call"),
                usage.total()
            )
        }
        EventKind::ToolCall { name, input, .. } => format!("{name} {}", short(&input.to_string())),
        EventKind::ApprovalRequested { tool, summary, .. } => format!("{tool}: {}", short(summary)),
        EventKind::PermissionDecision {
            decision, reason, ..
        } => format!("{decision}: {}", short(reason)),
        EventKind::ToolResult {
            name,
            is_error,
            duration_ms,
            content,
            ..
        } => {
            let mark = if *is_error { "✗" } else { "✓" };
            format!("{mark} {name} {duration_ms} ms · {}", short(content))
        }
        EventKind::TurnEnd {
            reason,
            steps,
            usage,
        } => format!(
            "{reason} · {} · {} tokens",
            count(*steps, "step"),
            usage.total()
        ),
        EventKind::Error { message } => short(message),
        EventKind::Retry {
            attempt,
            max_attempts,
            wait_ms,
            ..
        } => format!("{attempt}/{max_attempts} in {wait_ms} ms"),
        EventKind::Interrupted {} => String::new(),
        EventKind::SubagentStart {
            profile,
            description,
            ..
        } => format!("{profile}: {}", short(description)),
        EventKind::SubagentEnd {
            reason,
            steps,
            usage,
            ..
        } => format!(
            "{reason} · {} · {} tokens",
            count(*steps, "step"),
            usage.total()
        ),
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
