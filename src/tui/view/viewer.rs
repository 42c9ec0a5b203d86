//! The output viewer: a tool cell's whole output (or a whole message) over
//! the screen, its lines
//! numbered and wrapped where they are too long (as `less` does), with the
//! search's matches highlighted and the current one reversed. The wrapped
//! rows are kept per (entry, revision, width); a frame draws only the rows
//! on screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use unicode_width::UnicodeWidthChar;

use super::text::{cut, cut_spans, width};
use super::{View, between_bars, missing, overlay_block};
use crate::tui::theme::Theme;
use crate::tui::viewer::{Find, Match, Shown, lines, shown};

/// The viewer's lines and wrapped rows, and what they were made from.
#[derive(Default)]
pub(super) struct ViewerCache {
    key: Option<(usize, u64, usize)>,
    lines: Vec<String>,
    /// Each row: its line, and the bytes of the line it shows.
    rows: Vec<(usize, usize, usize)>,
}

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, index: usize, view: &mut View<'_>) {
    let theme = view.theme;
    let rect = between_bars(area);
    let entry = view.state.entries.get(index);
    let Some((rev, shown)) = entry.and_then(|e| Some((e.rev, shown(&e.kind)?))) else {
        let what = "this call is not in the session";
        missing(frame, rect, " output ".into(), what, theme);
        return;
    };
    let cache = &mut view.cache.viewer;
    let outer = rect.width.saturating_sub(2) as usize;
    let gutter = cache_rows(cache, index, rev, shown.text, outer);
    let block = Block::bordered()
        .title(title(&shown, cache.lines.len(), outer, theme))
        .title_bottom(prompt(view.ui.find.as_ref(), theme))
        .title_bottom(
            Line::from(Span::styled(
                " Esc close · / search · ↑↓ scroll ",
                theme.dim(),
            ))
            .right_aligned(),
        )
        .border_style(theme.focus());
    let inner = overlay_block(frame, rect, block);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let height = inner.height as usize;
    let scroll = &mut view.ui.overlay_scroll;
    let find = view.ui.find.as_mut();
    let empty = Vec::new();
    let (matches, current) = match find {
        Some(find) => {
            if std::mem::take(&mut find.reveal)
                && let Some(m) = find.current.and_then(|i| find.matches.get(i))
            {
                let row = row_of(&cache.rows, m);
                scroll.reveal(row, row + 1, cache.rows.len(), height);
            }
            (&find.matches, find.current)
        }
        None => (&empty, None),
    };
    let first = scroll.clamp(cache.rows.len(), height);
    let buf = frame.buffer_mut();
    for (y, (line, start, end)) in cache.rows.iter().skip(first).take(height).enumerate() {
        let text = cache.lines.get(*line).map_or("", String::as_str);
        let number = match *start {
            0 => format!("{:>w$} ", line + 1, w = gutter - 1),
            _ => " ".repeat(gutter),
        };
        let mut spans = vec![Span::styled(number, theme.dim())];
        spans.extend(highlighted(
            text, *line, *start, *end, matches, current, theme,
        ));
        let row = cut_spans(spans, inner.width as usize);
        buf.set_line(inner.x, inner.y + y as u16, &row, inner.width);
    }
}

/// Lays the output out again when the cell, its revision or the width
/// changed. Returns the gutter's width.
fn cache_rows(cache: &mut ViewerCache, index: usize, rev: u64, text: &str, outer: usize) -> usize {
    let key = (index, rev, outer);
    if cache.key != Some(key) {
        cache.lines = lines(text);
        cache.key = Some(key);
        let gutter = gutter(cache.lines.len());
        cache.rows = wrap_rows(&cache.lines, outer.saturating_sub(gutter).max(1));
    }
    gutter(cache.lines.len())
}

/// Columns of the line numbers and the space after them.
fn gutter(lines: usize) -> usize {
    lines.max(1).to_string().len() + 1
}

/// Every line cut into rows of at most `max` columns.
fn wrap_rows(lines: &[String], max: usize) -> Vec<(usize, usize, usize)> {
    let mut rows = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let mut start = 0;
        let mut used = 0;
        for (at, c) in line.char_indices() {
            let w = c.width().unwrap_or(0);
            if used + w > max && used > 0 {
                rows.push((i, start, at));
                start = at;
                used = 0;
            }
            used += w;
        }
        rows.push((i, start, line.len()));
    }
    rows
}

/// The row that shows the start of `m`.
fn row_of(rows: &[(usize, usize, usize)], m: &Match) -> usize {
    let after = rows.partition_point(|(line, _, end)| (*line, *end) <= (m.line, m.start));
    // A match at a line's very end is on its last row.
    match rows.get(after) {
        Some((line, ..)) if *line == m.line => after,
        _ => after.saturating_sub(1),
    }
}

/// Bytes `start..end` of `text`, line `line`, as spans: the matches in it
/// highlighted, the current one reversed in the focus colour.
fn highlighted(
    text: &str,
    line: usize,
    start: usize,
    end: usize,
    matches: &[Match],
    current: Option<usize>,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    // Matches are of the text they were searched in: any that no longer
    // fall on its characters (the output changed since) are not drawn.
    let piece = |a: usize, b: usize| text.get(a..b).unwrap_or_default().to_string();
    let mut at = start;
    let first = matches.partition_point(|m| (m.line, m.end) <= (line, start));
    for (i, m) in matches.iter().enumerate().skip(first) {
        if m.line != line || m.start >= end {
            break;
        }
        if text.get(m.start.max(start)..m.end.min(end)).is_none() || m.start.max(start) < at {
            continue;
        }
        let (from, to) = (m.start.max(start), m.end.min(end));
        if from > at {
            spans.push(Span::styled(piece(at, from), theme.text()));
        }
        let style = match current == Some(i) {
            true => theme.selected().add_modifier(Modifier::BOLD),
            false => theme.found(),
        };
        spans.push(Span::styled(piece(from, to), style));
        at = to;
    }
    if at < end {
        spans.push(Span::styled(piece(at, end), theme.text()));
    }
    spans
}

/// ` bash cargo test · 120 lines `
fn title(shown: &Shown<'_>, lines: usize, columns: usize, theme: &Theme) -> Line<'static> {
    let count = format!(" · {} ", crate::text::count(lines as u64, "line"));
    let room = columns.saturating_sub(width(shown.name) + width(&count) + 3);
    Line::from(vec![
        Span::styled(format!(" {} ", shown.name), theme.bold()),
        Span::raw(cut(shown.label, room)),
        Span::styled(count, theme.dim()),
    ])
}

/// The search on the bottom border: the query being typed, or where `n`
/// is among the matches.
fn prompt(find: Option<&Find>, theme: &Theme) -> Line<'static> {
    let Some(find) = find else {
        return Line::default();
    };
    let query = cut(&find.query, 40);
    let text = match (find.typing, find.current) {
        (true, _) => format!(" /{query}▍ "),
        (false, Some(i)) => format!(
            " /{query} · match {} of {} · n N ",
            i + 1,
            find.matches.len()
        ),
        (false, None) => format!(" /{query} · no match "),
    };
    let style = match (find.typing, find.matches.is_empty()) {
        (false, true) => theme.warning(),
        (true, _) | (false, false) => theme.focus(),
    };
    Line::from(Span::styled(text, style))
}
