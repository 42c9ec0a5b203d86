//! A MyCodeAgent child between its `subagent_start` and its lane's end.
//!
//! MyCodeAgent's launcher (`runtime/subagents.py`) logs `subagent_requested`,
//! `subagent_started` and `subagent_completed` / `subagent_failed` with ids,
//! profile, model role and budgets, but neither the task's description nor its
//! prompt: those are the arguments of the parent's `Task` call
//! (`tools/builtin/task.py`), which is where they are taken from.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::super::lines::{display, first_str, u64_at};
use super::super::timeline::{Pending, Timeline, reason_from};
use super::lane::{FileLane, usage_of};
use crate::event::{AgentId, EventKind, TerminalReason, Usage};
use crate::protocol::TASK_TOOL;

/// A started child: where its lane goes, which call it answers, and its end.
pub(super) struct ChildRec {
    lane_index: usize,
    pub session: Option<String>,
    call_id: String,
    call_idx: usize,
    start_ts: Option<i64>,
    start: Value,
    /// The child's own trace, when it could be read.
    pub lane: Option<FileLane>,
    /// Why there is no trace of the child.
    pub problem: Option<String>,
    end: Option<(Option<i64>, Value, bool)>,
    /// The parent's result of the call: index of its `tool_result`.
    result_idx: Option<usize>,
    /// The parent's trace logged no call for this child; one was made up.
    made_up: bool,
    /// A result made up at `subagent_end`, taken back if the real one comes.
    provisional: Option<usize>,
}

impl ChildRec {
    /// Ties a new child to its `Task` call in `parent`, making one up if the
    /// trace logged none.
    pub fn start(
        parent: &mut FileLane,
        agent: AgentId,
        lane_index: usize,
        ts: Option<i64>,
        payload: &Value,
    ) -> Self {
        let session =
            first_str(payload, &["child_session_id", "session_id", "child_id"]).map(String::from);
        let named = first_str(payload, &["tool_call_id", "parent_call_id", "call_id"]);
        let claimed = parent.claim_task(named);
        let made_up = claimed.is_none();
        let (call_id, call_idx) = claimed.unwrap_or_else(|| {
            let call_id = named
                .map(String::from)
                .unwrap_or_else(|| format!("{agent}-task"));
            let input = serde_json::json!({
                "description": first_str(payload, &["description"]).unwrap_or_default(),
                "prompt": prompt_of(payload),
                "subagent_type": first_str(payload, &["subagent_type", "profile", "agent_type"]).unwrap_or("general"),
            });
            let idx = parent.buf.push(
                ts,
                EventKind::ToolCall {
                    call_id: call_id.clone(),
                    name: TASK_TOOL.into(),
                    input: input.into(),
                    summary: Box::default(),
                },
            );
            (call_id, idx)
        });
        let result_idx = parent.task_results.get(&call_id).copied();
        let args = match parent.buf.events.get(call_idx).and_then(Option::as_ref) {
            Some(pending) => match &*pending.kind {
                EventKind::ToolCall { input, .. } => Some(input.to_value()),
                _ => None,
            },
            None => None,
        };
        ChildRec {
            lane_index,
            session,
            call_id,
            call_idx,
            start_ts: ts,
            start: with_task_args(payload, args.as_ref()),
            lane: None,
            problem: None,
            end: None,
            result_idx,
            made_up,
            provisional: None,
        }
    }

    /// Records how the child ended when no `subagent_*` event says so (a
    /// transcript has only the parent's result of the call).
    pub fn ended(&mut self, ts: Option<i64>, payload: Value, failed: bool) {
        self.end = Some((ts, payload, failed));
    }

