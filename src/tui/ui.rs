//! What belongs to the person at the keyboard rather than to the session: focus,
//! scroll positions, overlays, the selected child, the composer. The session's
//! own state is in `state`; views read both.

use std::collections::HashSet;

use tui_textarea::TextArea;

use super::view::split;
use crate::event::AgentId;

/// The pane that keys like arrows and PgUp act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Composer,
    Conversation,
    Subagents,
    Live,
}

impl Focus {
    /// Every pane, in Tab order.
    pub const ALL: [Focus; 4] = [
        Focus::Composer,
        Focus::Conversation,
        Focus::Subagents,
        Focus::Live,
    ];

    /// The next pane for Tab (`forward`) or Shift-Tab.
    pub fn cycle(self, direction: Direction) -> Focus {
        const ORDER: [Focus; 4] = [
            Focus::Composer,
            Focus::Conversation,
            Focus::Subagents,
            Focus::Live,
        ];
        let i = ORDER.iter().position(|f| *f == self).unwrap_or(0);
        let n = ORDER.len();
        match direction {
            Direction::Forward => ORDER[(i + 1) % n],
            Direction::Backward => ORDER[(i + n - 1) % n],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// A view over everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    Help,
    /// A child's whole transcript.
    Transcript(AgentId),
    /// A tool cell's whole output, by its index in `State::entries`.
    Output(usize),
    /// Every file the session changed, with its diffs (`/diff`).
    Diffs,
    /// The subagent profiles and where each came from (`/agents`).
    Agents,
}

/// What the live pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveMode {
    /// The selected child's tool calls.
    Selected,
    /// Every child's, interleaved in event order.
    All,
}

/// A pane's scroll position. At the bottom it follows new lines; scrolled up, it
/// stays on the same lines (anchored to the top) while more arrive below, and
/// follows again once scrolled back to the bottom.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scroll {
    /// First visible line; `None` follows the bottom.
    top: Option<usize>,
    /// The largest first line at the last layout, for moves made between frames.
    last_max: usize,
}

impl Scroll {
    pub fn following(&self) -> bool {
        self.top.is_none()
    }

    pub fn up(&mut self, lines: usize) {
        let top = self.top.unwrap_or(self.last_max);
        self.top = Some(top.saturating_sub(lines));
    }

    pub fn down(&mut self, lines: usize) {
        if let Some(top) = self.top {
            let next = top.saturating_add(lines);
            self.top = (next < self.last_max).then_some(next);
        }
    }

    /// Whether there was more than fits at the last layout: otherwise the
    /// keys that scroll do nothing.
    pub fn scrolls(&self) -> bool {
        self.last_max > 0
    }

    pub fn to_top(&mut self) {
        self.top = Some(0);
    }

    pub fn to_bottom(&mut self) {
        self.top = None;
    }

    /// Scrolls as little as shows rows `start..end` of `total`, shown
    /// `height` at a time (their start when they are taller than that).
    pub fn reveal(&mut self, start: usize, end: usize, total: usize, height: usize) {
        let first = self.clamp(total, height);
        if start < first || end.saturating_sub(start) > height {
            self.top = Some(start);
        } else if end > first + height {
            self.top = Some(end - height);
        }
    }

    /// Lays out `total` lines shown `height` at a time: returns the index of the
    /// first visible line.
    pub fn clamp(&mut self, total: usize, height: usize) -> usize {
        let max = total.saturating_sub(height);
        self.last_max = max;
        match self.top {
            Some(top) if top < max => top,
            Some(_) | None => {
                self.top = None;
                max
            }
        }
    }
}

pub use super::replay::Pace;

/// The replay controls' line, shown where the composer is during a replay.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayBar {
    /// Events applied, of `total` loaded so far.
    pub position: usize,
    pub total: usize,
    /// The file is still being read.
    pub loading: bool,
    /// Recorded time at the position, and of everything loaded.
    pub recorded_ms: u64,
    pub total_ms: u64,
    pub speed: f64,
    pub playing: bool,
    /// Bad lines skipped while loading.
    pub skipped: usize,
    /// What is being replayed (file name and format).
    pub source: String,
    /// Played at its recorded pace, or followed live (`brood watch`).
    pub pace: Pace,
    /// Why the followed file was last read again from its start, if it was.
    pub rewound: Option<String>,
}

/// A selection in the conversation. Tool cells are known by call id, which
/// a rebuilt state keeps; messages by entry index, which stays because
/// entries are only ever appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selected {
    Call(String),
    Message(usize),
}

