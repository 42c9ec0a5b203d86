//! The text `brood run` and `replay --print` write for a session: each tool
//! call one `> NAME: summary` line with the head of its result, children's calls
//! as `[sub-N]` lines, the assistant's text as it streams. A pure function of
//! the event stream, so a replay prints what the live run printed.

use std::collections::BTreeMap;

use crate::event::{AgentId, DecidedBy, Decision, Event, EventKind};
use crate::protocol::{Price, PriceTable, TASK_TOOL, call_label, envelope_text, estimate_tokens};
use crate::text::count;

/// Result lines shown under each tool call.
const RESULT_HEAD_LINES: usize = 4;
/// Characters kept of each of those lines.
const RESULT_LINE_CHARS: usize = 160;

/// Characters of a child's tool output shown on its `[sub-N]` line.
const CHILD_OUTPUT_CHARS: usize = 100;

/// Turns events into the text `brood run` prints.
pub struct TextPrinter {
    /// Whether the last thing printed ended a line.
    at_line_start: bool,
    /// Tokens used per agent, from their `turn_end` events.
    tokens: BTreeMap<AgentId, u64>,
    /// Tokens of the task results that did enter the parent's context.
    returned_tokens: u64,
    /// Why the policy asked about calls that were then denied, by call id:
    /// said with the result unless the result says it already.
    denied: BTreeMap<String, String>,
    /// The model each agent's requests name, with its price (looked up
    /// once per model, not per answer).
    models: BTreeMap<AgentId, (String, Option<Price>)>,
    /// The parent is reasoning: said once a response, as it starts.
    thinking: bool,
    cost: Option<f64>,
    prices: PriceTable,
}

impl Default for TextPrinter {
    fn default() -> Self {
        Self::new()
    }
}

impl TextPrinter {
    pub fn new() -> Self {
        Self::with_prices(PriceTable::default())
    }

    /// A printer that prices tokens with `prices` (the built-in table and
    /// the user's `[prices]`).
    pub fn with_prices(prices: PriceTable) -> Self {
        TextPrinter {
            at_line_start: true,
            tokens: BTreeMap::new(),
            returned_tokens: 0,
            denied: BTreeMap::new(),
            models: BTreeMap::new(),
            thinking: false,
            cost: None,
            prices,
        }
    }

    /// What the session cost so far, when any of its models has a price.
    pub fn cost(&self) -> Option<f64> {
        self.cost
    }

    /// The text one event adds to the output (often nothing).
    pub fn format(&mut self, event: &Event) -> String {
        if let EventKind::ModelRequest { model, .. } = &event.kind
            && self
                .models
                .get(&event.agent)
                .is_none_or(|(m, _)| m != model)
        {
            let price = self.prices.price(model);
            self.models.insert(event.agent, (model.clone(), price));
        }
        // A compaction's summary request is priced like an answer.
        let priced = match &event.kind {
            EventKind::AssistantMessage { usage, .. } => Some(usage),
            EventKind::Compacted { usage, .. } => Some(&**usage),
            _ => None,
        };
        if let Some(usage) = priced {
            let cost = match self.models.get(&event.agent) {
                Some((_, price)) => price.map(|p| p.cost(usage)),
                None => self.prices.cost("", usage),
            };
            if let Some(cost) = cost {
                *self.cost.get_or_insert(0.0) += cost;
            }
        }
        let mut out = String::new();
        match event.agent {
            AgentId::Main => self.format_parent(event, &mut out),
            AgentId::Sub(_) => self.format_child(event, &mut out),
        }
        if let Some(last) = out.chars().last() {
            self.at_line_start = last == '\n';
        }
        // Everything here comes from a model, a tool or a file: shown, never
        // obeyed by the terminal.
        match crate::text::visible(&out) {
            std::borrow::Cow::Borrowed(_) => out,
            std::borrow::Cow::Owned(safe) => safe,
        }
    }

