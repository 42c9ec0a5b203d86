//! Small readers of Claude Code's message content: blocks, tool result text,
//! usage, the tags Claude Code wraps its own text in.

use std::borrow::Cow;

use serde_json::Value;

use super::super::lines::{display, str_at};
use super::wire::ResultContent;
use crate::event::Usage;

/// A tool result's content as text: a string, or its blocks' text.
pub(super) fn flatten(content: ResultContent<'_>) -> Cow<'_, str> {
    match content {
        ResultContent::None => Cow::Borrowed(""),
        ResultContent::Text(text) => text,
        ResultContent::Other(Value::Array(blocks)) => Cow::Owned(
            blocks
                .iter()
                .map(|b| match str_at(b, "type") {
                    Some("image") => "[image]".to_string(),
                    _ => str_at(b, "text").map_or_else(|| display(b), String::from),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        ResultContent::Other(other) => Cow::Owned(display(&other)),
    }
}

/// What `now` adds to `counted`, field by field (never below zero).
pub(super) fn usage_growth(now: &Usage, counted: &Usage) -> Usage {
    Usage {
        input_tokens: now.input_tokens.saturating_sub(counted.input_tokens),
        output_tokens: now.output_tokens.saturating_sub(counted.output_tokens),
        cache_read_tokens: now
            .cache_read_tokens
            .saturating_sub(counted.cache_read_tokens),
        cache_write_tokens: now
            .cache_write_tokens
            .saturating_sub(counted.cache_write_tokens),
        reasoning_tokens: 0,
        estimated: false,
    }
}

/// The `agentId: <id>` line Claude Code appends to a subagent's result.
pub(super) fn trailer_agent_id(text: &str) -> Option<String> {
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

/// The text between `<name>` and `</name>`, trimmed; `None` without the tag.
pub(super) fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    inside(text, name).map(str::trim)
}

/// The text between `<name>` and `</name>` as it is (command output keeps its
/// leading spaces); to the end when the tag is not closed.
pub(super) fn inside<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close).map_or(text.len(), |e| start + e);
    Some(&text[start..end])
}

/// Text without terminal escape sequences (`/model` writes bold names as
/// `ESC[1m…ESC[22m`): the view shows control characters, so the styling would
/// come out as noise.
pub(super) fn without_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte in @..~.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
    out
}

/// The first line that is not blank, for one-line labels.
pub(super) fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
}
