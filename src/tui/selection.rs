//! The conversation's selected tool cell and what the keys do with it: ↑/↓
//! select the previous or next one (the view follows), Enter expands only
//! it, `o` opens its whole output in the viewer, where `/` searches.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::state::{EntryKind, State};
use super::ui::{Direction, Overlay, Ui};
use super::viewer::{self, Find};

/// The parent's tool cells, in order: their entry index and call id.
fn tool_cells(state: &State) -> impl DoubleEndedIterator<Item = (usize, &str)> {
    state
        .entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.kind {
            EntryKind::Tool(cell) => Some((i, cell.call_id.as_str())),
            EntryKind::User(_)
            | EntryKind::Assistant { .. }
            | EntryKind::Task(_)
            | EntryKind::Thinking { .. }
            | EntryKind::Notice { .. } => None,
        })
}

/// The selected cell's entry index, if it is still a tool cell.
fn selected(state: &State, ui: &Ui) -> Option<usize> {
    let id = ui.selected.as_deref()?;
    let index = state.entry_of_call(id)?;
    matches!(state.entries.get(index)?.kind, EntryKind::Tool(_)).then_some(index)
}

/// The selected cell, else the latest one (which becomes selected).
fn selected_or_latest(state: &State, ui: &mut Ui) -> Option<usize> {
    if let Some(index) = selected(state, ui) {
        return Some(index);
    }
    let (index, id) = tool_cells(state).next_back()?;
    ui.selected = Some(id.to_string());
    ui.reveal_selected = true;
    Some(index)
}

/// ↑/↓ in the conversation: the previous or next tool cell; the first ↑
/// takes the latest. Past either end (or with no cell to select) the keys
/// scroll a line, as in the other panes.
pub fn select(state: &State, ui: &mut Ui, direction: Direction) {
    let cells: Vec<(usize, &str)> = tool_cells(state).collect();
    let current = ui
        .selected
        .as_deref()
        .and_then(|id| cells.iter().position(|(_, c)| *c == id));
    let next = match (direction, current) {
        (Direction::Backward, None) => cells.len().checked_sub(1),
        (Direction::Backward, Some(i)) => i.checked_sub(1),
        (Direction::Forward, None) => None,
        (Direction::Forward, Some(i)) => Some(i + 1).filter(|n| *n < cells.len()),
    };
    match next.and_then(|n| cells.get(n)) {
        Some((_, id)) => {
            ui.selected = Some(id.to_string());
            ui.reveal_selected = true;
        }
        None => match direction {
            Direction::Backward => ui.conversation.up(1),
            Direction::Forward => ui.conversation.down(1),
        },
    }
}

/// Enter in the conversation: expands the selected cell, or collapses it;
/// the others stay as they are.
pub fn toggle_expanded(state: &State, ui: &mut Ui) {
    if selected_or_latest(state, ui).is_none() {
        return;
    }
    if let Some(id) = ui.selected.clone()
        && !ui.expanded.remove(&id)
    {
        ui.expanded.insert(id);
        ui.reveal_selected = true;
    }
}

/// `o` in the conversation: the selected cell's whole output in the viewer.
pub fn open_output(state: &State, ui: &mut Ui) {
    if let Some(index) = selected_or_latest(state, ui) {
        ui.overlay = Some(Overlay::Output(index));
        ui.overlay_scroll.to_top();
        ui.find = None;
    }
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
        Some(Overlay::Output(index)) => match state.entries.get(index).map(|e| &e.kind) {
            Some(EntryKind::Tool(cell)) => cell.output.clone(),
            _ => return,
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
