//! Commands that reach outside the screen: `/copy` (the clipboard, OSC 52),
//! `/export` (a Markdown file), F2 and `/mouse` (who gets the mouse).

use std::time::Instant;

use crossterm::event::{Event as InputEvent, KeyCode, KeyEvent, KeyModifiers};

use super::{Action, handle};
use crate::event::{AgentId, Event, EventKind, TerminalReason, Usage};
use crate::protocol::SessionInfo;
use crate::tui::state::State;
use crate::tui::ui::{MouseMode, Ui};

fn press(code: KeyCode) -> InputEvent {
    InputEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn run(command: &str, state: &State, ui: &mut Ui) -> Vec<Action> {
    for c in command.chars() {
        handle(&press(KeyCode::Char(c)), state, ui, Instant::now());
    }
    handle(&press(KeyCode::Enter), state, ui, Instant::now())
}

fn session(answers: &[&str]) -> State {
    let mut state = State::new(SessionInfo::scripted("s-1", "/work/shop"));
    let mut seq = 0;
    for answer in answers {
        for kind in [
            EventKind::UserMessage { text: "q".into() },
            EventKind::AssistantMessage {
                text: answer.to_string(),
                tool_calls: 0,
                usage: Usage::default(),
                stop_reason: "end_turn".into(),
            },
            EventKind::TurnEnd {
                reason: TerminalReason::Completed,
                steps: 1,
                usage: Usage::default(),
            },
        ] {
            seq += 1;
            state.apply(&Event {
                seq,
                t_ms: seq * 10,
                agent: AgentId::Main,
                kind,
            });
        }
    }
    state
}

#[test]
fn copy_takes_the_last_answer() {
    let state = session(&["first answer", "the **second** answer"]);
    let mut ui = Ui::new();
    let actions = run("/copy", &state, &mut ui);
    assert_eq!(
        actions,
        [Action::Copy {
            what: "the last answer".into(),
            text: "the **second** answer".into()
        }]
    );
}

#[test]
fn copy_with_no_answer_says_so() {
    let state = session(&[]);
    let mut ui = Ui::new();
    assert!(run("/copy", &state, &mut ui).is_empty());
    assert_eq!(
        ui.flash.as_deref(),
        Some("nothing to copy yet: no answer so far")
    );
}

#[test]
fn export_writes_to_the_workspace_and_never_over_a_file_unless_named() {
    let state = session(&["the answer"]);
    let mut ui = Ui::new();
    let actions = run("/export", &state, &mut ui);
    let [
        Action::Export {
            path,
            markdown,
            replace,
        },
    ] = actions.as_slice()
    else {
        panic!("{actions:?}")
    };
    assert_eq!(path, std::path::Path::new("/work/shop/brood-s-1.md"));
    assert!(!replace);
    assert!(markdown.contains("## brood\n\nthe answer"), "{markdown}");
    let actions = run("/export notes/session.md", &state, &mut ui);
    let [Action::Export { path, replace, .. }] = actions.as_slice() else {
        panic!("{actions:?}")
    };
    assert_eq!(path, std::path::Path::new("/work/shop/notes/session.md"));
    assert!(replace);
}

#[test]
fn f2_and_slash_mouse_hand_the_mouse_over_and_back() {
    let state = session(&[]);
    let mut ui = Ui::new();
    let actions = handle(&press(KeyCode::F(2)), &state, &mut ui, Instant::now());
    assert_eq!(actions, [Action::Mouse(MouseMode::Terminal)]);
    assert_eq!(ui.mouse, MouseMode::Terminal);
    assert!(
        ui.flash
            .as_deref()
            .is_some_and(|f| f.contains("select text"))
    );
    let actions = run("/mouse", &state, &mut ui);
    assert_eq!(actions, [Action::Mouse(MouseMode::Panes)]);
}

/// `y` in the conversation copies the selected cell's output; with none
/// selected, the last answer.
#[test]
fn y_copies_the_selected_cell_s_output_or_the_last_answer() {
    let mut state = session(&["the answer"]);
    for (seq, kind) in [
        (
            50,
            EventKind::ToolCall {
                call_id: "c1".into(),
                name: "bash".into(),
                input: serde_json::json!({"command": "ls"}).into(),
                summary: Box::default(),
            },
        ),
        (
            51,
            EventKind::ToolResult {
                call_id: "c1".into(),
                name: "bash".into(),
                is_error: false,
                content: "exit code: 0\na.rs\nb.rs".into(),
                duration_ms: 4,
            },
        ),
    ] {
        state.apply(&Event {
            seq,
            t_ms: seq * 10,
            agent: AgentId::Main,
            kind,
        });
    }
    let mut ui = Ui::new();
    ui.focus = crate::tui::ui::Focus::Conversation;
    let y = || press(KeyCode::Char('y'));
    assert_eq!(
        handle(&y(), &state, &mut ui, Instant::now()),
        [Action::Copy {
            what: "the last answer".into(),
            text: "the answer".into()
        }]
    );
    handle(&press(KeyCode::Up), &state, &mut ui, Instant::now());
    assert_eq!(
        handle(&y(), &state, &mut ui, Instant::now()),
        [Action::Copy {
            what: "the output of bash".into(),
            text: "exit code: 0\na.rs\nb.rs".into()
        }]
    );
}

#[test]
fn y_copies_an_earlier_answer_or_prompt_once_selected() {
    let state = session(&["the first answer", "the second answer"]);
    let mut ui = Ui::new();
    ui.focus = crate::tui::ui::Focus::Conversation;
    let y = || press(KeyCode::Char('y'));
    let up = |ui: &mut Ui| handle(&press(KeyCode::Up), &state, ui, Instant::now());
    // ↑ ↑ ↑: the second answer, its prompt, the first answer.
    for _ in 0..3 {
        up(&mut ui);
    }
    assert_eq!(
        handle(&y(), &state, &mut ui, Instant::now()),
        [Action::Copy {
            what: "the answer".into(),
            text: "the first answer".into()
        }]
    );
    up(&mut ui);
    assert_eq!(
        handle(&y(), &state, &mut ui, Instant::now()),
        [Action::Copy {
            what: "the prompt".into(),
            text: "q".into()
        }]
    );
}
