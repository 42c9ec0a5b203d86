//! The reducer's half for child agents: their start, live lines, transcript,
//! gauges and end, and the task cell in the parent's conversation they belong
//! to.

use std::sync::Arc;

use crate::event::SubagentStart;

use super::*;

impl State {
    pub(super) fn apply_child(&mut self, event: &Event) {
        if let EventKind::SubagentStart(start) = &event.kind {
            self.start_child(event, start);
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
                if let Some(cost) = self.info.prices.cost(&child.model_name, usage) {
                    *child.cost.get_or_insert(0.0) += cost;
                }
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
                let input = Arc::new(input.to_value());
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
                let failed = call_failed(name, *is_error, content);
                if let Some(line) = child.live.iter_mut().rev().find(|l| &l.call_id == call_id) {
                    if line.status != CallStatus::Denied {
                        line.status = if failed {
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
            EventKind::Steer { text } => child.transcript.push(TranscriptItem::Told(text.clone())),
            EventKind::HookRun {
                hook,
                outcome,
                message,
                ..
            } => child.transcript.push(TranscriptItem::Note(format!(
                "hook {hook} {}: {message}",
                outcome.as_str()
            ))),
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
            | EventKind::ApprovalRequested(_)
            | EventKind::Retry { .. }
            | EventKind::McpServerDown { .. }
            | EventKind::SubagentStart(_)
            | EventKind::PromptContext { .. }
            | EventKind::Compacted { .. }
            | EventKind::ThinkingDelta { .. }
            | EventKind::ModelChanged { .. }
            | EventKind::Resumed { .. } => {}
            EventKind::Thinking { text, .. } if !text.trim().is_empty() => child
                .transcript
                .push(TranscriptItem::Thinking(text.trim().into())),
            EventKind::Thinking { .. } => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn start_child(&mut self, event: &Event, start: &SubagentStart) {
        let child = Child {
            id: event.agent,
            profile: start.profile.clone(),
            color: start.color.clone(),
            description: start.description.clone(),
            model: start.model.clone(),
            model_name: start.model_name.clone(),
            status: ChildStatus::Running,
            reason: None,
            steps: 0,
            max_steps: start.max_steps,
            tokens: 0,
            cost: None,
            token_budget: start.token_budget,
            context_tokens: 0,
            context_budget: start.context_budget,
            started_ms: event.t_ms,
            ended_ms: None,
            turn: self.turn,
            live: Vec::new(),
            transcript: Vec::new(),
            streaming: String::new(),
        };
        self.child_index.insert(event.agent, self.children.len());
        self.children.push(child);
        let id = event.agent;
        self.update_call(&start.parent_call_id, |cell| {
            if let EntryKind::Task(task) = cell {
                task.child = Some(id);
            }
        });
    }
}
