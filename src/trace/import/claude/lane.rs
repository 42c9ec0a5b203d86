//! A child's lane around its transcript: the events that start it, when its
//! `Task` call is made, and the events that end it, when the call's result
//! is in (or the session ended without one). The importer puts them around a
//! whole transcript; a follower of a live session can send the start as soon
//! as the call is seen and the end when its result comes.

use serde_json::Value;

use super::super::live::Ending;
use super::super::timeline::{LaneBuf, Pending, reason_from};
use super::blocks::without_trailer;
use super::children::Meta;
use super::convert::{Converter, TaskCall};
use super::harness::is_note;
use crate::event::{AgentId, EventKind, TerminalReason, Usage};

/// `subagent_start`, then the call's prompt when the transcript does not open
/// with one (a missing transcript, or one that starts with the answer).
pub(super) fn child_start(
    task: &TaskCall,
    meta: &Meta,
    transcript: Option<&Converter>,
) -> Vec<Pending> {
    let text = |k: &str| input_text(&task.input, k);
    let prompt = transcript.and_then(|c| c.prompt.clone());
    let model_name = transcript.and_then(|c| c.model.clone());
    let mut head = vec![Pending::new(
        task.ts,
        EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
            parent: AgentId::Main,
            parent_call_id: task.call_id.clone(),
            profile: text("subagent_type")
                .map(String::from)
                .or_else(|| meta.agent_type.clone())
                .unwrap_or_else(|| "general".into()),
            model: "main".into(),
            model_name: model_name
                .or_else(|| meta.model.clone())
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
            color: None,
        })),
    )];
    if prompt.is_none() {
        head.push(Pending::new(
            task.ts,
            EventKind::UserMessage {
                text: text("prompt").unwrap_or_default().to_string(),
            },
        ));
    }
    head
}

/// Whether a child's transcript was found, for its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transcript {
    Found,
    Missing,
}

/// The end of a child's lane (`lane` is what it did): an error when its
/// transcript is missing, `turn_end` and `subagent_end` (reason and summary
/// from the call's result; steps, tools and usage from the lane).
pub(super) fn child_end(
    task: &TaskCall,
    lane: &LaneBuf,
    transcript: Transcript,
    session: Ending,
) -> Vec<Pending> {
    // While the session is written, a child whose call has no result yet is
    // running, and its transcript may still appear.
    if session == Ending::Open && task.result.is_none() {
        return Vec::new();
    }
    let mut stats = lane.stats();
    stats.tool_usage.retain(|name, _| !is_note(name));
    // A background agent's call returns at launch: the child ends on its own.
    let background = task.result.as_ref().filter(|r| r.background);
    let result = task.result.as_ref().filter(|r| !r.background);
    let end_ts = result
        .and_then(|r| r.ts)
        .or(lane.last_ts())
        .or(background.and_then(|r| r.ts))
        .or(task.ts);
    let found = transcript == Transcript::Found;
    let mut tail = Vec::new();
    if !found {
        tail.push(Pending::new(
            end_ts,
            EventKind::Error {
                message: "no transcript of this subagent was found beside the session".into(),
            },
        ));
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
    tail.push(Pending::new(
        end_ts,
        EventKind::TurnEnd {
            reason,
            steps: stats.steps,
            usage,
        },
    ));
    tail.push(Pending::new(
        end_ts,
        EventKind::SubagentEnd {
            reason,
            summary,
            steps: stats.steps,
            tool_usage: Box::new(stats.tool_usage),
            usage,
            elapsed_ms,
        },
    ));
    tail
}

fn input_text<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}
