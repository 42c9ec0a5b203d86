//! The subagents list: one row per child with its state, budget use and age.
//! The selected row decides what the live pane and Enter (the transcript) show,
//! so it stays visible however many children there are.

use super::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::hidden::Hidden;
use super::text::{cut, cut_spans, elapsed, spinner, tokens, width};
use super::{has_focus, pane_block};
use crate::tui::state::{Child, ChildStatus, State};
use crate::tui::theme::Theme;
use crate::tui::ui::{Focus, Ui};

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let (state, theme) = (view.state, view.theme);
    let ui = &mut *view.ui;
    let running = state.running_children();
    let mut title = vec![Span::raw(format!("Subagents {}", state.children.len()))];
    if running > 0 {
        title.push(Span::styled(format!(" · {running} running"), theme.dim()));
    }
    let block = pane_block(
        Line::from(title),
        has_focus(ui, state, Focus::Subagents),
        theme,
    );
    let inner = block.inner(area);
    if inner.width == 0 || inner.height == 0 {
        frame.render_widget(block, area);
        return;
    }
    let height = inner.height as usize;
    let total = state.children.len();
    if total == 0 {
        frame.render_widget(block, area);
        ui.subagents.clamp(0, height);
        let hint = cut_spans(
            vec![Span::styled(
                " none yet: brood starts them with the task tool",
                theme.dim(),
            )],
            inner.width as usize,
        );
        frame
            .buffer_mut()
            .set_line(inner.x, inner.y, &hint, inner.width);
        return;
    }
    let selected = ui.selected_child.min(total - 1);
    let first = visible_first(ui, selected, total, height);
    // The rows scrolled out of sight are counted, the ones that need the
    // user named.
    let hidden = Hidden::of_window(
        total,
        first,
        height,
        |row| state.waiting(state.children[row].id),
        |row| state.children[row].status == ChildStatus::Failed,
    );
    let block = match hidden.border(theme) {
        Some(line) => block.title_bottom(line),
        None => block,
    };
    frame.render_widget(block, area);
    let buf = frame.buffer_mut();
    for (row, child) in state.children.iter().enumerate().skip(first).take(height) {
        let mut line = child_row(child, state, ui.spinner, inner.width as usize, theme);
        if row == selected {
            line = line.patch_style(theme.selected());
        }
        buf.set_line(inner.x, inner.y + (row - first) as u16, &line, inner.width);
    }
}

/// The first visible row, scrolled so that `selected` is on screen.
fn visible_first(ui: &mut Ui, selected: usize, total: usize, height: usize) -> usize {
    let first = ui.subagents.clamp(total, height);
    if selected < first {
        ui.subagents.up(first - selected);
    } else if selected >= first + height {
        ui.subagents.down(selected + 1 - height - first);
    }
    ui.subagents.clamp(total, height)
}

/// `⠋ sub-1 explore  find auth entry points   7/12   9.1k   12s`, padded to
/// `width` so a selected row is highlighted edge to edge.
pub(super) fn child_row(
    child: &Child,
    state: &State,
    frame: usize,
    width_cols: usize,
    theme: &Theme,
) -> Line<'static> {
    let now_ms = state.now_ms;
    // A child waiting for the user says so, whatever else it shows.
    let waiting = state.waiting(child.id);
    let glyph = match child.status {
        ChildStatus::Running if waiting => Span::styled("?", theme.alert()),
        ChildStatus::Running => Span::styled(spinner(frame), theme.focus()),
        ChildStatus::Done => Span::styled("✓", theme.success()),
        ChildStatus::Failed => Span::styled("✗", theme.error()),
    };
    let age = elapsed(
        child
            .ended_ms
            .unwrap_or(now_ms)
            .saturating_sub(child.started_ms),
    );
    // Narrow panes drop the token column before the description shrinks away.
    let tok = if width_cols < 56 {
        String::new()
    } else {
        format!(" {:>6}", tokens(child.tokens))
    };
    let right: Vec<Span<'static>> = match (child.status, child.reason) {
        (ChildStatus::Failed, reason) => vec![
            Span::styled(
                format!("  {}", reason.map_or("failed", |r| r.as_str())),
                theme.error(),
            ),
            Span::styled(format!("{tok} {age:>6} "), theme.dim()),
        ],
        (ChildStatus::Running, _) if waiting => vec![
            Span::raw("  "),
            Span::styled("approve?", theme.alert()),
            Span::styled(format!("{tok} {age:>6} "), theme.dim()),
        ],
        (ChildStatus::Running | ChildStatus::Done, _) => {
            let steps = match child.max_steps {
                Some(max) => format!("{}/{max}", child.steps),
                None => child.steps.to_string(),
            };
            vec![
                Span::raw(format!("  {steps:>5}")),
                Span::styled(format!("{tok} {age:>6} "), theme.dim()),
            ]
        }
    };
    let right_w: usize = right.iter().map(|s| width(&s.content)).sum();
    let head = vec![
        Span::raw(" "),
        glyph,
        Span::raw(" "),
        Span::styled(child.id.to_string(), theme.child(child.color.as_deref())),
        Span::raw(" "),
        Span::styled(child.profile.clone(), theme.dim()),
        Span::raw("  "),
    ];
    let head_w: usize = head.iter().map(|s| width(&s.content)).sum();
    let room = width_cols.saturating_sub(head_w + right_w);
    let description = cut(&child.description, room);
    let pad = room.saturating_sub(width(&description));
    let mut spans = head;
    spans.push(Span::raw(description));
    spans.push(Span::raw(" ".repeat(pad)));
    spans.extend(right);
    Line::from(spans)
}
