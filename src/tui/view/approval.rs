//! The approval dialog, drawn above everything while any agent waits for the
//! user's answer: who asks, for which tool, the exact command or path, why the
//! policy asked, and the keys. "Allow for the session" names the prefix it will
//! allow, so the user knows what they grant.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use super::text::{indent, wrap_str};
use super::{centered, overlay_block};
use crate::event::AgentId;
use crate::tui::state::{EntryKind, PendingApproval, State};
use crate::tui::theme::Theme;

/// Rows of the command shown at most; a longer one ends in `…`.
const COMMAND_ROWS: usize = 6;

/// `reason`: the denial reason being typed, with the approval it is for.
pub(super) fn render(
    frame: &mut Frame<'_>,
    area: Rect,
    state: &State,
    reason: Option<&(u64, String)>,
    theme: &Theme,
) {
    let Some(ask) = state.approvals.first() else {
        return;
    };
    let width = area.width.saturating_sub(4).min(76);
    let body = (width as usize).saturating_sub(4).max(1);
    let reason = reason
        .filter(|(id, _)| *id == ask.id)
        .map(|(_, r)| r.as_str());
    let lines = dialog_lines(ask, state, reason, body, theme);
    let height = (lines.len() as u16 + 2).min(area.height);
    let rect = centered(area, width, height);
    // Black on yellow and bold text: read on a light terminal as on a dark one.
    let block = Block::bordered()
        .title(Line::from(Span::styled(" approval needed ", theme.alert())))
        .border_style(theme.bold());
    let inner = overlay_block(frame, rect, block);
    let buf = frame.buffer_mut();
    for (row, line) in lines.iter().enumerate().take(inner.height as usize) {
        buf.set_line(
            inner.x + 1,
            inner.y + row as u16,
            line,
            inner.width.saturating_sub(2),
        );
    }
}

fn dialog_lines(
    ask: &PendingApproval,
    state: &State,
    reason: Option<&str>,
    body: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let subject = subject(ask, state);
    let who = match ask.agent {
        AgentId::Main => "main".to_string(),
        AgentId::Sub(_) => {
            let profile = state
                .child(ask.agent)
                .map(|c| c.profile.as_str())
                .unwrap_or("child");
            format!("{} ({profile})", ask.agent)
        }
    };
    let verb = if ask.tool == "bash" { "run" } else { "use" };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(who, theme.agent()),
            Span::raw(format!(" wants to {verb} ")),
            Span::styled(ask.tool.clone(), theme.bold()),
        ]),
        Line::default(),
    ];
    let mut command = wrap_str(&subject, body.saturating_sub(2).max(1));
    if command.len() > COMMAND_ROWS {
        command.truncate(COMMAND_ROWS);
        if let Some(last) = command.last_mut() {
            last.push('…');
        }
    }
    let style = theme.bold();
    lines.extend(
        command
            .into_iter()
            .map(|row| Line::from(vec![Span::raw("  "), Span::styled(row, style)])),
    );
    lines.push(Line::default());
    lines.extend(indent(
        // Reasons quote commands in backticks: render them as inline code.
        crate::tui::markdown::render_markdown(
            ask.reason.trim(),
            body.saturating_sub(5).max(1) as u16,
            theme,
        ),
        vec![Span::styled("why  ", theme.dim())],
        "     ",
    ));
    lines.push(Line::default());
    let prefix = &ask.session_rule;
    let keys = [
        ("y", "allow once".to_string()),
        ("a", format!("allow \"{prefix}\" for this session")),
        ("n", "deny (and say why)".to_string()),
    ];
    if let Some(typed) = reason {
        // The end of what was typed, so the cursor stays in view.
        let room = body.saturating_sub(14).max(1);
        let count = typed.chars().count();
        let shown: String = typed.chars().skip(count.saturating_sub(room)).collect();
        lines.push(Line::from(vec![
            Span::styled("deny, because ", theme.error()),
            Span::raw(crate::text::visible(&shown).into_owned()),
            Span::styled("▏", theme.focus()),
        ]));
        lines.push(Line::from(vec![
            Span::styled(
                "Enter",
                theme.focus().add_modifier(ratatui::style::Modifier::BOLD),
            ),
            Span::raw(" deny with this reason · "),
            Span::styled(
                "Esc",
                theme.focus().add_modifier(ratatui::style::Modifier::BOLD),
            ),
            Span::raw(" deny without one"),
        ]));
        return with_more(lines, state, theme);
    }
    let mut spans = Vec::new();
    for (i, (key, what)) in keys.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", theme.dim()));
        }
        spans.push(Span::styled(
            key,
            theme.focus().add_modifier(ratatui::style::Modifier::BOLD),
        ));
        spans.push(Span::raw(format!(" {what}")));
    }
    lines.push(Line::from(spans));
    with_more(lines, state, theme)
}

/// `lines`, then how many other approvals wait, if any.
fn with_more(mut lines: Vec<Line<'static>>, state: &State, theme: &Theme) -> Vec<Line<'static>> {
    let more = state.approvals.len().saturating_sub(1);
    if more > 0 {
        lines.push(Line::from(Span::styled(
            format!("+{more} more waiting"),
            theme.alert(),
        )));
    }
    lines
}

/// The full command or path being asked about: the call's input when the state
/// still has it (the request's summary is cut to one line), else the summary.
fn subject(ask: &PendingApproval, state: &State) -> String {
    let input = match ask.agent {
        AgentId::Main => state
            .entries
            .iter()
            .rev()
            .take(256)
            .find_map(|e| match &e.kind {
                EntryKind::Tool(cell) if cell.call_id == ask.call_id => Some(&cell.input),
                _ => None,
            }),
        AgentId::Sub(_) => state
            .child(ask.agent)
            .and_then(|c| c.live.iter().rev().find(|l| l.call_id == ask.call_id))
            .map(|l| &l.input),
    };
    let field = input.and_then(|i| {
        ["command", "path", "file_path", "pattern"]
            .iter()
            .find_map(|k| i.get(*k).and_then(|v| v.as_str()))
    });
    match field {
        Some(text) if !text.trim().is_empty() => text.trim().to_string(),
        _ => ask.summary.clone(),
    }
}
