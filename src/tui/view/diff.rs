//! A file change drawn as a unified diff: `@@` headers cyan and dim, added
//! lines green, removed lines red, each behind its sign and, when the diff
//! knows them, the file's line numbers. The conversation's edit cells and
//! the `/diff` overlay both draw with this.

use ratatui::text::{Line, Span};

use super::text::cut_spans;
use crate::tui::diff::{Before, DiffLine, FileDiff, Numbers, Sign, mark};
use crate::tui::theme::Theme;

/// `+3 −1`: what a change adds and removes, as spans.
pub(super) fn counts(diff: &FileDiff, theme: &Theme) -> Vec<Span<'static>> {
    vec![
        Span::styled(format!("+{}", diff.added), theme.added()),
        Span::raw(" "),
        Span::styled(format!("−{}", diff.removed), theme.removed()),
    ]
}

/// The rows of every hunk, each cut to `width` columns.
pub(super) fn rows(diff: &FileDiff, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    if diff.before == Before::Unseen {
        rows.push(cut_spans(
            vec![Span::styled(
                "replaced a file whose earlier content is not in the session: every line shows as added",
                theme.dim(),
            )],
            width,
        ));
    }
    let digits = match diff.numbers {
        Numbers::File => diff
            .hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter_map(|l| l.new.max(l.old))
            .max()
            .map_or(1, |n| n.to_string().len()),
        Numbers::Piece => 0,
    };
    for hunk in &diff.hunks {
        rows.push(cut_spans(
            vec![Span::styled(hunk.header(), theme.hunk())],
            width,
        ));
        rows.extend(hunk.lines.iter().map(|l| row(l, digits, width, theme)));
    }
    rows
}

/// Rows [`rows`] makes, without making them.
pub(super) fn row_count(diff: &FileDiff) -> usize {
    let unseen = usize::from(diff.before == Before::Unseen);
    unseen + diff.hunks.iter().map(|h| 1 + h.lines.len()).sum::<usize>()
}

/// ` 12 + text`: the line's number in the new text (the old one for a
/// removed line), its sign, its text.
fn row(line: &DiffLine, digits: usize, width: usize, theme: &Theme) -> Line<'static> {
    let style = match line.sign {
        Sign::Context => theme.text(),
        Sign::Added => theme.added(),
        Sign::Removed => theme.removed(),
    };
    let mut spans = Vec::with_capacity(3);
    if digits > 0 {
        let number = match line.sign {
            Sign::Removed => line.old,
            Sign::Context | Sign::Added => line.new,
        };
        let number = number.map_or(String::new(), |n| n.to_string());
        spans.push(Span::styled(format!("{number:>digits$} "), theme.dim()));
    }
    spans.push(Span::styled(format!("{} ", mark(line.sign)), style));
    spans.push(Span::styled(line.text.clone(), style));
    cut_spans(spans, width)
}
