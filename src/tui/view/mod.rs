//! The views: pure functions from the session's [`State`] and the keyboard's
//! [`Ui`] into a ratatui frame. Nothing here reads the clock, the terminal or
//! the environment while drawing, so a replayed trace draws exactly what the
//! live session drew, and every screen is a snapshot test.
//!
//! Top to bottom: the title line; the conversation (left) beside the subagents
//! list and the live (or trace) pane (right); the budgets block; the composer;
//! the status line. Overlays (help, a child's transcript) and the approval
//! dialog are drawn over that.

mod agents;
mod approval;
mod budgets;
mod cells;
mod composer;
mod conversation;
mod diff;
mod diffs;
mod heights;
mod help;
mod hidden;
mod live;
mod status;
mod subagents;
mod text;
mod title;
mod trace;
mod transcript;
mod viewer;

#[cfg(test)]
mod tests;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Padding, Paragraph, Wrap};

use crate::tui::state::State;
use crate::tui::theme::Theme;
use crate::tui::ui::{Focus, Overlay, Ui};

/// Below this many columns the workbench shows only a notice.
pub const MIN_WIDTH: u16 = 60;
/// Below this many rows the workbench shows only a notice.
pub const MIN_HEIGHT: u16 = 15;
/// Below this many columns the panes stack: one at a time, full width (the
/// conversation, or the subagents and live lines while they have focus),
/// and the budgets fold to one line, so an 80×24 terminal gives the
/// conversation 16 rows of 78 columns.
pub const STACK_BELOW: u16 = 100;

/// The conversation's share of a wide screen, beside the subagents, which
/// `<` and `>` move and the workbench remembers.
pub mod split {
    /// The share before it is moved (the layout's own at 110 columns and more).
    pub const DEFAULT: u16 = 45;
    /// How far one key press moves it, in percent.
    pub const STEP: u16 = 5;
    /// The smallest and largest share; the panes' widths keep their own floor.
    pub const LEAST: u16 = 25;
    pub const MOST: u16 = 75;
    /// Columns each side keeps whatever the share.
    pub const MIN_CONVERSATION: u16 = 40;
    pub const MIN_SUBAGENTS: u16 = 36;

    /// `share` within the bounds.
    pub fn clamp(share: u16) -> u16 {
        share.clamp(LEAST, MOST)
    }

    /// The conversation's columns of `width` at `share` (`None`: the
    /// layout's own, half below 110 columns).
    pub fn conversation_width(width: u16, share: Option<u16>) -> u16 {
        let wanted = match share {
            Some(share) => u32::from(width) * u32::from(clamp(share)) / 100,
            None if width >= 110 => u32::from(width) * u32::from(DEFAULT) / 100,
            None => u32::from(width / 2),
        };
        let most = width.saturating_sub(MIN_SUBAGENTS);
        (wanted.min(u32::from(width)) as u16).clamp(MIN_CONVERSATION.min(most), most)
    }
}

/// What the views keep between frames so a frame lays out only what changed and
/// what is visible: the conversation's wrapped rows and heights, the open
/// transcript's rows, and the composer's scroll position.
///
/// Cached rows are keyed by entry index and revision, which only mean the same
/// thing within one `State`: start a new cache when the state is replaced
/// (a new session, a replay restarted from the beginning).
pub struct ViewCache {
    conversation: conversation::ConversationCache,
    transcript: transcript::TranscriptCache,
    viewer: viewer::ViewerCache,
    diffs: diffs::DiffsCache,
    composer: composer::ComposerScroll,
    /// Summarizes tool inputs in one line, as everywhere else in brood.
    /// Written `~` in paths.
    home: Option<String>,
}

impl Default for ViewCache {
    fn default() -> Self {
        Self::new()
    }
}

impl ViewCache {
    pub fn new() -> Self {
        let home = std::env::var_os("HOME")
            .and_then(|h| h.into_string().ok())
            .filter(|h| !h.is_empty());
        ViewCache {
            conversation: Default::default(),
            transcript: Default::default(),
            viewer: Default::default(),
            diffs: Default::default(),
            composer: Default::default(),
            home,
        }
    }
}

