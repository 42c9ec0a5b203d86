//! One Claude Code conversation (the session's own, or one subagent's) turned
//! into one lane of brood events.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::super::Report;
use super::super::lines::{bool_at, display, first_str, str_at, timestamp_ms, u64_at};
use super::super::timeline::LaneBuf;
use crate::event::{EventKind, TerminalReason, Usage};
use crate::protocol::TASK_TOOL;

/// Claude Code's names for its subagent tool (`Agent` since 2.1).
pub(super) fn is_task_tool(name: &str) -> bool {
    matches!(name, "Task" | "Agent")
}

/// A `Task` call of the session's own lane, with what its result said.
#[derive(Debug, Clone)]
pub(super) struct TaskCall {
    pub call_id: String,
    pub input: Value,
    pub ts: Option<i64>,
    /// Index of the `tool_call` event in the lane.
    pub call_idx: usize,
    pub result: Option<TaskResult>,
}

#[derive(Debug, Clone)]
pub(super) struct TaskResult {
    /// Index of the `tool_result` event in the lane.
    pub idx: usize,
    pub ts: Option<i64>,
    pub text: String,
    pub is_error: bool,
    /// From `toolUseResult` (newer versions) or the `agentId: …` trailer.
    pub agent_id: Option<String>,
    pub status: Option<String>,
    /// The call only launched a background agent, which goes on after it.
    pub background: bool,
    pub duration_ms: Option<u64>,
    pub usage: Option<Usage>,
}

/// An assistant message still receiving lines (one per content block).
struct OpenMessage {
    id: String,
    model: String,
    ts: Option<i64>,
    text: Vec<String>,
    tool_uses: Vec<(String, String, Value, Option<i64>)>,
    usage: Usage,
    stop_reason: String,
}

struct Turn {
    steps: u32,
    usage: Usage,
    reason: TerminalReason,
}

/// Turns the `user` and `assistant` lines of one conversation into events.
pub(super) struct Converter {
    pub buf: LaneBuf,
    /// The session's own lane: it has turns, and its `Task` calls start children.
    main: bool,
    open: Option<OpenMessage>,
    closed: HashSet<String>,
    seen: HashSet<String>,
    calls: HashMap<String, (String, Option<i64>)>,
    step: u32,
    turn: Option<Turn>,
    messages: usize,
    /// The first user text: a child's prompt.
    pub prompt: Option<String>,
    pub first_ts: Option<i64>,
    pub model: Option<String>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub agent_id: Option<String>,
    pub tasks: Vec<TaskCall>,
}

impl Converter {
    pub fn new(main: bool) -> Self {
        Converter {
            buf: LaneBuf::default(),
            main,
            open: None,
            closed: HashSet::new(),
            seen: HashSet::new(),
            calls: HashMap::new(),
            step: 0,
            turn: None,
            messages: 0,
            prompt: None,
            first_ts: None,
            model: None,
            session_id: None,
            cwd: None,
            agent_id: None,
            tasks: Vec::new(),
        }
    }

    /// Takes one line of the conversation; types other than `user` and
    /// `assistant` are counted in `report`.
    pub fn line(&mut self, line: &Value, report: &mut Report) {
        let kind = str_at(line, "type").unwrap_or("(no type)");
        if !matches!(kind, "user" | "assistant") {
            report.skip(kind);
            return;
        }
        // Claude Code may log a message twice (resumed sessions); once is enough.
        if let Some(uuid) = str_at(line, "uuid")
            && !self.seen.insert(uuid.to_string())
        {
            report.skip(format!("{kind} (repeated uuid)"));
            return;
        }
        let ts = timestamp_ms(line.get("timestamp"));
        self.first_ts = self.first_ts.or(ts);
        for (field, slot) in [
            ("sessionId", &mut self.session_id),
            ("cwd", &mut self.cwd),
            ("agentId", &mut self.agent_id),
        ] {
            if slot.is_none() {
                *slot = str_at(line, field).map(String::from);
            }
        }
        let message = line.get("message").unwrap_or(&Value::Null);
        if kind == "assistant" {
            self.assistant(line, message, ts, report);
        } else {
            self.user(line, message, ts, report);
        }
    }

