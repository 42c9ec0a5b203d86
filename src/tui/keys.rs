//! Keys and mouse to actions. A pure function of the input, the session state and
//! the keyboard state, so every binding is tested without a terminal; it returns
//! what the app must do (send an `Op`, quit) and changes only `Ui`.

use super::child_keys::{message_child, select_child, send_to_child, stop_child};
use super::commands;
use super::selection;
use super::slash::{self, Parsed};
use super::ui::HistorySearch;
use std::time::{Duration, Instant};

use crossterm::event::{
    Event as InputEvent, KeyCode, KeyEvent, KeyEventKind, MouseEvent, MouseEventKind,
};

use super::keymap::{self, Command, Place};
use super::state::State;
use super::ui::{Direction, Focus, LiveMode, MouseMode, Overlay, Ui, empty_composer};
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
    /// Put this text on the clipboard (OSC 52), and say what was copied.
    Copy {
        what: String,
        text: String,
    },
    /// End this session's workbench for another session.
    Switch(super::app::Next),
    /// Give the mouse to the terminal or take it back.
    Mouse(MouseMode),
    /// Write this Markdown to this file.
    Export {
        path: std::path::PathBuf,
        markdown: String,
        /// The file was named: write over one that is there.
        replace: bool,
    },
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
                paste(ui, text);
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
    // While Ctrl-R searches, typing goes to the query; so it does while
    // the viewer's query is typed.
    if ui.search.is_some() && state.approvals.is_empty() {
        search_key(key, ui);
        return Vec::new();
    }
    if selection::typing(ui) && state.approvals.is_empty() {
        selection::find_key(key, state, ui);
        return Vec::new();
    }
    // A reason typed for an approval that is no longer first is dropped.
    if let Some(approval) = state.approvals.first()
        && ui
            .deny_reason
            .as_ref()
            .is_some_and(|(id, _)| *id != approval.id)
    {
        ui.deny_reason = None;
    }
    match keymap::lookup(&places(state, ui), key) {
        Some(command) => run(command, key, state, ui, now),
        None => {
            type_key(key, state, ui);
            Vec::new()
        }
    }
}

/// Where keys act now, first place first: what the key table is read for,
/// by dispatch and by the status line alike.
pub fn places(state: &State, ui: &Ui) -> Vec<Place> {
    let mut places = vec![Place::Anywhere];
    if !state.approvals.is_empty() {
        places.push(match ui.deny_reason {
            Some(_) => Place::Reason,
            None => Place::Approval,
        });
        return places;
    }
    match ui.overlay {
        Some(Overlay::Help) => places.push(Place::Help),
        Some(Overlay::Transcript(_)) => places.push(Place::Transcript),
        Some(Overlay::Output(_)) => places.push(Place::Viewer),
        Some(Overlay::Diffs | Overlay::Agents) => places.push(Place::Listing),
        None => {
            if ui.replay.is_some() {
                places.push(Place::Replay);
            }
            match ui.focus {
                Focus::Composer => places.push(Place::Composer),
                Focus::Conversation => places.extend([Place::Conversation, Place::Panes]),
                Focus::Subagents => places.extend([Place::Subagents, Place::Panes]),
                Focus::Live => places.extend([Place::Live, Place::Panes]),
            }
        }
    }
    places
}

