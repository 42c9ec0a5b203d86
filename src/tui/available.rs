//! Which commands of the key table do something now. The status line offers
//! only those, and a replay's help lists only the ones a replay has, so the
//! screen never offers a key that does nothing where it is shown.

use super::keymap::Command;
use super::state::{ChildStatus, EntryKind, State};
use super::ui::{Focus, Scroll, Ui};

/// What a command needs to do anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    Nothing,
    /// A live session: a replay has no turn, no composer, nothing to change.
    LiveSession,
    /// A live session and a running child selected (`x`, `m`).
    RunningChild,
    /// A child selected.
    AChild,
    /// Two children to move between.
    TwoChildren,
    /// A tool cell in the conversation to expand.
    ToolCell,
    /// More lines than fit where the keys scroll (the overlay, else the
    /// focused pane).
    Scrolling,
}

/// The one list of what each command needs.
fn needs(command: Command) -> Needs {
    match command {
        Command::StopChild | Command::MessageChild => Needs::RunningChild,
        Command::FocusComposer | Command::Interrupt | Command::Quit => Needs::LiveSession,
        Command::OpenChild | Command::ToggleLiveMode => Needs::AChild,
        Command::PreviousChild | Command::NextChild => Needs::TwoChildren,
        Command::ExpandCell | Command::OpenOutput => Needs::ToolCell,
        Command::ScrollUp | Command::ScrollDown | Command::PageUp | Command::PageDown => {
            Needs::Scrolling
        }
        Command::FocusNext
        | Command::FocusPrevious
        | Command::EscComposer
        | Command::HistoryUp
        | Command::HistoryDown
        | Command::Top
        | Command::Bottom
        | Command::ToggleTrace
        | Command::Help
        | Command::Close
        | Command::ToggleThinking
        | Command::SelectPrevious
        | Command::SelectNext
        | Command::Find
        | Command::NextMatch
        | Command::PreviousMatch
        | Command::Copy
        | Command::ToggleMouse
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
        | Command::QuitReplay => Needs::Nothing,
    }
}

/// Whether `command` does something in this state: `x` and `m` need a
/// running child selected in a live session, `[ ]` two children, Enter on
/// the conversation a tool cell to expand.
pub fn works(command: Command, state: &State, ui: &Ui) -> bool {
    let last = state.children.len().saturating_sub(1);
    let selected = state.children.get(ui.selected_child.min(last));
    let live = ui.replay.is_none();
    match needs(command) {
        Needs::Nothing => true,
        Needs::LiveSession => live,
        Needs::RunningChild => live && selected.is_some_and(|c| c.status == ChildStatus::Running),
        Needs::AChild => selected.is_some(),
        Needs::TwoChildren => state.children.len() > 1,
        Needs::ToolCell => state
            .entries
            .iter()
            .any(|e| matches!(e.kind, EntryKind::Tool(_))),
        Needs::Scrolling => scroll(ui).scrolls(),
    }
}

/// The scroll the keys move now: the overlay's, else the focused pane's.
fn scroll(ui: &Ui) -> &Scroll {
    match (ui.overlay, ui.focus, ui.show_trace) {
        (Some(_), _, _) => &ui.overlay_scroll,
        (None, Focus::Live, true) => &ui.trace,
        (None, Focus::Live, false) => &ui.live,
        (None, Focus::Subagents, _) => &ui.subagents,
        (None, Focus::Conversation | Focus::Composer, _) => &ui.conversation,
    }
}

/// Whether a replay has `command` at all: it has no composer, no turn to
/// interrupt and no running child to stop or message.
pub fn in_replay(command: Command) -> bool {
    match needs(command) {
        Needs::LiveSession | Needs::RunningChild => false,
        Needs::Nothing
        | Needs::AChild
        | Needs::TwoChildren
        | Needs::ToolCell
        | Needs::Scrolling => true,
    }
}
