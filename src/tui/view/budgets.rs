//! The budgets block: how full each agent is. The parent's context against the
//! model window (and how many tokens the children kept out of it), then one row
//! per running child, and, dimmed, the ones that ended in the parent's current
//! turn until the next starts, with steps, tokens and context against their
//! limits; the children left out for want of room are counted in its border.
//! Bars are coloured green, light red past 75 % and red past 90 %, and always
//! carry the numbers, so no colour is needed to read them.

use super::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::hidden::Hidden;
use super::padded_block;
use super::text::{cut_spans, line_width, tokens};
use crate::protocol::price::usd;
use crate::tui::state::{Child, ChildStatus, State};
use crate::tui::theme::Theme;

/// Columns of the agent label (`sub-12 `).
const LABEL: usize = 7;
/// Widest a bar gets; longer bars say nothing more.
const MAX_BAR: usize = 24;
/// Columns of the text around the three bars of a child row.
const CHILD_TEXT: usize = LABEL + (6 + 1 + 5) + 3 + (7 + 1 + 10) + 3 + (8 + 1 + 10) + MARKER;
/// Columns of a child's cost (` $0.031`).
const COST: usize = 8;
/// Columns of the `✗ max_steps` / `✓ done` marker.
const MARKER: usize = 14;

/// Child rows the block would like to show.
pub(super) fn wanted_rows(state: &State) -> u16 {
    in_budgets(state).len().min(u16::MAX as usize) as u16
}

/// The children the budgets are about: the running ones, and the ones that
/// ended in the parent's current turn (dimmed), which leave when the next
/// turn starts.
fn in_budgets(state: &State) -> Vec<usize> {
    (0..state.children.len())
        .filter(|&i| {
            let child = &state.children[i];
            child.status == ChildStatus::Running || child.turn == state.turn
        })
        .collect()
}

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let (state, theme) = (view.state, view.theme);
    // Stacked on a narrow screen: the parent's row alone, and how many
    // children run, on one line.
    if area.height < 3 {
        let line = cut_spans(folded_row(state, theme), area.width as usize);
        frame
            .buffer_mut()
            .set_line(area.x, area.y, &line, area.width);
        return;
    }
    let block = padded_block("Budgets", false, theme);
    let inner = block.inner(area);
    if inner.width == 0 || inner.height == 0 {
        frame.render_widget(block, area);
        return;
    }
    // The layout gave the children the rows under the parent's.
    let rows = inner.height as usize - 1;
    let (shown, hidden) = shown_children(state, rows);
    let block = match hidden.border(theme) {
        Some(line) => block.title_bottom(line),
        None => block,
    };
    frame.render_widget(block, area);
    let w = inner.width as usize;
    // A cost column only once some child's model has a price.
    let priced = state.children.iter().any(|c| c.cost.is_some());
    let text = CHILD_TEXT + if priced { COST } else { 0 };
    let bar = (w.saturating_sub(text) / 3).min(MAX_BAR);
    let buf = frame.buffer_mut();
    let main = main_row(state, bar, w, theme);
    buf.set_line(inner.x, inner.y, &main, inner.width);
    let window = state.info.context_window;
    for (row, &i) in shown.iter().enumerate() {
        let child = &state.children[i];
        let mut line = cut_spans(child_row(child, bar, window, priced, theme).spans, w);
        // An ended child stays until the next turn, dimmed.
        if child.status != ChildStatus::Running {
            line = line.patch_style(theme.dim());
        }
        buf.set_line(inner.x, inner.y + 1 + row as u16, &line, inner.width);
    }
}

