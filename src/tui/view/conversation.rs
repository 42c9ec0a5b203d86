//! The conversation pane: the parent's messages, tool cells and task cells.
//!
//! A long session holds tens of thousands of entries, so a frame must not lay
//! them all out. Each entry's rows are computed once per (revision, width,
//! expanded) and cached; every entry has a height in a Fenwick tree, exact once
//! it has been laid out and estimated before, so the pane finds the visible
//! window in O(log n) and lays out only what is on screen (plus, when following
//! the bottom, the last entries it measures to know where the bottom is).

use super::View;
use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::cells::{self, CellContext};
use super::heights::Heights;
use super::text::{cut_spans, spinner};
use super::{has_focus, padded_block};
use crate::tui::selection;
use crate::tui::state::Entry;
use crate::tui::theme::Theme;
use crate::tui::ui::{Focus, Ui};

/// Trailing entries whose revision is checked every frame even off screen, so
/// the total row count follows a message that streams while scrolled away.
const TAIL_CHECK: usize = 8;
/// Cached layouts kept beyond the visible ones before old ones are dropped.
const CACHE_LIMIT: usize = 512;
/// Entries around the visible window that survive an eviction.
const KEEP_AROUND: usize = 64;

/// One entry's rows for one revision, width and expanded flag.
struct Cached {
    rev: u64,
    expanded: bool,
    selected: bool,
    /// For live entries (spinners, elapsed time): the frame the rows are for.
    frame: Option<u64>,
    lines: Vec<Line<'static>>,
}

/// The conversation pane's part of the view cache.
#[derive(Default)]
pub(super) struct ConversationCache {
    width: usize,
    heights: Heights,
    /// The revision each entry's height was computed for.
    revs: Vec<u64>,
    lines: HashMap<usize, Cached>,
    frame: u64,
    /// Entry layouts done so far (tests check that a frame does few).
    pub(super) layouts: u64,
}

/// What laying out an entry needs from outside the cache.
struct Env<'a> {
    theme: &'a Theme,
    ui: &'a Ui,
    now_ms: u64,
    /// The pane has focus: the selected cell shows as selected.
    focused: bool,
}

impl ConversationCache {
    /// Brings heights up to date with the entries: new entries get estimates,
    /// changed trailing ones are estimated again.
    fn sync(&mut self, entries: &[Entry], ui: &Ui, width: usize) {
        if width != self.width || entries.len() < self.revs.len() {
            self.width = width;
            self.heights.clear();
            self.revs.clear();
            self.lines.clear();
        }
        for (i, entry) in entries.iter().enumerate().skip(self.revs.len()) {
            let expanded = is_expanded(entry, ui);
            self.heights
                .push(cells::estimate_height(&entry.kind, width, i > 0, expanded));
            self.revs.push(entry.rev);
        }
        let start = entries.len().saturating_sub(TAIL_CHECK);
        for (i, entry) in entries.iter().enumerate().skip(start) {
            if self.revs[i] != entry.rev {
                let expanded = is_expanded(entry, ui);
                self.heights.set(
                    i,
                    cells::estimate_height(&entry.kind, width, i > 0, expanded),
                );
                self.revs[i] = entry.rev;
            }
        }
    }

    /// The rows of entry `i`, laid out if the cache has none for its revision.
    /// Records the exact height.
    fn rows(&mut self, i: usize, entry: &Entry, env: &Env<'_>) -> &[Line<'static>] {
        let expanded = is_expanded(entry, env.ui);
        let selected = env.focused && selection::is_selected(i, &entry.kind, env.ui);
        let live = cells::is_live(&entry.kind);
        let fresh = self.lines.get(&i).is_some_and(|c| {
            c.rev == entry.rev
                && c.expanded == expanded
                && c.selected == selected
                && c.frame.is_none_or(|f| f == self.frame)
        });
        if !fresh {
            let cx = CellContext {
                theme: env.theme,
                width: self.width,
                after_first: i > 0,
                expanded,
                selected,
                spinner: spinner(env.ui.spinner),
                now_ms: env.now_ms,
            };
            let lines = cells::layout(&entry.kind, &cx);
            self.layouts += 1;
            self.heights.set(i, lines.len());
            self.revs[i] = entry.rev;
            self.lines.insert(
                i,
                Cached {
                    rev: entry.rev,
                    expanded,
                    selected,
                    frame: live.then_some(self.frame),
                    lines,
                },
            );
        }
        self.lines.get(&i).map_or(&[], |c| c.lines.as_slice())
    }

