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

mod calls;
use calls::call_failed;
mod changes;
mod children;
mod timeline;
mod types;

pub use changes::{Change, Changes};
pub use timeline::{Mark, TimelineRow};
pub use types::*;

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
    /// Whose the last error was.
    last_error_from: Option<AgentId>,
    /// Whether the parent's turn is running.
    pub running: bool,
    /// The parent's turns started so far: a child of an earlier turn that has
    /// ended leaves the budgets when the next one starts.
    pub turn: u32,
    pub timeline: Vec<TimelineRow>,
    /// The files every agent changed, as diffs.
    pub changes: Changes,
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

    /// Whether `child` waits for the user's answer to an approval.
    pub fn waiting(&self, child: AgentId) -> bool {
        self.approvals.iter().any(|a| a.agent == child)
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
            EventKind::ApprovalRequested(ask) => self.approvals.push(PendingApproval {
                id: ask.id,
                agent: event.agent,
                call_id: ask.call_id.clone(),
                tool: ask.tool.clone(),
                summary: ask.summary.clone(),
                reason: ask.reason.clone(),
                session_rule: match ask.session_rule.is_empty() {
                    true => ask.tool.clone(),
                    false => ask.session_rule.clone(),
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
            // A child's error names the child; it is the parent's to handle,
            // so it leaves the status line when the parent's turn ends.
            EventKind::ToolCall {
                call_id,
                name,
                input,
                ..
            } => {
                if let Some(diff) = self.changes.call(event.agent, call_id, name, input) {
                    self.set_diff(event.agent, call_id, diff);
                }
            }
            EventKind::ToolResult {
                call_id,
                name,
                is_error,
                content,
                ..
            } => {
                let failed = call_failed(name, *is_error, content);
                if let Some(diff) = self
                    .changes
                    .result(event.agent, call_id, name, failed, content)
                {
                    self.set_diff(event.agent, call_id, diff);
                }
            }
            EventKind::Error { message } => {
                self.last_error = Some(match event.agent {
                    AgentId::Main => message.clone(),
                    AgentId::Sub(_) => format!("{}: {message}", event.agent),
                });
                self.last_error_from = Some(event.agent);
            }
            EventKind::UserMessage { .. }
            | EventKind::PromptContext { .. }
            | EventKind::ThinkingDelta { .. }
            | EventKind::Thinking { .. }
            | EventKind::ModelChanged { .. }
            | EventKind::Resumed { .. }
            | EventKind::Compacted { .. }
            | EventKind::ModelRequest { .. }
            | EventKind::PermissionDecision { .. }
            | EventKind::HookContinue { .. }
            | EventKind::Steer { .. }
            | EventKind::HookRun { .. }
            | EventKind::McpServerDown { .. }
            | EventKind::TurnEnd { .. }
            | EventKind::Interrupted {}
            | EventKind::SubagentStart(_)
            | EventKind::SubagentEnd { .. } => {}
        }
    }

    fn apply_main(&mut self, event: &Event) {
        match &event.kind {
            EventKind::UserMessage { text } => {
                self.running = true;
                self.turn += 1;
                self.last_error = None;
                self.push(EntryKind::User(text.clone()));
            }
            EventKind::ModelRequest { step, model, .. } => {
                self.main.steps = *step;
                self.main.model.clone_from(model);
            }
            EventKind::TextDelta { text } => self.stream_text(text),
            EventKind::ThinkingDelta { text } => self.stream(Streamed::Thinking, text),
            EventKind::Thinking { text, redacted, .. } => {
                self.finish_thinking(text, redacted.is_some())
            }
            EventKind::AssistantMessage { text, usage, .. } => {
                self.main_spent(usage);
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
                let failed = call_failed(name, *is_error, content);
                self.close_call(call_id, failed, content, *duration_ms);
            }
            EventKind::HookContinue { text } => {
                self.notice(NoticeLevel::Info, format!("stop hook: {text}"))
            }
            EventKind::Steer { text } => self.push(EntryKind::User(text.clone())),
            EventKind::McpServerDown { server, error } => {
                if let Some(entry) = self.info.mcp.iter_mut().find(|s| &s.name == server) {
                    entry.failed = Some(error.clone());
                    entry.tools.clear();
                }
                self.notice(
                    NoticeLevel::Warning,
                    format!("MCP server {server} stopped: {error}"),
                );
            }
            EventKind::HookRun {
                hook,
                outcome,
                message,
                ..
            } => match outcome {
                crate::event::HookOutcome::Continued => {}
                crate::event::HookOutcome::Blocked => {
                    self.notice(NoticeLevel::Info, format!("hook {hook} blocked: {message}"))
                }
                crate::event::HookOutcome::Failed | crate::event::HookOutcome::TimedOut => self
                    .notice(
                        NoticeLevel::Warning,
                        format!("hook {hook} {}: {message}", outcome.as_str()),
                    ),
            },
            EventKind::Error { message } => self.notice(NoticeLevel::Error, message.clone()),
            EventKind::Interrupted {} => self.notice(NoticeLevel::Warning, "interrupted".into()),
            // The title names the models the next turns use.
            EventKind::ModelChanged { slot, model } => {
                let which = match slot {
                    crate::event::ModelSlot::Main => {
                        self.info.model.clone_from(model);
                        "model"
                    }
                    crate::event::ModelSlot::Light => {
                        self.info.light_model = Some(model.clone());
                        "light model"
                    }
                };
                self.notice(NoticeLevel::Info, format!("{which}: {model} from now on"));
            }
            // What is above was summarised for the model: the screen keeps it.
            EventKind::Compacted {
                before_tokens,
                after_tokens,
                usage,
                ..
            } => {
                self.main_spent(usage);
                self.main.context_tokens = *after_tokens;
                self.notice(
                    NoticeLevel::Info,
                    format!(
                        "compacted: the model now reads a summary of the above · about {} → {} tokens",
                        crate::text::tokens(*before_tokens),
                        crate::text::tokens(*after_tokens)
                    ),
                )
            }
            // The seam of a continued session: what is above was read back
            // from its trace.
            EventKind::Resumed { at, messages } => {
                self.running = false;
                let history = count(*messages as u64, "message");
                self.notice(
                    NoticeLevel::Info,
                    format!(
                        "resumed {} · {history} of history",
                        crate::text::short_time(at)
                    ),
                )
            }
            EventKind::TurnEnd { reason, .. } => {
                self.running = false;
                self.finish_text("");
                if matches!(self.last_error_from, Some(AgentId::Sub(_))) {
                    self.last_error = None;
                }
                match reason {
                    TerminalReason::Completed
                    | TerminalReason::Interrupted
                    | TerminalReason::ModelError => {}
                    other => self.notice(NoticeLevel::Warning, format!("the turn ended: {other}")),
                }
            }
            EventKind::PermissionDecision { .. }
            | EventKind::PromptContext { .. }
            | EventKind::ApprovalRequested(_)
            | EventKind::Retry { .. }
            | EventKind::SubagentStart(_)
            | EventKind::SubagentEnd { .. } => {}
        }
    }

    /// What one of the parent's requests used: tokens, and cost at its
    /// model's price.
    fn main_spent(&mut self, usage: &Usage) {
        self.main.tokens += usage.total();
        self.main.usage.add(usage);
        if let Some(cost) = self.info.prices.cost(&self.main_model(), usage) {
            *self.main.cost.get_or_insert(0.0) += cost;
        }
    }

    /// The model the parent's requests name (the session's until one has).
    fn main_model(&self) -> String {
        match self.main.model.is_empty() {
            true => self.info.model.clone(),
            false => self.main.model.clone(),
        }
    }

    /// What the session cost so far: the parent's requests and every
    /// child's; `None` when no model in it has a price.
    pub fn total_cost(&self) -> Option<f64> {
        let children = self.children.iter().filter_map(|c| c.cost);
        let all: Vec<f64> = self.main.cost.into_iter().chain(children).collect();
        (!all.is_empty()).then(|| all.iter().sum())
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

    /// Appends a streamed piece to the answer or reasoning that streams, or
    /// starts one.
    fn stream(&mut self, into: Streamed, delta: &str) {
        let rev = self.next_rev();
        if let Some(entry) = self.entries.last_mut()
            && let Some(text) = into.open_text(&mut entry.kind)
        {
            Arc::make_mut(text).push_str(delta);
            entry.rev = rev;
            return;
        }
        let kind = into.entry(Arc::new(delta.to_string()), true);
        self.entries.push(Entry { rev, kind });
    }

    fn stream_text(&mut self, delta: &str) {
        self.stream(Streamed::Answer, delta);
    }

    /// The whole block ends what streamed of it (a trace without the
    /// deltas shows it whole at once).
    fn finish_thinking(&mut self, whole: &str, redacted: bool) {
        let text = match redacted {
            true => "(the provider keeps this reasoning encrypted)".to_string(),
            false => whole.to_string(),
        };
        let entry = Entry {
            rev: self.next_rev(),
            kind: Streamed::Thinking.entry(Arc::new(text), false),
        };
        let streaming = self
            .entries
            .iter_mut()
            .rposition(|e| Streamed::Thinking.open_text(&mut e.kind).is_some());
        match streaming {
            Some(i) => self.entries[i] = entry,
            None => self.entries.push(entry),
        }
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

    fn update_kept_out(&mut self) {
        self.kept_out_tokens = self.children_tokens.saturating_sub(self.returned_tokens);
    }
}

/// The input tokens of a request, cached ones included: how full the context was.
fn context_of(usage: &Usage) -> u64 {
    usage.input_total()
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

/// What a stream of deltas builds: the answer, or the reasoning before it.
#[derive(Debug, Clone, Copy)]
enum Streamed {
    Answer,
    Thinking,
}

impl Streamed {
    /// The text of `kind` if it is this sort of entry and still streams.
    fn open_text(self, kind: &mut EntryKind) -> Option<&mut Arc<String>> {
        match (self, kind) {
            (
                Streamed::Answer,
                EntryKind::Assistant {
                    text,
                    streaming: true,
                },
            )
            | (
                Streamed::Thinking,
                EntryKind::Thinking {
                    text,
                    streaming: true,
                },
            ) => Some(text),
            (Streamed::Answer | Streamed::Thinking, _) => None,
        }
    }

    fn entry(self, text: Arc<String>, streaming: bool) -> EntryKind {
        match self {
            Streamed::Answer => EntryKind::Assistant { text, streaming },
            Streamed::Thinking => EntryKind::Thinking { text, streaming },
        }
    }
}

#[cfg(test)]
mod tests;
