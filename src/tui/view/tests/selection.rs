//! A selected message: its label reversed in the conversation, and its
//! whole text in the viewer.

use insta::assert_snapshot;
use ratatui::style::Modifier;
use serde_json::json;

use super::fixtures::*;
use crate::event::Usage;
use crate::tui::state::State;
use crate::tui::ui::{Focus, Overlay, Selected, Ui};

/// Two turns: a question answered after a grep, then a second answer.
fn two_answers() -> State {
    let mut s = Script::default();
    s.user(0, MAIN, "where is the total computed?")
        .call(10, MAIN, "g1", "grep", json!({"pattern": "total"}))
        .result(20, MAIN, "g1", "grep", "src/cart.rs:4: total += x", false)
        .say(
            30,
            MAIN,
            "In `src/cart.rs`, line 4:\n\n- `total += x` adds each price.",
            0,
            Usage::default(),
        )
        .user(40, MAIN, "and the tax?")
        .say(50, MAIN, "There is no tax yet.", 0, Usage::default());
    s.state(60)
}

fn answer_index(state: &State, text: &str) -> usize {
    state
        .entries
        .iter()
        .position(|e| matches!(&e.kind, crate::tui::state::EntryKind::Assistant { text: t, .. } if t.starts_with(text)))
        .unwrap_or(usize::MAX)
}

#[test]
fn a_selected_answer_shows_as_selected() {
    let state = two_answers();
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    ui.selected = Some(Selected::Message(answer_index(&state, "In `src")));
    let buf = draw(&state, &mut ui, 90, 20, &color());
    assert_snapshot!("selected_answer", text(&buf));
    let (_, modifier) = style_at(&buf, "brood  In src/cart.rs");
    assert!(modifier.contains(Modifier::REVERSED), "the selected answer");
    let (_, modifier) = style_at(&buf, "brood  There is no tax");
    assert!(!modifier.contains(Modifier::REVERSED), "the other answer");
}

#[test]
fn a_selected_answer_opens_whole_in_the_viewer() {
    let state = two_answers();
    let mut ui = Ui::new();
    ui.overlay = Some(Overlay::Output(answer_index(&state, "In `src")));
    let buf = draw(&state, &mut ui, 90, 16, &color());
    assert_snapshot!("answer_in_viewer", text(&buf));
    assert!(
        find(&buf, " brood answer · 3 lines ").is_some(),
        "{}",
        text(&buf)
    );
    assert!(find(&buf, "3 - `total += x` adds each price.").is_some());
}
