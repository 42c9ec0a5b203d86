//! The help overlay: every key, grouped by where it acts.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use super::text::cut_spans;
use super::{centered, overlay_block};
use crate::tui::theme::Theme;
use crate::tui::ui::Scroll;

/// (key, what it does); an empty key starts a new group headed by the text.
const KEYS: &[(&str, &str)] = &[
    ("", "Anywhere"),
    ("Tab / Shift-Tab", "move focus between panes"),
    ("↑ ↓ PgUp PgDn", "scroll the focused pane"),
    ("Home End", "to the top / back to following the bottom"),
    ("mouse wheel", "scroll the pane under the pointer"),
    ("[ ]", "select the previous / next child"),
    ("a", "live pane: selected child / all children"),
    ("t", "trace pane: the raw event timeline"),
    ("?", "this help"),
    ("Esc", "close an overlay"),
    ("Ctrl-C", "interrupt the turn; twice within 2 s quits"),
    ("Ctrl-D", "quit (on an empty composer)"),
    ("", "Conversation"),
    ("Enter", "expand / collapse the tool cell"),
    ("", "Subagents"),
    ("Enter", "open the child's transcript"),
    ("", "Composer"),
    ("Enter", "send (queued while brood works)"),
    ("Alt+Enter Shift+Enter", "new line"),
    ("Ctrl-P / Ctrl-N", "previous / next prompt from history"),
    ("", "Approval dialog"),
    ("y", "allow once"),
    ("a", "allow commands like this for the session"),
    ("n", "deny, then type why (Enter)"),
    ("Esc", "deny without a reason"),
];

/// Width of the key column.
const KEY_COLUMN: usize = 23;

/// Draws the key list, scrolled by `scroll` when the terminal is too short for
/// all of it.
pub(super) fn render(frame: &mut Frame<'_>, area: Rect, scroll: &mut Scroll, theme: &Theme) {
    let height = KEYS.len() as u16 + 2;
    let rect = centered(area, 72, height);
    let hint = if rect.height < height {
        " Esc close · ↑↓ scroll "
    } else {
        " Esc close "
    };
    let block = Block::bordered()
        .title(Line::from(" Keys "))
        .title_bottom(Line::from(Span::styled(hint, theme.dim())).right_aligned())
        .border_style(theme.focus())
        .title_style(theme.focus());
    let inner = overlay_block(frame, rect, block);
    let first = scroll.clamp(KEYS.len(), inner.height as usize);
    let buf = frame.buffer_mut();
    let shown = KEYS.iter().skip(first).take(inner.height as usize);
    for (row, (key, what)) in shown.enumerate() {
        let spans = if key.is_empty() {
            vec![Span::styled(*what, theme.heading())]
        } else {
            vec![
                Span::styled(format!("  {key:<KEY_COLUMN$}"), theme.bold()),
                Span::styled(*what, theme.text()),
            ]
        };
        let line = cut_spans(spans, inner.width as usize);
        buf.set_line(inner.x, inner.y + row as u16, &line, inner.width);
    }
}