    /// Drops cached rows far from the visible window once the cache is big.
    fn evict(&mut self, first: usize, last: usize) {
        if self.lines.len() <= CACHE_LIMIT {
            return;
        }
        let lo = first.saturating_sub(KEEP_AROUND);
        let hi = last.saturating_add(KEEP_AROUND);
        self.lines.retain(|&i, _| (lo..=hi).contains(&i));
    }

    /// Rows of all entries, estimated where not laid out.
    #[cfg(test)]
    pub(super) fn total(&self) -> usize {
        self.heights.total()
    }
}

fn is_expanded(entry: &Entry, ui: &Ui) -> bool {
    if matches!(entry.kind, crate::tui::state::EntryKind::Thinking { .. }) {
        return ui.thinking;
    }
    !ui.expanded.is_empty()
        && cells::call_id(&entry.kind).is_some_and(|id| ui.expanded.contains(id))
}

/// Draws the conversation pane into `area`.
pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let (state, theme) = (view.state, view.theme);
    let ui = &mut *view.ui;
    let cache = &mut *view.cache;
    let mut block = padded_block(
        "Conversation",
        has_focus(ui, state, Focus::Conversation),
        theme,
    );
    if !ui.conversation.following() {
        block = block.title(
            Line::from(Span::styled(scrolled_hint(area.width), theme.warning())).right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let height = inner.height as usize;
    let focused = has_focus(ui, state, Focus::Conversation);
    let conv = &mut cache.conversation;
    conv.frame += 1;
    conv.sync(&state.entries, ui, inner.width as usize);
    if state.entries.is_empty() {
        ui.conversation.clamp(0, height);
        empty_hint(frame, inner, theme);
        return;
    }
    if ui.conversation.following() {
        // Measure from the bottom so the last rows are where they really are.
        let env = Env {
            theme,
            ui,
            now_ms: state.now_ms,
            focused,
        };
        let mut rows = 0;
        let mut i = state.entries.len();
        while i > 0 && rows < height {
            i -= 1;
            rows += conv.rows(i, &state.entries[i], &env).len();
        }
    }
    if std::mem::take(&mut ui.reveal_selected)
        && let Some(i) = selection::selected_entry(state, ui)
        && let Some(entry) = state.entries.get(i)
    {
        let env = Env {
            theme,
            ui,
            now_ms: state.now_ms,
            focused,
        };
        let rows = conv.rows(i, entry, &env).len();
        let start = conv.heights.prefix(i);
        let total = conv.heights.total();
        ui.conversation.reveal(start, start + rows, total, height);
    }
    let total = conv.heights.total();
    let first = ui.conversation.clamp(total, height);
    let env = Env {
        theme,
        ui,
        now_ms: state.now_ms,
        focused,
    };
    let Some((mut i, mut offset)) = conv.heights.find(first) else {
        return;
    };
    let start = i;
    let buf = frame.buffer_mut();
    let mut y = 0;
    while y < height && i < state.entries.len() {
        for line in conv.rows(i, &state.entries[i], &env).iter().skip(offset) {
            if y >= height {
                break;
            }
            buf.set_line(inner.x, inner.y + y as u16, line, inner.width);
            y += 1;
        }
        offset = 0;
        i += 1;
    }
    conv.evict(start, i);
}

/// The title hint of a pane scrolled away from the bottom, as long as it fits
/// beside the pane's name.
fn scrolled_hint(width: u16) -> &'static str {
    if width >= 50 {
        " ↑ scrolled · End follows "
    } else {
        " ↑ "
    }
}

fn empty_hint(frame: &mut Frame<'_>, inner: Rect, theme: &Theme) {
    let lines = [
        "Ask brood something below.",
        "Reading and searching go to subagents.",
        "? shows every key.",
    ];
    let buf = frame.buffer_mut();
    for (row, text) in lines.into_iter().enumerate().take(inner.height as usize) {
        let line = cut_spans(vec![Span::styled(text, theme.dim())], inner.width as usize);
        buf.set_line(inner.x, inner.y + row as u16, &line, inner.width);
    }
}