    fn format_parent(&mut self, event: &Event, out: &mut String) {
        match &event.kind {
            EventKind::TextDelta { text } => out.push_str(text),
            EventKind::ToolCall {
                name,
                input,
                summary,
                ..
            } => {
                let summary = call_label(name, input, summary);
                self.line(out, &format!("> {name}: {summary}"));
            }
            EventKind::PermissionDecision {
                call_id,
                decision,
                reason,
                by: DecidedBy::User,
            } => match decision {
                Decision::Allow => self.line(out, &format!("  ask: {reason} → allowed")),
                Decision::Ask | Decision::Deny => {
                    self.denied.insert(call_id.clone(), reason.clone());
                }
            },
            EventKind::ToolResult {
                call_id,
                name,
                content,
                is_error,
                ..
            } => {
                if let Some(reason) = self.denied.remove(call_id)
                    && !content.contains(reason.as_str())
                {
                    self.line(out, &format!("  ask: {reason} → denied"));
                }
                if name == TASK_TOOL {
                    self.returned_tokens += estimate_tokens(content);
                    let summary = envelope_text(content);
                    self.result_head(out, &summary, *is_error);
                } else {
                    self.result_head(out, content, *is_error);
                }
            }
            EventKind::HookContinue { text } => {
                self.line(out, &format!("> stop hook: {}", truncate_chars(text, 200)));
            }
            EventKind::Steer { text } => {
                self.line(
                    out,
                    &format!("> you, while it ran: {}", truncate_chars(text, 200)),
                );
            }
            EventKind::HookRun { .. } => self.line(out, &hook_line(&event.kind)),
            EventKind::McpServerDown { server, error } => {
                self.line(out, &format!("MCP server {server} stopped: {error}"))
            }
            EventKind::Interrupted {} => self.line(out, "interrupted"),
            EventKind::Retry {
                attempt,
                max_attempts,
                wait_ms,
                reason,
            } => self.line(out, &retry_line(*attempt, *max_attempts, *wait_ms, reason)),
            EventKind::TurnEnd { usage, .. } => {
                *self.tokens.entry(event.agent).or_default() += usage.total();
                if !self.at_line_start && !out.ends_with('\n') {
                    out.push('\n');
                }
                let totals = self.token_line();
                self.line(out, &totals);
            }
            // `you  …` marks where each turn starts, live and in a replay alike.
            EventKind::UserMessage { text } => {
                if !self.at_line_start && !out.ends_with('\n') {
                    out.push('\n');
                }
                let mut lines = text.trim_end().lines();
                let first = lines.next().unwrap_or_default();
                self.line(out, &format!("you  {first}"));
                for more in lines {
                    self.line(out, &format!("     {more}"));
                }
            }
            EventKind::Resumed { at, messages } => {
                if !self.at_line_start && !out.ends_with('\n') {
                    out.push('\n');
                }
                let history = crate::text::count(*messages as u64, "message");
                self.line(
                    out,
                    &format!(
                        "── resumed {} · {history} of history ──",
                        crate::text::short_time(at)
                    ),
                );
            }
            EventKind::Compacted {
                before_tokens,
                after_tokens,
                ..
            } => {
                if !self.at_line_start && !out.ends_with('\n') {
                    out.push('\n');
                }
                self.line(
                    out,
                    &format!(
                        "── compacted: about {} → {} tokens ──",
                        crate::text::tokens(*before_tokens),
                        crate::text::tokens(*after_tokens)
                    ),
                );
            }
            // The reasoning itself stays in the trace and the workbench.
            EventKind::ThinkingDelta { .. } if !self.thinking => {
                self.thinking = true;
                self.line(out, "✻ thinking…");
            }
            EventKind::AssistantMessage { .. } => self.thinking = false,
            EventKind::ModelChanged { slot, model } => {
                let which = match slot {
                    crate::event::ModelSlot::Main => "model",
                    crate::event::ModelSlot::Light => "light model",
                };
                self.line(out, &format!("{which}: {model} from now on"));
            }
            EventKind::ModelRequest { .. }
            | EventKind::ThinkingDelta { .. }
            | EventKind::Thinking { .. }
            | EventKind::PromptContext { .. }
            | EventKind::ApprovalRequested(_)
            | EventKind::PermissionDecision { .. }
            | EventKind::Error { .. }
            | EventKind::SubagentStart(_)
            | EventKind::SubagentEnd { .. } => {}
        }
    }

