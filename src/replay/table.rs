//! How `brood traces` shows its listing: an aligned table for people, one JSON
//! object per line for machines.

use crate::text::{duration, tokens};
use std::path::Path;

use serde_json::json;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::list::{EndState, TraceSummary};

/// Display width the prompt column is cut to.
const PROMPT_WIDTH: usize = 40;

/// The listing as an aligned table with a header row, newest first.
pub fn render_table(sessions: &[TraceSummary], home: Option<&Path>) -> String {
    let header = [
        "DATE", "DURATION", "PROMPT", "CHILDREN", "TOKENS", "ENDED", "PATH",
    ];
    // Numbers read best right-aligned.
    let right = [false, true, false, true, true, false, false];
    let mut rows = vec![header.map(String::from)];
    for s in sessions {
        rows.push([
            date(&s.header.started_at),
            duration(s.duration_ms),
            prompt(s.first_prompt.as_deref()),
            s.children.to_string(),
            tokens(s.tokens),
            ended(s),
            shown_path(&s.path, home),
        ]);
    }
    let mut widths = [0; 7];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.width());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = " ".repeat(widths[i] - cell.width());
            let last = i == row.len() - 1;
            match (right[i], last) {
                (true, _) => line.push_str(&format!("{pad}{cell}")),
                (false, true) => line.push_str(cell),
                (false, false) => line.push_str(&format!("{cell}{pad}")),
            }
            if !last {
                line.push_str("  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// One session as a JSON object on one line.
pub fn json_line(s: &TraceSummary) -> String {
    let reason = match s.end {
        EndState::Failed(reason) => Some(reason.as_str()),
        EndState::Completed | EndState::Interrupted | EndState::Unfinished => None,
    };
    json!({
        "path": s.path,
        "session": s.header.session,
        "started_at": s.header.started_at,
        "duration_ms": s.duration_ms,
        "first_prompt": s.first_prompt,
        "children": s.children,
        "tokens": s.tokens,
        "end": s.end.word(),
        "reason": reason,
        "error": s.error,
        "provider": s.header.provider,
        "model": s.header.model,
        "cwd": s.header.cwd,
        "events": s.events,
        "bad_lines": s.bad_lines,
    })
    .to_string()
}

/// Local `2026-11-30 05:34`, or the header's text when it is not a time.
fn date(started_at: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(started_at) {
        Ok(t) => t
            .with_timezone(&chrono::Local)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => started_at.to_string(),
    }
}

/// The prompt on one line, cut to the column's width.
fn prompt(text: Option<&str>) -> String {
    let Some(text) = text else {
        return "(no prompt)".into();
    };
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = crate::text::visible(&flat).into_owned();
    if flat.width() <= PROMPT_WIDTH {
        return flat;
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in flat.chars() {
        used += c.width().unwrap_or(0);
        // Leave a column for the ellipsis.
        if used >= PROMPT_WIDTH {
            break;
        }
        cut.push(c);
    }
    format!("{}…", cut.trim_end())
}

fn ended(s: &TraceSummary) -> String {
    match s.end {
        EndState::Failed(reason) => format!("failed: {reason}"),
        EndState::Completed | EndState::Interrupted | EndState::Unfinished => {
            s.end.word().to_string()
        }
    }
}

/// The path with the home folder as `~`.
fn shown_path(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|home| path.strip_prefix(home).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}