/// Runs one command of the key table.
fn run(command: Command, key: &KeyEvent, state: &State, ui: &mut Ui, now: Instant) -> Vec<Action> {
    let children = state.children.len();
    // A replay shows a session; it changes nothing in it.
    if ui.replay.is_some() && !super::available::in_replay(command) {
        ui.say("a replay shows the session: nothing in it can be changed".into());
        return Vec::new();
    }
    match command {
        Command::Interrupt => return ctrl_c(state, ui, now),
        Command::Quit if ui.composer_text().is_empty() => return vec![Action::Quit],
        // Ctrl-D with something typed, `?` in a prompt: they are text.
        Command::Quit => type_key(key, state, ui),
        Command::Help if ui.focus == Focus::Composer && !ui.composer_text().is_empty() => {
            type_key(key, state, ui)
        }
        Command::Help => ui.open(Overlay::Help),
        Command::Close => ui.overlay = None,
        // Tab completes a command being typed.
        Command::FocusNext
            if ui.focus == Focus::Composer && !slash::matching(&ui.composer_text()).is_empty() =>
        {
            if let Some(done) = slash::complete(&ui.composer_text()) {
                ui.composer = empty_composer();
                ui.composer.insert_str(done);
            }
        }
        Command::FocusNext => ui.focus = next_focus(ui, Direction::Forward),
        Command::FocusPrevious => ui.focus = next_focus(ui, Direction::Backward),
        // A replay has no composer.
        Command::FocusComposer if ui.replay.is_some() => {}
        Command::FocusComposer => ui.focus = Focus::Composer,
        // Esc never takes the focus away: the next keys still type.
        Command::EscComposer => return esc_in_composer(state, ui, now),
        // A queued prompt comes back to be edited (or cleared, to drop it).
        Command::HistoryUp if ui.composer_text().is_empty() && !ui.queued.is_empty() => {
            if let Some(last) = ui.queued.pop() {
                ui.composer.insert_str(last);
                ui.say("taken back from the queue: Enter queues it again".into());
            }
        }
        Command::HistoryUp if ui.composer.cursor().0 == 0 => recall(ui, Direction::Backward),
        Command::HistoryDown if ui.composer.cursor().0 + 1 >= ui.composer.lines().len() => {
            recall(ui, Direction::Forward)
        }
        Command::HistoryUp | Command::HistoryDown => type_key(key, state, ui),
        Command::ScrollUp => scroll_of(ui).up(1),
        Command::ScrollDown => scroll_of(ui).down(1),
        Command::PageUp => scroll_of(ui).up(PAGE_LINES),
        Command::PageDown => scroll_of(ui).down(PAGE_LINES),
        Command::Top if ui.overlay.is_none() && ui.focus == Focus::Subagents => {
            ui.selected_child = 0
        }
        Command::Bottom if ui.overlay.is_none() && ui.focus == Focus::Subagents => {
            ui.selected_child = children.saturating_sub(1)
        }
        Command::Top => scroll_of(ui).to_top(),
        Command::Bottom => scroll_of(ui).to_bottom(),
        Command::PreviousChild => select_child(state, ui, Direction::Backward),
        Command::NextChild => select_child(state, ui, Direction::Forward),
        Command::ToggleLiveMode => {
            ui.live_mode = match ui.live_mode {
                LiveMode::Selected => LiveMode::All,
                LiveMode::All => LiveMode::Selected,
            };
            ui.live.to_bottom();
        }
        Command::ToggleTrace => {
            ui.show_trace = !ui.show_trace;
            ui.trace.to_bottom();
        }
        Command::SelectPrevious => selection::select(state, ui, Direction::Backward),
        Command::SelectNext => selection::select(state, ui, Direction::Forward),
        Command::ExpandCell => selection::toggle_expanded(state, ui),
        Command::OpenOutput => selection::open_output(state, ui),
        Command::Copy => return commands::copy(state, ui),
        Command::Find => selection::start_find(ui),
        Command::NextMatch => selection::step_find(ui, true),
        Command::PreviousMatch => selection::step_find(ui, false),
        Command::ToggleThinking => ui.thinking = !ui.thinking,
        Command::Zoom => ui.zoom = !ui.zoom,
        Command::ToggleMouse => return commands::toggle_mouse(ui),
        Command::NarrowerConversation => ui.move_split(Direction::Backward),
        Command::WiderConversation => ui.move_split(Direction::Forward),
        Command::SearchHistory => {
            ui.search = Some(HistorySearch {
                original: ui.composer_text(),
                ..HistorySearch::default()
            });
        }
        Command::OpenChild => {
            if let Some(child) = state.children.get(ui.selected_child) {
                ui.open(Overlay::Transcript(child.id));
            }
        }
        Command::StopChild => return stop_child(state, ui),
        Command::MessageChild => message_child(state, ui),
        Command::Send => return submit(state, ui),
        Command::Newline => ui.composer.insert_newline(),
        Command::HistoryBack => recall(ui, Direction::Backward),
        Command::HistoryForward => recall(ui, Direction::Forward),
        Command::AllowOnce
        | Command::AllowForSession
        | Command::DenyWithReason
        | Command::Deny
        | Command::SendReason => return approval(command, state, ui),
        // The replay's controls are run by the replay player, which reads the
        // same table before it hands a key on.
        Command::PlayPause
        | Command::StepForward
        | Command::StepBack
        | Command::NextChildStart
        | Command::PreviousChildStart
        | Command::Faster
        | Command::Slower
        | Command::ReplayStart
        | Command::ReplayEnd
        | Command::QuitReplay => {}
    }
    Vec::new()
}

