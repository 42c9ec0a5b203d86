//! The reducer's half for tool calls: a call's cell in the conversation (a
//! task cell for `task`), its result, its diff, and the updates children make
//! to the task cell they belong to.

use std::sync::Arc;

use super::*;

impl State {
    pub(super) fn open_call(
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
                diff: None,
            })
        };
        self.calls.insert(call_id.to_string(), self.entries.len());
        self.push(kind);
    }

    pub(super) fn close_call(
        &mut self,
        call_id: &str,
        is_error: bool,
        content: &Arc<str>,
        duration_ms: u64,
    ) {
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
            EntryKind::User(_)
            | EntryKind::Assistant { .. }
            | EntryKind::Thinking { .. }
            | EntryKind::Notice { .. } => {}
        });
    }

    /// Shows `diff` in the parent's cell of `call_id` (a child's calls have
    /// no cell in the conversation).
    pub(super) fn set_diff(
        &mut self,
        agent: AgentId,
        call_id: &str,
        diff: Arc<crate::tui::diff::FileDiff>,
    ) {
        if agent != AgentId::Main {
            return;
        }
        self.update_call(call_id, |cell| {
            if let EntryKind::Tool(c) = cell {
                c.diff = Some(diff);
            }
        });
    }

    /// The index in `entries` of the parent's call `call_id`.
    pub fn entry_of_call(&self, call_id: &str) -> Option<usize> {
        self.calls.get(call_id).copied()
    }

    pub(super) fn update_call(&mut self, call_id: &str, change: impl FnOnce(&mut EntryKind)) {
        let Some(&index) = self.calls.get(call_id) else {
            return;
        };
        let rev = self.next_rev();
        if let Some(entry) = self.entries.get_mut(index) {
            change(&mut entry.kind);
            entry.rev = rev;
        }
    }

    pub(super) fn update_task_of(&mut self, child: AgentId, change: impl FnOnce(&mut TaskCell)) {
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
}

/// Whether a result says its call failed: an error, or a command's
/// non-zero exit.
pub(super) fn call_failed(tool: &str, is_error: bool, content: &str) -> bool {
    is_error || crate::protocol::exit_code(tool, content).is_some_and(|c| c != 0)
}
