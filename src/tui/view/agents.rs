//! The `/agents` overlay: every subagent profile a `task` call may name,
//! with where it came from (built in, or the agent file it was read from),
//! its tools, model and limits, and what its file lost on the way.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::text::cut_spans;
use super::{View, between_bars, list_overlay};
use crate::protocol::AgentSummary;
use crate::tui::theme::Theme;

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let agents = &view.state.info.agents;
    let title = format!(" Subagent profiles · {} ", agents.len());
    let width = between_bars(area).width.saturating_sub(2) as usize;
    let lines: Vec<Line<'static>> = lines(agents, view.theme)
        .into_iter()
        .map(|line| cut_spans(line.spans, width))
        .collect();
    list_overlay(frame, area, title, &lines, view);
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
