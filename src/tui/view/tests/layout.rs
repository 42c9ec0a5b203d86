//! The layout's parts that the user moves or that must never hide a row
//! silently: the split between the conversation and the subagents, and the
//! lists that say how many rows they leave out.

use std::time::Instant;

use crossterm::event::{Event as InputEvent, KeyCode, KeyEvent, KeyModifiers};
use insta::assert_snapshot;

use super::fixtures::*;
use super::scenes::*;
use crate::tui::keys;
use crate::tui::state::State;
use crate::tui::ui::{Focus, Ui};

fn press(c: char, state: &State, ui: &mut Ui) {
    let key = InputEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    keys::handle(&key, state, ui, Instant::now());
}

fn pane_width(ui: &Ui, focus: Focus) -> u16 {
    ui.panes
        .iter()
        .find(|(f, _)| *f == focus)
        .map_or(0, |(_, r)| r.width)
}

/// `>` and `<` move the split in steps of 5 from the layout's own, say it
/// on the status line, and stop where either side would get too narrow.
#[test]
fn the_split_moves_in_steps_and_keeps_both_panes_readable() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    draw(&state, &mut ui, 130, 30, &color());
    assert_eq!(pane_width(&ui, Focus::Conversation), 58, "45% before");
    press('>', &state, &mut ui);
    press('>', &state, &mut ui);
    assert_eq!(ui.split, Some(55));
    let buf = draw(&state, &mut ui, 130, 30, &color());
    assert_snapshot!("split_55_130x30", text(&buf));
    assert_eq!(pane_width(&ui, Focus::Conversation), 71);
    assert!(text(&buf).contains("split 55/45"), "said while it moves");
    for _ in 0..5 {
        press('<', &state, &mut ui);
    }
    assert_eq!(ui.split, Some(30));
    let buf = draw(&state, &mut ui, 130, 30, &color());
    assert_snapshot!("split_30_130x30", text(&buf));
    assert_eq!(pane_width(&ui, Focus::Conversation), 40, "its floor");
    // Far past either end: both panes keep room.
    for _ in 0..20 {
        press('>', &state, &mut ui);
    }
    assert_eq!(ui.split, Some(75));
    draw(&state, &mut ui, 130, 30, &color());
    assert!(pane_width(&ui, Focus::Subagents) >= 36);
    draw(&state, &mut ui, 100, 30, &color());
    assert_eq!(pane_width(&ui, Focus::Subagents), 36);
    for _ in 0..20 {
        press('<', &state, &mut ui);
    }
    assert_eq!(ui.split, Some(25));
    draw(&state, &mut ui, 100, 30, &color());
    assert_eq!(pane_width(&ui, Focus::Conversation), 40);
}

/// On a stacked screen the split still moves (for the next wide one), and
/// says why it does not show.
#[test]
fn the_split_says_when_the_screen_is_too_narrow_to_show_it() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    draw(&state, &mut ui, 80, 24, &color());
    press('>', &state, &mut ui);
    assert_eq!(ui.split, Some(50));
    let flash = ui.flash.clone().unwrap_or_default();
    assert!(flash.contains("100 columns"), "{flash}");
}