/// The budgets on one line, for a stacked screen:
/// `main 40.1k/200k · steps 1 · $0.047 · 2 of 3 subagents running (Tab)`.
fn folded_row(state: &State, theme: &Theme) -> Vec<Span<'static>> {
    let window = state.info.context_window;
    let context = match window {
        0 => tokens(state.main.context_tokens),
        w => format!("{}/{}", tokens(state.main.context_tokens), tokens(w)),
    };
    let ratio = match window {
        0 => 0.0,
        w => state.main.context_tokens as f64 / w as f64,
    };
    let mut spans = vec![
        Span::styled("main ", theme.agent()),
        Span::styled(context, theme.gauge(ratio)),
        Span::styled(format!(" · steps {}", state.main.steps), theme.dim()),
    ];
    if let Some(cost) = state.total_cost() {
        spans.push(Span::styled(format!(" · {}", usd(cost)), theme.text()));
    }
    if !state.children.is_empty() {
        let running = state
            .children
            .iter()
            .filter(|c| c.status == ChildStatus::Running)
            .count();
        // What needs the user is named first, so a narrow line keeps it.
        let waiting = state
            .children
            .iter()
            .filter(|c| state.waiting(c.id))
            .count();
        let failed = in_budgets(state)
            .into_iter()
            .filter(|&i| state.children[i].status == ChildStatus::Failed)
            .count();
        if waiting > 0 {
            spans.push(Span::styled(
                format!(" · {waiting} waiting for approval"),
                theme.error(),
            ));
        }
        if failed > 0 {
            spans.push(Span::styled(format!(" · {failed} failed"), theme.error()));
        }
        spans.push(Span::styled(
            format!(
                " · {running} of {} running (Tab)",
                crate::text::count(state.children.len() as u64, "subagent")
            ),
            theme.dim(),
        ));
    }
    spans
}

/// `main   context ████░░░░ 41k/200k   steps 3` … `kept out of main's context: 15.1k tokens`
fn main_row(state: &State, bar: usize, w: usize, theme: &Theme) -> Line<'static> {
    let window = (state.info.context_window > 0).then_some(state.info.context_window);
    let mut left = vec![Span::styled(format!("{:<LABEL$}", "main"), theme.agent())];
    left.extend(gauge(
        "context",
        state.main.context_tokens,
        window,
        bar * 2,
        10,
        tokens,
        theme,
    ));
    left.push(Span::styled(
        format!("   steps {}", state.main.steps),
        theme.dim(),
    ));
    // The session's cost, children included, and how much of the parent's
    // input the provider's cache served.
    if let Some(cost) = state.total_cost() {
        left.push(Span::styled(format!("   {}", usd(cost)), theme.text()));
    }
    let usage = &state.main.usage;
    let input = usage.input_total();
    if usage.cache_read_tokens + usage.cache_write_tokens > 0 && input > 0 {
        let share = 100 * usage.cache_read_tokens / input;
        left.push(Span::styled(format!("   cached {share}%"), theme.dim()));
    }
    let kept = tokens(state.kept_out_tokens);
    let long = vec![
        Span::styled("kept out of main's context: ", theme.dim()),
        Span::styled(kept.clone(), theme.success()),
        Span::styled(" tokens", theme.dim()),
    ];
    let short = vec![
        Span::styled("kept out ", theme.dim()),
        Span::styled(kept, theme.success()),
    ];
    let left_w: usize = line_width(&Line::from(left.clone()));
    for right in [long, short] {
        let right_w = line_width(&Line::from(right.clone()));
        if left_w + 3 + right_w <= w {
            let mut spans = left;
            spans.push(Span::raw(" ".repeat(w - left_w - right_w)));
            spans.extend(right);
            return Line::from(spans);
        }
    }
    cut_spans(left, w)
}

