//! The status line: on the left the keys that matter in the current place,
//! always ending with how to quit, on the right the one thing worth knowing now,
//! in priority order: a flash message, a retry countdown, the last error, else
//! running or idle.

use super::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::text::{cut, cut_spans, line_width, spinner, width};
use crate::event::AgentId;
use crate::tui::state::State;
use crate::tui::theme::Theme;
use crate::tui::ui::Ui;
use crate::tui::{keymap, keys};

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let (state, theme) = (view.state, view.theme);
    let ui = &*view.ui;
    let w = area.width as usize;
    let news = right_side(state, ui, theme, w / 2);
    let left = keys(
        state,
        ui,
        theme,
        w.saturating_sub(line_width(&news.line) + 2),
    );
    // Asides come after the keys: only in the room the keys leave.
    let mut right = news.line;
    let mut room = w.saturating_sub(line_width(&left) + 2 + line_width(&right));
    for aside in news.asides {
        let aside_w = aside.iter().map(|s| width(&s.content)).sum::<usize>();
        if aside_w > room {
            break;
        }
        room -= aside_w;
        right.spans.extend(aside);
    }
    let right_w = line_width(&right);
    let buf = frame.buffer_mut();
    buf.set_line(area.x, area.y, &left, area.width);
    let x = area.x + (w - right_w.min(w)) as u16;
    buf.set_line(x, area.y, &right, right_w as u16);
}

type Pair = (&'static str, &'static str);

/// `key desc · key desc …` for the place the keys act on now, in at most `max`
/// columns: keys that do not fit are left out from the end, but interrupting
/// and quitting always stay.
fn keys(state: &State, ui: &Ui, theme: &Theme, max: usize) -> Line<'static> {
    let mut pairs = place_keys(state, ui);
    let mut tail = Vec::with_capacity(2);
    if ui.replay.is_none() && ui.overlay.is_none() && state.approvals.is_empty() {
        tail.push(("Ctrl-C", "interrupt"));
    }
    tail.push(quit_key(ui));
    while !pairs.is_empty() && pairs_width(&pairs) + 3 + pairs_width(&tail) > max {
        pairs.pop();
    }
    if tail.len() > 1 && pairs.is_empty() && pairs_width(&tail) > max {
        tail.remove(0);
    }
    pairs.extend(tail);
    let mut spans = Vec::with_capacity(pairs.len() * 3);
    for (i, (key, what)) in pairs.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", theme.dim()));
        }
        spans.push(Span::styled(*key, theme.bold()));
        spans.push(Span::styled(format!(" {what}"), theme.dim()));
    }
    cut_spans(spans, max)
}

/// How to quit from here: `q` in a replay (outside an overlay, where `q`
/// closes it), Ctrl-D with an empty composer, else Ctrl-C twice.
fn quit_key(ui: &Ui) -> Pair {
    if ui.replay.is_some() {
        match ui.overlay {
            None => ("q", "quit"),
            Some(_) => ("Ctrl-D", "quit"),
        }
    } else if ui.composer_text().is_empty() {
        ("Ctrl-D", "quit")
    } else {
        ("Ctrl-C twice", "quit")
    }
}

fn pairs_width(pairs: &[Pair]) -> usize {
    let keys: usize = pairs.iter().map(|(k, w)| width(k) + 1 + width(w)).sum();
    keys + 3 * pairs.len().saturating_sub(1)
}

/// The keys of the current place, from the key table, most useful first;
/// interrupting and quitting come apart.
fn place_keys(state: &State, ui: &Ui) -> Vec<Pair> {
    keymap::hints(&keys::places(state, ui), |command| {
        crate::tui::available::works(command, state, ui)
    })
}

/// The right side of the status line.
struct News {
    /// Shown whatever the keys need, in at most `max` columns.
    line: Line<'static>,
    /// Each shown, in order, only where the keys leave room for it.
    asides: Vec<Vec<Span<'static>>>,
}

impl From<Line<'static>> for News {
    fn from(line: Line<'static>) -> Self {
        News {
            line,
            asides: Vec::new(),
        }
    }
}

/// The most important news, at most `max` columns.
fn right_side(state: &State, ui: &Ui, theme: &Theme, max: usize) -> News {
    if let Some(flash) = ui.flash.as_deref() {
        return Line::from(Span::styled(cut(flash, max), theme.bold())).into();
    }
    if let Some(retry) = &state.retry {
        let waited = state.now_ms.saturating_sub(retry.at_ms);
        let left_s = retry.wait_ms.saturating_sub(waited).div_ceil(1000);
        let mut text = format!(
            "retrying in {left_s} s ({}/{})",
            retry.attempt, retry.max_attempts
        );
        if retry.agent != AgentId::Main {
            text.push_str(&format!(" · {}", retry.agent));
        }
        return Line::from(Span::styled(cut(&text, max), theme.warning())).into();
    }
    if let Some(error) = state.last_error.as_deref() {
        let text = format!("✗ {}", error.lines().next().unwrap_or_default());
        return Line::from(Span::styled(cut(&text, max), theme.error())).into();
    }
    let children = state.running_children();
    let (text, style) = if state.busy() {
        let mut text = format!("{} running", spinner(ui.spinner));
        if children > 0 {
            text.push_str(&format!(
                " · {children} subagent{}",
                if children == 1 { "" } else { "s" }
            ));
        }
        (text, theme.focus())
    } else {
        ("idle".to_string(), theme.dim())
    };
    let mut spans = vec![Span::styled(text, style)];
    // Work beside the turns that is failing (the telemetry export) says so
    // first, while it fails.
    if let Some(warning) = state.info.side_warning.get() {
        spans
            .splice(
                0..0,
                [
                    Span::styled(format!("⚠ {warning}"), theme.warning()),
                    Span::styled(" · ", theme.dim()),
                ],
            )
            .for_each(drop);
    }
    // While the terminal has the mouse the wheel does not scroll: say so, first.
    if ui.mouse == crate::tui::ui::MouseMode::Terminal {
        spans
            .splice(
                0..0,
                [
                    Span::styled("mouse: select (F2)", theme.warning()),
                    Span::styled(" · ", theme.dim()),
                ],
            )
            .for_each(drop);
    }
    let mut asides = Vec::new();
    // What commands run under: news in red when they are not confined (first,
    // so it is never cut), an aside when they are.
    if let Some(sandbox) = &state.info.sandbox {
        match sandbox.confined() {
            true => asides.push(vec![
                Span::styled(" · ", theme.dim()),
                Span::styled(sandbox.label(), theme.dim()),
            ]),
            false => spans
                .splice(
                    0..0,
                    [
                        Span::styled(sandbox.label(), theme.error()),
                        Span::styled(" · ", theme.dim()),
                    ],
                )
                .for_each(drop),
        }
    }
    if !state.info.session.is_empty() {
        asides.push(vec![Span::styled(
            format!(" · {}", state.info.session),
            theme.dim(),
        )]);
    }
    News {
        line: cut_spans(spans, max),
        asides,
    }
}
