//! The composer: where the next prompt is typed (a tui-textarea). Its title says
//! what Enter will do: send, or queue while brood works.

use super::View;
use crate::tui::keymap::{self, Place};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use super::pane_block;
use super::text::width;
use crate::text::count;
use crate::tui::theme::Theme;
use crate::tui::ui::{Focus, Pace, ReplayBar};

/// The textarea's scroll offset as its widget computes it, kept here because
/// the widget does not expose it and the terminal cursor must go where the
/// widget drew the text cursor.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct ComposerScroll {
    row: usize,
    col: usize,
}

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let (state, theme) = (view.state, view.theme);
    let ui = &mut *view.ui;
    let scroll = &mut view.cache.composer;
    let active = ui.overlay.is_none() && state.approvals.is_empty();
    if let Some(bar) = &ui.replay {
        replay_bar(frame, area, bar, theme);
        return;
    }
    let focused = active && ui.focus == Focus::Composer;
    let mut title = vec![Span::raw("> ask brood…")];
    if let Some(search) = &ui.search {
        let found = match search.found {
            Some(_) => theme.text(),
            None => theme.error(),
        };
        title = vec![
            Span::raw("search earlier prompts: "),
            Span::styled(format!("{}▏", search.query), found),
            Span::styled(" · Ctrl-R older · Enter take · Esc leave", theme.dim()),
        ];
    }
    if let Some(child) = ui.message_to {
        title = vec![
            Span::styled(format!("> message to {child}"), theme.focus()),
            Span::styled(
                " · read before its next step · Enter sends · Esc: to brood instead",
                theme.dim(),
            ),
        ];
    } else if state.running && ui.search.is_none() {
        title.push(Span::styled(
            " (Enter queues while brood works)",
            theme.dim(),
        ));
        if !ui.queued.is_empty() {
            title.push(Span::styled(
                format!(" · queued: {}", ui.queued.len()),
                theme.warning(),
            ));
        }
    }
    let block = pane_block(Line::from(title), focused, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    // The widget's own look follows the theme: its default placeholder colour is
    // a fixed grey, and its cursor should only show where typing goes.
    ui.composer.set_placeholder_style(theme.dim());
    ui.composer.set_selection_style(theme.selected());
    ui.composer.set_cursor_style(if focused {
        theme.text().add_modifier(Modifier::REVERSED)
    } else {
        theme.text()
    });
    frame.render_widget(&ui.composer, inner);
    let (row, col) = ui.composer.cursor();
    scroll.row = next_top(scroll.row, row, inner.height as usize);
    scroll.col = next_top(scroll.col, col, inner.width as usize);
    if focused {
        let line = ui.composer.lines().get(row).map_or("", String::as_str);
        let before: String = line.chars().take(col).collect();
        let x = width(&before).saturating_sub(scroll.col);
        let y = row.saturating_sub(scroll.row);
        let x = inner.x + (x.min(inner.width as usize - 1)) as u16;
        let y = inner.y + (y.min(inner.height as usize - 1)) as u16;
        frame.set_cursor_position(Position::new(x, y));
    }
}

/// Where a replay is: playing or paused, the event, the time, the speed.
fn recorded_progress<'a>(bar: &ReplayBar, theme: &Theme) -> Vec<Span<'a>> {
    let state = if bar.playing {
        "▶ playing"
    } else {
        "⏸ paused"
    };
    vec![
        Span::styled(state, theme.bold()),
        Span::raw(format!(
            "  event {} of {}{}",
            bar.position,
            bar.total,
            if bar.loading { " (loading…)" } else { "" }
        )),
        Span::raw(format!(
            "  ·  {} / {}",
            clock(bar.recorded_ms),
            clock(bar.total_ms)
        )),
        Span::styled(format!("  ·  ×{}", speed(bar.speed)), theme.focus()),
    ]
}

