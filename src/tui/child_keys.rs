//! The keys that act on one child agent: choosing it, `x` to stop it, `m` to
//! send it a message it reads before its next step.

use super::keys::Action;
use super::state::{ChildStatus, State};
use super::ui::{Direction, Focus, Overlay, Ui, empty_composer};
use crate::event::{AgentId, Op};

/// The selected child (in a transcript, the one shown), if it runs.
fn running_child(state: &State, ui: &mut Ui) -> Option<AgentId> {
    let child = state.children.get(ui.selected_child)?;
    match child.status {
        ChildStatus::Running => Some(child.id),
        ChildStatus::Done | ChildStatus::Failed => {
            ui.say(format!("{} is not running", child.id));
            None
        }
    }
}

/// `x`: stops the selected child alone; it ends `interrupted` and the parent
/// reads that it was stopped.
pub(super) fn stop_child(state: &State, ui: &mut Ui) -> Vec<Action> {
    match running_child(state, ui) {
        Some(child) => {
            ui.say(format!("stopping {child}…"));
            vec![Action::Send(Op::StopChild(child))]
        }
        None => Vec::new(),
    }
}

/// `m`: what is typed next goes to the selected running child.
pub(super) fn message_child(state: &State, ui: &mut Ui) {
    if let Some(child) = running_child(state, ui) {
        ui.message_to = Some(child);
        ui.overlay = None;
        ui.focus = Focus::Composer;
    }
}

/// The composer's text for the child `m` chose, if it still runs.
pub(super) fn send_to_child(
    child: AgentId,
    text: String,
    state: &State,
    ui: &mut Ui,
) -> Vec<Action> {
    let running = state
        .children
        .iter()
        .any(|c| c.id == child && c.status == ChildStatus::Running);
    if !running {
        ui.say(format!("{child} has ended: nothing was sent"));
        return Vec::new();
    }
    ui.composer = empty_composer();
    ui.pastes.clear();
    ui.say(format!("sent to {child}: it reads it before its next step"));
    vec![Action::Send(Op::MessageChild { child, text })]
}

/// The previous or next child; in a transcript, its transcript.
pub(super) fn select_child(state: &State, ui: &mut Ui, direction: Direction) {
    let children = state.children.len();
    if children == 0 {
        return;
    }
    ui.selected_child = match direction {
        Direction::Forward => (ui.selected_child + 1).min(children - 1),
        Direction::Backward => ui.selected_child.saturating_sub(1),
    };
    ui.live.to_bottom();
    if let Some(Overlay::Transcript(_)) = ui.overlay
        && let Some(child) = state.children.get(ui.selected_child)
    {
        ui.open(Overlay::Transcript(child.id));
    }
}
