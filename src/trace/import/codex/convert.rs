//! One Codex rollout (the session's thread, or a sub-agent's) turned into one
//! lane of brood events, a line at a time: [`Converter::line`] takes each line
//! as it is read, so a follower can feed it a file that is still growing.

use std::collections::HashMap;

use serde_json::Value;

use super::super::Report;
use super::super::lines::{display, first_str, str_at, timestamp_ms};
use super::super::live;
use super::super::timeline::LaneBuf;
use super::threads::Thread;
use super::tools::{self, Call, Counts, Final, Role};
use crate::event::{EventKind, TerminalReason, Usage};

/// Where the lane goes: the session's own has turns; a sub-agent's is one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lane {
    Session,
    Child,
}

/// User text Codex injects that no person typed: instructions, the
/// environment, skills, shell commands run with `!`, notices.
const INJECTED: &[&str] = &[
    "# agents.md instructions for",
    "<user_instructions>",
    "<environment_context>",
    "<instructions>",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagents>",
    "<subagent_notification>",
];

/// The mark left where Codex compacted the context.
pub(super) const COMPACTED: &str = "[context compacted]";

/// Which record a prompt came from: each prompt is written twice, as a
/// `response_item` and as an `event_msg` `user_message`, in either order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Item,
    Event,
}

/// A `spawn_agent` call of this lane and what its output said.
#[derive(Debug, Clone)]
pub(super) struct Spawn {
    pub call_id: String,
    pub call_idx: usize,
    pub ts: Option<i64>,
    pub input: Value,
    /// The child's thread id, from the output or `collab_agent_spawn_end`.
    pub thread: Option<String>,
    pub result_ts: Option<i64>,
    pub failed: bool,
}

/// A `wait` call's output: the index of its `tool_result` and who had ended.
#[derive(Debug, Clone)]
pub(super) struct Wait {
    pub idx: usize,
    pub ended: Vec<(String, Final)>,
}

/// How the lane's last turn ended, if the rollout says.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ending {
    Completed(Option<String>),
    Aborted,
    Failed(String),
}

/// One model response still receiving items: it ends at its `token_count`,
/// or when a tool output or the next prompt comes first.
#[derive(Debug, Clone, Default)]
struct Step {
    ts: Option<i64>,
    reasoning: Vec<String>,
    text: Vec<String>,
    calls: Vec<(Call, Option<i64>)>,
    usage: Option<Usage>,
}

#[derive(Debug, Clone, Default)]
struct Turn {
    steps: u32,
    usage: Usage,
    interrupted: bool,
}

#[derive(Clone)]
pub(super) struct Converter {
    pub buf: LaneBuf,
    lane: Lane,
    pub thread: Thread,
    pub prompt: Option<String>,
    pub spawns: Vec<Spawn>,
    pub waits: Vec<Wait>,
    pub ending: Option<Ending>,
    model: Option<String>,
    open: Option<Step>,
    turn: Option<Turn>,
    /// Steps of the open turn (session) or of the whole run (child).
    step: u32,
    messages: usize,
    calls: HashMap<String, (String, Option<i64>, Role)>,
    /// Calls the telemetry events (`exec_command_end`, …) say failed.
    failed: HashMap<String, bool>,
    prompt_from: Option<Source>,
    /// The running `total_token_usage`, to turn into per-step counts.
    total: Option<Counts>,
    /// The assistant message whose `token_count` has not come yet.
    awaiting: Option<usize>,
    last_message: Option<usize>,
    last_turn_end: Option<usize>,
    /// Tokens counted when no step could take them: given to the next one.
    orphan: Usage,
    compacted_at: Option<usize>,
    /// The time of the last line read: the thread's end, when it has ended.
    pub last_ts: Option<i64>,
    made_up: usize,
    met_meta: bool,
}

impl Converter {
    pub fn new(lane: Lane) -> Self {
        Converter {
            buf: LaneBuf::default(),
            lane,
            thread: Thread::default(),
            prompt: None,
            spawns: Vec::new(),
            waits: Vec::new(),
            ending: None,
            model: None,
            open: None,
            turn: None,
            step: 0,
            messages: 0,
            calls: HashMap::new(),
            failed: HashMap::new(),
            prompt_from: None,
            total: None,
            awaiting: None,
            last_message: None,
            last_turn_end: None,
            orphan: Usage::default(),
            compacted_at: None,
            last_ts: None,
            made_up: 0,
            met_meta: false,
        }
    }

