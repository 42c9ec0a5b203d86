//! What Claude Code writes into a conversation for itself rather than for the
//! user or the model: slash commands and their output, `!` shell commands,
//! task notifications, text it adds to the model's context (`isMeta`),
//! compaction boundaries and summaries, and rewinds.
//!
//! None of it is a prompt, so none of it is a `user_message` or starts a turn.
//! Each is shown as a note: a `tool_call` / `tool_result` pair whose name has a
//! space in it, so it can never be taken for one of the model's tools. The
//! screen draws it as a tool cell (its name, a one-line label, the text folded
//! under it) and `--print` as `> name: label` with the head of the text, which
//! is what these are: something that ran, and what it said.

use serde_json::{Value, json};

use super::super::Report;
use super::blocks::{first_line, inside, tag, without_escapes};
use super::convert::Converter;
use super::wire::Line;
use crate::event::{EventKind, TerminalReason};
use crate::trace::import::timeline::reason_from;

/// The names of notes, as their `tool_call`s carry them.
pub(super) const COMMAND: &str = "slash command";
pub(super) const SHELL: &str = "user shell";
pub(super) const NOTIFICATION: &str = "task notification";
pub(super) const CONTEXT: &str = "added context";
pub(super) const COMPACTION: &str = "compaction";
pub(super) const REWIND: &str = "rewind";

/// Whether a `tool_call` name is one of the notes above (not a call the model made).
pub(super) fn is_note(name: &str) -> bool {
    [COMMAND, SHELL, NOTIFICATION, CONTEXT, COMPACTION, REWIND].contains(&name)
}

/// What a note still waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Awaits {
    /// A slash command: its `<local-command-stdout>`, or the prompt it expands into.
    Output,
    /// A `!` command: its `<bash-stdout>`.
    ShellOutput,
    /// A compaction boundary: the summary that follows it.
    Summary,
}

/// A note whose `tool_call` is out and whose result has not come yet.
#[derive(Debug, Clone)]
pub(super) struct OpenNote {
    call_id: String,
    name: &'static str,
    ts: Option<i64>,
    awaits: Awaits,
}

/// What a line of Claude Code's own text says.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Said {
    /// `<command-name>/model</command-name>…<command-args>opus</command-args>`.
    Command { name: String, args: String },
    /// `<local-command-stdout>` (or `-stderr`).
    CommandOutput { text: String, failed: bool },
    /// `<bash-input>`: the user ran a command in `!` mode.
    Shell { command: String },
    /// `<bash-stdout>` / `<bash-stderr>`.
    ShellOutput { text: String, failed: bool },
    /// `<local-command-caveat>`: the same boilerplate before every local command.
    Caveat,
    /// `<task-notification>`: a background task ended.
    Notification {
        label: String,
        text: String,
        failed: bool,
        input: Value,
    },
}

/// Reads Claude Code's own text, which starts with one of its tags; anything
/// else (a prompt that merely mentions a tag) is `None`.
pub(super) fn said(text: &str) -> Option<Said> {
    let t = text.trim_start();
    if t.starts_with("<command-") && t.contains("<command-name>") {
        let name = tag(t, "command-name").unwrap_or_default();
        let name = match name.starts_with('/') {
            true => name.to_string(),
            false => format!("/{name}"),
        };
        let args = tag(t, "command-args").unwrap_or_default().to_string();
        return Some(Said::Command { name, args });
    }
    if t.starts_with("<local-command-caveat>") {
        return Some(Said::Caveat);
    }
    if t.starts_with("<local-command-std") {
        return Some(output(t, "local-command-stdout", "local-command-stderr"))
            .map(|(text, failed)| Said::CommandOutput { text, failed });
    }
    if t.starts_with("<bash-input>") {
        let command = tag(t, "bash-input").unwrap_or_default().to_string();
        return Some(Said::Shell { command });
    }
    if t.starts_with("<bash-std") {
        return Some(output(t, "bash-stdout", "bash-stderr"))
            .map(|(text, failed)| Said::ShellOutput { text, failed });
    }
    if t.starts_with("<task-notification>") {
        return Some(notification(t));
    }
    None
}