    fn assistant(&mut self, line: &Value, message: &Value, ts: Option<i64>, report: &mut Report) {
        let blocks = content_blocks(message.get("content"));
        if bool_at(line, "isApiErrorMessage") {
            self.flush();
            let text = blocks
                .iter()
                .filter_map(|b| str_at(b, "text"))
                .collect::<Vec<_>>();
            self.buf.push(
                ts,
                EventKind::Error {
                    message: text.join("\n"),
                },
            );
            return;
        }
        let id = first_str(message, &["id"])
            .or_else(|| str_at(line, "uuid"))
            .unwrap_or_default()
            .to_string();
        if self.open.as_ref().is_some_and(|m| m.id != id) {
            self.flush();
        }
        if self.open.is_none() && self.closed.contains(&id) {
            // Blocks of a message already shown, written after a tool result.
            self.late_blocks(&blocks, ts, report);
            return;
        }
        let open = self.open.get_or_insert_with(|| OpenMessage {
            id,
            model: str_at(message, "model").unwrap_or_default().to_string(),
            ts,
            text: Vec::new(),
            tool_uses: Vec::new(),
            usage: Usage::default(),
            stop_reason: String::new(),
        });
        for block in &blocks {
            match str_at(block, "type").unwrap_or("text") {
                "text" => open.text.extend(str_at(block, "text").map(String::from)),
                "tool_use" => open.tool_uses.push(tool_use(block, ts)),
                other => report.skip(format!("block:{other}")),
            }
        }
        let usage = usage_of(message.get("usage"));
        open.usage = max_usage(&open.usage, &usage);
        if let Some(stop) = str_at(message, "stop_reason") {
            open.stop_reason = stop.to_string();
        }
    }

    fn late_blocks(&mut self, blocks: &[Value], ts: Option<i64>, report: &mut Report) {
        for block in blocks {
            match str_at(block, "type").unwrap_or("text") {
                "text" => {
                    let text = str_at(block, "text").unwrap_or_default().to_string();
                    self.buf
                        .push(ts, EventKind::TextDelta { text: text.clone() });
                    self.buf.push(
                        ts,
                        EventKind::AssistantMessage {
                            text,
                            tool_calls: 0,
                            usage: Usage::default(),
                            stop_reason: String::new(),
                        },
                    );
                }
                "tool_use" => {
                    let (id, name, input, ts) = tool_use(block, ts);
                    self.call(id, name, input, ts);
                }
                other => report.skip(format!("block:{other}")),
            }
        }
    }

    /// Emits the open assistant message: request, text, message, then its calls
    /// (the order brood's own loop publishes them in).
    fn flush(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let synthetic = open.model == "<synthetic>";
        if !synthetic {
            self.step += 1;
            self.buf.push(
                open.ts,
                EventKind::ModelRequest {
                    step: self.step,
                    model: open.model.clone(),
                    messages: self.messages,
                    tools: 0,
                },
            );
            if !open.model.is_empty() {
                self.model.get_or_insert(open.model);
            }
        }
        let text = open.text.join("\n\n");
        if !text.is_empty() {
            self.buf
                .push(open.ts, EventKind::TextDelta { text: text.clone() });
        }
        self.buf.push(
            open.ts,
            EventKind::AssistantMessage {
                text,
                tool_calls: open.tool_uses.len(),
                usage: open.usage,
                stop_reason: open.stop_reason,
            },
        );
        self.messages += 1;
        if let Some(turn) = &mut self.turn {
            turn.steps += u32::from(!synthetic);
            turn.usage.add(&open.usage);
        }
        for (id, name, input, ts) in open.tool_uses {
            self.call(id, name, input, ts);
        }
        self.closed.insert(open.id);
    }

    fn call(&mut self, call_id: String, name: String, input: Value, ts: Option<i64>) {
        let task = is_task_tool(&name);
        // The screen draws brood's `task` tool as a task cell; Claude Code's
        // subagent tool is the same thing under another name.
        let name = if task { TASK_TOOL.to_string() } else { name };
        self.calls.insert(call_id.clone(), (name.clone(), ts));
        let call_idx = self.buf.push(
            ts,
            EventKind::ToolCall {
                call_id: call_id.clone(),
                name,
                input: input.clone(),
                summary: String::new(),
            },
        );
        if task && self.main {
            self.tasks.push(TaskCall {
                call_id,
                input,
                ts,
                call_idx,
                result: None,
            });
        }
    }

    fn user(&mut self, line: &Value, message: &Value, ts: Option<i64>, report: &mut Report) {
        self.flush();
        if bool_at(line, "isMeta") {
            report.skip("user (isMeta)");
            return;
        }
        if bool_at(line, "isCompactSummary") {
            report.skip("user (compact summary)");
            return;
        }
        let content = message.get("content");
        let mut texts = Vec::new();
        let mut results = Vec::new();
        match content {
            Some(Value::String(s)) => texts.push(s.clone()),
            _ => {
                for block in content_blocks(content) {
                    match str_at(&block, "type").unwrap_or("text") {
                        "text" => texts.extend(str_at(&block, "text").map(String::from)),
                        "tool_result" => results.push(block),
                        "image" => texts.push("[image]".into()),
                        other => report.skip(format!("block:{other}")),
                    }
                }
            }
        }
        let single = results.len() == 1;
        for block in &results {
            self.tool_result(
                block,
                single.then(|| line.get("toolUseResult")).flatten(),
                ts,
            );
        }
        self.messages += usize::from(!results.is_empty());
        let text = texts.join("\n");
        if text.trim().is_empty() {
            return;
        }
        self.messages += 1;
        if text
            .trim_start()
            .starts_with("[Request interrupted by user")
        {
            self.buf.push(ts, EventKind::Interrupted {});
            if let Some(turn) = &mut self.turn {
                turn.reason = TerminalReason::Interrupted;
            }
            return;
        }
        if self.prompt.is_none() {
            self.prompt = Some(text.clone());
        }
        if self.main {
            self.end_turn();
            self.step = 0;
            self.turn = Some(Turn {
                steps: 0,
                usage: Usage::default(),
                reason: TerminalReason::Completed,
            });
        }
        self.buf.push(ts, EventKind::UserMessage { text });
    }