/// The next focus in `direction`; a replay's cycle has no composer.
fn next_focus(ui: &Ui, direction: Direction) -> Focus {
    let next = ui.focus.cycle(direction);
    match (next, ui.replay.is_some()) {
        (Focus::Composer, true) => next.cycle(direction),
        _ => next,
    }
}

/// Esc in the composer: interrupts what runs (as Claude Code and Codex do);
/// with nothing running, a second Esc within two seconds clears the text.
fn esc_in_composer(state: &State, ui: &mut Ui, now: Instant) -> Vec<Action> {
    // Esc leaves a message to a child before it interrupts anything.
    if let Some(child) = ui.message_to.take() {
        ui.say(format!(
            "no message for {child}: what is typed goes to brood"
        ));
        return Vec::new();
    }
    if state.busy() {
        ui.say("interrupting…".into());
        return vec![Action::Send(Op::Interrupt)];
    }
    if ui.composer_text().is_empty() {
        return Vec::new();
    }
    let again = ui
        .last_escape
        .is_some_and(|at| now.duration_since(at) <= QUIT_WINDOW);
    if again {
        ui.composer = empty_composer();
        ui.pastes.clear();
        ui.last_escape = None;
        ui.flash = None;
    } else {
        ui.last_escape = Some(now);
        ui.say("Esc again to clear what is typed".into());
    }
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

/// The approval dialog's commands.
fn approval(command: Command, state: &State, ui: &mut Ui) -> Vec<Action> {
    let Some(approval) = state.approvals.first() else {
        return Vec::new();
    };
    let answer = match command {
        Command::AllowOnce => ApprovalAnswer::AllowOnce,
        Command::AllowForSession => ApprovalAnswer::AllowPrefix(approval.session_rule.clone()),
        // `n` asks why first (Enter with nothing typed denies without a reason).
        Command::DenyWithReason => {
            ui.deny_reason = Some((approval.id, String::new()));
            return Vec::new();
        }
        Command::SendReason => match ui.deny_reason.take() {
            Some((_, why)) if !why.trim().is_empty() => {
                ApprovalAnswer::DenyBecause(why.trim().to_string())
            }
            _ => ApprovalAnswer::Deny,
        },
        _ => {
            ui.deny_reason = None;
            ApprovalAnswer::Deny
        }
    };
    vec![Action::Send(Op::Approval {
        id: approval.id,
        answer,
    })]
}

/// A key no row of the table binds: text for the composer or the reason.
fn type_key(key: &KeyEvent, state: &State, ui: &mut Ui) {
    if !state.approvals.is_empty() {
        if let Some((_, reason)) = ui.deny_reason.as_mut() {
            match key.code {
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c)
                    if !c.is_control() && reason.chars().count() < MAX_REASON_CHARS =>
                {
                    reason.push(c)
                }
                _ => {}
            }
        }
        return;
    }
    if ui.overlay.is_none() && ui.focus == Focus::Composer {
        ui.composer.input(*key);
        ui.history_pos = None;
    }
}

/// A key while Ctrl-R searches: it edits the query (the newest prompt
/// holding it is shown), Ctrl-R finds an older one, Enter takes what is
/// shown into the composer, Esc puts back what was typed before.
fn search_key(key: &KeyEvent, ui: &mut Ui) {
    let Some(search) = ui.search.as_mut() else {
        return;
    };
    let ctrl = key
        .modifiers
        .contains(crossterm::event::KeyModifiers::CONTROL);
    let older_than = match key.code {
        KeyCode::Esc => {
            let original = std::mem::take(&mut search.original);
            ui.search = None;
            set_composer(ui, &original);
            return;
        }
        KeyCode::Enter => {
            ui.search = None;
            return;
        }
        KeyCode::Char('r') if ctrl => search.found,
        KeyCode::Backspace => {
            search.query.pop();
            None
        }
        KeyCode::Char(c) if !ctrl && !c.is_control() => {
            search.query.push(c);
            None
        }
        _ => return,
    };
    let before = older_than.unwrap_or(ui.history.len());
    let query = search.query.to_lowercase();
    let found = ui.history[..before.min(ui.history.len())]
        .iter()
        .rposition(|p| p.to_lowercase().contains(&query));
    // Nothing older: the last match stays.
    if found.is_some() || older_than.is_none() {
        search.found = found;
    }
    let shown = search
        .found
        .map(|i| ui.history[i].clone())
        .unwrap_or_else(|| search.original.clone());
    set_composer(ui, &shown);
}

