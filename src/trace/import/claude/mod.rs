//! Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! What is mapped, for the session and every subagent alike:
//!
//! - a user text → `user_message` (in the session's lane it also starts a turn;
//!   the previous turn gets its `turn_end`); `[Request interrupted by user…]` →
//!   `interrupted`, and the turn ends `interrupted`;
//! - an assistant message → `model_request` (step counted per turn), one
//!   `text_delta` with its text, `assistant_message` with usage, stop reason and
//!   the number of tool calls, then one `tool_call` per `tool_use`. Claude Code
//!   writes one line per content block; lines sharing `message.id` are one
//!   message, and their usage is the largest each line reported;
//! - a `tool_result` block → `tool_result` (content flattened to text, images as
//!   `[image]`, `is_error`, duration from the call's timestamp);
//! - an assistant line marked `isApiErrorMessage` → `error`;
//! - a `Task` or `Agent` call → a `tool_call` named `task` (so the screen draws a
//!   task cell) and a child lane `sub-N`, numbered in call order:
//!   `subagent_start`, the child's own events, `turn_end` and `subagent_end`
//!   (reason from the result: completed, `interrupted` for an interrupted call,
//!   `model_error` for another error, `interrupted` when the session ended before
//!   the result; summary = the result text without its `agentId:` trailer; steps,
//!   tool counts and usage from the child's transcript; elapsed from
//!   `toolUseResult.totalDurationMs` or the timestamps). A background agent
//!   (`toolUseResult.isAsync`, status `async_launched`) returns at launch: its
//!   lane runs on past that result and ends with its own last event, its last
//!   text as the summary. How a call finds its transcript is told in
//!   `claude/children.rs`.
//!
//! Left out, and counted in `skipped`: `summary`, `system`, `progress`,
//! `file-history-snapshot`, `queue-operation` and other line types; `thinking`
//! and other content blocks (`block:<type>`); `isMeta` user lines (skill and
//! command expansions) and compaction summaries; lines repeating a `uuid`. Not
//! kept at all: `toolUseResult` details beyond a Task's status, id, duration and
//! usage; per-line `cwd`/`gitBranch` changes; limits (Claude Code has none for
//! subagents, so `max_steps` and the budgets are `None`).

mod children;
mod convert;

use std::path::Path;

use serde_json::Value;

use super::lines::{JsonLines, bool_at, str_at};
use super::timeline::{LaneBuf, Pending, Timeline, reason_from};
use super::{Format, ImportError, Imported, Report, header};
use crate::event::{AgentId, EventKind, TerminalReason, Usage};
use children::{Child, InlineChains};
use convert::{Converter, TaskCall, without_trailer};

/// Imports a Claude Code session file with its subagents' transcripts.
pub fn import(path: &Path) -> Result<Imported, ImportError> {
    let mut report = Report::default();
    let mut lines = JsonLines::open(path)?;
    let mut main = Converter::new(true);
    let mut inline = InlineChains::default();
    // A subagent's own file given alone is all sidechain: show it as the session.
    let mut standalone = None;
    while let Some((no, line)) = lines.next_value(&mut report)? {
        if !line.is_object() {
            lines.bad(&mut report, no, "not a JSON object");
            continue;
        }
        let conversational = matches!(str_at(&line, "type"), Some("user" | "assistant"));
        let sidechain = bool_at(&line, "isSidechain");
        if conversational {
            let standalone = *standalone.get_or_insert(sidechain);
            if sidechain && !standalone {
                inline.line(&line, &mut report);
                continue;
            }
        }
        main.line(&line, &mut report);
    }
    let main = main.finish();
    let children = children::link(
        path,
        main.session_id.as_deref(),
        &main.tasks,
        inline,
        &mut report,
    )?;

    let mut timeline = Timeline::default();
    let main_lane = timeline.add_lane(AgentId::Main);
    let mut child_model = None;
    for (n, (task, child)) in main.tasks.iter().zip(children).enumerate() {
        let lane = timeline.add_lane(AgentId::Sub(n as u32 + 1));
        child_model = child_model.or_else(|| child.conv.as_ref().and_then(|c| c.model.clone()));
        timeline.fill(lane, child_lane(task, child));
        timeline.start_after(lane, main_lane, task.call_idx);
        if let Some(result) = task.result.as_ref().filter(|r| !r.background) {
            timeline.end_before(lane, main_lane, result.idx);
        }
    }
    let session = main.session_id.clone().unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let model = main
        .model
        .clone()
        .or(child_model)
        .unwrap_or_else(|| "unknown".into());
    let cwd = main.cwd.clone().unwrap_or_default();
    timeline.fill(main_lane, main.buf);
    let header = header(
        Format::ClaudeCode,
        path,
        session,
        timeline.first_ts(),
        cwd,
        model,
    );
    Ok(Imported {
        format: Format::ClaudeCode,
        header,
        events: timeline.merge(),
        bad_lines: report.bad_lines,
        skipped: report.skipped,
        children_loaded: report.children_loaded,
        notes: report.notes,
        truncated: report.truncated,
    })
}