/// The keyboard side of the workbench.
pub struct Ui {
    pub focus: Focus,
    pub overlay: Option<Overlay>,
    /// The raw event timeline replaces the live pane.
    pub show_trace: bool,
    pub live_mode: LiveMode,
    /// Index into `State::children`.
    pub selected_child: usize,
    pub conversation: Scroll,
    pub subagents: Scroll,
    pub live: Scroll,
    pub trace: Scroll,
    pub overlay_scroll: Scroll,
    /// Tool cells shown whole; the others show their first lines.
    pub expanded: HashSet<String>,
    /// What is selected in the conversation: Enter expands a tool cell, `o`
    /// opens it (or a message) in the viewer, `y` copies it.
    pub selected: Option<Selected>,
    /// The conversation scrolls to the selected cell at the next frame.
    pub reveal_selected: bool,
    /// The search in the output viewer (`/`).
    pub find: Option<super::viewer::Find>,
    /// The model's thinking is shown whole, not folded to a line.
    pub thinking: bool,
    /// The focused pane fills the screen (`z`).
    pub zoom: bool,
    /// The conversation's share of a wide screen in percent (`<` `>`);
    /// `None` until moved, when the layout decides. Remembered across
    /// sessions.
    pub split: Option<u16>,
    /// Ctrl-R's search through earlier prompts, while it runs.
    pub search: Option<HistorySearch>,
    pub composer: TextArea<'static>,
    /// Sent prompts, oldest first, for Ctrl-P/Ctrl-N.
    pub history: Vec<String>,
    /// Position while walking the history; `None` when editing a new prompt.
    pub history_pos: Option<usize>,
    /// Prompts typed while a turn ran, sent when it ends.
    pub queued: Vec<String>,
    /// Who the mouse is for: brood's panes, or the terminal's own selection.
    pub mouse: MouseMode,
    /// The running child the composer's text goes to (`m`), instead of the parent.
    pub message_to: Option<crate::event::AgentId>,
    /// Frame counter for spinners.
    pub spinner: usize,
    /// A short message for the status line ("press Ctrl-C again to quit").
    pub flash: Option<String>,
    /// When Esc was last pressed on a composer with text: a second clears it.
    pub last_escape: Option<std::time::Instant>,
    /// Long pastes, shown in the composer as markers until sent.
    pub pastes: Vec<String>,
    /// When a flash said by [`Ui::say`] goes.
    pub flash_until: Option<std::time::Instant>,
    /// When Ctrl-C was last pressed: a second press soon after quits.
    pub last_interrupt: Option<std::time::Instant>,
    /// Set during a replay: the controls replace the composer.
    pub replay: Option<ReplayBar>,
    /// The reason being typed after `n` in the approval dialog, with the id
    /// of the approval it answers.
    pub deny_reason: Option<(u64, String)>,
    /// Where each pane was last drawn, so the wheel scrolls the pane under the
    /// pointer.
    pub panes: Vec<(Focus, ratatui::layout::Rect)>,
}

impl Default for Ui {
    fn default() -> Self {
        Self::new()
    }
}

/// Who gets the mouse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseMode {
    /// brood: the wheel scrolls the pane under the pointer.
    Panes,
    /// The terminal: its own selection (drag, double-click) works; the
    /// wheel is the terminal's too.
    Terminal,
}

/// Ctrl-R: earlier prompts searched as the query is typed, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistorySearch {
    pub query: String,
    /// The history entry shown, if one matches.
    pub found: Option<usize>,
    /// What the composer held before, for Esc.
    pub original: String,
}

/// How long a word said on the status line stays.
pub const SAID_FOR: std::time::Duration = std::time::Duration::from_secs(6);

impl Ui {
    /// Says `text` on the status line for a few seconds.
    pub fn say(&mut self, text: String) {
        self.flash = Some(text);
        self.flash_until = Some(std::time::Instant::now() + SAID_FOR);
    }