    fn tool_result(&mut self, block: &Value, extra: Option<&Value>, ts: Option<i64>) {
        let call_id = str_at(block, "tool_use_id").unwrap_or_default().to_string();
        let (name, call_ts) = self
            .calls
            .get(&call_id)
            .cloned()
            .unwrap_or_else(|| ("unknown".to_string(), None));
        let content = flatten(block.get("content"));
        let is_error = bool_at(block, "is_error");
        let duration_ms = match (ts, call_ts) {
            (Some(end), Some(start)) => end.saturating_sub(start).max(0) as u64,
            _ => 0,
        };
        let idx = self.buf.push(
            ts,
            EventKind::ToolResult {
                call_id: call_id.clone(),
                name,
                is_error,
                content: content.as_str().into(),
                duration_ms,
            },
        );
        let Some(task) = self.tasks.iter_mut().rev().find(|t| t.call_id == call_id) else {
            return;
        };
        let extra = extra.filter(|v| v.is_object()).unwrap_or(&Value::Null);
        task.result = Some(TaskResult {
            idx,
            ts,
            agent_id: str_at(extra, "agentId")
                .map(String::from)
                .or_else(|| trailer_agent_id(&content)),
            text: content,
            is_error,
            status: str_at(extra, "status").map(String::from),
            background: bool_at(extra, "isAsync")
                || str_at(extra, "status") == Some("async_launched"),
            duration_ms: u64_at(extra, "totalDurationMs"),
            usage: extra
                .get("usage")
                .filter(|u| u.is_object())
                .map(|u| usage_of(Some(u))),
        });
    }

    /// Ends the main lane's open turn, if any, when its last event happened
    /// (not when the next user message came: the agent was idle in between).
    fn end_turn(&mut self) {
        if let Some(turn) = self.turn.take() {
            self.buf.push(
                self.buf.last_ts(),
                EventKind::TurnEnd {
                    reason: turn.reason,
                    steps: turn.steps,
                    usage: turn.usage,
                },
            );
        }
    }

    /// Emits what is still open at the end of the file.
    pub fn finish(mut self) -> Self {
        self.flush();
        self.end_turn();
        self
    }
}

fn tool_use(block: &Value, ts: Option<i64>) -> (String, String, Value, Option<i64>) {
    (
        str_at(block, "id").unwrap_or_default().to_string(),
        str_at(block, "name").unwrap_or("unknown").to_string(),
        block.get("input").cloned().unwrap_or(Value::Null),
        ts,
    )
}

/// A message's content as a list of blocks (a plain string is one text block).
fn content_blocks(content: Option<&Value>) -> Vec<Value> {
    match content {
        Some(Value::Array(blocks)) => blocks.iter().filter(|b| b.is_object()).cloned().collect(),
        Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
        _ => Vec::new(),
    }
}

/// A tool result's content as text: a string, or its blocks' text.
pub(super) fn flatten(content: Option<&Value>) -> String {
    match content {
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| match str_at(b, "type") {
                Some("image") => "[image]".to_string(),
                _ => str_at(b, "text").map_or_else(|| display(b), String::from),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => display(other),
        None => String::new(),
    }
}

fn usage_of(usage: Option<&Value>) -> Usage {
    let Some(u) = usage else {
        return Usage::default();
    };
    Usage {
        input_tokens: u64_at(u, "input_tokens").unwrap_or(0),
        output_tokens: u64_at(u, "output_tokens").unwrap_or(0),
        cache_read_tokens: u64_at(u, "cache_read_input_tokens").unwrap_or(0),
        cache_write_tokens: u64_at(u, "cache_creation_input_tokens").unwrap_or(0),
        estimated: false,
    }
}

/// Lines of one message repeat its usage, the output count growing: keep the
/// largest of each.
fn max_usage(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.max(b.input_tokens),
        output_tokens: a.output_tokens.max(b.output_tokens),
        cache_read_tokens: a.cache_read_tokens.max(b.cache_read_tokens),
        cache_write_tokens: a.cache_write_tokens.max(b.cache_write_tokens),
        estimated: false,
    }
}

/// The `agentId: <id>` line Claude Code appends to a subagent's result.
fn trailer_agent_id(text: &str) -> Option<String> {
    text.lines().rev().find_map(|l| {
        let rest = l.trim().strip_prefix("agentId:")?;
        let id = rest.split_whitespace().next()?;
        Some(id.to_string())
    })
}

/// A subagent's result text without the `agentId: …` trailer meant for the model.
pub(super) fn without_trailer(text: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("agentId:"))
        .collect();
    kept.join("\n").trim().to_string()
}
