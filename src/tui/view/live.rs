//! The live pane: what a child is doing right now, as `[sub-N]` tool-call lines
//! (`[sub-1] glob **/*.py → 214 files`), with its streaming text at the bottom.
//! In "all" mode every child's lines are interleaved in event order, the way
//! they happened.

use super::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::hidden::Hidden;
use super::text::{cut_spans, spinner, wrap_str};
use super::{has_focus, padded_block};
use crate::tui::state::{CallStatus, Child, LiveLine};
use crate::tui::theme::Theme;
use crate::tui::ui::{Focus, LiveMode};

/// Rows of streaming text shown under the tool lines at most.
const STREAM_ROWS: usize = 3;

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let (state, theme) = (view.state, view.theme);
    let ui = &mut *view.ui;
    let selected = state.children.get(
        ui.selected_child
            .min(state.children.len().saturating_sub(1)),
    );
    let title = match (ui.live_mode, selected) {
        (LiveMode::All, _) => "all children live".to_string(),
        (LiveMode::Selected, Some(child)) => format!("{} live", child.id),
        (LiveMode::Selected, None) => "live".to_string(),
    };
    let block = padded_block(title, has_focus(ui, state, Focus::Live), theme);
    let inner = block.inner(area);
    if inner.width == 0 || inner.height == 0 {
        frame.render_widget(block, area);
        return;
    }
    let width_cols = inner.width as usize;
    let height = inner.height as usize;
    let Some(selected) = selected else {
        frame.render_widget(block, area);
        ui.live.clamp(0, height);
        let hint = Line::from(Span::styled("no subagents yet", theme.dim()));
        frame
            .buffer_mut()
            .set_line(inner.x, inner.y, &hint, inner.width);
        return;
    };
    let lines: Vec<(&Child, &LiveLine)> = match ui.live_mode {
        LiveMode::Selected => selected.live.iter().map(|l| (selected, l)).collect(),
        LiveMode::All => {
            let mut all: Vec<(&Child, &LiveLine)> = state
                .children
                .iter()
                .flat_map(|c| c.live.iter().map(move |l| (c, l)))
                .collect();
            all.sort_by_key(|(_, l)| l.seq);
            all
        }
    };
    let stream: Vec<String> = match ui.live_mode {
        LiveMode::Selected if !selected.streaming.trim().is_empty() => {
            let rows = wrap_str(
                selected.streaming.trim(),
                width_cols.saturating_sub(1).max(1),
            );
            let keep = STREAM_ROWS.min(height / 3);
            rows[rows.len().saturating_sub(keep)..].to_vec()
        }
        LiveMode::Selected | LiveMode::All => Vec::new(),
    };
    let list_h = height - stream.len();
    let first = ui.live.clamp(lines.len(), list_h);
    let hidden = Hidden::of_window(
        lines.len(),
        first,
        list_h,
        |row| {
            let (child, line) = lines[row];
            line.status == CallStatus::Running
                && state
                    .approvals
                    .iter()
                    .any(|a| a.agent == child.id && a.call_id == line.call_id)
        },
        |row| matches!(lines[row].1.status, CallStatus::Failed | CallStatus::Denied),
    );
    let block = match hidden.border(theme) {
        Some(line) => block.title_bottom(line),
        None => block,
    };
    frame.render_widget(block, area);
    let buf = frame.buffer_mut();
    if lines.is_empty() && list_h > 0 {
        let hint = Line::from(Span::styled(
            format!("{} has made no tool calls yet", selected.id),
            theme.dim(),
        ));
        buf.set_line(inner.x, inner.y, &hint, inner.width);
    }
    for (row, (child, line)) in lines.iter().skip(first).take(list_h).enumerate() {
        let rendered = live_line(child, line, ui.spinner, width_cols, theme);
        buf.set_line(inner.x, inner.y + row as u16, &rendered, inner.width);
    }
    let last = stream.len().saturating_sub(1);
    for (row, text) in stream.into_iter().enumerate() {
        let mut spans = vec![Span::styled(text, theme.dim())];
        if row == last && !selected.streaming.is_empty() {
            spans.push(Span::styled(super::cells::STREAM_CURSOR, theme.agent()));
        }
        let y = inner.y + (list_h + row) as u16;
        buf.set_line(inner.x, y, &Line::from(spans), inner.width);
    }
}

/// `[sub-1] grep "login" → auth.rs:1:fn login() {}`, cut to `width` columns.
fn live_line(
    child: &Child,
    line: &LiveLine,
    frame: usize,
    width_cols: usize,
    theme: &Theme,
) -> Line<'static> {
    let summary = line.label.clone();
    let mut spans = vec![Span::styled(
        format!("[{}] ", child.id),
        theme.child(child.color.as_deref()),
    )];
    match line.status {
        CallStatus::Running => {
            spans.push(Span::styled(format!("{} ", spinner(frame)), theme.focus()))
        }
        CallStatus::Failed | CallStatus::Denied => spans.push(Span::styled("✗ ", theme.error())),
        CallStatus::Done => {}
    }
    spans.push(Span::styled(format!("{} ", line.tool), theme.bold()));
    spans.push(Span::raw(summary));
    match (line.status, line.result.as_deref()) {
        (CallStatus::Denied, _) => spans.push(Span::styled("  denied", theme.error())),
        (CallStatus::Failed, Some(result)) => {
            spans.push(Span::styled(format!(" → {result}"), theme.error()))
        }
        (CallStatus::Done, Some(result)) => {
            spans.push(Span::styled(format!(" → {result}"), theme.dim()))
        }
        (CallStatus::Running, _) | (CallStatus::Failed | CallStatus::Done, None) => {}
    }
    cut_spans(spans, width_cols)
}