/// Where a followed session is: following or paused behind, the events, how
/// long the session has run, and why it last took events back.
fn live_progress<'a>(bar: &ReplayBar, theme: &Theme) -> Vec<Span<'a>> {
    let behind = bar.total.saturating_sub(bar.position);
    let state = match (bar.playing, behind) {
        (true, _) => Span::styled("● following", theme.success()),
        (false, 0) => Span::styled("⏸ paused", theme.bold()),
        (false, n) => Span::styled(format!("⏸ paused, {n} new"), theme.warning()),
    };
    let mut spans = vec![
        state,
        Span::raw(format!("  event {} of {}", bar.position, bar.total)),
        Span::raw(format!("  ·  {} so far", clock(bar.total_ms))),
    ];
    if let Some(why) = &bar.rewound {
        spans.push(Span::styled(format!("  ·  {why}"), theme.dim()));
    }
    spans
}

/// The replay controls: where the replay is, how fast, and the keys.
fn replay_bar(frame: &mut Frame<'_>, area: Rect, bar: &ReplayBar, theme: &Theme) {
    let verb = match bar.pace {
        Pace::Recorded => "replay ",
        Pace::Live => "watch ",
    };
    let title = Line::from(vec![
        Span::styled(verb, theme.focus()),
        Span::styled(bar.source.clone(), theme.dim()),
    ]);
    let block = pane_block(title, false, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let mut progress = match bar.pace {
        Pace::Recorded => recorded_progress(bar, theme),
        Pace::Live => live_progress(bar, theme),
    };
    if bar.skipped > 0 {
        progress.push(Span::styled(
            format!("  ·  {} skipped", count(bar.skipped as u64, "bad line")),
            theme.warning(),
        ));
    }
    // One column of padding, like the panes' text.
    let (x, w) = (inner.x + 1, inner.width.saturating_sub(1));
    let buf = frame.buffer_mut();
    buf.set_line(x, inner.y, &Line::from(progress), w);
    if inner.height > 1 {
        // The replay's rows of the key table, as help lists them.
        let text = keymap::help(&[Place::Replay], |_| true)
            .into_iter()
            .flat_map(|(_, rows)| rows)
            .map(|(keys, what)| format!("{keys} {what}"))
            .collect::<Vec<_>>()
            .join(" · ");
        let keys = Line::from(Span::styled(text, theme.dim()));
        buf.set_line(x, inner.y + 1, &keys, w);
    }
}

/// `1:02.5` style recorded time.
fn clock(ms: u64) -> String {
    let secs = ms / 1000;
    format!("{}:{:02}.{}", secs / 60, secs % 60, (ms % 1000) / 100)
}

fn speed(factor: f64) -> String {
    if factor >= 1.0 {
        format!("{factor:.0}")
    } else {
        format!("{factor}")
    }
}

/// tui-textarea's rule for its viewport: scroll just enough to keep the cursor
/// in view.
fn next_top(previous: usize, cursor: usize, len: usize) -> usize {
    if cursor < previous {
        cursor
    } else if previous + len <= cursor {
        cursor + 1 - len
    } else {
        previous
    }
}

/// Commands listed at most while one is typed; the rest are counted.
const COMMAND_ROWS: usize = 8;

/// Queued prompts shown at most, above the composer; the rest are counted.
const QUEUED_ROWS: usize = 4;

/// Prompts waiting for the running turn to end, in a box just above the
/// composer: each one's first line, in the order they will go; ↑ in an empty
/// composer takes the last one back to edit or drop.
fn render_queued(frame: &mut Frame<'_>, composer: Rect, view: &View<'_>) {
    let (ui, theme) = (&*view.ui, view.theme);
    if ui.queued.is_empty() || ui.overlay.is_some() || ui.replay.is_some() {
        return;
    }
    let hidden = ui.queued.len().saturating_sub(QUEUED_ROWS);
    let rows = ui.queued.len().min(QUEUED_ROWS) + usize::from(hidden > 0);
    let height = (rows as u16 + 2).min(composer.y);
    if height < 3 {
        return;
    }
    let area = Rect::new(composer.x, composer.y - height, composer.width, height);
    let block = ratatui::widgets::Block::bordered()
        .title(Line::from(format!(
            " {} · sent when the turn ends · ↑ takes the last back ",
            count(ui.queued.len() as u64, "queued prompt")
        )))
        .border_style(theme.dim());
    let inner = block.inner(area);
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(block, area);
    let mut lines: Vec<Line<'static>> = ui
        .queued
        .iter()
        .take(QUEUED_ROWS)
        .enumerate()
        .map(|(i, prompt)| {
            let first = prompt.lines().next().unwrap_or_default();
            let more = prompt.lines().count().saturating_sub(1);
            let mut spans = vec![
                Span::styled(format!(" {} ", i + 1), theme.warning()),
                Span::raw(crate::text::visible(first).into_owned()),
            ];
            if more > 0 {
                spans.push(Span::styled(format!(" (+{more} lines)"), theme.dim()));
            }
            Line::from(spans)
        })
        .collect();
    if hidden > 0 {
        lines.push(Line::from(Span::styled(
            format!(" … {hidden} more queued"),
            theme.dim(),
        )));
    }
    for (i, line) in lines.into_iter().take(inner.height as usize).enumerate() {
        let line = super::text::cut_spans(line.spans, inner.width as usize);
        frame
            .buffer_mut()
            .set_line(inner.x, inner.y + i as u16, &line, inner.width);
    }
}

/// While a `/command` is typed: the commands that fit, in a box just above
/// the composer (over the panes), with what each does; Tab completes.
pub(super) fn render_commands(frame: &mut Frame<'_>, composer: Rect, view: &mut View<'_>) {
    let ui = &*view.ui;
    if ui.overlay.is_some() || ui.focus != Focus::Composer || ui.replay.is_some() {
        render_queued(frame, composer, view);
        return;
    }
    let found = crate::tui::slash::matching(&ui.composer_text());
    if found.is_empty() {
        render_queued(frame, composer, view);
        return;
    }
    let theme = view.theme;
    // The list is never cut silently: the last row counts what is left out.
    let shown = match found.len() > COMMAND_ROWS {
        true => COMMAND_ROWS - 1,
        false => found.len(),
    };
    let rows = (shown + usize::from(shown < found.len())) as u16;
    let height = (rows + 2).min(composer.y);
    if height < 3 {
        return;
    }
    let area = Rect::new(composer.x, composer.y - height, composer.width, height);
    let block = ratatui::widgets::Block::bordered()
        .title(Line::from(" commands · Tab completes · Enter runs "))
        .border_style(theme.dim());
    let inner = block.inner(area);
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(block, area);
    let name_width = found
        .iter()
        .map(|c| c.name.len() + c.args.len() + 2)
        .max()
        .unwrap_or(0);
    // With less room than asked for, one row still counts the rest.
    let listed = match rows as usize <= inner.height as usize {
        true => shown,
        false => (inner.height as usize).saturating_sub(1),
    };
    let hidden = found.len() - listed;
    if hidden > 0 {
        let more = Line::from(Span::styled(
            format!(" … {hidden} more: type more of the name"),
            theme.dim(),
        ));
        frame
            .buffer_mut()
            .set_line(inner.x, inner.y + listed as u16, &more, inner.width);
    }
    for (i, command) in found.iter().take(listed).enumerate() {
        let name = match command.args.is_empty() {
            true => format!("/{}", command.name),
            false => format!("/{} {}", command.name, command.args),
        };
        let line = Line::from(vec![
            Span::styled(format!(" {name:<name_width$}"), theme.bold()),
            Span::styled(format!("  {}", command.about), theme.dim()),
        ]);
        let line = super::text::cut_spans(line.spans, inner.width as usize);
        frame
            .buffer_mut()
            .set_line(inner.x, inner.y + i as u16, &line, inner.width);
    }
}
