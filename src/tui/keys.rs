//! Keys and mouse to actions. A pure function of the input, the session state and
//! the keyboard state, so every binding is tested without a terminal; it returns
//! what the app must do (send an `Op`, quit) and changes only `Ui`.

use std::time::{Duration, Instant};

use crossterm::event::{
    Event as InputEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};

use super::state::{PendingApproval, State};
use super::ui::{Direction, Focus, LiveMode, Overlay, Ui, empty_composer};
use crate::event::{ApprovalAnswer, Op};

/// A second Ctrl-C within this long quits.
pub const QUIT_WINDOW: Duration = Duration::from_secs(2);
/// Lines per wheel notch and per arrow press.
const WHEEL_LINES: usize = 3;
const PAGE_LINES: usize = 20;

/// What the app must do after an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Send(Op),
    Quit,
}

/// Handles one terminal input event.
pub fn handle(input: &InputEvent, state: &State, ui: &mut Ui, now: Instant) -> Vec<Action> {
    match input {
        InputEvent::Key(key) if key.kind != KeyEventKind::Release => {
            handle_key(key, state, ui, now)
        }
        InputEvent::Mouse(mouse) => {
            handle_mouse(mouse, ui);
            Vec::new()
        }
        InputEvent::Paste(text) => {
            if ui.overlay.is_none() {
                ui.focus = Focus::Composer;
                ui.composer.insert_str(text);
            }
            Vec::new()
        }
        InputEvent::Key(_)
        | InputEvent::FocusGained
        | InputEvent::FocusLost
        | InputEvent::Resize(..) => Vec::new(),
    }
}

fn handle_key(key: &KeyEvent, state: &State, ui: &mut Ui, now: Instant) -> Vec<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return ctrl_c(state, ui, now);
    }
    if ctrl && key.code == KeyCode::Char('d') && ui.composer_text().is_empty() {
        return vec![Action::Quit];
    }
    if let Some(approval) = state.approvals.first() {
        return approval_key(key, approval, ui);
    }
    if let Some(overlay) = ui.overlay {
        overlay_key(key, overlay, ui);
        return Vec::new();
    }
    match key.code {
        KeyCode::Tab => {
            ui.focus = ui.focus.cycle(Direction::Forward);
            return Vec::new();
        }
        KeyCode::BackTab => {
            ui.focus = ui.focus.cycle(Direction::Backward);
            return Vec::new();
        }
        _ => {}
    }
    if ui.focus == Focus::Composer {
        return composer_key(key, state, ui);
    }
    pane_key(key, state, ui);
    Vec::new()
}

/// Interrupt a running turn; a second press within two seconds quits.
fn ctrl_c(state: &State, ui: &mut Ui, now: Instant) -> Vec<Action> {
    if ui
        .last_interrupt
        .is_some_and(|at| now.duration_since(at) <= QUIT_WINDOW)
    {
        return vec![Action::Quit];
    }
    ui.last_interrupt = Some(now);
    if state.busy() {
        ui.flash = Some("interrupting… (Ctrl-C again to quit)".into());
        vec![Action::Send(Op::Interrupt)]
    } else {
        ui.flash = Some("press Ctrl-C again to quit".into());
        Vec::new()
    }
}

/// Characters of a typed denial reason at most.
const MAX_REASON_CHARS: usize = 500;