/// The children shown in `rows` rows, in their order, and what is left
/// out. When they do not all fit, the ones waiting for an approval come
/// first, then the running, the failed, and the most recently done.
fn shown_children(state: &State, rows: usize) -> (Vec<usize>, Hidden) {
    let mut shown = in_budgets(state);
    if shown.len() <= rows {
        return (shown, Hidden::default());
    }
    let rank = |i: usize| {
        let child = &state.children[i];
        let first = match child.status {
            _ if state.waiting(child.id) => 0,
            ChildStatus::Running => 1,
            ChildStatus::Failed => 2,
            ChildStatus::Done => 3,
        };
        (first, std::cmp::Reverse(child.ended_ms.unwrap_or(0)), i)
    };
    shown.sort_by_key(|&i| rank(i));
    let left_out = shown.split_off(rows);
    shown.sort_unstable();
    let hidden = Hidden {
        above: 0,
        below: left_out.len(),
        waiting: left_out
            .iter()
            .filter(|&&i| state.waiting(state.children[i].id))
            .count(),
        failed: left_out
            .iter()
            .filter(|&&i| state.children[i].status == ChildStatus::Failed)
            .count(),
    };
    (shown, hidden)
}

/// `sub-1  steps ███░░ 7/12   tokens ██░░ 9.1k/32k   context █░░░ 4.2k/16k   ✓ done`
/// A child on the main model without a context budget is measured against the
/// main model's window, which is its real limit.
fn child_row(child: &Child, bar: usize, window: u64, priced: bool, theme: &Theme) -> Line<'static> {
    let context_limit = child
        .context_budget
        .or_else(|| (child.model == "main" && window > 0).then_some(window));
    let mut spans = vec![Span::styled(
        format!("{:<LABEL$}", child.id.to_string()),
        theme.agent(),
    )];
    let steps = |n: u64| n.to_string();
    spans.extend(gauge(
        "steps",
        u64::from(child.steps),
        child.max_steps.map(u64::from),
        bar,
        5,
        steps,
        theme,
    ));
    spans.push(Span::raw("   "));
    spans.extend(gauge(
        "tokens",
        child.tokens,
        child.token_budget,
        bar,
        10,
        tokens,
        theme,
    ));
    if priced {
        let cost = child.cost.map(usd).unwrap_or_default();
        spans.push(Span::styled(format!(" {cost:>7}"), theme.dim()));
    }
    spans.push(Span::raw("   "));
    spans.extend(gauge(
        "context",
        child.context_tokens,
        context_limit,
        bar,
        10,
        tokens,
        theme,
    ));
    match (child.status, child.reason) {
        (ChildStatus::Running, _) => {}
        (ChildStatus::Done, _) => spans.push(Span::styled("  ✓ done", theme.success())),
        (ChildStatus::Failed, reason) => spans.push(Span::styled(
            format!("  ✗ {}", reason.map_or("failed", |r| r.as_str())),
            theme.error(),
        )),
    }
    Line::from(spans)
}

/// `label ████░░░░ value/limit`, the numbers padded to `numbers` columns so
/// rows line up. Without a limit: no bar, just the value.
fn gauge(
    label: &str,
    value: u64,
    limit: Option<u64>,
    bar: usize,
    numbers: usize,
    format: fn(u64) -> String,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let mut spans = vec![Span::styled(format!("{label} "), theme.dim())];
    let Some(limit) = limit.filter(|&l| l > 0) else {
        if bar > 0 {
            spans.push(Span::raw(" ".repeat(bar + 1)));
        }
        spans.push(Span::raw(format!("{:<numbers$}", format(value))));
        return spans;
    };
    let ratio = value as f64 / limit as f64;
    let style = theme.gauge(ratio);
    if bar > 0 {
        let mut filled = ((ratio.min(1.0) * bar as f64).round() as usize).min(bar);
        if value > 0 && filled == 0 {
            filled = 1;
        }
        spans.push(Span::styled("█".repeat(filled), style));
        spans.push(Span::styled("░".repeat(bar - filled), theme.dim()));
        spans.push(Span::raw(" "));
    }
    let text = format!("{}/{}", format(value), format(limit));
    let number_style = if ratio >= 0.75 { style } else { theme.text() };
    spans.push(Span::styled(format!("{text:<numbers$}"), number_style));
    spans
}
