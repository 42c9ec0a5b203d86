//! Quitting: Ctrl-D from every focus, overlay and dialog while nothing is
//! typed; never while the composer holds text.

use std::time::Instant;

use crossterm::event::{Event as InputEvent, KeyCode, KeyEvent, KeyModifiers};

use super::{Action, handle};
use crate::event::{AgentId, Event, EventKind};
use crate::tui::state::{SessionInfo, State};
use crate::tui::ui::{Focus, Overlay, Ui};

fn ctrl_d() -> InputEvent {
    InputEvent::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL))
}

fn state() -> State {
    State::new(SessionInfo {
        provider: "scripted".into(),
        model: "scripted".into(),
        light_model: None,
        session: "s".into(),
        trace_path: None,
        cwd: "/tmp".into(),
        context_window: 200_000,
    })
}

/// A session where the parent waits for an answer to an approval.
fn asking() -> State {
    let mut state = state();
    state.apply(&Event {
        seq: 1,
        t_ms: 0,
        agent: AgentId::Main,
        kind: EventKind::ApprovalRequested {
            id: 1,
            call_id: "c1".into(),
            tool: "bash".into(),
            summary: "rm -rf build".into(),
            reason: "`rm -rf build` deletes files".into(),
        },
    });
    assert!(!state.approvals.is_empty());
    state
}

#[test]
fn ctrl_d_quits_from_every_focus_overlay_and_dialog_when_nothing_is_typed() {
    let overlays = [
        None,
        Some(Overlay::Help),
        Some(Overlay::Transcript(AgentId::Sub(1))),
    ];
    for state in [state(), asking()] {
        for focus in Focus::ALL {
            for overlay in overlays {
                let mut ui = Ui::new();
                ui.focus = focus;
                ui.overlay = overlay;
                let actions = handle(&ctrl_d(), &state, &mut ui, Instant::now());
                assert_eq!(actions, vec![Action::Quit], "{focus:?} {overlay:?}");
            }
        }
    }
}

#[test]
fn ctrl_d_does_not_quit_while_the_composer_holds_text() {
    for focus in [Focus::Composer, Focus::Conversation] {
        let mut ui = Ui::new();
        ui.composer.insert_str("half a question");
        ui.focus = focus;
        let actions = handle(&ctrl_d(), &state(), &mut ui, Instant::now());
        assert!(!actions.contains(&Action::Quit), "{focus:?}");
    }
}
