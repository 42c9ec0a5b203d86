//! Small text helpers every pane shares: display widths, wrapping, cutting with
//! `…`, and the compact numbers the screen uses (`9.1k`, `12s`). Kept here so the
//! panes agree on one way to write a token count or a duration.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::tui::markdown::{Overflow, wrap_plain};
use crate::tui::ui::SPINNER;

/// Display columns of `s` (wide characters count two).
pub(super) fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Display columns of a line.
pub(super) fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| width(&s.content)).sum()
}

/// Makes text safe to put in a cell: tabs become spaces, carriage returns go,
/// other control characters (escape sequences in tool output) become `·`, so
/// nothing a tool printed can move the terminal's cursor.
pub(super) fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("    "),
            '\r' => {}
            '\n' => out.push(' '),
            c if c.is_control() => out.push('·'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `s` cut to `max` columns, ending in `…` when something was left out.
pub(super) fn cut(s: &str, max: usize) -> String {
    let s = sanitize(s);
    if width(&s) <= max {
        return s.into_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `s` cut from the left to `max` columns, starting with `…`: for paths, whose
/// end says the most.
pub(super) fn cut_left(s: &str, max: usize) -> String {
    let s = sanitize(s);
    if width(&s) <= max {
        return s.into_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        tail.push(c);
        used += w;
    }
    let mut out = String::from("…");
    out.extend(tail.into_iter().rev());
    out
}

/// The first non-blank line of `text`.
pub(super) fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .trim()
}

/// Greedy word wrap to `width` columns. Source lines keep their indentation;
/// a word longer than the width is broken where it must be.
pub(super) fn wrap_str(text: &str, width_cols: usize) -> Vec<String> {
    let max = width_cols.max(1);
    let mut out = Vec::new();
    for raw in text.split('\n') {
        wrap_one(&sanitize(raw), max, &mut out);
    }
    out
}

fn wrap_one(line: &str, max: usize, out: &mut Vec<String>) {
    let mut current = String::new();
    let mut used = 0;
    for piece in pieces(line) {
        let w = width(piece);
        if piece.starts_with(' ') {
            if used + w <= max {
                current.push_str(piece);
                used += w;
            } else {
                out.push(std::mem::take(&mut current).trim_end().to_string());
                used = 0;
            }
            continue;
        }
        if used + w <= max {
            current.push_str(piece);
            used += w;
        } else if w <= max {
            out.push(std::mem::take(&mut current).trim_end().to_string());
            current.push_str(piece);
            used = w;
        } else {
            for c in piece.chars() {
                let cw = c.width().unwrap_or(0);
                if used + cw > max && used > 0 {
                    out.push(std::mem::take(&mut current));
                    used = 0;
                }
                current.push(c);
                used += cw;
            }
        }
    }
    out.push(current.trim_end().to_string());
}

/// Alternating runs of spaces and of everything else.
fn pieces(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let space = rest.starts_with(' ');
        let end = rest
            .char_indices()
            .find(|(_, c)| (*c == ' ') != space)
            .map_or(rest.len(), |(i, _)| i);
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// Plain text wrapped to `width` columns in one style (indentation kept,
/// escape sequences dropped); at least one row.
pub(super) fn wrap(text: &str, width_cols: usize, style: Style) -> Vec<Line<'static>> {
    let mut rows = wrap_plain(text, clamp_u16(width_cols), style, Overflow::Wrap);
    if rows.is_empty() {
        rows.push(Line::default());
    }
    rows
}

/// One line of plain text cut to `width` columns with `…`.
pub(super) fn cut_line(text: &str, width_cols: usize, style: Style) -> Line<'static> {
    wrap_plain(text, clamp_u16(width_cols), style, Overflow::Cut)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// A column count as ratatui's `u16`, saturating.
pub(super) fn clamp_u16(n: usize) -> u16 {
    n.min(u16::MAX as usize) as u16
}

/// How many rows `text` takes wrapped at `width` columns, without building the
/// rows: an estimate (word wrap may take a row more) for entries not yet laid out.
pub(super) fn estimate_rows(text: &str, width_cols: usize) -> usize {
    let max = width_cols.max(1);
    text.split('\n')
        .map(|l| {
            // Byte length is close enough for ASCII and never under-counts rows
            // by more than a few for wide text; exact layout replaces it anyway.
            let w = if l.is_ascii() { l.len() } else { width(l) };
            w.div_ceil(max).max(1)
        })
        .sum()
}

/// Left-indents lines: `first` before the first line, `rest` before the others.
pub(super) fn indent(
    lines: Vec<Line<'static>>,
    first: Vec<Span<'static>>,
    rest: &'static str,
) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len().max(1));
    let mut first = Some(first);
    for line in lines {
        let mut spans = match first.take() {
            Some(prefix) => prefix,
            None => vec![Span::raw(rest)],
        };
        spans.extend(line.spans);
        out.push(Line::from(spans));
    }
    if let Some(prefix) = first {
        out.push(Line::from(prefix));
    }
    out
}

pub(super) use crate::text::{duration, tokens};

/// Elapsed time in whole seconds or more (`12s`, `2m05s`), for live counters that
/// would flicker in milliseconds.
pub(super) fn elapsed(ms: u64) -> String {
    if ms < 60_000 {
        format!("{}s", ms / 1_000)
    } else {
        duration(ms)
    }
}

/// The spinner frame for frame counter `n`.
pub(super) fn spinner(n: usize) -> &'static str {
    SPINNER[n % SPINNER.len()]
}

/// `path` with the home directory written `~`.
pub(super) fn tilde(path: &str, home: Option<&str>) -> String {
    match home {
        Some(home) if !home.is_empty() && home != "/" => match path.strip_prefix(home) {
            Some("") => "~".to_string(),
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => path.to_string(),
        },
        _ => path.to_string(),
    }
}

/// Spans cut to `width` columns, the last one shown ending in `…` when cut;
/// control characters are made harmless on the way.
pub(super) fn cut_spans(spans: Vec<Span<'static>>, width_cols: usize) -> Line<'static> {
    let mut out = Vec::with_capacity(spans.len());
    let mut used = 0;
    for span in spans {
        let span = if span.content.chars().any(char::is_control) {
            Span::styled(sanitize(&span.content).into_owned(), span.style)
        } else {
            span
        };
        let w = width(&span.content);
        if used + w <= width_cols {
            used += w;
            out.push(span);
        } else {
            let room = width_cols - used;
            if room > 0 {
                out.push(Span::styled(cut(&span.content, room), span.style));
            }
            break;
        }
    }
    Line::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_counters_tick_in_whole_seconds() {
        assert_eq!(elapsed(800), "0s");
        assert_eq!(elapsed(12_400), "12s");
        assert_eq!(elapsed(125_000), "2m 05s");
    }

    #[test]
    fn wrapping_keeps_words_and_breaks_long_ones() {
        assert_eq!(wrap_str("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap_str("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap_str("  x\n\ny", 10), ["  x", "", "y"]);
        assert_eq!(wrap_str("a\tb\x1b[0m", 20), ["a    b·[0m"]);
        assert_eq!(wrap_str("", 0), [""]);
    }

    #[test]
    fn cutting_marks_what_it_leaves_out() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abc", 0), "");
        assert_eq!(cut_left("/a/b/c.txt", 6), "…c.txt");
        assert_eq!(tilde("/home/u/src", Some("/home/u")), "~/src");
        assert_eq!(tilde("/home/user", Some("/home/u")), "/home/user");
    }
}
