//! The raw event timeline of the trace pane, as typed rows: the reducer says
//! what each row is (its `Mark`), the view chooses glyphs and colours.

use super::*;

/// One row of the raw event timeline (the trace pane). Runs of streamed text
/// from one agent are folded into one row.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRow {
    pub seq: u64,
    pub t_ms: u64,
    pub agent: AgentId,
    /// The event's `type`.
    pub kind: &'static str,
    /// What the row is, for the view's glyph and colour.
    pub mark: Mark,
    pub detail: String,
    /// Events folded into this row.
    pub count: u32,
}

/// What a timeline row is, beyond its event type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Plain,
    /// A tool result that succeeded, or one that failed.
    Passed,
    Failed,
    /// Something went wrong (an error, an interruption).
    Alarm,
    /// Waiting on a person or a retry.
    Waiting,
    /// A child starts or ends.
    Boundary,
}

impl Mark {
    fn of(kind: &EventKind) -> Mark {
        match kind {
            EventKind::ToolResult { is_error: true, .. } => Mark::Failed,
            EventKind::ToolResult {
                is_error: false, ..
            } => Mark::Passed,
            EventKind::Error { .. }
            | EventKind::Interrupted {}
            | EventKind::McpServerDown { .. } => Mark::Alarm,
            EventKind::Retry { .. } | EventKind::ApprovalRequested(_) => Mark::Waiting,
            EventKind::SubagentStart(_) | EventKind::SubagentEnd { .. } => Mark::Boundary,
            EventKind::Resumed { .. } | EventKind::Compacted { .. } => Mark::Boundary,
            EventKind::UserMessage { .. }
            | EventKind::ModelChanged { .. }
            | EventKind::ThinkingDelta { .. }
            | EventKind::Thinking { .. }
            | EventKind::PromptContext { .. }
            | EventKind::ModelRequest { .. }
            | EventKind::TextDelta { .. }
            | EventKind::AssistantMessage { .. }
            | EventKind::ToolCall { .. }
            | EventKind::PermissionDecision { .. }
            | EventKind::HookContinue { .. }
            | EventKind::Steer { .. }
            | EventKind::TurnEnd { .. } => Mark::Plain,
            EventKind::HookRun { outcome, .. } => match outcome {
                crate::event::HookOutcome::Continued => Mark::Plain,
                crate::event::HookOutcome::Blocked => Mark::Waiting,
                crate::event::HookOutcome::Failed | crate::event::HookOutcome::TimedOut => {
                    Mark::Failed
                }
            },
        }
    }
}

impl State {
    pub(super) fn record_timeline(&mut self, event: &Event) {
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
            mark: Mark::of(&event.kind),
            detail: timeline_detail(&event.kind),
            count: 1,
        });
    }
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
        | EventKind::PromptContext { text }
        | EventKind::ThinkingDelta { text }
        | EventKind::Thinking { text, .. }
        | EventKind::TextDelta { text }
        | EventKind::HookContinue { text }
        | EventKind::Steer { text } => short(text),
        EventKind::Resumed { at, messages } => {
            format!("{at} · {}", count(*messages as u64, "message"))
        }
        EventKind::ModelChanged { slot, model } => format!("{slot:?} {model}"),
        EventKind::Compacted {
            trigger,
            before_tokens,
            after_tokens,
            ..
        } => format!("{trigger} · {before_tokens} → {after_tokens} tokens"),
        EventKind::HookRun {
            hook,
            command,
            outcome,
            ..
        } => short(&format!("{hook} {command} {}", outcome.as_str())),
        EventKind::McpServerDown { server, error } => short(&format!("{server}: {error}")),
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
        EventKind::ApprovalRequested(ask) => format!("{}: {}", ask.tool, short(&ask.summary)),
        EventKind::PermissionDecision {
            decision, reason, ..
        } => format!("{decision}: {}", short(reason)),
        EventKind::ToolResult {
            name,
            duration_ms,
            content,
            ..
        } => format!(
            "{name} {} · {}",
            crate::text::duration(*duration_ms),
            short(content)
        ),
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
        EventKind::SubagentStart(start) => {
            format!("{}: {}", start.profile, short(&start.description))
        }
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