/// Draws the whole workbench.
pub fn render(
    frame: &mut Frame<'_>,
    state: &State,
    ui: &mut Ui,
    cache: &mut ViewCache,
    theme: &Theme,
) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, theme);
        return;
    }
    let layout = Screen::new(area, state, ui);
    ui.panes = vec![
        (Focus::Conversation, layout.conversation),
        (Focus::Subagents, layout.subagents),
        (Focus::Live, layout.live),
    ];
    {
        let mut view = View {
            state,
            ui: &mut *ui,
            cache: &mut *cache,
            theme,
        };
        let view = &mut view;
        // Every part of the screen is drawn the same way: into its area, from
        // the view.
        title::render(frame, layout.title, view);
        // A pane the layout left out (stacked, zoomed) has no area.
        if !layout.conversation.is_empty() {
            conversation::render(frame, layout.conversation, view);
        }
        if !layout.subagents.is_empty() {
            subagents::render(frame, layout.subagents, view);
            match view.ui.show_trace {
                true => trace::render(frame, layout.live, view),
                false => live::render(frame, layout.live, view),
            }
        }
        budgets::render(frame, layout.budgets, view);
        composer::render(frame, layout.composer, view);
        composer::render_commands(frame, layout.composer, view);
        // The viewer and the changes are drawn from the view like the panes.
        match view.ui.overlay {
            Some(Overlay::Output(index)) => viewer::render(frame, area, index, view),
            Some(Overlay::Diffs) => diffs::render(frame, area, view),
            Some(Overlay::Agents) => agents::render(frame, area, view),
            Some(Overlay::Help | Overlay::Transcript(_)) | None => {}
        }
    }
    match ui.overlay {
        Some(Overlay::Help) => {
            let replay = ui.replay.is_some();
            help::render(
                frame,
                area,
                &mut ui.overlay_scroll,
                replay,
                &state.info.mcp,
                theme,
            )
        }
        Some(Overlay::Transcript(id)) => {
            transcript::render(frame, area, state, id, ui, cache, theme)
        }
        Some(Overlay::Output(_) | Overlay::Diffs | Overlay::Agents) | None => {}
    }
    // After the overlays: the keys it offers depend on whether what shows
    // can scroll, which drawing it has just measured.
    status::render(
        frame,
        layout.status,
        &mut View {
            state,
            ui: &mut *ui,
            cache: &mut *cache,
            theme,
        },
    );
    if !state.approvals.is_empty() {
        approval::render(frame, area, state, ui.deny_reason.as_ref(), theme);
    }
}

/// What every part of the screen is drawn from.
pub(super) struct View<'a> {
    pub state: &'a State,
    pub ui: &'a mut Ui,
    pub cache: &'a mut ViewCache,
    pub theme: &'a Theme,
}

/// Where each part of the screen goes.
struct Screen {
    title: Rect,
    conversation: Rect,
    subagents: Rect,
    live: Rect,
    budgets: Rect,
    composer: Rect,
    status: Rect,
}

impl Screen {
    /// Splits `area` (at least `MIN_WIDTH` × `MIN_HEIGHT`). Fixed arithmetic
    /// rather than a constraint solver, so proportions are predictable.
    fn new(area: Rect, state: &State, ui: &Ui) -> Screen {
        let h = area.height;
        let w = area.width;
        // The main panes keep at least this many rows.
        const MAIN_MIN: u16 = 8;
        // The replay controls take two lines where the composer would be.
        let composer_lines = match ui.replay {
            Some(_) => 2,
            None => ui.composer.lines().len().min(u16::MAX as usize) as u16,
        };
        let composer_h = composer_lines
            .saturating_add(2)
            .clamp(3, 7)
            .min(h.saturating_sub(2 + 3 + 5).max(3));
        let stacked = w < STACK_BELOW;
        let budgets_h = match stacked {
            true => 1,
            false => {
                let wanted_rows = budgets::wanted_rows(state).min(6);
                let room = h.saturating_sub(2 + composer_h + 3 + MAIN_MIN);
                3 + wanted_rows.min(room)
            }
        };
        let main_h = h.saturating_sub(2 + composer_h + budgets_h);
        let top = area.y + 1;
        let row = |y: u16, height: u16| Rect::new(area.x, y, w, height);
        let bottom = |screen: (Rect, Rect, Rect)| Screen {
            title: row(area.y, 1),
            conversation: screen.0,
            subagents: screen.1,
            live: screen.2,
            budgets: row(top + main_h, budgets_h),
            composer: row(top + main_h + budgets_h, composer_h),
            status: row(area.y + h - 1, 1),
        };
        // One pane at a time: when the screen is narrow, or `z` zoomed it.
        if stacked || ui.zoom {
            let main = row(top, main_h);
            let none = Rect::new(area.x, top, 0, 0);
            return bottom(match ui.focus {
                Focus::Subagents | Focus::Live => {
                    let list_h = main_h / 2;
                    let list = Rect::new(area.x, top, w, list_h);
                    let live = Rect::new(area.x, top + list_h, w, main_h - list_h);
                    (none, list, live)
                }
                Focus::Conversation | Focus::Composer => (main, none, none),
            });
        }
        let left_w = split::conversation_width(w, ui.split);
        let right_w = w - left_w;
        let children = state.children.len().min(u16::MAX as usize) as u16;
        let list_h = children
            .saturating_add(2)
            .clamp(3, (main_h * 45 / 100).max(3))
            .min(main_h);
        bottom((
            Rect::new(area.x, top, left_w, main_h),
            Rect::new(area.x + left_w, top, right_w, list_h),
            Rect::new(area.x + left_w, top + list_h, right_w, main_h - list_h),
        ))
    }
}