    /// Takes one line of the rollout. Both shapes are read: records
    /// `{timestamp, type, payload}`, and 2025's bare header, `record_type`
    /// markers and bare response items. Unknown types are counted in `report`.
    pub fn line(&mut self, line: &Value, report: &mut Report) {
        let ts = timestamp_ms(line.get("timestamp")).or(self.last_ts);
        self.last_ts = ts;
        let payload = line.get("payload").filter(|p| p.is_object());
        match (str_at(line, "type"), payload) {
            (Some("session_meta"), Some(p)) => self.meta(p),
            (Some("response_item"), Some(p)) => self.item(p, ts, report),
            (Some("event_msg"), Some(p)) => self.event(p, ts, report),
            (Some("turn_context"), Some(p)) => {
                if let Some(model) = first_str(p, &["model"]) {
                    self.model = Some(model.to_string());
                    self.thread.model.get_or_insert_with(|| model.to_string());
                }
                if self.thread.cwd.is_none() {
                    self.thread.cwd = first_str(p, &["cwd"]).map(String::from);
                }
            }
            (Some("compacted"), Some(_)) => self.compacted(ts),
            (Some(other), Some(_)) => report.skip(other),
            (None, None) if line.get("record_type").is_some() => {}
            (None, None) if str_at(line, "id").is_some() => self.meta(line),
            (Some(_), None) => self.item(line, ts, report),
            (None, _) => report.skip("(no type)"),
        }
    }

    fn meta(&mut self, meta: &Value) {
        // A resumed or forked rollout may repeat it; the first one is the thread.
        if std::mem::replace(&mut self.met_meta, true) {
            return;
        }
        self.thread = Thread::from_meta(meta);
        self.model = self.thread.model.clone();
    }