    /// Builds the child's lane (start, prompt, its events, end) into `timeline`,
    /// gated on the parent's call and result.
    pub fn finish(self, timeline: &mut Timeline, parent_file: &mut FileLane, parent_lane: usize) {
        let parent = parent_file.agent;
        let start = &self.start;
        let (mut buf, model) = match self.lane {
            Some(l) => (l.buf, l.model),
            None => (Default::default(), None),
        };
        let stats = buf.stats();
        // A child no task call started (MyCodeAgent's verification agent) is
        // known by what it was asked.
        let first_prompt = buf.iter().find_map(|p| match &*p.kind {
            EventKind::UserMessage { text } => Some(text.clone()),
            _ => None,
        });
        let mut prompt = prompt_of(start);
        if prompt.is_empty() {
            prompt = first_prompt.unwrap_or_default();
        }
        let description = match first_str(start, &["description"]) {
            Some(d) => d.to_string(),
            None => prompt.lines().next().unwrap_or_default().trim().to_string(),
        };
        if self.made_up
            && let Some(Some(pending)) = parent_file.buf.events.get_mut(self.call_idx)
            && let EventKind::ToolCall { input, .. } = Arc::make_mut(&mut pending.kind)
        {
            input.modify(|input| {
                input["description"] = description.clone().into();
                input["prompt"] = prompt.clone().into();
            });
        }
        let answer = self
            .result_idx
            .and_then(|i| parent_file.buf.events.get(i))
            .and_then(Option::as_ref)
            .and_then(|p| match &*p.kind {
                EventKind::ToolResult { content, .. } => Some(content.to_string()),
                _ => None,
            })
            .filter(|c| !c.trim().is_empty());
        let role = first_str(start, &["model"]).unwrap_or("main");
        let (model_role, named_model) = match role {
            "light" | "main" => (role.to_string(), None),
            other => ("main".to_string(), Some(other.to_string())),
        };
        let mut head = vec![Pending::new(
            self.start_ts,
            EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
                parent,
                parent_call_id: self.call_id.clone(),
                profile: first_str(start, &["profile", "subagent_type", "agent_type"])
                    .unwrap_or("general")
                    .to_string(),
                model: model_role,
                model_name: first_str(start, &["model_name"])
                    .map(String::from)
                    .or(model)
                    .or(named_model)
                    .unwrap_or_default(),
                description,
                prompt: prompt.clone(),
                max_steps: u64_at(start, "max_steps").map(|n| n.min(u64::from(u32::MAX)) as u32),
                token_budget: u64_at(start, "token_budget")
                    .or_else(|| u64_at(start, "total_token_budget")),
                context_budget: u64_at(start, "context_budget")
                    .or_else(|| u64_at(start, "context_token_budget")),
                color: None,
            })),
        )];
        let has_prompt = buf
            .iter()
            .any(|p| matches!(*p.kind, EventKind::UserMessage { .. }));
        if !has_prompt {
            head.push(Pending::new(
                self.start_ts,
                EventKind::UserMessage { text: prompt },
            ));
        }
        buf.prepend(head);
        let end_ts = self
            .end
            .as_ref()
            .and_then(|(ts, _, _)| *ts)
            .or(buf.last_ts())
            .or(self.start_ts);
        if let Some(problem) = &self.problem {
            buf.push(
                end_ts,
                EventKind::Error {
                    message: format!("no record of this subagent: {problem}"),
                },
            );
        }
        let end = Ending::from(self.end.as_ref().map(|(_, p, failed)| (p, *failed)));
        // The child's own last turn says how it ended as the parent saw it.
        let turn_end = buf.events.iter_mut().rev().flatten().find_map(|p| {
            if let EventKind::TurnEnd { reason: r, .. } = Arc::make_mut(&mut p.kind) {
                Some(r)
            } else {
                None
            }
        });
        // MyCodeAgent's launcher calls every child that did not complete a
        // `runtime_error`; the child's own trace knows better (max_steps, a
        // gate that kept blocking…).
        let reason = match turn_end.as_deref() {
            Some(&own)
                if end.reason == TerminalReason::ModelError && own != TerminalReason::Completed =>
            {
                own
            }
            _ => end.reason,
        };
        match turn_end {
            Some(r) if *r == TerminalReason::Completed => *r = reason,
            Some(_) => {}
            None => {
                buf.push(
                    end_ts,
                    EventKind::TurnEnd {
                        reason,
                        steps: stats.steps,
                        usage: stats.usage,
                    },
                );
            }
        }
        let elapsed_ms = end.elapsed_ms.unwrap_or(match (end_ts, self.start_ts) {
            (Some(e), Some(s)) => e.saturating_sub(s).max(0) as u64,
            _ => 0,
        });
        buf.push(
            end_ts,
            EventKind::SubagentEnd {
                reason,
                summary: end
                    .summary
                    .or(answer)
                    .or(stats.final_text)
                    .unwrap_or_default(),
                steps: end.steps.unwrap_or(stats.steps),
                tool_usage: Box::new(end.tool_usage.unwrap_or(stats.tool_usage)),
                usage: end.usage.unwrap_or(stats.usage),
                elapsed_ms,
            },
        );
        timeline.fill(self.lane_index, buf);
        timeline.start_after(self.lane_index, parent_lane, self.call_idx);
        if let Some(idx) = self.result_idx {
            timeline.end_before(self.lane_index, parent_lane, idx);
        }
    }
}