/// A pane's bordered block with a column of room inside each border.
fn padded_block<'a>(title: impl Into<Line<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    pane_block(title, focused, theme).padding(Padding::horizontal(1))
}

/// A pane's bordered block: its title, and a cyan border when it has focus.
fn pane_block<'a>(title: impl Into<Line<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    let mut spans = vec![Span::raw(" ")];
    spans.extend(title.into().spans);
    spans.push(Span::raw(" "));
    let block = Block::bordered().title(Line::from(spans));
    if focused {
        block.border_style(theme.focus()).title_style(theme.focus())
    } else {
        block
    }
}

/// Whether `focus` is the pane the keys act on (no overlay or dialog on top).
fn has_focus(ui: &Ui, state: &State, focus: Focus) -> bool {
    ui.focus == focus && ui.overlay.is_none() && state.approvals.is_empty()
}

/// Assistant text as rows: headings, lists, tables and highlighted code.
fn markdown(source: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    crate::tui::markdown::render_markdown(source, text::clamp_u16(width), theme)
}

/// A centred rectangle of at most `width` × `height` inside `area`.
fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

/// Where a whole-screen overlay goes (a transcript, an output, the
/// changes): everything but the title and status lines, which stay.
fn between_bars(area: Rect) -> Rect {
    Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(2),
    )
}

/// A bordered overlay in `rect` whose only line says, dimmed, what is missing.
fn missing(frame: &mut Frame<'_>, rect: Rect, title: String, what: &str, theme: &Theme) {
    let block = Block::bordered().title(Line::from(title));
    let inner = overlay_block(frame, rect, block);
    let line = Line::from(Span::styled(what.to_string(), theme.dim()));
    frame
        .buffer_mut()
        .set_line(inner.x, inner.y, &line, inner.width);
}

/// A scrolling list overlay between the title and status bars (`/diff`,
/// `/agents`): `title` in its border, `lines` from the overlay's scroll.
fn list_overlay(
    frame: &mut Frame<'_>,
    area: Rect,
    title: String,
    lines: &[Line<'static>],
    view: &mut View<'_>,
) {
    let theme = view.theme;
    let block = Block::bordered()
        .title(Line::from(title))
        .title_bottom(
            Line::from(ratatui::text::Span::styled(
                " Esc close · ↑↓ PgUp PgDn scroll ",
                theme.dim(),
            ))
            .right_aligned(),
        )
        .border_style(theme.focus())
        .title_style(theme.focus());
    let inner = overlay_block(frame, between_bars(area), block);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let height = inner.height as usize;
    let first = view.ui.overlay_scroll.clamp(lines.len(), height);
    let buf = frame.buffer_mut();
    for (y, line) in lines.iter().skip(first).take(height).enumerate() {
        buf.set_line(inner.x, inner.y + y as u16, line, inner.width);
    }
}

/// Clears `area` and draws a bordered overlay block in it; returns the inside.
fn overlay_block(frame: &mut Frame<'_>, area: Rect, block: Block<'_>) -> Rect {
    frame.render_widget(Clear, area);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

/// The notice shown instead of the workbench on a terminal too small for it.
fn too_small(frame: &mut Frame<'_>, area: Rect, theme: &Theme) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let message = format!(
        "terminal too small: {}×{} — brood needs at least {MIN_WIDTH}×{MIN_HEIGHT}",
        area.width, area.height
    );
    let rows = text::wrap_str(&message, area.width as usize);
    let height = (rows.len().min(area.height as usize)) as u16;
    let y = area.y + (area.height - height) / 2;
    let paragraph = Paragraph::new(message)
        .style(theme.warning())
        .centered()
        .wrap(Wrap { trim: true });
    frame.render_widget(
        paragraph,
        Rect::new(area.x, y, area.width, area.height - (y - area.y)),
    );
}
