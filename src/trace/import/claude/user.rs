//! `user` lines: prompts, interruptions and tool results.

use serde_json::Value;

use super::super::Report;
use super::super::lines::{bool_at, str_at, u64_at};
use super::blocks::{content_blocks, flatten, trailer_agent_id, usage_of};
use super::convert::{Converter, TaskResult, Turn};
use crate::event::{EventKind, TerminalReason, Usage};

impl Converter {
    pub(super) fn user(
        &mut self,
        line: &Value,
        message: &Value,
        ts: Option<i64>,
        report: &mut Report,
    ) {
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
}