    /// Children are shown as one line per tool call between a start and an end
    /// line; their streamed text stays in their own lane.
    fn format_child(&mut self, event: &Event, out: &mut String) {
        let id = event.agent;
        match &event.kind {
            EventKind::SubagentStart(start) => self.line(
                out,
                &format!(
                    "[Subagent started] {id} {}: {}",
                    start.profile, start.description
                ),
            ),
            EventKind::ToolResult { name, content, .. } => {
                let flat = flatten_head(content, CHILD_OUTPUT_CHARS);
                let head = truncate_chars(&flat, CHILD_OUTPUT_CHARS);
                self.line(out, &format!("  [{id}] {name}: {head}"));
            }
            EventKind::TurnEnd { usage, .. } => {
                *self.tokens.entry(id).or_default() += usage.total();
            }
            EventKind::Retry {
                attempt,
                max_attempts,
                wait_ms,
                reason,
            } => {
                let text = retry_line(*attempt, *max_attempts, *wait_ms, reason);
                self.line(out, &format!("  [{id}] {text}"));
            }
            EventKind::HookRun { .. } => {
                self.line(out, &format!("  [{id}] {}", hook_line(&event.kind)));
            }
            // A hook sent the child back to work (a completion gate's
            // correction): its lane would not make sense without it.
            EventKind::HookContinue { text } => {
                let head =
                    truncate_chars(&flatten_head(text, CHILD_OUTPUT_CHARS), CHILD_OUTPUT_CHARS);
                self.line(out, &format!("  [{id}] stop hook: {head}"));
            }
            // What the user told the child while it ran changes what it does next.
            EventKind::Steer { text } => {
                let head =
                    truncate_chars(&flatten_head(text, CHILD_OUTPUT_CHARS), CHILD_OUTPUT_CHARS);
                self.line(out, &format!("  [{id}] you: {head}"));
            }
            EventKind::SubagentEnd {
                reason,
                steps,
                usage,
                ..
            } => {
                let tokens = usage.total();
                self.line(
                    out,
                    &format!(
                        "[Subagent done] {id} {reason} · {} · {tokens} tokens",
                        count(*steps, "step")
                    ),
                );
            }
            EventKind::UserMessage { .. }
            | EventKind::PromptContext { .. }
            | EventKind::Resumed { .. }
            | EventKind::Compacted { .. }
            | EventKind::ThinkingDelta { .. }
            | EventKind::Thinking { .. }
            | EventKind::ModelChanged { .. }
            | EventKind::ModelRequest { .. }
            | EventKind::TextDelta { .. }
            | EventKind::AssistantMessage { .. }
            | EventKind::ToolCall { .. }
            | EventKind::ApprovalRequested(_)
            | EventKind::PermissionDecision { .. }
            | EventKind::Error { .. }
            | EventKind::McpServerDown { .. }
            | EventKind::Interrupted {} => {}
        }
    }