/// A child's lane: start, prompt, its transcript (if found), end.
fn child_lane(task: &TaskCall, child: Child) -> LaneBuf {
    let input = &task.input;
    let text = |k: &str| {
        input
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let Child { conv, meta } = child;
    let found = conv.is_some();
    let (mut buf, prompt, model_name) = match conv {
        Some(c) => (c.buf, c.prompt, c.model),
        None => (LaneBuf::default(), None, None),
    };
    let stats = buf.stats();
    let mut head = vec![Pending {
        ts: task.ts,
        kind: EventKind::SubagentStart {
            parent: AgentId::Main,
            parent_call_id: task.call_id.clone(),
            profile: text("subagent_type")
                .map(String::from)
                .or(meta.agent_type)
                .unwrap_or_else(|| "general".into()),
            model: "main".into(),
            model_name: model_name
                .or(meta.model)
                .or_else(|| text("model").map(String::from))
                .unwrap_or_default(),
            description: text("description").unwrap_or_default().to_string(),
            prompt: text("prompt")
                .map(String::from)
                .or(prompt.clone())
                .unwrap_or_default(),
            max_steps: None,
            token_budget: None,
            context_budget: None,
        },
    }];
    if prompt.is_none() {
        head.push(Pending {
            ts: task.ts,
            kind: EventKind::UserMessage {
                text: text("prompt").unwrap_or_default().to_string(),
            },
        });
    }
    buf.prepend(head);
    // A background agent's call returns at launch: the child ends on its own.
    let background = task.result.as_ref().filter(|r| r.background);
    let result = task.result.as_ref().filter(|r| !r.background);
    let end_ts = result
        .and_then(|r| r.ts)
        .or(buf.last_ts())
        .or(background.and_then(|r| r.ts))
        .or(task.ts);
    if !found {
        buf.push(
            end_ts,
            EventKind::Error {
                message: "no transcript of this subagent was found beside the session".into(),
            },
        );
    }
    let reason = match result {
        None if background.is_some() && found => TerminalReason::Completed,
        None => TerminalReason::Interrupted,
        Some(r) if r.is_error && r.text.to_ascii_lowercase().contains("interrupted") => {
            TerminalReason::Interrupted
        }
        Some(r) if r.is_error => TerminalReason::ModelError,
        Some(r) => r
            .status
            .as_deref()
            .map_or(TerminalReason::Completed, reason_from),
    };
    let summary = match (result, background) {
        (Some(r), _) => without_trailer(&r.text),
        (None, Some(_)) => stats.final_text.clone().unwrap_or_else(|| {
            "a background subagent: its answer is not in its transcript".to_string()
        }),
        (None, None) => {
            "no result was recorded: the session ended while this subagent ran".to_string()
        }
    };
    let usage = if stats.usage == Usage::default() {
        result.and_then(|r| r.usage).unwrap_or_default()
    } else {
        stats.usage
    };
    let elapsed_ms =
        result
            .and_then(|r| r.duration_ms)
            .unwrap_or_else(|| match (end_ts, task.ts) {
                (Some(end), Some(start)) => end.saturating_sub(start).max(0) as u64,
                _ => 0,
            });
    buf.push(
        end_ts,
        EventKind::TurnEnd {
            reason,
            steps: stats.steps,
            usage,
        },
    );
    buf.push(
        end_ts,
        EventKind::SubagentEnd {
            reason,
            summary,
            steps: stats.steps,
            tool_usage: stats.tool_usage,
            usage,
            elapsed_ms,
        },
    );
    buf
}