/// What a `subagent_end` payload says, leniently.
struct Ending {
    reason: TerminalReason,
    summary: Option<String>,
    steps: Option<u32>,
    tool_usage: Option<BTreeMap<String, u32>>,
    usage: Option<Usage>,
    elapsed_ms: Option<u64>,
}

impl Ending {
    fn from(end: Option<(&Value, bool)>) -> Self {
        let Some((p, failed)) = end else {
            return Ending {
                reason: TerminalReason::Interrupted,
                summary: Some(
                    "no end was recorded: the trace ended while this subagent ran".into(),
                ),
                steps: None,
                tool_usage: None,
                usage: None,
                elapsed_ms: None,
            };
        };
        let status = first_str(p, &["status", "reason", "terminal_reason"]);
        let reason = match status {
            Some(s) => reason_from(s),
            None if failed || p.get("error").is_some_and(|e| !e.is_null()) => {
                TerminalReason::ModelError
            }
            None => TerminalReason::Completed,
        };
        let tool_usage = p.get("tool_usage").and_then(Value::as_object).map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_u64()?.min(u64::from(u32::MAX)) as u32)))
                .collect()
        });
        Ending {
            reason,
            summary: first_str(
                p,
                &[
                    "summary", "result", "final", "output", "text", "error", "message",
                ],
            )
            .map(String::from)
            .or_else(|| p.get("result").filter(|r| r.is_object()).map(display)),
            steps: u64_at(p, "steps").map(|n| n.min(u64::from(u32::MAX)) as u32),
            tool_usage,
            usage: p
                .get("usage")
                .filter(|u| u.is_object())
                .map(|u| usage_of(Some(u))),
            elapsed_ms: u64_at(p, "duration_ms").or_else(|| u64_at(p, "elapsed_ms")),
        }
    }
}

/// The start payload with what the `Task` call's arguments say and it does not.
fn with_task_args(payload: &Value, args: Option<&Value>) -> Value {
    let mut merged = match payload {
        Value::Object(_) => payload.clone(),
        _ => Value::Object(Default::default()),
    };
    if let (Some(fields), Some(args)) = (merged.as_object_mut(), args) {
        for key in ["description", "prompt", "subagent_type", "model"] {
            if first_str(payload, &[key]).is_none()
                && let Some(value) = first_str(args, &[key])
            {
                fields.insert(key.into(), value.into());
            }
        }
    }
    merged
}

/// The text a child was started with.
fn prompt_of(payload: &Value) -> String {
    first_str(payload, &["prompt", "task", "input"])
        .unwrap_or_default()
        .to_string()
}

/// Records a `subagent_end` on its child; false when no started child fits.
pub(super) fn end_child(
    parent: &mut FileLane,
    children: &mut [ChildRec],
    ts: Option<i64>,
    payload: &Value,
    failed: bool,
) -> bool {
    let session = first_str(payload, &["child_session_id", "session_id", "child_id"]);
    let Some(child) = children
        .iter_mut()
        .rev()
        .find(|c| c.end.is_none() && (session.is_none() || c.session.as_deref() == session))
    else {
        return false;
    };
    child.end = Some((ts, payload.clone(), failed));
    if child.result_idx.is_none() {
        // The call's result usually follows; until it does, this stands for it.
        let ending = Ending::from(Some((payload, failed)));
        let idx = parent.buf.push(
            ts,
            EventKind::ToolResult {
                call_id: child.call_id.clone(),
                name: TASK_TOOL.into(),
                is_error: ending.reason != TerminalReason::Completed,
                content: ending.summary.unwrap_or_default().into(),
                duration_ms: ending.elapsed_ms.unwrap_or(0),
            },
        );
        child.provisional = Some(idx);
        child.result_idx = Some(idx);
    }
    true
}

/// The parent's real result of a child's call replaces a made-up one.
pub(super) fn result_arrived(parent: &mut FileLane, children: &mut [ChildRec], call_id: &str) {
    let Some(&idx) = parent.task_results.get(call_id) else {
        return;
    };
    for child in children.iter_mut().filter(|c| c.call_id == call_id) {
        if let Some(old) = child.provisional.take()
            && let Some(slot) = parent.buf.events.get_mut(old)
        {
            *slot = None;
        }
        child.result_idx = Some(idx);
    }
}