fn approval_key(key: &KeyEvent, approval: &PendingApproval, ui: &mut Ui) -> Vec<Action> {
    // A reason typed for an approval that is no longer first is dropped.
    if ui
        .deny_reason
        .as_ref()
        .is_some_and(|(id, _)| *id != approval.id)
    {
        ui.deny_reason = None;
    }
    if let Some((_, reason)) = ui.deny_reason.as_mut() {
        let answer = match key.code {
            KeyCode::Enter => match reason.trim() {
                "" => ApprovalAnswer::Deny,
                why => ApprovalAnswer::DenyBecause(why.to_string()),
            },
            KeyCode::Esc => ApprovalAnswer::Deny,
            KeyCode::Backspace => {
                reason.pop();
                return Vec::new();
            }
            KeyCode::Char(c) if !c.is_control() => {
                if reason.chars().count() < MAX_REASON_CHARS {
                    reason.push(c);
                }
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        ui.deny_reason = None;
        return vec![Action::Send(Op::Approval {
            id: approval.id,
            answer,
        })];
    }
    let answer = match key.code {
        KeyCode::Char('y') | KeyCode::Char('Y') => ApprovalAnswer::AllowOnce,
        KeyCode::Char('a') | KeyCode::Char('A') => {
            ApprovalAnswer::AllowPrefix(approval.session_rule.clone())
        }
        // `n` asks why first (Enter with nothing typed denies without a reason).
        KeyCode::Char('n') | KeyCode::Char('N') => {
            ui.deny_reason = Some((approval.id, String::new()));
            return Vec::new();
        }
        KeyCode::Esc => ApprovalAnswer::Deny,
        _ => return Vec::new(),
    };
    vec![Action::Send(Op::Approval {
        id: approval.id,
        answer,
    })]
}

fn overlay_key(key: &KeyEvent, overlay: Overlay, ui: &mut Ui) {
    match key.code {
        KeyCode::Esc | KeyCode::Char('q') => ui.overlay = None,
        KeyCode::Char('?') if overlay == Overlay::Help => ui.overlay = None,
        KeyCode::Up | KeyCode::Char('k') => ui.overlay_scroll.up(1),
        KeyCode::Down | KeyCode::Char('j') => ui.overlay_scroll.down(1),
        KeyCode::PageUp => ui.overlay_scroll.up(PAGE_LINES),
        KeyCode::PageDown | KeyCode::Char(' ') => ui.overlay_scroll.down(PAGE_LINES),
        KeyCode::Home | KeyCode::Char('g') => ui.overlay_scroll.to_top(),
        KeyCode::End | KeyCode::Char('G') => ui.overlay_scroll.to_bottom(),
        _ => {}
    }
}

fn composer_key(key: &KeyEvent, state: &State, ui: &mut Ui) -> Vec<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let newline = key
        .modifiers
        .intersects(KeyModifiers::ALT | KeyModifiers::SHIFT);
    match key.code {
        KeyCode::Enter if newline => {
            ui.composer.insert_newline();
            Vec::new()
        }
        KeyCode::Enter => submit(state, ui),
        KeyCode::Char('p') if ctrl => {
            recall(ui, Direction::Backward);
            Vec::new()
        }
        KeyCode::Char('n') if ctrl => {
            recall(ui, Direction::Forward);
            Vec::new()
        }
        KeyCode::Char('?') if ui.composer_text().is_empty() => {
            ui.overlay = Some(Overlay::Help);
            Vec::new()
        }
        KeyCode::Esc => {
            ui.focus = Focus::Conversation;
            Vec::new()
        }
        KeyCode::PageUp => {
            ui.conversation.up(PAGE_LINES);
            Vec::new()
        }
        KeyCode::PageDown => {
            ui.conversation.down(PAGE_LINES);
            Vec::new()
        }
        _ => {
            ui.composer.input(*key);
            ui.history_pos = None;
            Vec::new()
        }
    }
}

/// Sends the composer's text, or queues it while a turn runs (the app sends the
/// queue when the turn ends).
fn submit(state: &State, ui: &mut Ui) -> Vec<Action> {
    let text = ui.composer_text();
    if text.trim().is_empty() {
        return Vec::new();
    }
    ui.composer = empty_composer();
    ui.history.push(text.clone());
    ui.history_pos = None;
    ui.conversation.to_bottom();
    if state.running || !ui.queued.is_empty() {
        ui.queued.push(text);
        return Vec::new();
    }
    vec![Action::Send(Op::UserMessage(text))]
}

/// Ctrl-P (back) and Ctrl-N (forward) through earlier prompts.
fn recall(ui: &mut Ui, direction: Direction) {
    if ui.history.is_empty() {
        return;
    }
    let last = ui.history.len() - 1;
    let next = match (direction, ui.history_pos) {
        (Direction::Backward, None) => Some(last),
        (Direction::Backward, Some(i)) => Some(i.saturating_sub(1)),
        (Direction::Forward, None) => None,
        (Direction::Forward, Some(i)) if i >= last => None,
        (Direction::Forward, Some(i)) => Some(i + 1),
    };
    ui.history_pos = next;
    let text = next.map(|i| ui.history[i].clone()).unwrap_or_default();
    let mut composer = empty_composer();
    composer.insert_str(&text);
    ui.composer = composer;
}

/// Keys of the panes (focus is not the composer).
fn pane_key(key: &KeyEvent, state: &State, ui: &mut Ui) {
    let children = state.children.len();
    match key.code {
        KeyCode::Char('?') => ui.overlay = Some(Overlay::Help),
        KeyCode::Char('t') => {
            ui.show_trace = !ui.show_trace;
            ui.trace.to_bottom();
        }
        KeyCode::Char('a') => {
            ui.live_mode = match ui.live_mode {
                LiveMode::Selected => LiveMode::All,
                LiveMode::All => LiveMode::Selected,
            };
            ui.live.to_bottom();
        }
        KeyCode::Char('[') => select_child(ui, children, Direction::Backward),
        KeyCode::Char(']') => select_child(ui, children, Direction::Forward),
        KeyCode::Char('i') | KeyCode::Esc => ui.focus = Focus::Composer,
        KeyCode::Enter => match ui.focus {
            Focus::Subagents | Focus::Live => {
                if let Some(child) = state.children.get(ui.selected_child) {
                    ui.overlay = Some(Overlay::Transcript(child.id));
                    ui.overlay_scroll.to_top();
                }
            }
            Focus::Conversation => toggle_expanded(state, ui),
            Focus::Composer => {}
        },
        KeyCode::Up | KeyCode::Char('k') if ui.focus == Focus::Subagents => {
            select_child(ui, children, Direction::Backward)
        }
        KeyCode::Down | KeyCode::Char('j') if ui.focus == Focus::Subagents => {
            select_child(ui, children, Direction::Forward)
        }
        KeyCode::Up | KeyCode::Char('k') => focused_scroll(ui).up(1),
        KeyCode::Down | KeyCode::Char('j') => focused_scroll(ui).down(1),
        KeyCode::PageUp => focused_scroll(ui).up(PAGE_LINES),
        KeyCode::PageDown => focused_scroll(ui).down(PAGE_LINES),
        KeyCode::Home | KeyCode::Char('g') => match ui.focus {
            Focus::Subagents => ui.selected_child = 0,
            _ => focused_scroll(ui).to_top(),
        },
        KeyCode::End | KeyCode::Char('G') => match ui.focus {
            Focus::Subagents => ui.selected_child = children.saturating_sub(1),
            _ => focused_scroll(ui).to_bottom(),
        },
        _ => {}
    }
}

fn select_child(ui: &mut Ui, children: usize, direction: Direction) {
    if children == 0 {
        return;
    }
    ui.selected_child = match direction {
        Direction::Forward => (ui.selected_child + 1).min(children - 1),
        Direction::Backward => ui.selected_child.saturating_sub(1),
    };
    ui.live.to_bottom();
}

/// Enter on the conversation expands every tool cell, or collapses them all.
fn toggle_expanded(state: &State, ui: &mut Ui) {
    let calls: Vec<String> = state
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            super::state::EntryKind::Tool(cell) => Some(cell.call_id.clone()),
            _ => None,
        })
        .collect();
    if !calls.is_empty() && calls.iter().all(|c| ui.expanded.contains(c)) {
        ui.expanded.clear();
    } else {
        ui.expanded.extend(calls);
    }
}

fn focused_scroll(ui: &mut Ui) -> &mut super::ui::Scroll {
    match (ui.focus, ui.show_trace) {
        (Focus::Live, true) => &mut ui.trace,
        (Focus::Live, false) => &mut ui.live,
        (Focus::Subagents, _) => &mut ui.subagents,
        (Focus::Conversation | Focus::Composer, _) => &mut ui.conversation,
    }
}

fn handle_mouse(mouse: &MouseEvent, ui: &mut Ui) {
    let scroll = match ui.overlay {
        Some(_) => &mut ui.overlay_scroll,
        None => focused_scroll(ui),
    };
    match mouse.kind {
        MouseEventKind::ScrollUp => scroll.up(WHEEL_LINES),
        MouseEventKind::ScrollDown => scroll.down(WHEEL_LINES),
        _ => {}
    }
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
