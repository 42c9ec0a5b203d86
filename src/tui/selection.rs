//! The conversation's selection and what the keys do with it: ↑/↓ select
//! the previous or next tool cell or message (the view follows), Enter
//! expands only the selected cell, `o` opens its whole output (or the whole
//! message) in the viewer, where `/` searches, and `y` copies it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::state::{EntryKind, State};
use super::ui::{Direction, Overlay, Selected, Ui};
use super::viewer::{self, Find};

/// What ↑/↓ stop at, in order: the parent's tool cells, its answers and the
/// user's prompts.
fn selectable(state: &State) -> impl DoubleEndedIterator<Item = Selected> + '_ {
    state
        .entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.kind {
            EntryKind::Tool(cell) => Some(Selected::Call(cell.call_id.clone())),
            EntryKind::Assistant { text, .. } if !text.trim().is_empty() => {
                Some(Selected::Message(i))
            }
            EntryKind::User(_) => Some(Selected::Message(i)),
            EntryKind::Assistant { .. }
            | EntryKind::Task(_)
            | EntryKind::Thinking { .. }
            | EntryKind::Notice { .. } => None,
        })
}

/// The entry index of what is selected, if it is still there.
pub fn selected_entry(state: &State, ui: &Ui) -> Option<usize> {
    match ui.selected.as_ref()? {
        Selected::Call(id) => state.entry_of_call(id),
        Selected::Message(i) => match state.entries.get(*i)?.kind {
            EntryKind::User(_) | EntryKind::Assistant { .. } => Some(*i),
            EntryKind::Tool(_)
            | EntryKind::Task(_)
            | EntryKind::Thinking { .. }
            | EntryKind::Notice { .. } => None,
        },
    }
}

/// Whether entry `index` is the selected one.
pub fn is_selected(index: usize, kind: &EntryKind, ui: &Ui) -> bool {
    match (ui.selected.as_ref(), kind) {
        (Some(Selected::Call(id)), EntryKind::Tool(cell)) => cell.call_id == *id,
        (Some(Selected::Message(i)), EntryKind::Assistant { .. } | EntryKind::User(_)) => {
            *i == index
        }
        (Some(_) | None, _) => false,
    }
}

/// The selected entry, else the latest tool cell (which becomes selected).
fn selected_or_latest(state: &State, ui: &mut Ui) -> Option<usize> {
    if let Some(index) = selected_entry(state, ui) {
        return Some(index);
    }
    let (index, id) = state
        .entries
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, e)| match &e.kind {
            EntryKind::Tool(cell) => Some((i, cell.call_id.clone())),
            _ => None,
        })?;
    ui.selected = Some(Selected::Call(id));
    ui.reveal_selected = true;
    Some(index)
}

/// ↑/↓ in the conversation: the previous or next tool cell or message; the
/// first ↑ takes the latest. Past either end (or with nothing to select)
/// the keys scroll a line, as in the other panes.
pub fn select(state: &State, ui: &mut Ui, direction: Direction) {
    let stops: Vec<Selected> = selectable(state).collect();
    let current = ui
        .selected
        .as_ref()
        .and_then(|s| stops.iter().position(|stop| stop == s));
    let next = match (direction, current) {
        (Direction::Backward, None) => stops.len().checked_sub(1),
        (Direction::Backward, Some(i)) => i.checked_sub(1),
        (Direction::Forward, None) => None,
        (Direction::Forward, Some(i)) => Some(i + 1).filter(|n| *n < stops.len()),
    };
    match next.and_then(|n| stops.get(n)) {
        Some(stop) => {
            ui.selected = Some(stop.clone());
            ui.reveal_selected = true;
        }
        None => match direction {
            Direction::Backward => ui.conversation.up(1),
            Direction::Forward => ui.conversation.down(1),
        },
    }
}

/// Enter in the conversation: expands the selected tool cell, or collapses
/// it, the others staying as they are; a selected message, always shown
/// whole, opens in the viewer instead.
pub fn toggle_expanded(state: &State, ui: &mut Ui) {
    let Some(index) = selected_or_latest(state, ui) else {
        return;
    };
    match ui.selected.clone() {
        // The guard collapses an expanded cell; only a collapsed one gets here.
        Some(Selected::Call(id)) if !ui.expanded.remove(&id) => {
            ui.expanded.insert(id);
            ui.reveal_selected = true;
        }
        Some(Selected::Message(_)) => open(index, ui),
        Some(Selected::Call(_)) | None => {}
    }
}

/// `o` in the conversation: the selected cell's whole output (or the
/// selected message) in the viewer.
pub fn open_output(state: &State, ui: &mut Ui) {
    if let Some(index) = selected_or_latest(state, ui) {
        open(index, ui);
    }
}

fn open(index: usize, ui: &mut Ui) {
    ui.overlay = Some(Overlay::Output(index));
    ui.overlay_scroll.to_top();
    ui.find = None;
}

/// `/` in the viewer: a new query is typed.
pub fn start_find(ui: &mut Ui) {
    ui.find = Some(Find {
        typing: true,
        ..Find::default()
    });
}

/// `n` (`forward`) or `N` in the viewer.
pub fn step_find(ui: &mut Ui, forward: bool) {
    match ui.find.as_mut() {
        Some(find) if !find.matches.is_empty() => find.step(forward),
        Some(find) if !find.query.is_empty() => {
            let said = format!("no match for {}", find.query);
            ui.say(said);
        }
        Some(_) | None => ui.say("/ searches the output".into()),
    }
}

/// Whether the viewer's query is being typed (it takes every key then).
pub fn typing(ui: &Ui) -> bool {
    matches!(ui.overlay, Some(Overlay::Output(_))) && ui.find.as_ref().is_some_and(|f| f.typing)
}

/// A key while the query is typed: Enter searches and goes to the first
/// match, Esc leaves the search, Backspace and characters edit the query.
pub fn find_key(key: &KeyEvent, state: &State, ui: &mut Ui) {
    let output = match ui.overlay {
        Some(Overlay::Output(index)) => match state.entries.get(index) {
            Some(entry) => match viewer::shown(&entry.kind) {
                Some(shown) => shown.text.to_string(),
                None => return,
            },
            None => return,
        },
        _ => return,
    };
    let Some(find) = ui.find.as_mut() else {
        return;
    };
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Esc => ui.find = None,
        KeyCode::Enter if find.query.is_empty() => ui.find = None,
        KeyCode::Enter => {
            find.typing = false;
            find.matches = viewer::find(&viewer::lines(&output), &find.query);
            find.current = None;
            find.step(true);
            if find.matches.is_empty() {
                let said = format!("no match for {}", find.query);
                ui.say(said);
            }
        }
        KeyCode::Backspace => {
            find.query.pop();
        }
        KeyCode::Char(c) if !ctrl && !c.is_control() => find.query.push(c),
        _ => {}
    }
}

#[cfg(test)]
#[path = "selection_tests.rs"]
mod tests;
