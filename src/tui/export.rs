//! `/export`: the session as Markdown, from what the screen holds: the
//! prompts and answers, each tool call with the head of its output, each
//! child with its answer, then every child's transcript. Text from models
//! and tools is kept as it was written, but for the controls a terminal
//! would obey (`text::visible`), since the file is read in terminals too.

use std::fmt::Write;

use super::state::{CallStatus, Child, ChildStatus, EntryKind, State, TranscriptItem};

/// Lines of a tool's output the export keeps; the rest is counted.
const OUTPUT_LINES: usize = 20;

/// The whole session as one Markdown document.
pub fn markdown(state: &State) -> String {
    let mut out = String::new();
    let info = &state.info;
    let _ = writeln!(out, "# brood session {}\n", info.session);
    let _ = writeln!(out, "- model: {} ({})", info.model, info.provider);
    if let Some(light) = &info.light_model {
        let _ = writeln!(out, "- light model: {light}");
    }
    let _ = writeln!(out, "- workspace: `{}`", info.cwd);
    if let Some(trace) = &info.trace_path {
        let _ = writeln!(out, "- trace: `{trace}`");
    }
    out.push('\n');
    for entry in &state.entries {
        match &entry.kind {
            EntryKind::User(text) => {
                let _ = writeln!(out, "## You\n\n{}\n", safe(text));
            }
            EntryKind::Assistant { text, .. } => {
                let _ = writeln!(out, "## brood\n\n{}\n", safe(text));
            }
            EntryKind::Thinking { .. } => {}
            EntryKind::Notice { text, .. } => {
                let _ = writeln!(out, "> {}\n", safe(text));
            }
            EntryKind::Tool(cell) => {
                let _ = writeln!(
                    out,
                    "**{}** `{}` {}\n",
                    safe(&cell.name),
                    safe(&cell.label),
                    status(cell.status)
                );
                out.push_str(&fenced(&cell.output));
            }
            EntryKind::Task(task) => {
                let child = task.child.map(|c| c.to_string()).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "**task** {child} {} · {} {}\n",
                    safe(&task.profile),
                    safe(&task.description),
                    status(task.status)
                );
                if let Some(summary) = &task.summary {
                    let _ = writeln!(out, "> {}\n", safe(summary).replace('\n', "\n> "));
                }
            }
        }
    }
    for child in &state.children {
        transcript(child, &mut out);
    }
    out
}

/// One child's whole transcript, under its own heading.
fn transcript(child: &Child, out: &mut String) {
    let state = match child.status {
        ChildStatus::Running => "running".to_string(),
        ChildStatus::Done | ChildStatus::Failed => child
            .reason
            .map_or_else(|| "ended".to_string(), |r| r.to_string()),
    };
    let _ = writeln!(
        out,
        "## {} · {} · {} · {state}\n",
        child.id,
        safe(&child.profile),
        safe(&child.description)
    );
    for item in &child.transcript {
        match item {
            TranscriptItem::Prompt(text) => {
                let _ = writeln!(out, "**prompt**\n\n{}\n", safe(text));
            }
            TranscriptItem::Told(text) => {
                let _ = writeln!(out, "**you, while it ran**\n\n{}\n", safe(text));
            }
            TranscriptItem::Assistant(text) => {
                let _ = writeln!(out, "**{}**\n\n{}\n", child.id, safe(text));
            }
            TranscriptItem::ToolCall { name, label, .. } => {
                let _ = writeln!(out, "→ **{}** `{}`\n", safe(name), safe(label));
            }
            TranscriptItem::ToolResult {
                content, is_error, ..
            } => {
                if *is_error {
                    out.push_str("✗ failed\n\n");
                }
                out.push_str(&fenced(content));
            }
            TranscriptItem::Note(text) => {
                let _ = writeln!(out, "> {}\n", safe(text));
            }
            TranscriptItem::Thinking(_) => {}
        }
    }
}

fn status(status: CallStatus) -> &'static str {
    match status {
        CallStatus::Running => "(running)",
        CallStatus::Done => "✓",
        CallStatus::Failed => "✗",
        CallStatus::Denied => "(denied)",
    }
}

/// The head of a tool's output in a code fence long enough that no line of
/// the output closes it.
fn fenced(output: &str) -> String {
    let output = safe(output);
    let lines: Vec<&str> = output.trim_end().lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let longest_run = lines
        .iter()
        .map(|l| l.chars().take_while(|c| *c == '`').count())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest_run.max(2) + 1);
    let mut out = format!("{fence}\n");
    for line in lines.iter().take(OUTPUT_LINES) {
        out.push_str(line);
        out.push('\n');
    }
    if lines.len() > OUTPUT_LINES {
        let _ = writeln!(out, "… {} more lines", lines.len() - OUTPUT_LINES);
    }
    let _ = writeln!(out, "{fence}\n");
    out
}

fn safe(text: &str) -> String {
    crate::text::visible(text).into_owned()
}

/// Writes an export: over a file that is there only when `replace`.
pub fn write(path: &std::path::Path, markdown: &str, replace: bool) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    match replace {
        true => options.create(true).truncate(true),
        false => options.create_new(true),
    };
    let mut file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => std::io::Error::new(
            e.kind(),
            format!(
                "{} is there already: /export NAME writes elsewhere",
                path.display()
            ),
        ),
        _ => e,
    })?;
    file.write_all(markdown.as_bytes())?;
    file.sync_all()
}

#[cfg(test)]
#[path = "export_tests.rs"]
mod tests;