/// A command's output, and whether it is only an error.
fn output(t: &str, out: &str, err: &str) -> (String, bool) {
    let stdout = inside(t, out).map(without_escapes).unwrap_or_default();
    let stderr = inside(t, err).map(without_escapes).unwrap_or_default();
    let failed = stdout.trim().is_empty() && !stderr.trim().is_empty();
    let text = [stdout, stderr]
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    (text, failed)
}

fn notification(t: &str) -> Said {
    let status = tag(t, "status").unwrap_or_default();
    let id = tag(t, "task-id").unwrap_or_default();
    let label = tag(t, "summary")
        .filter(|s| !s.is_empty())
        .map_or_else(|| format!("task {id} {status}"), String::from);
    let after = t
        .find("</task-notification>")
        .map(|end| t[end + "</task-notification>".len()..].trim())
        .unwrap_or_default();
    let text = tag(t, "result")
        .filter(|r| !r.is_empty())
        .or(Some(after).filter(|a| !a.is_empty()))
        .unwrap_or(&label)
        .to_string();
    Said::Notification {
        failed: !status.is_empty() && reason_from(status) == TerminalReason::ModelError,
        input: json!({"task_id": id, "status": status}),
        label,
        text,
    }
}

impl Converter {
    /// Takes what [`said`] read from a user (or `system`) line.
    pub(super) fn harness(&mut self, said: Said, ts: Option<i64>, report: &mut Report) {
        match said {
            Said::Caveat => report.skip("user (command caveat)"),
            Said::Command { name, args } => {
                self.settle();
                self.close_notes();
                let label = format!("{name} {args}").trim().to_string();
                let input = json!({"command": name, "args": args});
                self.open_note(COMMAND, &label, input, ts, Awaits::Output);
            }
            Said::CommandOutput { text, failed } => {
                if !self.answer(Awaits::Output, &text, failed, ts) {
                    self.settle();
                    self.note(COMMAND, "output", json!({}), &text, failed, ts);
                }
            }
            Said::Shell { command } => {
                self.settle();
                self.close_notes();
                let input = json!({"command": command});
                self.open_note(SHELL, &command, input, ts, Awaits::ShellOutput);
            }
            Said::ShellOutput { text, failed } => {
                if !self.answer(Awaits::ShellOutput, &text, failed, ts) {
                    self.settle();
                    self.note(SHELL, "output", json!({}), &text, failed, ts);
                }
            }
            Said::Notification {
                label,
                text,
                failed,
                input,
            } => {
                self.settle();
                self.close_notes();
                self.messages += 1;
                self.note(NOTIFICATION, &label, input, &text, failed, ts);
            }
        }
    }

    /// An `isMeta` user line: the prompt a slash command expands into, or text
    /// Claude Code adds to the model's context (a skill's instructions).
    pub(super) fn meta(&mut self, text: &str, ts: Option<i64>) {
        self.messages += 1;
        if !self.answer(Awaits::Output, text, false, ts) {
            let label = first_line(text).to_string();
            self.note(CONTEXT, &label, json!({}), text, false, ts);
        }
    }

    /// `system` lines: compaction boundaries and (in newer versions) local
    /// commands; the rest (hook summaries, turn durations…) are counted.
    pub(super) fn system(&mut self, line: &Line<'_>, ts: Option<i64>, report: &mut Report) {
        let content = line.content.get().unwrap_or_default();
        match line.subtype.get() {
            Some("compact_boundary") => {
                self.flush();
                self.settle();
                let meta = line.compact.get();
                let trigger = meta.and_then(|m| m.trigger.get()).unwrap_or_default();
                let before = meta.and_then(|m| m.pre_tokens.0);
                let label = match (trigger, before) {
                    ("", None) => "context compacted".to_string(),
                    (t, None) => format!("context compacted ({t})"),
                    ("", Some(n)) => format!(
                        "context compacted ({} tokens before)",
                        crate::text::tokens(n)
                    ),
                    (t, Some(n)) => format!(
                        "context compacted ({t}, {} tokens before)",
                        crate::text::tokens(n)
                    ),
                };
                let input = json!({"trigger": trigger, "pre_tokens": before});
                self.open_note(COMPACTION, &label, input, ts, Awaits::Summary);
            }
            Some("local_command") => match said(content) {
                Some(said) => {
                    self.flush();
                    self.harness(said, ts, report);
                }
                None => report.skip("system"),
            },
            _ => report.skip("system"),
        }
    }

