//! Which commands of the key table do something now. The status line offers
//! only those, and a replay's help lists only the ones a replay has, so the
//! screen never offers a key that does nothing where it is shown.

use super::keymap::Command;
use super::state::{ChildStatus, EntryKind, State};
use super::ui::Ui;

/// Whether `command` does something in this state: `x` and `m` need a
/// running child selected in a live session, `[ ]` two children, Enter on
/// the conversation a tool cell to expand.
pub fn works(command: Command, state: &State, ui: &Ui) -> bool {
    let last = state.children.len().saturating_sub(1);
    let selected = state.children.get(ui.selected_child.min(last));
    let live = ui.replay.is_none();
    match command {
        Command::StopChild | Command::MessageChild => {
            live && selected.is_some_and(|c| c.status == ChildStatus::Running)
        }
        Command::OpenChild | Command::ToggleLiveMode => selected.is_some(),
        Command::PreviousChild | Command::NextChild => state.children.len() > 1,
        Command::ExpandCells => state
            .entries
            .iter()
            .any(|e| matches!(e.kind, EntryKind::Tool(_))),
        Command::FocusComposer | Command::Interrupt | Command::Quit => live,
        Command::FocusNext
        | Command::FocusPrevious
        | Command::EscComposer
        | Command::HistoryUp
        | Command::HistoryDown
        | Command::ScrollUp
        | Command::ScrollDown
        | Command::PageUp
        | Command::PageDown
        | Command::Top
        | Command::Bottom
        | Command::ToggleTrace
        | Command::Help
        | Command::Close
        | Command::ToggleThinking
        | Command::Zoom
        | Command::NarrowerConversation
        | Command::WiderConversation
        | Command::SearchHistory
        | Command::Send
        | Command::Newline
        | Command::HistoryBack
        | Command::HistoryForward
        | Command::AllowOnce
        | Command::AllowForSession
        | Command::DenyWithReason
        | Command::Deny
        | Command::SendReason
        | Command::PlayPause
        | Command::StepForward
        | Command::StepBack
        | Command::NextChildStart
        | Command::PreviousChildStart
        | Command::Faster
        | Command::Slower
        | Command::ReplayStart
        | Command::ReplayEnd
        | Command::QuitReplay => true,
    }
}

/// Whether a replay has `command` at all: it has no composer, no turn to
/// interrupt and no running child to stop or message.
pub fn in_replay(command: Command) -> bool {
    match command {
        Command::StopChild
        | Command::MessageChild
        | Command::FocusComposer
        | Command::Interrupt
        | Command::Quit => false,
        Command::FocusNext
        | Command::FocusPrevious
        | Command::EscComposer
        | Command::HistoryUp
        | Command::HistoryDown
        | Command::ScrollUp
        | Command::ScrollDown
        | Command::PageUp
        | Command::PageDown
        | Command::Top
        | Command::Bottom
        | Command::PreviousChild
        | Command::NextChild
        | Command::ToggleLiveMode
        | Command::ToggleTrace
        | Command::Help
        | Command::Close
        | Command::ExpandCells
        | Command::ToggleThinking
        | Command::Zoom
        | Command::NarrowerConversation
        | Command::WiderConversation
        | Command::SearchHistory
        | Command::OpenChild
        | Command::Send
        | Command::Newline
        | Command::HistoryBack
        | Command::HistoryForward
        | Command::AllowOnce
        | Command::AllowForSession
        | Command::DenyWithReason
        | Command::Deny
        | Command::SendReason
        | Command::PlayPause
        | Command::StepForward
        | Command::StepBack
        | Command::NextChildStart
        | Command::PreviousChildStart
        | Command::Faster
        | Command::Slower
        | Command::ReplayStart
        | Command::ReplayEnd
        | Command::QuitReplay => true,
    }
}
