//! One MyCodeAgent trace file turned into one lane of brood events.

use std::collections::HashMap;

use serde_json::Value;

use super::super::lines::{bool_at, display, first_str, str_at, u64_at};
use super::super::timeline::{LaneBuf, reason_from};
use super::ids::{CallIds, masked};
use crate::event::{AgentId, EventKind, TerminalReason, Usage};
use crate::protocol::TASK_TOOL;

/// A `Task` call of this lane, waiting for a `subagent_*` event to claim it.
pub(super) struct TaskCall {
    pub call_id: String,
    pub idx: usize,
    pub claimed: bool,
}

struct Turn {
    steps: u32,
    usage: Usage,
}

/// The events of one file and what the rest of the import needs from it.
pub(super) struct FileLane {
    pub agent: AgentId,
    pub buf: LaneBuf,
    step: u32,
    /// Messages the next model request would carry, roughly: user, assistant
    /// and tool-result messages so far.
    messages: usize,
    turn: Option<Turn>,
    terminal: Option<TerminalReason>,
    /// Calls without a result yet, in call order, for results that carry no
    /// id: (id, name, input).
    open_calls: Vec<(String, String, Value)>,
    calls: HashMap<String, (String, Option<i64>)>,
    next_call: u32,
    pub tasks: Vec<TaskCall>,
    /// Where the result of each task call is, by call id (event index).
    pub task_results: HashMap<String, usize>,
    pub model: Option<String>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    /// Real call ids from the session's transcript, for a trace that masks them.
    pub ids: Option<CallIds>,
}

impl FileLane {
    pub fn new(agent: AgentId) -> Self {
        FileLane {
            agent,
            buf: LaneBuf::default(),
            step: 0,
            messages: 0,
            turn: None,
            terminal: None,
            open_calls: Vec::new(),
            calls: HashMap::new(),
            next_call: 0,
            tasks: Vec::new(),
            task_results: HashMap::new(),
            model: None,
            session_id: None,
            cwd: None,
            ids: None,
        }
    }

    pub fn user(&mut self, ts: Option<i64>, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        // `run_start` and `user_input` both carry the same input.
        if let Some(Some(last)) = self.buf.events.last()
            && matches!(&*last.kind, EventKind::UserMessage { text: t } if t == text)
        {
            return;
        }
        // A turn still open ended with its last event, not with this message.
        self.end_turn(self.buf.last_ts());
        self.messages += 1;
        self.step = 0;
        self.turn = Some(Turn {
            steps: 0,
            usage: Usage::default(),
        });
        self.buf.push(
            ts,
            EventKind::UserMessage {
                text: text.to_string(),
            },
        );
    }

    pub fn model_output(&mut self, ts: Option<i64>, step: Option<u64>, payload: &Value) {
        let meta = payload.get("meta").unwrap_or(&Value::Null);
        let model = first_str(payload, &["model"])
            .or_else(|| first_str(meta, &["model"]))
            .or_else(|| {
                payload
                    .get("raw_response")
                    .and_then(|r| first_str(r, &["model"]))
            })
            .unwrap_or_default()
            .to_string();
        if !model.is_empty() {
            self.model.get_or_insert(model.clone());
        }
        self.step = match step {
            Some(s) if s > 0 => s.min(u64::from(u32::MAX)) as u32,
            _ => self.step + 1,
        };
        let turn = self.turn.get_or_insert(Turn {
            steps: 0,
            usage: Usage::default(),
        });
        turn.steps += 1;
        let usage = usage_of(payload.get("usage"));
        turn.usage.add(&usage);
        self.buf.push(
            ts,
            EventKind::ModelRequest {
                step: self.step,
                model,
                messages: self.messages,
                tools: 0,
            },
        );
        let text = first_str(payload, &["content", "text", "raw", "output"])
            .unwrap_or_default()
            .to_string();
        if !text.is_empty() {
            self.buf
                .push(ts, EventKind::TextDelta { text: text.clone() });
        }
        self.messages += 1;
        let tool_calls = payload
            .get("tool_calls")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        self.buf.push(
            ts,
            EventKind::AssistantMessage {
                text,
                tool_calls,
                usage,
                stop_reason: first_str(payload, &["finish_reason", "stop_reason"])
                    .or_else(|| first_str(meta, &["finish_reason", "stop_reason"]))
                    .unwrap_or_default()
                    .to_string(),
            },
        );
    }

