//! `user` lines: prompts, interruptions, tool results, and the text Claude Code
//! writes as if the user had said it (told apart in `harness.rs`).

use serde_json::Value;

use super::super::Report;
use super::super::lines::{bool_at, str_at, u64_at};
use super::blocks::{content_blocks, flatten, trailer_agent_id, usage_of};
use super::convert::{Converter, TaskResult};
use super::harness;
use super::key;
use crate::event::{EventKind, TerminalReason};

impl Converter {
    pub(super) fn user(
        &mut self,
        line: &Value,
        message: &Value,
        ts: Option<i64>,
        report: &mut Report,
    ) {
        let content = message.get("content");
        if self.answers_open_message(content) {
            self.held.push((line.clone(), ts));
            return;
        }
        self.flush();
        let mut texts = Vec::new();
        let mut results = 0;
        match content {
            Some(Value::String(s)) => texts.push(s.clone()),
            _ => {
                for block in content_blocks(content) {
                    match str_at(&block, "type").unwrap_or("text") {
                        "text" => texts.extend(str_at(&block, "text").map(String::from)),
                        "tool_result" => results += 1,
                        "image" => texts.push("[image]".into()),
                        other => report.skip(format!("block:{other}")),
                    }
                }
            }
        }
        let text = texts.join("\n");
        if bool_at(line, "isCompactSummary") {
            self.compact_summary(&text, ts);
            return;
        }
        if results > 0 {
            self.close_notes();
            self.results(line, ts);
        }
        if text.trim().is_empty() {
            return;
        }
        if let Some(said) = harness::said(&text) {
            self.harness(said, ts, report);
            return;
        }
        if bool_at(line, "isMeta") {
            self.meta(&text, ts);
            return;
        }
        self.close_notes();
        self.messages += 1;
        if text
            .trim_start()
            .starts_with("[Request interrupted by user")
        {
            self.buf.push(ts, EventKind::Interrupted {});
            if let Some(turn) = &mut self.turn {
                turn.reason = TerminalReason::Interrupted;
            }
            self.idle = true;
            return;
        }
        if self.prompt.is_none() {
            self.prompt = Some(text.clone());
        }
        if self.main {
            self.start_turn();
        }
        self.idle = false;
        self.buf.push(ts, EventKind::UserMessage { text });
    }

    /// Whether the content is only results of calls the open message made:
    /// Claude Code runs a call as soon as its block is written, so its result
    /// can come before the message's last blocks.
    fn answers_open_message(&self, content: Option<&Value>) -> bool {
        let (Some(open), Some(Value::Array(blocks))) = (&self.open, content) else {
            return false;
        };
        !blocks.is_empty()
            && blocks.iter().all(|b| {
                str_at(b, "type") == Some("tool_result")
                    && str_at(b, "tool_use_id")
                        .is_some_and(|id| open.tool_uses.iter().any(|(call, ..)| call == id))
            })
    }

    /// Emits the `tool_result` blocks of a user line.
    pub(super) fn results(&mut self, line: &Value, ts: Option<i64>) {
        let blocks: Vec<_> = content_blocks(line.get("message").and_then(|m| m.get("content")))
            .into_iter()
            .filter(|b| str_at(b, "type") == Some("tool_result"))
            .collect();
        // What the line says beyond its blocks is about its one result.
        let single = blocks.len() == 1;
        let extra = line
            .get("toolUseResult")
            .filter(|v| single && v.is_object());
        let line_agent =
            str_at(line, "agentId").filter(|_| single && !bool_at(line, "isSidechain"));
        for block in &blocks {
            self.tool_result(block, extra, line_agent, ts);
        }
        self.messages += usize::from(!blocks.is_empty());
        self.idle = false;
    }

    fn tool_result(
        &mut self,
        block: &Value,
        extra: Option<&Value>,
        line_agent: Option<&str>,
        ts: Option<i64>,
    ) {
        let call_id = str_at(block, "tool_use_id").unwrap_or_default().to_string();
        let (name, call_ts) = self
            .calls
            .get(&key(&call_id))
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
        let extra = extra.unwrap_or(&Value::Null);
        // Claude Code has put the child's id in each of these places.
        let agent_id = [
            str_at(extra, "agentId"),
            str_at(block, "agentId"),
            line_agent,
        ]
        .into_iter()
        .flatten()
        .find(|id| !id.trim().is_empty())
        .map(String::from)
        .or_else(|| trailer_agent_id(&content));
        task.result = Some(TaskResult {
            idx,
            ts,
            agent_id,
            text: content,
            is_error,
            status: str_at(extra, "status").map(String::from),
            background: bool_at(extra, "isAsync")
                || str_at(extra, "status") == Some("async_launched"),
            duration_ms: u64_at(extra, "totalDurationMs"),
            usage: usage_of(extra.get("usage")),
        });
    }
}
