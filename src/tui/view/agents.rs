//! The `/agents` overlay: every subagent profile a `task` call may name,
//! with where it came from (built in, or the agent file it was read from),
//! its tools, model and limits, and what its file lost on the way.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use super::text::cut_spans;
use super::{View, between_bars, overlay_block};
use crate::protocol::AgentSummary;
use crate::tui::theme::Theme;

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let theme = view.theme;
    let rect = between_bars(area);
    let agents = &view.state.info.agents;
    let block = Block::bordered()
        .title(Line::from(format!(
            " Subagent profiles · {} ",
            agents.len()
        )))
        .title_bottom(
            Line::from(Span::styled(
                " Esc close · ↑↓ PgUp PgDn scroll ",
                theme.dim(),
            ))
            .right_aligned(),
        )
        .border_style(theme.focus())
        .title_style(theme.focus());
    let inner = overlay_block(frame, rect, block);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let lines = lines(agents, theme);
    let height = inner.height as usize;
    let first = view.ui.overlay_scroll.clamp(lines.len(), height);
    let buf = frame.buffer_mut();
    for (y, line) in lines.into_iter().skip(first).take(height).enumerate() {
        let line = cut_spans(line.spans, inner.width as usize);
        buf.set_line(inner.x, inner.y + y as u16, &line, inner.width);
    }
}

/// Each profile: its name and model, then where it came from, its tools and
/// limits, then each warning, a blank line between profiles.
fn lines(agents: &[AgentSummary], theme: &Theme) -> Vec<Line<'static>> {
    if agents.is_empty() {
        return vec![Line::from(Span::styled(
            "No subagent profiles: this session cannot delegate.",
            theme.dim(),
        ))];
    }
    let mut out = Vec::new();
    for agent in agents {
        let text = |s: &str| crate::text::visible(s).into_owned();
        out.push(Line::from(vec![
            Span::styled(text(&agent.name), theme.heading()),
            Span::styled(format!("  {} model", agent.model), theme.dim()),
        ]));
        for (label, value) in [
            ("from", &agent.from),
            ("tools", &agent.tools),
            ("limits", &agent.limits),
        ] {
            out.push(Line::from(vec![
                Span::styled(format!("  {label:<7}"), theme.dim()),
                Span::raw(text(value)),
            ]));
        }
        for warning in &agent.warnings {
            out.push(Line::from(vec![
                Span::styled("  ! ", theme.warning()),
                Span::styled(text(warning), theme.warning()),
            ]));
        }
        out.push(Line::default());
    }
    out
}