    pub fn new() -> Self {
        Ui {
            focus: Focus::Composer,
            overlay: None,
            show_trace: false,
            live_mode: LiveMode::Selected,
            selected_child: 0,
            conversation: Scroll::default(),
            subagents: Scroll::default(),
            live: Scroll::default(),
            trace: Scroll::default(),
            overlay_scroll: Scroll::default(),
            expanded: HashSet::new(),
            selected: None,
            reveal_selected: false,
            find: None,
            thinking: false,
            zoom: false,
            split: None,
            search: None,
            composer: empty_composer(),
            history: Vec::new(),
            history_pos: None,
            queued: Vec::new(),
            message_to: None,
            mouse: MouseMode::Panes,
            spinner: 0,
            flash: None,
            last_escape: None,
            pastes: Vec::new(),
            flash_until: None,
            last_interrupt: None,
            replay: None,
            deny_reason: None,
            panes: Vec::new(),
        }
    }

    /// Shows `overlay`, from its top.
    pub fn open(&mut self, overlay: Overlay) {
        self.overlay = Some(overlay);
        self.overlay_scroll.to_top();
    }

    /// `<` and `>`: the conversation's share of a wide screen one step smaller
    /// or larger, said on the status line.
    pub fn move_split(&mut self, direction: Direction) {
        let conversation = self.panes.iter().find(|(f, _)| *f == Focus::Conversation);
        let subagents = self.panes.iter().find(|(f, _)| *f == Focus::Subagents);
        // The share shown now: the one moved last, else the layout's own.
        let side_by_side = match (conversation, subagents) {
            (Some((_, c)), Some((_, s))) if !c.is_empty() && !s.is_empty() => {
                Some(split_of(c.width, s.width))
            }
            _ => None,
        };
        let now = self.split.or(side_by_side).unwrap_or(split::DEFAULT);
        let next = match direction {
            Direction::Forward => now.saturating_add(split::STEP),
            Direction::Backward => now.saturating_sub(split::STEP),
        };
        let next = split::clamp(next - next % split::STEP);
        self.split = Some(next);
        let mut said = format!(
            "split {next}/{}: the conversation / the subagents",
            100 - next
        );
        if side_by_side.is_none() {
            said.push_str(match self.zoom {
                true => " (z shows both)",
                false => " (on a screen of 100 columns or more)",
            });
        }
        self.say(said);
    }

    /// The composer's text, lines joined.
    pub fn composer_text(&self) -> String {
        self.composer.lines().join("\n")
    }
}

/// The conversation's share in percent, from the panes' widths.
fn split_of(conversation: u16, subagents: u16) -> u16 {
    let total = u32::from(conversation) + u32::from(subagents);
    let share = (u32::from(conversation) * 100 + total / 2) / total.max(1);
    share.min(100) as u16
}

/// A composer with nothing typed in it.
pub fn empty_composer() -> TextArea<'static> {
    let mut composer = TextArea::default();
    composer.set_placeholder_text("ask brood…");
    composer.set_cursor_line_style(ratatui::style::Style::default());
    composer
}

/// Braille spinner frames.
pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scroll_follows_at_the_bottom_and_holds_when_scrolled_up() {
        let mut s = Scroll::default();
        assert_eq!(s.clamp(100, 10), 90);
        s.clamp(120, 10);
        assert!(s.following());
        s.up(5);
        assert_eq!(s.clamp(120, 10), 105);
        // New lines arrive below: the same lines stay on screen.
        assert_eq!(s.clamp(150, 10), 105);
        s.to_top();
        assert_eq!(s.clamp(150, 10), 0);
        s.down(50);
        assert_eq!(s.clamp(150, 10), 50);
        // Back at the bottom, it follows again.
        s.down(1000);
        assert!(s.following());
        assert_eq!(s.clamp(200, 10), 190);
        // Fewer lines than the height.
        assert_eq!(s.clamp(3, 10), 0);
    }

    #[test]
    fn reveal_scrolls_as_little_as_shows_the_rows() {
        let mut s = Scroll::default();
        s.to_top();
        s.reveal(5, 8, 100, 10);
        assert_eq!(s.clamp(100, 10), 0, "already on screen");
        s.reveal(12, 15, 100, 10);
        assert_eq!(s.clamp(100, 10), 5, "below: its end at the bottom");
        s.reveal(2, 4, 100, 10);
        assert_eq!(s.clamp(100, 10), 2, "above: its start at the top");
        s.reveal(40, 70, 100, 10);
        assert_eq!(s.clamp(100, 10), 40, "taller than the pane: its start");
    }

    #[test]
    fn focus_cycles_both_ways() {
        let mut f = Focus::Composer;
        for _ in 0..4 {
            f = f.cycle(Direction::Forward);
        }
        assert_eq!(f, Focus::Composer);
        assert_eq!(Focus::Composer.cycle(Direction::Backward), Focus::Live);
    }
}
