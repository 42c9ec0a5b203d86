//! Tables: cells collected by the renderer, laid out in aligned columns
//! narrowed to fit the width. Separate because column layout is its own
//! small algorithm, unrelated to wrapping prose.

use pulldown_cmark::Alignment;
use ratatui::text::Span;

use super::width::{cut_spans, spans_width};
use crate::tui::theme::Theme;

pub(super) struct Table {
    pub(super) aligns: Vec<Alignment>,
    pub(super) rows: Vec<Vec<Vec<Span<'static>>>>,
    pub(super) header_rows: usize,
}

/// Lays a table out in columns separated by ` │ `, the header bold and ruled
/// off. Columns too wide for `available` are narrowed from the widest down,
/// their cells cut with `…`.
pub(super) fn layout_table(
    table: &Table,
    available: usize,
    theme: &Theme,
) -> Vec<Vec<Span<'static>>> {
    let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in &table.rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(spans_width(cell));
        }
    }
    let budget = available.saturating_sub(3 * columns.saturating_sub(1));
    if widths.iter().sum::<usize>() > budget && budget >= columns {
        let cap = water_level(&widths, budget);
        widths.iter_mut().for_each(|w| *w = (*w).min(cap));
    }
    let mut lines = Vec::with_capacity(table.rows.len() + 1);
    for (r, row) in table.rows.iter().enumerate() {
        let header = r < table.header_rows;
        let mut spans = Vec::new();
        for (i, &width) in widths.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" │ ", theme.dim()));
            }
            let cell = row.get(i).map(Vec::as_slice).unwrap_or_default();
            let (mut content, used) = cut_spans(cell, width, true);
            if header {
                content
                    .iter_mut()
                    .for_each(|s| s.style = s.style.patch(theme.bold()));
            }
            let align = table.aligns.get(i).copied().unwrap_or(Alignment::None);
            let last = i + 1 == widths.len();
            pad_cell(&mut spans, content, width - used, align, last);
        }
        lines.push(spans);
        if header && r + 1 == table.header_rows {
            let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
            lines.push(vec![Span::styled(rule.join("─┼─"), theme.dim())]);
        }
    }
    lines
}

/// Adds a cell's content with `spare` columns of padding placed by its
/// alignment; the last column gets no trailing padding.
fn pad_cell(
    spans: &mut Vec<Span<'static>>,
    content: Vec<Span<'static>>,
    spare: usize,
    align: Alignment,
    last: bool,
) {
    let before = match align {
        Alignment::Right => spare,
        Alignment::Center => spare / 2,
        Alignment::None | Alignment::Left => 0,
    };
    if before > 0 {
        spans.push(Span::raw(" ".repeat(before)));
    }
    spans.extend(content);
    if !last && spare > before {
        spans.push(Span::raw(" ".repeat(spare - before)));
    }
}

/// The largest column cap that fits `budget`: narrowing only the widest
/// columns keeps the short ones (numbers, flags) whole.
fn water_level(widths: &[usize], budget: usize) -> usize {
    let (mut low, mut high) = (1, widths.iter().copied().max().unwrap_or(1));
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if widths.iter().map(|&w| w.min(mid)).sum::<usize>() <= budget {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}