    /// The first lines of a result and how many more there are. Written
    /// straight into `out`: a session prints a few lines for every call.
    fn result_head(&self, out: &mut String, content: &str, is_error: bool) {
        let mut shown = 0;
        for (i, text) in content
            .split_inclusive('\n')
            .take(RESULT_HEAD_LINES)
            .enumerate()
        {
            shown += text.len();
            let text = text.strip_suffix('\n').unwrap_or(text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            self.start_line(out);
            out.push_str(match i == 0 && is_error {
                true => "  error: ",
                false => "  ",
            });
            match text.char_indices().nth(RESULT_LINE_CHARS) {
                Some((cut, _)) => {
                    out.push_str(&text[..cut]);
                    out.push('…');
                }
                None => out.push_str(text),
            }
            out.push('\n');
        }
        // Counted by bytes: a result can be megabytes of lines.
        let rest = &content.as_bytes()[shown..];
        let rest = memchr::memchr_iter(b'\n', rest).count()
            + usize::from(!rest.is_empty() && !rest.ends_with(b"\n"));
        if rest > 0 {
            self.line(out, &format!("  … +{}", count(rest as u64, "line")));
        }
    }

    /// `tokens: main 5123 · sub-1 4213 · kept out of main's context: 3900`.
    fn token_line(&self) -> String {
        let mut parts: Vec<String> = self
            .tokens
            .iter()
            .map(|(agent, tokens)| format!("{agent} {tokens}"))
            .collect();
        let children: u64 = self
            .tokens
            .iter()
            .filter(|(agent, _)| **agent != AgentId::Main)
            .map(|(_, tokens)| tokens)
            .sum();
        if children > 0 {
            let kept = children.saturating_sub(self.returned_tokens);
            parts.push(format!("kept out of main's context: {kept}"));
        }
        if let Some(cost) = self.cost {
            parts.push(format!("cost {}", crate::protocol::price::usd(cost)));
        }
        format!("tokens: {}", parts.join(" · "))
    }

    /// Appends `text` as a line of its own.
    fn line(&self, out: &mut String, text: &str) {
        self.start_line(out);
        out.push_str(text);
        out.push('\n');
    }

    /// Ends the line being written, if one is, so that a new one starts.
    fn start_line(&self, out: &mut String) {
        let continuing = if out.is_empty() {
            self.at_line_start
        } else {
            out.ends_with('\n')
        };
        if !continuing {
            out.push('\n');
        }
    }
}

/// `retrying in 2 s (1/4): the API answered HTTP 529: Overloaded`.
pub fn retry_line(attempt: u32, max_attempts: u32, wait_ms: u64, reason: &str) -> String {
    let wait = if wait_ms >= 1000 {
        format!("{:.0} s", wait_ms as f64 / 1000.0)
    } else {
        format!("{wait_ms} ms")
    };
    format!("retrying in {wait} ({attempt}/{max_attempts}): {reason}")
}

/// The first words of `text` joined by single spaces, stopping once there
/// are more than `max` characters: a child's multi-KB result is never
/// flattened whole to show 100 characters of it.
///
/// Words are split where [`char::is_whitespace`] says, as
/// `str::split_whitespace` would, but a byte at a time where the text is
/// ASCII: a session prints a line for each of its children's calls.
fn flatten_head(text: &str, max: usize) -> String {
    let mut flat = String::new();
    let mut chars = 0;
    let mut word: Option<usize> = None;
    let mut at = 0;
    while let Some(&byte) = text.as_bytes().get(at) {
        let (space, len) = match byte {
            0..0x80 => (
                matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
                1,
            ),
            _ => match text.get(at..).and_then(|rest| rest.chars().next()) {
                Some(c) => (c.is_whitespace(), c.len_utf8()),
                None => break,
            },
        };
        match (space, word) {
            (true, Some(start)) => {
                word = None;
                chars += push_word(&mut flat, &text[start..at]);
                if chars > max {
                    return flat;
                }
            }
            (false, None) => word = Some(at),
            (true, None) | (false, Some(_)) => {}
        }
        at += len;
    }
    if let Some(start) = word {
        push_word(&mut flat, &text[start..]);
    }
    flat
}

/// Appends `word` to `flat` after a space (unless it is the first); returns
/// the characters added.
fn push_word(flat: &mut String, word: &str) -> usize {
    let space = !flat.is_empty();
    if space {
        flat.push(' ');
    }
    flat.push_str(word);
    usize::from(space) + word.chars().count()
}

fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
#[path = "printer_tests.rs"]
mod tests;

/// `hook PreToolUse `./check.sh` blocked (exit 2): no pushes on Fridays`.
fn hook_line(kind: &EventKind) -> String {
    let EventKind::HookRun {
        hook,
        command,
        outcome,
        exit_code,
        message,
        ..
    } = kind
    else {
        return String::new();
    };
    let command = truncate_chars(command, 60);
    let code = exit_code
        .map(|c| format!(" (exit {c})"))
        .unwrap_or_default();
    let mut line = format!("hook {hook} `{command}` {}{code}", outcome.as_str());
    let said = truncate_chars(message.trim(), 200);
    if !said.is_empty() {
        line.push_str(&format!(": {said}"));
    }
    line
}
