//! The title line: which models run where, and where the trace goes. It answers
//! "what am I talking to and is this being recorded" at a glance.

use super::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::text::{cut_left, tilde, width};

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let (state, theme) = (view.state, view.theme);
    let home = view.cache.home.as_deref();
    let info = &state.info;
    let total = area.width as usize;
    let sep = || Span::styled(" · ", theme.dim());
    let mut left = vec![Span::styled("brood", theme.agent())];
    // `offline offline` says nothing twice: a model named like its provider
    // shows once.
    let same = info.model == info.provider;
    let model = [
        info.provider.as_str(),
        if same { "" } else { info.model.as_str() },
    ]
    .iter()
    .filter(|s| !s.is_empty())
    .copied()
    .collect::<Vec<_>>()
    .join(" ");
    if !model.is_empty() {
        left.push(sep());
        left.push(Span::raw(model));
    }
    left.push(sep());
    left.push(Span::styled("light ", theme.dim()));
    let light = info.light_model.as_deref().unwrap_or("= main");
    left.push(Span::raw(light.to_string()));
    // The instruction files in the parent's prompt: their names when they
    // fit in a third of the line, else how many.
    if !info.instructions.is_empty() {
        let names = info.instructions.join(", ");
        let text = match width(&names) <= total / 3 {
            true => names,
            false => format!("{} instruction files", info.instructions.len()),
        };
        left.push(sep());
        left.push(Span::styled(text, theme.dim()));
    }
    // MCP servers: how many are up, and in red how many are not.
    if !info.mcp.is_empty() {
        let down = info.mcp.iter().filter(|s| s.failed.is_some()).count();
        left.push(sep());
        left.push(Span::styled(
            format!("mcp {}", info.mcp.len() - down),
            theme.dim(),
        ));
        if down > 0 {
            left.push(Span::styled(format!(" ({down} down)"), theme.error()));
        }
    }
    let fixed: usize = left.iter().map(|s| width(&s.content)).sum();
    // What the models leave is shared by the cwd and the trace path, the
    // trace getting the larger part: its file name is the session's.
    let room = total.saturating_sub(fixed + 2);
    let cwd = tilde(&info.cwd, home);
    let cwd_w = if info.cwd.is_empty() {
        0
    } else {
        width(&cwd).min((room * 2 / 5).max(12)) + 3
    };
    // The trace path only when enough of it shows to recognise the file.
    let right_text = match info.trace_path.as_deref() {
        Some(path) => {
            let path_room = room.saturating_sub(cwd_w + 6);
            (path_room >= 12).then(|| format!("trace {}", cut_left(&tilde(path, home), path_room)))
        }
        None => (room >= cwd_w + 8).then(|| "no trace".to_string()),
    }
    .unwrap_or_default();
    let right_w = width(&right_text);
    let cwd_room = room.saturating_sub(right_w + 3);
    if !info.cwd.is_empty() && cwd_room >= 6 {
        left.push(sep());
        left.push(Span::styled(cut_left(&cwd, cwd_room), theme.text()));
    }
    let left = Line::from(left);
    let buf = frame.buffer_mut();
    let left_w = width_of(&left);
    buf.set_line(area.x, area.y, &left, area.width);
    let right_w = right_w as u16;
    if right_w > 0 && left_w + 2 + right_w <= area.width {
        let right = Line::from(Span::styled(right_text, theme.dim()));
        buf.set_line(area.x + area.width - right_w, area.y, &right, right_w);
    }
}

fn width_of(line: &Line<'_>) -> u16 {
    super::text::line_width(line).min(u16::MAX as usize) as u16
}