    /// A compaction summary (`isCompactSummary`): the text the conversation goes
    /// on from, shown under its boundary.
    pub(super) fn compact_summary(&mut self, text: &str, ts: Option<i64>) {
        self.messages += 1;
        if !self.answer(Awaits::Summary, text, false, ts) {
            self.settle();
            self.note(COMPACTION, "context compacted", json!({}), text, false, ts);
        }
    }

    /// A rewound branch, folded: what the user abandoned, in one note where it was.
    pub(super) fn rewound(&mut self, label: &str, listing: &str, span: (Option<i64>, Option<i64>)) {
        self.flush();
        self.close_notes();
        // The user went back to an earlier prompt: the turn before is over.
        self.end_turn();
        self.idle = true;
        let call_id = self.note_call(REWIND, label, json!({}), span.0);
        self.note_result(&call_id, REWIND, listing, false, span.0, span.1);
    }

    /// A note's `tool_call`, whose result comes when `awaits` does.
    fn open_note(
        &mut self,
        name: &'static str,
        label: &str,
        input: Value,
        ts: Option<i64>,
        awaits: Awaits,
    ) {
        let call_id = self.note_call(name, label, input, ts);
        self.notes.push(OpenNote {
            call_id,
            name,
            ts,
            awaits,
        });
    }

    fn note_call(&mut self, name: &str, label: &str, input: Value, ts: Option<i64>) -> String {
        self.note_ids += 1;
        let call_id = format!("claude-note-{}", self.note_ids);
        self.buf.push(
            ts,
            EventKind::ToolCall {
                call_id: call_id.clone(),
                name: name.to_string(),
                input: input.into(),
                summary: label.to_string().into(),
            },
        );
        call_id
    }

    /// A note and its text at once.
    fn note(
        &mut self,
        name: &str,
        label: &str,
        input: Value,
        text: &str,
        failed: bool,
        ts: Option<i64>,
    ) {
        let call_id = self.note_call(name, label, input, ts);
        self.note_result(&call_id, name, text, failed, ts, ts);
    }

    /// Gives the latest note waiting for `awaits` its text; false if none waits.
    fn answer(&mut self, awaits: Awaits, text: &str, failed: bool, ts: Option<i64>) -> bool {
        let Some(i) = self.notes.iter().rposition(|n| n.awaits == awaits) else {
            return false;
        };
        let note = self.notes.remove(i);
        self.note_result(&note.call_id, note.name, text, failed, note.ts, ts);
        true
    }

    /// Closes the notes nothing answered (a command without output).
    pub(super) fn close_notes(&mut self) {
        for note in std::mem::take(&mut self.notes) {
            self.note_result(&note.call_id, note.name, "", false, note.ts, note.ts);
        }
    }

    fn note_result(
        &mut self,
        call_id: &str,
        name: &str,
        text: &str,
        failed: bool,
        start: Option<i64>,
        end: Option<i64>,
    ) {
        let duration_ms = match (start, end) {
            (Some(s), Some(e)) => e.saturating_sub(s).max(0) as u64,
            _ => 0,
        };
        self.buf.push(
            end,
            EventKind::ToolResult {
                call_id: call_id.to_string(),
                name: name.to_string(),
                is_error: failed,
                // Blank lines around it go; a leading space (`git status`) stays.
                content: text.trim_end().trim_start_matches(['\n', '\r']).into(),
                duration_ms,
            },
        );
    }
}