fn set_composer(ui: &mut Ui, text: &str) {
    let mut composer = empty_composer();
    composer.insert_str(text);
    ui.composer = composer;
}

/// The scroll the keys move: the overlay's, else the focused pane's.
fn scroll_of(ui: &mut Ui) -> &mut super::ui::Scroll {
    match ui.overlay {
        Some(_) => &mut ui.overlay_scroll,
        None => focused_scroll(ui),
    }
}

/// Lines from which a paste shows as one block in the composer.
const COLLAPSED_PASTE_LINES: usize = 4;

/// A paste: CR and CRLF are newlines (terminals send either), control
/// characters are shown, not obeyed; a paste of many lines is one marker in
/// the composer, put back whole when the prompt is sent.
fn paste(ui: &mut Ui, text: &str) {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let clean: String = text
        .chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if c.is_control() => char::REPLACEMENT_CHARACTER,
            c => c,
        })
        .collect();
    let lines = clean.lines().count();
    if lines < COLLAPSED_PASTE_LINES {
        ui.composer.insert_str(clean);
        return;
    }
    ui.pastes.push(clean);
    let marker = paste_marker(ui.pastes.len(), lines);
    ui.composer.insert_str(marker);
}

/// `[pasted #1: 120 lines]`, what the composer shows for a long paste.
fn paste_marker(n: usize, lines: usize) -> String {
    format!("[pasted #{n}: {lines} lines]")
}

/// The composer's text with each paste marker replaced by what was pasted.
fn with_pastes(text: &str, pastes: &[String]) -> String {
    pastes
        .iter()
        .enumerate()
        .fold(text.to_string(), |text, (i, pasted)| {
            let marker = paste_marker(i + 1, pasted.lines().count());
            text.replacen(&marker, pasted, 1)
        })
}

/// Sends the composer's text, or queues it while a turn runs (the app sends the
/// queue when the turn ends).
fn submit(state: &State, ui: &mut Ui) -> Vec<Action> {
    let text = with_pastes(&ui.composer_text(), &ui.pastes);
    if text.trim().is_empty() {
        return Vec::new();
    }
    if let Some(child) = ui.message_to.take() {
        return send_to_child(child, text, state, ui);
    }
    let command = match slash::parse(&text) {
        // An unknown command stays to be fixed, and is never sent.
        Parsed::Unknown(name) => {
            ui.say(format!(
                "unknown command /{name}: type / to see the commands"
            ));
            return Vec::new();
        }
        Parsed::Command(command, args) => Some((command, args.to_string())),
        Parsed::Prompt => None,
    };
    ui.composer = empty_composer();
    ui.pastes.clear();
    ui.history.push(text.clone());
    ui.history_pos = None;
    ui.conversation.to_bottom();
    if let Some((command, args)) = command {
        return commands::run_command(command, &args, state, ui);
    }
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

fn focused_scroll(ui: &mut Ui) -> &mut super::ui::Scroll {
    let focus = ui.focus;
    pane_scroll(ui, focus)
}

/// The scroll of `pane` (the live pane's is the trace's while it shows).
fn pane_scroll(ui: &mut Ui, pane: Focus) -> &mut super::ui::Scroll {
    match (pane, ui.show_trace) {
        (Focus::Live, true) => &mut ui.trace,
        (Focus::Live, false) => &mut ui.live,
        (Focus::Subagents, _) => &mut ui.subagents,
        (Focus::Conversation | Focus::Composer, _) => &mut ui.conversation,
    }
}

/// The wheel scrolls the overlay when one shows, else the pane under the
/// pointer (the focused one when the pointer is on none).
fn handle_mouse(mouse: &MouseEvent, ui: &mut Ui) {
    let under = ui
        .panes
        .iter()
        .find(|(_, area)| area.contains(ratatui::layout::Position::new(mouse.column, mouse.row)))
        .map(|(pane, _)| *pane);
    let scroll = match (ui.overlay, under) {
        (Some(_), _) => &mut ui.overlay_scroll,
        (None, Some(pane)) => pane_scroll(ui, pane),
        (None, None) => focused_scroll(ui),
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

#[cfg(test)]
#[path = "keys_child_tests.rs"]
mod child_tests;

#[cfg(test)]
#[path = "keys_outside_tests.rs"]
mod outside_tests;
