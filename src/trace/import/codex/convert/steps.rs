//! The model's side of a lane: a response's items become one step (request,
//! text, message, calls), outputs become results, and token counts become each
//! step's usage.

use std::sync::Arc;

use serde_json::Value;

use super::super::super::lines::str_at;
use super::super::super::timeline::elapsed_ms;
use super::super::tools::{self, Call, Counts, Role};
use super::{COMPACTED, Converter, Spawn, Wait};
use crate::event::{EventKind, Usage};

impl Converter {
    /// Emits the open step: request, text, message, then its calls.
    pub(super) fn flush(&mut self) {
        let Some(step) = self.open.take() else {
            return;
        };
        self.step += 1;
        self.buf.push(
            step.ts,
            EventKind::ModelRequest {
                step: self.step,
                model: self.model.clone().unwrap_or_default(),
                messages: self.messages,
                tools: 0,
            },
        );
        let text = step.text.join("\n\n");
        let mut shown = String::new();
        if !step.reasoning.is_empty() {
            shown = format!("Reasoning: {}\n\n", step.reasoning.join("\n\n"));
        }
        shown.push_str(&text);
        if !shown.is_empty() {
            self.buf.push(step.ts, EventKind::TextDelta { text: shown });
        }
        let mut usage = step.usage.unwrap_or_default();
        usage.add(&std::mem::take(&mut self.orphan));
        let stop_reason = match step.calls.is_empty() {
            true => "stop",
            false => "tool_calls",
        };
        let idx = self.buf.push(
            step.ts,
            EventKind::AssistantMessage {
                text,
                tool_calls: step.calls.len(),
                usage,
                stop_reason: stop_reason.into(),
            },
        );
        self.messages += 1;
        self.last_message = Some(idx);
        if step.usage.is_none() {
            self.awaiting = Some(idx);
        }
        if let Some(turn) = &mut self.turn {
            turn.steps += 1;
            turn.usage.add(&usage);
        }
        for (call, ts) in step.calls {
            self.call(call, ts);
        }
    }

    pub(super) fn call(&mut self, call: Call, ts: Option<i64>) {
        let Call {
            call_id,
            name,
            input,
            summary,
            role,
            result,
        } = call;
        self.calls.insert(call_id.clone(), (name.clone(), ts, role));
        let call_idx = self.buf.push(
            ts,
            EventKind::ToolCall {
                call_id: call_id.clone(),
                name: name.clone(),
                input: input.clone().into(),
                summary: summary.into(),
            },
        );
        if role == Role::Spawn {
            self.spawns.push(Spawn {
                call_id: call_id.clone(),
                call_idx,
                ts,
                input,
                thread: None,
                result_ts: None,
                failed: false,
            });
        }
        if let Some(content) = result {
            self.buf.push(
                ts,
                EventKind::ToolResult {
                    call_id,
                    name,
                    is_error: false,
                    content: content.into(),
                    duration_ms: 0,
                },
            );
        }
    }

    pub(super) fn output(&mut self, item: &Value, ts: Option<i64>) {
        self.prompt_from = None;
        self.flush();
        let call_id = str_at(item, "call_id").unwrap_or_default().to_string();
        let (content, failed) = tools::output_of(item);
        let failed = failed || self.failed.remove(&call_id).unwrap_or(false);
        let (name, call_ts, role) = self
            .calls
            .get(&call_id)
            .cloned()
            .unwrap_or_else(|| ("unknown".to_string(), None, Role::Plain));
        let duration_ms = elapsed_ms(call_ts, ts);
        let idx = self.buf.push(
            ts,
            EventKind::ToolResult {
                call_id: call_id.clone(),
                name,
                is_error: failed,
                content: content.as_str().into(),
                duration_ms,
            },
        );
        self.messages += 1;
        match role {
            Role::Spawn => {
                if let Some(spawn) = self.spawns.iter_mut().rev().find(|s| s.call_id == call_id) {
                    spawn.thread = tools::spawned_id(&content).or(spawn.thread.take());
                    spawn.result_ts = ts;
                    spawn.failed = failed;
                }
            }
            Role::Wait => self.waits.push(Wait {
                idx,
                ended: tools::ended(&content),
            }),
            Role::Plain => {}
        }
    }

    /// Turns the running total into this step's counts, so the steps add up
    /// to the rollout's last `total_token_usage` however often it repeats.
    pub(super) fn token_count(&mut self, event: &Value) {
        let Some(info) = event.get("info").filter(|i| i.is_object()) else {
            return;
        };
        let total = Counts::of(info.get("total_token_usage"));
        let last = Counts::of(info.get("last_token_usage"));
        let added = match (total, self.total) {
            (Some(now), Some(before)) => now.since(&before).unwrap_or(now),
            (Some(now), None) => now,
            (None, _) => match last {
                Some(last) => last,
                None => return,
            },
        };
        self.total = total.or(self.total);
        let usage = added.usage();
        if usage == Usage::default() {
            return;
        }
        if let Some(step) = &mut self.open {
            step.usage.get_or_insert_with(Usage::default).add(&usage);
            self.flush();
        } else if let Some(idx) = self.awaiting.take() {
            self.add_usage(idx, &usage);
        } else {
            self.orphan.add(&usage);
        }
    }

    /// Adds counts that came late to the message at `idx`, and to its turn.
    pub(super) fn add_usage(&mut self, idx: usize, usage: &Usage) {
        let message = self.buf.events.get_mut(idx).and_then(Option::as_mut);
        if let Some(pending) = message
            && let EventKind::AssistantMessage { usage: u, .. } = Arc::make_mut(&mut pending.kind)
        {
            u.add(usage);
        }
        if let Some(turn) = &mut self.turn {
            turn.usage.add(usage);
        } else if let Some(end) = self.last_turn_end
            && end > idx
            && let Some(pending) = self.buf.events.get_mut(end).and_then(Option::as_mut)
            && let EventKind::TurnEnd { usage: u, .. } = Arc::make_mut(&mut pending.kind)
        {
            u.add(usage);
        }
    }

    /// One mark per compaction, though Codex logs it as a `compacted` record
    /// and as a `context_compacted` event.
    pub(super) fn compacted(&mut self, ts: Option<i64>) {
        self.flush();
        if self.compacted_at == Some(self.buf.events.len()) {
            return;
        }
        let text = COMPACTED.to_string();
        self.buf
            .push(ts, EventKind::TextDelta { text: text.clone() });
        self.buf.push(
            ts,
            EventKind::AssistantMessage {
                text,
                tool_calls: 0,
                usage: Usage::default(),
                stop_reason: "compacted".into(),
            },
        );
        self.compacted_at = Some(self.buf.events.len());
    }
}
