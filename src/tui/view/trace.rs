//! The trace pane: the raw event timeline, one row per event (streamed text
//! folded into one row per run, `×count`), for when the friendly panes hide
//! the detail you need. Only the visible rows are formatted.

use super::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::hidden::Hidden;
use super::text::{cut_spans, tokens};
use super::{has_focus, padded_block};
use crate::tui::state::{Mark, TimelineRow};
use crate::tui::theme::Theme;
use crate::tui::ui::Focus;

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let (state, theme) = (view.state, view.theme);
    let ui = &mut *view.ui;
    let title = Line::from(vec![
        Span::raw("Trace"),
        Span::styled(format!(" · {} events", tokens(state.events)), theme.dim()),
    ]);
    let block = padded_block(title, has_focus(ui, state, Focus::Live), theme);
    let inner = block.inner(area);
    if inner.width == 0 || inner.height == 0 {
        frame.render_widget(block, area);
        return;
    }
    let height = inner.height as usize;
    let first = ui.trace.clamp(state.timeline.len(), height);
    // Errors and failed results scrolled out of sight are counted. An
    // approval asked long ago is history here: the dialog shows the ones
    // that wait.
    let hidden = Hidden::of_window(
        state.timeline.len(),
        first,
        height,
        |_| false,
        |row| matches!(state.timeline[row].mark, Mark::Alarm | Mark::Failed),
    );
    let block = match hidden.border(theme) {
        Some(line) => block.title_bottom(line),
        None => block,
    };
    frame.render_widget(block, area);
    let buf = frame.buffer_mut();
    for (row, event) in state.timeline.iter().skip(first).take(height).enumerate() {
        let line = trace_row(event, inner.width as usize, theme);
        buf.set_line(inner.x, inner.y + row as u16, &line, inner.width);
    }
}

/// `   12   +1.4s sub-1  tool_call          grep {"pattern":"login"}`
fn trace_row(event: &TimelineRow, width_cols: usize, theme: &Theme) -> Line<'static> {
    let t = event.t_ms;
    let kind_style = kind_style(event, theme);
    let mut spans = vec![
        Span::styled(format!("{:>5} ", event.seq), theme.dim()),
        Span::styled(
            format!("{:>7} ", format!("+{}.{}s", t / 1000, (t % 1000) / 100)),
            theme.dim(),
        ),
        Span::styled(format!("{:<6} ", event.agent.to_string()), theme.agent()),
        // A space after the type, however long (`permission_decision`,
        // the longest brood writes, is padded to nothing).
        Span::styled(format!("{:<19} ", event.kind), kind_style),
    ];
    match event.mark {
        Mark::Passed => spans.push(Span::styled("✓ ", theme.success())),
        Mark::Failed => spans.push(Span::styled("✗ ", theme.error())),
        Mark::Plain | Mark::Alarm | Mark::Waiting | Mark::Boundary => {}
    }
    if event.count > 1 {
        spans.push(Span::styled(format!("×{} ", event.count), theme.bold()));
    }
    spans.push(Span::raw(event.detail.clone()));
    cut_spans(spans, width_cols)
}

/// Errors and failed results red, waits light red, a child's start and end bold
/// (each is also named by its type, for no-colour terminals).
fn kind_style(event: &TimelineRow, theme: &Theme) -> Style {
    match event.mark {
        Mark::Alarm | Mark::Failed => theme.error(),
        Mark::Waiting => theme.warning(),
        Mark::Boundary => theme.bold(),
        Mark::Plain | Mark::Passed => theme.text(),
    }
}
