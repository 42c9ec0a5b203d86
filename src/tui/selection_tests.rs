//! The selected cell: ↑/↓ select tool cells, Enter expands only the
//! selected one, `o` opens its output, `/` searches it.

use std::time::Instant;

use crossterm::event::{Event as InputEvent, KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

use crate::event::{AgentId, Event, EventKind};
use crate::tui::keys::{Action, handle};
use crate::tui::state::State;
use crate::tui::ui::{Focus, Overlay, Selected, Ui};

/// A turn with an answer between three tool calls: grep, bash, read_file.
fn three_calls() -> State {
    let mut state = State::default();
    let mut kinds = vec![EventKind::UserMessage { text: "go".into() }];
    for (id, name, output) in [
        ("g1", "grep", "a.rs:1: fn main\nb.rs:2: fn main"),
        ("b1", "bash", "exit code: 1\nerror: one\nok\nerror: two"),
        ("r1", "read_file", "1\tfn main() {}"),
    ] {
        kinds.push(EventKind::ToolCall {
            call_id: id.into(),
            name: name.into(),
            input: json!({"pattern": "x"}).into(),
            summary: Box::default(),
        });
        kinds.push(EventKind::ToolResult {
            call_id: id.into(),
            name: name.into(),
            is_error: false,
            content: output.into(),
            duration_ms: 5,
        });
    }
    for (seq, kind) in kinds.into_iter().enumerate() {
        state.apply(&Event {
            seq: seq as u64 + 1,
            t_ms: seq as u64 * 10,
            agent: AgentId::Main,
            kind,
        });
    }
    state
}

fn call(id: &str) -> Option<Selected> {
    Some(Selected::Call(id.into()))
}

fn press(code: KeyCode, state: &State, ui: &mut Ui) -> Vec<Action> {
    let key = InputEvent::Key(KeyEvent::new(code, KeyModifiers::NONE));
    handle(&key, state, ui, Instant::now())
}

fn conversation() -> Ui {
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    ui
}

#[test]
fn enter_expands_only_the_selected_cell_and_collapses_it_again() {
    let state = three_calls();
    let mut ui = conversation();
    press(KeyCode::Up, &state, &mut ui);
    assert_eq!(ui.selected, call("r1"), "↑ takes the latest");
    press(KeyCode::Char('k'), &state, &mut ui);
    assert_eq!(ui.selected, call("b1"));
    assert!(ui.reveal_selected, "the view follows the selection");
    press(KeyCode::Enter, &state, &mut ui);
    assert_eq!(ui.expanded.iter().collect::<Vec<_>>(), ["b1"]);
    press(KeyCode::Down, &state, &mut ui);
    press(KeyCode::Enter, &state, &mut ui);
    let mut expanded: Vec<_> = ui.expanded.iter().cloned().collect();
    expanded.sort();
    assert_eq!(expanded, ["b1", "r1"], "each stays as it was left");
    press(KeyCode::Enter, &state, &mut ui);
    assert_eq!(ui.expanded.iter().collect::<Vec<_>>(), ["b1"]);
}

#[test]
fn enter_with_nothing_selected_expands_the_latest_cell_alone() {
    let state = three_calls();
    let mut ui = conversation();
    press(KeyCode::Enter, &state, &mut ui);
    assert_eq!(ui.selected, call("r1"));
    assert_eq!(ui.expanded.iter().collect::<Vec<_>>(), ["r1"]);
}

#[test]
fn past_the_first_or_last_stop_the_arrows_scroll() {
    let state = three_calls();
    let mut ui = conversation();
    // Nothing selected: ↓ scrolls (the pane follows the bottom, so it stays).
    press(KeyCode::Down, &state, &mut ui);
    assert_eq!(ui.selected, None);
    for _ in 0..3 {
        press(KeyCode::Up, &state, &mut ui);
    }
    assert_eq!(ui.selected, call("g1"));
    press(KeyCode::Up, &state, &mut ui);
    assert_eq!(ui.selected, Some(Selected::Message(0)), "then the prompt");
    assert!(ui.conversation.following());
    press(KeyCode::Up, &state, &mut ui);
    assert_eq!(
        ui.selected,
        Some(Selected::Message(0)),
        "the first stays selected"
    );
    assert!(!ui.conversation.following(), "and the pane scrolled up");
}

#[test]
fn o_opens_the_selected_output_and_slash_searches_it() {
    let state = three_calls();
    let mut ui = conversation();
    press(KeyCode::Up, &state, &mut ui);
    press(KeyCode::Up, &state, &mut ui);
    press(KeyCode::Char('o'), &state, &mut ui);
    let bash = state.entry_of_call("b1");
    assert_eq!(ui.overlay, bash.map(Overlay::Output));
    press(KeyCode::Char('/'), &state, &mut ui);
    for c in "ERROR".chars() {
        press(KeyCode::Char(c), &state, &mut ui);
    }
    // While the query is typed, `q` and `n` are letters of it.
    press(KeyCode::Char('q'), &state, &mut ui);
    press(KeyCode::Backspace, &state, &mut ui);
    assert!(ui.overlay.is_some());
    press(KeyCode::Enter, &state, &mut ui);
    let find = ui.find.clone().expect("a search");
    assert_eq!(find.query, "ERROR");
    assert_eq!(find.matches.len(), 2, "any case");
    assert_eq!(find.current, Some(0));
    press(KeyCode::Char('n'), &state, &mut ui);
    assert_eq!(ui.find.as_ref().and_then(|f| f.current), Some(1));
    press(KeyCode::Char('N'), &state, &mut ui);
    assert_eq!(ui.find.as_ref().and_then(|f| f.current), Some(0));
    // Esc while typing leaves the search; Esc again closes the viewer.
    press(KeyCode::Char('/'), &state, &mut ui);
    press(KeyCode::Esc, &state, &mut ui);
    assert!(ui.find.is_none());
    assert!(ui.overlay.is_some());
    press(KeyCode::Esc, &state, &mut ui);
    assert_eq!(ui.overlay, None);
}

#[test]
fn slash_diff_opens_the_changes() {
    let state = three_calls();
    let mut ui = Ui::new();
    ui.composer.insert_str("/diff");
    let sent = press(KeyCode::Enter, &state, &mut ui);
    assert!(sent.is_empty(), "{sent:?}");
    assert_eq!(ui.overlay, Some(Overlay::Diffs));
    press(KeyCode::Char('q'), &state, &mut ui);
    assert_eq!(ui.overlay, None);
}

#[test]
fn a_selected_message_opens_whole_in_the_viewer_and_is_searched_there() {
    let mut state = three_calls();
    state.apply(&Event {
        seq: 100,
        t_ms: 1000,
        agent: AgentId::Main,
        kind: EventKind::AssistantMessage {
            text: "Found it.\nThe bug is in b.rs.".into(),
            tool_calls: 0,
            usage: Default::default(),
            stop_reason: "end_turn".into(),
        },
    });
    let mut ui = conversation();
    press(KeyCode::Up, &state, &mut ui);
    let answer = state.entries.len() - 1;
    assert_eq!(
        ui.selected,
        Some(Selected::Message(answer)),
        "↑ takes the answer"
    );
    press(KeyCode::Enter, &state, &mut ui);
    assert!(ui.expanded.is_empty(), "a message has nothing to expand");
    assert_eq!(ui.overlay, Some(Overlay::Output(answer)));
    press(KeyCode::Char('/'), &state, &mut ui);
    for c in "b.rs".chars() {
        press(KeyCode::Char(c), &state, &mut ui);
    }
    press(KeyCode::Enter, &state, &mut ui);
    let find = ui.find.as_ref().map(|f| (f.matches.len(), f.current));
    assert_eq!(find, Some((1, Some(0))), "the answer's text is searched");
}