    pub fn tool_call(&mut self, ts: Option<i64>, payload: &Value) {
        let name = first_str(payload, &["tool", "name", "tool_name"]).unwrap_or("unknown");
        let task = name.eq_ignore_ascii_case("task");
        let name = if task { TASK_TOOL } else { name }.to_string();
        let input = ["args", "arguments", "input", "parameters"]
            .iter()
            .find_map(|k| payload.get(*k))
            .map(|v| match v {
                // Arguments as the model wrote them: JSON in a string.
                Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| v.clone()),
                other => other.clone(),
            })
            .unwrap_or(Value::Null);
        let raw_name = first_str(payload, &["tool", "name", "tool_name"]).unwrap_or("unknown");
        let call_id = match first_str(payload, &["tool_call_id", "call_id", "id"]) {
            Some(id) if !masked(id) => id.to_string(),
            // Masked (`***`) or absent: the transcript's id, else a made-up
            // one, unique so that results still pair with their own call.
            _ => match self.ids.as_mut().and_then(|ids| ids.call(raw_name, &input)) {
                Some(id) => id,
                None => {
                    self.next_call += 1;
                    format!("{}-call-{}", self.agent, self.next_call)
                }
            },
        };
        self.open_calls
            .push((call_id.clone(), name.clone(), input.clone()));
        self.calls.insert(call_id.clone(), (name.clone(), ts));
        let idx = self.buf.push(
            ts,
            EventKind::ToolCall {
                call_id: call_id.clone(),
                name,
                input: input.into(),
                summary: Box::default(),
            },
        );
        if task {
            self.tasks.push(TaskCall {
                call_id,
                idx,
                claimed: false,
            });
        }
    }

    /// A tool result; returns the call id it answers.
    pub fn tool_result(&mut self, ts: Option<i64>, payload: &Value) -> String {
        let named = first_str(payload, &["tool", "name", "tool_name"]);
        let result = ["result", "output", "observation", "content"]
            .iter()
            .find_map(|k| payload.get(*k))
            .unwrap_or(&Value::Null);
        // The envelope repeats the call's arguments (`context.params_input`).
        let args = result.get("context").and_then(|c| c.get("params_input"));
        let call_id = match first_str(payload, &["tool_call_id", "call_id", "id"]) {
            Some(id) if !masked(id) => id.to_string(),
            _ => self.answered_call(named, args),
        };
        self.open_calls.retain(|(id, _, _)| *id != call_id);
        let (name, call_ts) = self
            .calls
            .get(&call_id)
            .cloned()
            .unwrap_or_else(|| (named.unwrap_or("unknown").to_string(), None));
        let (content, failed) = match result {
            Value::Object(_) => {
                let text = first_str(result, &["text", "content", "output", "message", "error"])
                    .map(String::from)
                    .or_else(|| result.get("data").map(display))
                    .unwrap_or_else(|| display(result));
                let status = str_at(result, "status").unwrap_or_default();
                let failed = (!status.is_empty()
                    && reason_from(status) != TerminalReason::Completed)
                    || result.get("error").is_some_and(|e| !e.is_null());
                (text, failed)
            }
            other => (display(other), false),
        };
        let is_error = failed
            || bool_at(payload, "is_error")
            || str_at(payload, "status")
                .is_some_and(|s| reason_from(s) != TerminalReason::Completed);
        let duration_ms = u64_at(payload, "duration_ms")
            .or_else(|| result.get("stats").and_then(|s| u64_at(s, "time_ms")))
            .unwrap_or(match (ts, call_ts) {
                (Some(end), Some(start)) => end.saturating_sub(start).max(0) as u64,
                _ => 0,
            });
        self.messages += 1;
        let idx = self.buf.push(
            ts,
            EventKind::ToolResult {
                call_id: call_id.clone(),
                name,
                is_error,
                content: content.into(),
                duration_ms,
            },
        );
        if self.tasks.iter().any(|t| t.call_id == call_id) {
            self.task_results.insert(call_id.clone(), idx);
        }
        call_id
    }

    /// The open call a result without a usable id answers: the transcript's
    /// next result of that tool if it names an open call, else the oldest open
    /// call of that tool made with the same arguments, else the oldest of that
    /// tool.
    fn answered_call(&mut self, named: Option<&str>, args: Option<&Value>) -> String {
        let from_transcript = named
            .and_then(|n| self.ids.as_mut()?.result(n, args))
            .filter(|id| self.open_calls.iter().any(|(open, _, _)| open == id));
        if let Some(id) = from_transcript {
            return id;
        }
        let of_tool = |n: &str| {
            named.is_none_or(|t| t == n || (n == TASK_TOOL && t.eq_ignore_ascii_case("task")))
        };
        let same_args = self
            .open_calls
            .iter()
            .position(|(_, n, input)| of_tool(n) && args.is_some_and(|a| a == input));
        let i = same_args
            .or_else(|| self.open_calls.iter().position(|(_, n, _)| of_tool(n)))
            .unwrap_or(0);
        if self.open_calls.is_empty() {
            String::new()
        } else {
            self.open_calls.remove(i).0
        }
    }

    /// The runtime sent the agent back after it tried to finish (MyCodeAgent's
    /// completion gate): said once, though the trace logs both the verdict and
    /// the message it became.
    pub fn hook_continue(&mut self, ts: Option<i64>, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        if let Some(Some(last)) = self.buf.events.last()
            && matches!(&*last.kind, EventKind::HookContinue { text: t } if t == text)
        {
            return;
        }
        self.messages += 1;
        self.buf.push(
            ts,
            EventKind::HookContinue {
                text: text.to_string(),
            },
        );
    }

    pub fn error(&mut self, ts: Option<i64>, payload: &Value) {
        let message = first_str(payload, &["message", "error", "detail"])
            .map(String::from)
            .unwrap_or_else(|| display(payload));
        self.buf.push(ts, EventKind::Error { message });
    }

    pub fn terminal(&mut self, payload: &Value) {
        self.terminal = Some(terminal_reason(
            first_str(payload, &["reason", "status"]).unwrap_or_default(),
        ));
    }

    /// Ends the open turn, if any (`finish`, `run_end`, `session_summary`…).
    pub fn end_turn(&mut self, ts: Option<i64>) {
        if let Some(turn) = self.turn.take() {
            self.buf.push(
                ts,
                EventKind::TurnEnd {
                    reason: self.terminal.take().unwrap_or(TerminalReason::Completed),
                    steps: turn.steps,
                    usage: turn.usage,
                },
            );
        }
    }

    /// When the call `call_id` was made, if this lane made it.
    pub fn call_ts(&self, call_id: &str) -> Option<i64> {
        self.calls.get(call_id).and_then(|(_, ts)| *ts)
    }

    /// Whether `call_id` is a call of this lane that has no result yet.
    pub fn is_open(&self, call_id: &str) -> bool {
        self.open_calls.iter().any(|(id, _, _)| id == call_id)
    }

    /// Whether this lane made the call `call_id`.
    pub fn has_call(&self, call_id: &str) -> bool {
        self.calls.contains_key(call_id)
    }

    /// The unclaimed task call a `subagent_*` event belongs to: the one it names,
    /// else the latest one not yet claimed.
    pub fn claim_task(&mut self, call_id: Option<&str>) -> Option<(String, usize)> {
        let answered = &self.task_results;
        let task = match call_id.filter(|id| !masked(id)) {
            Some(id) => self.tasks.iter_mut().find(|t| t.call_id == id),
            // A task call already answered (one refused before any child ran)
            // starts no child now.
            None => self
                .tasks
                .iter_mut()
                .rev()
                .find(|t| !t.claimed && !answered.contains_key(&t.call_id)),
        }?;
        task.claimed = true;
        Some((task.call_id.clone(), task.idx))
    }
}

