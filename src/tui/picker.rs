//! The list a bare `brood --resume` opens on: the workspace's saved sessions,
//! newest first, to continue one. State, keys and view are apart; one key
//! table drives both the dispatch and the hint line.

use std::path::PathBuf;

use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::terminal::{self, TerminalError};
use super::theme::Theme;

/// One saved session as the list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct PickerRow {
    pub path: PathBuf,
    pub id: String,
    /// Local time, `2026-12-01 22:10`.
    pub started: String,
    pub first_prompt: String,
    pub turns: usize,
    pub children: usize,
    pub tokens: u64,
}

/// What a key does in the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Up,
    Down,
    First,
    Last,
    Choose,
    Cancel,
}

/// The keys, in the order the hint line names them.
const KEYS: &[(KeyCode, Action, &str)] = &[
    (KeyCode::Up, Action::Up, "↑↓ move"),
    (KeyCode::Down, Action::Down, ""),
    (KeyCode::Char('k'), Action::Up, ""),
    (KeyCode::Char('j'), Action::Down, ""),
    (KeyCode::Home, Action::First, ""),
    (KeyCode::End, Action::Last, ""),
    (KeyCode::Enter, Action::Choose, "Enter continue"),
    (KeyCode::Esc, Action::Cancel, "Esc leave"),
    (KeyCode::Char('q'), Action::Cancel, ""),
];

/// How the list ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picked {
    Session(PathBuf),
    Cancelled,
}

/// The list and its selection.
#[derive(Debug, Clone)]
pub struct Picker {
    workspace: String,
    rows: Vec<PickerRow>,
    selected: usize,
}

impl Picker {
    pub fn new(workspace: String, rows: Vec<PickerRow>) -> Picker {
        Picker {
            workspace,
            rows,
            selected: 0,
        }
    }

    /// Applies one key; `Some` once the list is done.
    pub fn key(&mut self, key: KeyEvent) -> Option<Picked> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Some(Picked::Cancelled);
        }
        let action = KEYS
            .iter()
            .find(|(code, _, _)| *code == key.code)
            .map(|(_, action, _)| *action)?;
        let last = self.rows.len().saturating_sub(1);
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => self.selected = (self.selected + 1).min(last),
            Action::First => self.selected = 0,
            Action::Last => self.selected = last,
            Action::Choose => {
                return Some(match self.rows.get(self.selected) {
                    Some(row) => Picked::Session(row.path.clone()),
                    None => Picked::Cancelled,
                });
            }
            Action::Cancel => return Some(Picked::Cancelled),
        }
        None
    }

    /// Draws the list into `area`: a title, a row per session (as many as
    /// fit, the selected one always among them) and the keys.
    pub fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let height = area.height as usize;
        let width = area.width as usize;
        let mut lines = vec![Line::from(vec![
            Span::styled("brood", theme.agent()),
            Span::styled(
                format!(" · continue a session of {}", self.workspace),
                theme.text(),
            ),
        ])];
        let room = height.saturating_sub(2);
        let first = (self.selected + 1).saturating_sub(room);
        for (i, row) in self.rows.iter().enumerate().skip(first).take(room) {
            let chosen = i == self.selected;
            let head = columns(row, chosen, width);
            let prompt = match row.first_prompt.lines().next() {
                Some(first) if !first.trim().is_empty() => crate::text::visible(first),
                _ => "(no prompt)".into(),
            };
            let rest = width.saturating_sub(unicode_width::UnicodeWidthStr::width(head.as_str()));
            let prompt = fit(&prompt, rest);
            let style = match chosen {
                true => theme.selected(),
                false => theme.text(),
            };
            lines.push(Line::from(vec![
                Span::styled(head, style),
                Span::styled(prompt, if chosen { style } else { theme.dim() }),
            ]));
        }
        let blank = height.saturating_sub(lines.len() + 1);
        lines.extend(std::iter::repeat_n(Line::default(), blank));
        let hint: Vec<&str> = KEYS
            .iter()
            .map(|(_, _, hint)| *hint)
            .filter(|h| !h.is_empty())
            .collect();
        lines.push(Line::styled(hint.join(" · "), theme.dim()));
        frame.render_widget(Paragraph::new(lines), area);
    }
}

/// Widths at which the list also shows the session's id, and its counts.
const WITH_ID: usize = 110;
const WITH_COUNTS: usize = 64;

/// The fixed part of a row, before the first prompt: what fits in `width`.
fn columns(row: &PickerRow, chosen: bool, width: usize) -> String {
    let mark = if chosen { "›" } else { " " };
    let mut head = format!("{mark} {}  ", row.started);
    if width >= WITH_ID {
        head += &format!("{:<22} ", row.id);
    }
    if width >= WITH_COUNTS {
        let children = match row.children {
            1 => "1 child".to_string(),
            n => format!("{n} children"),
        };
        head += &format!(
            "{:>8} {:>11} {:>6} tok  ",
            crate::text::count(row.turns as u64, "turn"),
            children,
            crate::text::tokens(row.tokens),
        );
    }
    head
}

/// `text` cut to `width` columns, with `…` when cut.
fn fit(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    if unicode_width::UnicodeWidthStr::width(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// Shows the list on the terminal until a session is chosen or the list is
/// left; the terminal is given back either way.
pub fn pick(mut picker: Picker) -> Result<Picked, TerminalError> {
    let mut guard = terminal::enter()?;
    let theme = Theme::from_env();
    loop {
        guard.draw(|frame| picker.render(frame, frame.area(), &theme))?;
        match crossterm::event::read().map_err(TerminalError::Draw)? {
            TermEvent::Key(key) => {
                if let Some(picked) = picker.key(key) {
                    return Ok(picked);
                }
            }
            TermEvent::Resize(..)
            | TermEvent::Mouse(_)
            | TermEvent::Paste(_)
            | TermEvent::FocusGained
            | TermEvent::FocusLost => {}
        }
    }
}

#[cfg(test)]
#[path = "picker_tests.rs"]
mod tests;
