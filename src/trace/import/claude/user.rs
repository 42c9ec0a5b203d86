//! `user` lines: prompts, interruptions, tool results, and the text Claude Code
//! writes as if the user had said it (told apart in `harness.rs`).

use std::sync::Arc;

use super::super::Report;
use super::blocks::{flatten, trailer_agent_id};
use super::convert::{Converter, TaskResult};
use super::harness;
use super::wire::{Block, Content, Line, usage_of};
use crate::event::{EventKind, TerminalReason, Usage};

/// The `tool_result` blocks of a user line, taken out of it (a line that
/// answers a message still being written is held until it is complete).
#[derive(Clone)]
pub(super) struct Results {
    blocks: Vec<ResultBlock>,
    /// What the line says beyond its blocks, when it has one result.
    outcome: Option<Outcome>,
    /// The line's own `agentId`, when it has one result and is no sidechain's.
    line_agent: Option<String>,
}

#[derive(Clone)]
struct ResultBlock {
    call_id: String,
    /// The content as text, as the event carries it.
    content: Arc<str>,
    is_error: bool,
    agent_id: Option<String>,
}

/// Of a `Task` call's `toolUseResult`, what tells of its child.
#[derive(Clone, Default)]
struct Outcome {
    agent_id: Option<String>,
    status: Option<String>,
    is_async: bool,
    duration_ms: Option<u64>,
    usage: Option<Usage>,
}

impl Results {
    /// Takes the `tool_result` blocks out of `line`.
    fn take(line: &mut Line<'_>) -> Results {
        let blocks: Vec<ResultBlock> = match line.message.0.as_mut().map(|m| &mut m.content) {
            Some(Content::Blocks { blocks, .. }) => blocks
                .iter_mut()
                .filter(|b| b.kind() == "tool_result")
                .map(|b: &mut Block<'_>| ResultBlock {
                    call_id: b.tool_use_id.take().unwrap_or_default(),
                    content: Arc::from(&*flatten(std::mem::take(&mut b.content))),
                    is_error: b.is_error.0,
                    agent_id: b.agent_id.take(),
                })
                .collect(),
            _ => Vec::new(),
        };
        let single = blocks.len() == 1;
        let outcome = line
            .tool_use_result
            .get()
            .filter(|_| single)
            .map(|t| Outcome {
                agent_id: t.agent_id.owned(),
                status: t.status.owned(),
                is_async: t.is_async.0,
                duration_ms: t.duration_ms.0,
                usage: usage_of(&t.usage),
            });
        let line_agent = line
            .agent_id
            .owned()
            .filter(|_| single && !line.is_sidechain.0);
        Results {
            blocks,
            outcome,
            line_agent,
        }
    }
}

impl Converter {
    pub(super) fn user(&mut self, mut line: Line<'_>, ts: Option<i64>, report: &mut Report) {
        if self.answers_open_message(line.content()) {
            self.held.push((Results::take(&mut line), ts));
            return;
        }
        self.flush();
        let mut texts = Vec::new();
        let mut results = 0;
        match line.content() {
            Content::Text(s) => texts.push(s.to_string()),
            content => {
                for block in content.blocks() {
                    match block.kind() {
                        "text" => texts.extend(block.text().map(String::from)),
                        "tool_result" => results += 1,
                        "image" => texts.push("[image]".into()),
                        other => report.skip(format!("block:{other}")),
                    }
                }
            }
        }
        let text = texts.join("\n");
        if line.is_compact_summary.0 {
            self.compact_summary(&text, ts);
            return;
        }
        if results > 0 {
            self.close_notes();
            self.results(Results::take(&mut line), ts);
        }
        if text.trim().is_empty() {
            return;
        }
        if let Some(said) = harness::said(&text) {
            self.harness(said, ts, report);
            return;
        }
        if line.is_meta.0 {
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
    fn answers_open_message(&self, content: &Content<'_>) -> bool {
        let (Some(open), Content::Blocks { blocks, others: 0 }) = (&self.open, content) else {
            return false;
        };
        !blocks.is_empty()
            && blocks.iter().all(|b| {
                b.kind.get() == Some("tool_result")
                    && b.tool_use_id
                        .get()
                        .is_some_and(|id| open.tool_uses.iter().any(|(call, ..)| call == id))
            })
    }

    /// Emits the `tool_result` blocks of a user line.
    pub(super) fn results(&mut self, results: Results, ts: Option<i64>) {
        let Results {
            blocks,
            outcome,
            line_agent,
        } = results;
        let any = !blocks.is_empty();
        let mut outcome = outcome;
        for block in blocks {
            self.tool_result(block, outcome.take(), line_agent.as_deref(), ts);
        }
        self.messages += usize::from(any);
        self.idle = false;
    }

    fn tool_result(
        &mut self,
        block: ResultBlock,
        outcome: Option<Outcome>,
        line_agent: Option<&str>,
        ts: Option<i64>,
    ) {
        let ResultBlock {
            call_id,
            content,
            is_error,
            agent_id: block_agent,
        } = block;
        let (name, call_ts) = self.calls.get(&call_id).map_or_else(
            || ("unknown".to_string(), None),
            |(n, ts)| (n.to_string(), ts),
        );
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
                content: Arc::clone(&content),
                duration_ms,
            },
        );
        let Some(task) = self.tasks.iter_mut().rev().find(|t| t.call_id == call_id) else {
            return;
        };
        let outcome = outcome.unwrap_or_default();
        // Claude Code has put the child's id in each of these places.
        let agent_id = [
            outcome.agent_id.as_deref(),
            block_agent.as_deref(),
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
            text: content.to_string(),
            is_error,
            background: outcome.is_async || outcome.status.as_deref() == Some("async_launched"),
            status: outcome.status,
            duration_ms: outcome.duration_ms,
            usage: outcome.usage,
        });
    }
}