/// A terminal reason in MyCodeAgent's words (`runtime/state.py`), which
/// [`reason_from`] alone would misread: a gate that blocked every answer ended
/// the run without an accepted result, and `user_abort` is an interruption.
pub(super) fn terminal_reason(word: &str) -> TerminalReason {
    match word.trim() {
        "completion_gate_blocked" => TerminalReason::ContractViolation,
        "user_abort" => TerminalReason::Interrupted,
        other => reason_from(other),
    }
}

/// Token counts in the OpenAI shape MyCodeAgent logs (`prompt_tokens`…), or the
/// Anthropic one. Cached prompt tokens are counted once, as cache reads.
pub(super) fn usage_of(usage: Option<&Value>) -> Usage {
    let Some(u) = usage.filter(|u| u.is_object()) else {
        return Usage::default();
    };
    let cached = u
        .get("prompt_tokens_details")
        .and_then(|d| u64_at(d, "cached_tokens"))
        .or_else(|| u64_at(u, "cache_read_input_tokens"))
        .unwrap_or(0);
    let input = u64_at(u, "prompt_tokens").map(|p| p.saturating_sub(cached));
    Usage {
        input_tokens: input.or_else(|| u64_at(u, "input_tokens")).unwrap_or(0),
        output_tokens: u64_at(u, "completion_tokens")
            .or_else(|| u64_at(u, "output_tokens"))
            .unwrap_or(0),
        cache_read_tokens: cached,
        cache_write_tokens: u64_at(u, "cache_creation_input_tokens").unwrap_or(0),
        reasoning_tokens: 0,
        estimated: false,
    }
}
