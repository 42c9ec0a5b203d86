//! The help overlay: every key, grouped by where it acts.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use super::hidden::Hidden;
use super::text::cut_spans;
use super::{centered, overlay_block};
use crate::protocol::McpServerSummary;
use crate::tui::keymap::{self, Place};
use crate::tui::theme::Theme;
use crate::tui::ui::Scroll;

/// Width of the key column.
const KEY_COLUMN: usize = 23;

/// The groups of the key table the help shows: a replay has no composer, no
/// approvals and no turn to interrupt (its own row quits it), a live session
/// no replay controls.
fn groups(replay: bool) -> &'static [Place] {
    match replay {
        true => &[
            Place::Replay,
            Place::Panes,
            Place::Conversation,
            Place::Subagents,
            Place::Live,
            Place::Transcript,
            Place::Viewer,
            Place::Listing,
        ],
        false => &[
            Place::Anywhere,
            Place::Panes,
            Place::Conversation,
            Place::Subagents,
            Place::Live,
            Place::Composer,
            Place::Approval,
            Place::Reason,
            Place::Transcript,
            Place::Viewer,
            Place::Listing,
        ],
    }
}

/// `(key, what it does)` rows; an empty key starts a group headed by the
/// text. The slash commands follow the keys; the session's MCP servers come
/// last, each with its tools.
fn rows(replay: bool, mcp: &[McpServerSummary]) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let listed = |command| !replay || crate::tui::available::in_replay(command);
    for (heading, keys) in keymap::help(groups(replay), listed) {
        rows.push((String::new(), heading.to_string()));
        rows.extend(
            keys.into_iter()
                .map(|(k, w)| (k.to_string(), w.to_string())),
        );
    }
    // A replay has no composer to type them in.
    if !replay {
        rows.push((String::new(), "Commands (typed in the composer)".into()));
        rows.extend(crate::tui::slash::COMMANDS.iter().map(|c| {
            let name = match c.args.is_empty() {
                true => format!("/{}", c.name),
                false => format!("/{} {}", c.name, c.args),
            };
            (name, c.about.to_string())
        }));
    }
    if !mcp.is_empty() {
        rows.push((
            String::new(),
            "MCP servers (brood mcp lists them too)".into(),
        ));
        for server in mcp {
            let what = match &server.failed {
                Some(why) => format!("down: {why}"),
                None if server.tools.is_empty() => "ready, no tools".into(),
                None => server.tools.join(", "),
            };
            rows.push((server.name.clone(), what));
        }
    }
    rows
}

/// Draws the key list, scrolled by `scroll` when the terminal is too short for
/// all of it.
pub(super) fn render(
    frame: &mut Frame<'_>,
    area: Rect,
    scroll: &mut Scroll,
    replay: bool,
    mcp: &[McpServerSummary],
    theme: &Theme,
) {
    let keys = rows(replay, mcp);
    let height = keys.len() as u16 + 2;
    // Never over the status line, which says how to close and quit.
    let above_status = Rect {
        height: area.height.saturating_sub(1),
        ..area
    };
    let rect = centered(above_status, 72, height);
    // Where the list is, when it does not fit: what is above and below.
    let rows = Block::bordered().inner(rect).height as usize;
    let first = scroll.clamp(keys.len(), rows);
    let hidden = Hidden::of_window(keys.len(), first, rows, |_| false, |_| false);
    let mut hint = match hidden.border(theme) {
        Some(line) => line.spans,
        None => Vec::new(),
    };
    let keys_hint = match hidden.is_empty() {
        true => " Esc close ",
        false => "· Esc close · ↑↓ scroll ",
    };
    hint.push(Span::styled(keys_hint, theme.dim()));
    let block = Block::bordered()
        .title(Line::from(" Keys "))
        .title_bottom(Line::from(hint).right_aligned())
        .border_style(theme.focus())
        .title_style(theme.focus());
    let inner = overlay_block(frame, rect, block);
    let buf = frame.buffer_mut();
    let shown = keys.iter().skip(first).take(inner.height as usize);
    for (row, (key, what)) in shown.enumerate() {
        let spans = if key.is_empty() {
            vec![Span::styled(what.clone(), theme.heading())]
        } else {
            vec![
                Span::styled(format!("  {key:<KEY_COLUMN$}"), theme.bold()),
                Span::styled(what.clone(), theme.text()),
            ]
        };
        let line = cut_spans(spans, inner.width as usize);
        buf.set_line(inner.x, inner.y + row as u16, &line, inner.width);
    }
}
