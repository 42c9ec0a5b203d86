//! What a list leaves out, said in its bottom border: `↑ 2 · ↓ 4 more (1
//! waiting for approval, 2 failed)`. Every list that cannot show all its
//! rows says so, and names the rows that need the user.

use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;

/// Rows a list leaves out, and how many of them need attention.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Hidden {
    /// Rows before the first shown (scrolled past).
    pub above: usize,
    /// Rows after the last shown, or left out for want of room.
    pub below: usize,
    /// Hidden rows of children waiting for an approval.
    pub waiting: usize,
    /// Hidden rows that failed.
    pub failed: usize,
}

impl Hidden {
    /// The rows of `0..total` outside `first..first + shown`, counted by
    /// `waiting` and `failed`.
    pub fn of_window(
        total: usize,
        first: usize,
        shown: usize,
        waiting: impl Fn(usize) -> bool,
        failed: impl Fn(usize) -> bool,
    ) -> Hidden {
        let end = first.saturating_add(shown).min(total);
        let first = first.min(end);
        let outside = (0..first).chain(end..total);
        let (mut n_waiting, mut n_failed) = (0, 0);
        for row in outside {
            n_waiting += usize::from(waiting(row));
            n_failed += usize::from(failed(row));
        }
        Hidden {
            above: first,
            below: total - end,
            waiting: n_waiting,
            failed: n_failed,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.above == 0 && self.below == 0
    }

    /// ` ↑ 2 · ↓ 4 more (1 waiting for approval, 2 failed) `, for a bottom
    /// border; `None` when nothing is hidden.
    pub fn border(&self, theme: &Theme) -> Option<Line<'static>> {
        if self.is_empty() {
            return None;
        }
        let mut counts = Vec::new();
        if self.above > 0 {
            counts.push(format!("↑ {}", self.above));
        }
        if self.below > 0 {
            counts.push(format!("↓ {}", self.below));
        }
        let mut spans = vec![Span::styled(
            format!(" {} more", counts.join(" · ")),
            theme.dim(),
        )];
        let mut attention = Vec::new();
        if self.waiting > 0 {
            attention.push(format!("{} waiting for approval", self.waiting));
        }
        if self.failed > 0 {
            attention.push(format!("{} failed", self.failed));
        }
        if !attention.is_empty() {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                format!("({})", attention.join(", ")),
                theme.error(),
            ));
        }
        spans.push(Span::raw(" "));
        Some(Line::from(spans).right_aligned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::{ColorMode, Theme};

    fn said(hidden: Hidden) -> String {
        hidden
            .border(&Theme::new(ColorMode::NoColor))
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn a_window_counts_what_is_outside_it_and_what_needs_attention() {
        let hidden = Hidden::of_window(10, 2, 3, |r| r == 9, |r| r == 0 || r == 3);
        assert_eq!(
            hidden,
            Hidden {
                above: 2,
                below: 5,
                waiting: 1,
                failed: 1
            }
        );
        assert_eq!(
            said(hidden),
            " ↑ 2 · ↓ 5 more (1 waiting for approval, 1 failed) "
        );
        assert_eq!(said(Hidden::of_window(3, 0, 5, |_| true, |_| true)), "");
        assert_eq!(
            said(Hidden::of_window(4, 0, 3, |_| false, |_| false)),
            " ↓ 1 more "
        );
    }
}
