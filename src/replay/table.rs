//! How `brood traces` shows its listing: an aligned table for people, one JSON
//! object per line for machines.

use crate::text::{duration, tokens};
use std::path::Path;

use serde_json::json;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::list::{EndState, TraceSummary};
use super::sessions::{Described, Found};
use std::time::SystemTime;

/// Display width the prompt column is cut to.
const PROMPT_WIDTH: usize = 40;

/// The listing as an aligned table with a header row, newest first.
pub fn render_table(sessions: &[TraceSummary], home: Option<&Path>) -> String {
    let header = [
        "DATE", "DURATION", "PROMPT", "CHILDREN", "TOKENS", "COST", "ENDED", "PATH",
    ];
    // Numbers read best right-aligned.
    let right = [false, true, false, true, true, true, false, false];
    let mut rows = vec![header.map(String::from)];
    for s in sessions {
        rows.push([
            crate::text::short_time(&s.header.started_at),
            duration(s.duration_ms),
            prompt(s.first_prompt.as_deref()),
            s.children.to_string(),
            tokens(s.tokens),
            s.cost
                .map_or_else(|| "-".to_string(), crate::protocol::price::usd),
            ended(s),
            shown_path(&s.path, home),
        ]);
    }
    aligned(&rows, &right)
}

/// Rows as columns padded to their widest cell (numbers to the right), the
/// last column unpadded.
fn aligned<const N: usize>(rows: &[[String; N]], right: &[bool; N]) -> String {
    let mut widths = [0; N];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.width());
        }
    }
    let mut out = String::new();
    for row in rows {
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

/// `brood watch --list`: the sessions brood can follow, most recently
/// written first.
pub fn render_sessions(
    sessions: &[(Found, Described)],
    now: SystemTime,
    home: Option<&Path>,
) -> String {
    let header = [
        "TOOL", "PROJECT", "STARTED", "WRITTEN", "CHILDREN", "PROMPT", "PATH",
    ];
    let right = [false, false, false, true, true, false, false];
    let mut rows = vec![header.map(String::from)];
    for (found, described) in sessions {
        rows.push([
            found.tool.name().to_string(),
            shown_path(Path::new(&described.project), home),
            described
                .started
                .as_deref()
                .map(crate::text::short_time)
                .unwrap_or_default(),
            ago(now, found.modified),
            described.children.to_string(),
            prompt(described.first_prompt.as_deref()),
            shown_path(&found.path, home),
        ]);
    }
    aligned(&rows, &right)
}

/// One followable session as a JSON object on one line.
pub fn session_json_line(found: &Found, described: &Described) -> String {
    let modified = chrono::DateTime::<chrono::Utc>::from(found.modified)
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    json!({
        "tool": found.tool.name(),
        "path": found.path,
        "project": described.project,
        "started_at": described.started,
        "modified_at": modified,
        "children": described.children,
        "first_prompt": described.first_prompt,
    })
    .to_string()
}

/// `12s ago`, `5m ago`, `3h ago`, `2d ago`.
fn ago(now: SystemTime, then: SystemTime) -> String {
    let secs = now.duration_since(then).map_or(0, |d| d.as_secs());
    match secs {
        0..60 => format!("{secs}s ago"),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
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
        "cost_usd": s.cost,
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