    fn item(&mut self, item: &Value, ts: Option<i64>, report: &mut Report) {
        match str_at(item, "type").unwrap_or("(no type)") {
            "message" => match str_at(item, "role").unwrap_or("(no role)") {
                "user" => self.user_item(item, ts, report),
                "assistant" => {
                    let text = texts(item.get("content"), report);
                    let step = self.open_step(ts);
                    step.text
                        .extend(text.into_iter().filter(|t| !t.trim().is_empty()));
                }
                role => report.skip(format!("message ({role})")),
            },
            "reasoning" => {
                let summary: Vec<String> = ["summary", "content"]
                    .iter()
                    .filter_map(|k| item.get(*k).and_then(Value::as_array))
                    .find(|parts| !parts.is_empty())
                    .into_iter()
                    .flatten()
                    .filter_map(|p| str_at(p, "text"))
                    .filter(|t| !t.trim().is_empty())
                    .map(String::from)
                    .collect();
                if summary.is_empty() {
                    report.skip("reasoning (encrypted)");
                }
                self.open_step(ts).reasoning.extend(summary);
            }
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                self.output(item, ts)
            }
            "compaction" | "compaction_summary" => self.compacted(ts),
            kind => match tools::call_of(item, self.made_up) {
                Some(call) => {
                    self.made_up += 1;
                    self.open_step(ts).calls.push((call, ts));
                }
                None => report.skip(format!("response_item:{kind}")),
            },
        }
    }

    fn event(&mut self, event: &Value, ts: Option<i64>, report: &mut Report) {
        let call_id = || str_at(event, "call_id").unwrap_or_default().to_string();
        match str_at(event, "type").unwrap_or("(no type)") {
            "user_message" => {
                let text = str_at(event, "message").unwrap_or_default();
                // Older versions logged the injected texts here too, with a `kind`.
                let injected = str_at(event, "kind").is_some_and(|k| k != "plain");
                if !injected && !is_injected(text) {
                    self.prompt(Source::Event, text.to_string(), ts);
                }
            }
            "token_count" => self.token_count(event),
            "task_complete" | "turn_complete" => {
                self.flush();
                self.prompt_from = None;
                let last = first_str(event, &["last_agent_message"]).map(String::from);
                self.ending = Some(Ending::Completed(last));
                self.end_turn();
            }
            "turn_aborted" => {
                self.flush();
                self.prompt_from = None;
                self.buf.push(ts, EventKind::Interrupted {});
                if let Some(turn) = &mut self.turn {
                    turn.interrupted = true;
                }
                self.ending = Some(Ending::Aborted);
                self.end_turn();
            }
            "error" => {
                self.flush();
                let message = str_at(event, "message").unwrap_or("error").to_string();
                self.ending = Some(Ending::Failed(message.clone()));
                self.buf.push(ts, EventKind::Error { message });
            }
            "context_compacted" => self.compacted(ts),
            "exec_command_end" => {
                let code = event.get("exit_code").and_then(Value::as_i64);
                self.failed.insert(call_id(), code.is_some_and(|c| c != 0));
            }
            "patch_apply_end" => {
                let ok = event.get("success").and_then(Value::as_bool);
                self.failed.insert(call_id(), ok == Some(false));
            }
            "mcp_tool_call_end" => {
                let result = event.get("result").unwrap_or(&Value::Null);
                let failed = result.get("Err").is_some()
                    || result.pointer("/Ok/is_error").and_then(Value::as_bool) == Some(true);
                self.failed.insert(call_id(), failed);
            }
            "collab_agent_spawn_end" => {
                let (id, thread) = (call_id(), first_str(event, &["new_thread_id"]));
                if let Some(spawn) = self.spawns.iter_mut().rev().find(|s| s.call_id == id) {
                    spawn.thread = spawn.thread.take().or(thread.map(String::from));
                }
            }
            // The screen's copies of the response items above, and markers.
            "agent_message"
            | "agent_reasoning"
            | "agent_reasoning_raw_content"
            | "agent_reasoning_section_break"
            | "task_started"
            | "turn_started" => {}
            other => report.skip(format!("event_msg:{other}")),
        }
    }

    fn user_item(&mut self, item: &Value, ts: Option<i64>, report: &mut Report) {
        let parts = texts(item.get("content"), report);
        if parts.iter().any(|t| is_injected(t)) {
            report.skip("message (injected context)");
            return;
        }
        self.prompt(Source::Item, parts.join("\n"), ts);
    }

    /// A prompt, once: the copy of the one just met (from the other record,
    /// with nothing in between) is passed over.
    fn prompt(&mut self, from: Source, text: String, ts: Option<i64>) {
        if let Some(first) = self.prompt_from.take()
            && first != from
        {
            return;
        }
        if text.trim().is_empty() {
            return;
        }
        self.flush();
        self.awaiting = None;
        self.prompt_from = Some(from);
        self.messages += 1;
        self.prompt.get_or_insert_with(|| text.clone());
        if self.lane == Lane::Session {
            self.end_turn();
            self.step = 0;
            self.turn = Some(Turn::default());
        }
        self.buf.push(ts, EventKind::UserMessage { text });
    }

    fn open_step(&mut self, ts: Option<i64>) -> &mut Step {
        self.prompt_from = None;
        if self.open.is_none() {
            // A response's counts come before the next one starts: counts
            // from now on belong to this one.
            self.awaiting = None;
        }
        self.open.get_or_insert_with(|| Step {
            ts,
            ..Step::default()
        })
    }

    fn end_turn(&mut self) {
        if let Some(turn) = self.turn.take() {
            let reason = match turn.interrupted {
                true => TerminalReason::Interrupted,
                false => TerminalReason::Completed,
            };
            self.last_turn_end = Some(self.buf.push(
                self.buf.last_ts(),
                EventKind::TurnEnd {
                    reason,
                    steps: turn.steps,
                    usage: turn.usage,
                },
            ));
        }
    }

    /// Emits what is still open at the end of the file. Left open (a file
    /// still being written), the step read so far is shown but the turn goes
    /// on.
    pub fn finish(mut self, ending: live::Ending) -> Self {
        self.flush();
        if let live::Ending::Closed = ending {
            self.end_turn();
        }
        let orphan = std::mem::take(&mut self.orphan);
        if orphan != Usage::default()
            && let Some(idx) = self.last_message
        {
            self.add_usage(idx, &orphan);
        }
        self
    }
}

/// The text blocks of a message (`input_text`, `output_text`, `text`); an
/// image is `[image]`.
fn texts(content: Option<&Value>, report: &mut Report) -> Vec<String> {
    let Some(blocks) = content.and_then(Value::as_array) else {
        return content.map(display).into_iter().collect();
    };
    let mut out = Vec::new();
    for block in blocks {
        match str_at(block, "type").unwrap_or("text") {
            "input_text" | "output_text" | "text" => {
                out.extend(str_at(block, "text").map(String::from))
            }
            "input_image" | "image" => out.push("[image]".into()),
            other => report.skip(format!("block:{other}")),
        }
    }
    out
}

fn is_injected(text: &str) -> bool {
    let start = text.trim_start();
    INJECTED.iter().any(|tag| {
        start
            .get(..tag.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(tag))
    })
}

mod steps;

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
