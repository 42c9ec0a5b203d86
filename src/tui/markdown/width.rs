//! Display width: text split into user-perceived characters, spans measured
//! and cut to a number of columns. Shared by wrapping, tables and the block
//! prefixes, so it lives apart from all three.

use ratatui::text::Span;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

const ZWJ: char = '\u{200d}';

/// Splits text into user-perceived characters, as `(start, end, width)`: a
/// base character with the zero-width marks after it (accents, variation
/// selectors) and ZWJ-joined followers, measured as ratatui measures them, so
/// wrapping never separates an emoji from its modifiers.
pub(super) fn clusters(text: &str) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        let rest = text.get(pos..)?;
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        let mut end = first.len_utf8();
        let mut joined = first == ZWJ;
        for (i, c) in chars {
            let zero_width = c.width() == Some(0);
            if !(zero_width || (joined && !c.is_control())) {
                break;
            }
            end = i + c.len_utf8();
            joined = c == ZWJ;
        }
        let width = if end == first.len_utf8() {
            first.width().unwrap_or(0)
        } else {
            rest.get(..end).map_or(0, UnicodeWidthStr::width)
        };
        let start = pos;
        pos += end;
        Some((start, pos, width))
    })
}

pub(super) fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(Span::width).sum()
}

/// Copies spans cut to `max` columns; with `ellipsis`, a cut ends in `…`.
/// Stops reading as soon as the cut is certain, so a 100 KB line costs no more
/// than a short one. Returns the spans and their width.
pub(super) fn cut_spans(
    spans: &[Span<'_>],
    max: usize,
    ellipsis: bool,
) -> (Vec<Span<'static>>, usize) {
    let limit = if ellipsis { max.saturating_sub(1) } else { max };
    let mut cut = None;
    let mut total = 0;
    'scan: for (i, span) in spans.iter().enumerate() {
        for (start, _, width) in clusters(&span.content) {
            if cut.is_none() && total + width > limit {
                cut = Some((i, start, total));
            }
            total += width;
            if total > max {
                break 'scan;
            }
        }
    }
    let owned = |s: &Span<'_>, text: &str| Span::styled(text.to_owned(), s.style);
    let Some((at, byte, width)) = cut.filter(|_| total > max) else {
        return (spans.iter().map(|s| owned(s, &s.content)).collect(), total);
    };
    let mut out: Vec<Span<'static>> = spans
        .iter()
        .take(at)
        .map(|s| owned(s, &s.content))
        .collect();
    let Some(span) = spans.get(at) else {
        return (out, width);
    };
    let mut head = span.content.get(..byte).unwrap_or_default();
    let mut width = width;
    if ellipsis {
        // `long …` reads worse than `long…`.
        let trimmed = head.trim_end_matches(' ');
        width -= head.len() - trimmed.len();
        head = trimmed;
    }
    if !head.is_empty() {
        out.push(owned(span, head));
    }
    if ellipsis && max > 0 {
        match out.last_mut() {
            Some(last) if last.style == span.style => last.content.to_mut().push('…'),
            _ => out.push(Span::styled("…", span.style)),
        }
        return (out, width + 1);
    }
    (out, width)
}

/// A prefix that leaves at least one column for text, cut if need be.
pub(super) fn fit_prefix(
    mut prefix: Vec<Span<'static>>,
    width: usize,
) -> (Vec<Span<'static>>, usize) {
    prefix.retain(|span| !span.content.is_empty());
    let used = spans_width(&prefix);
    if used < width {
        (prefix, used)
    } else {
        cut_spans(&prefix, width.saturating_sub(1), false)
    }
}
