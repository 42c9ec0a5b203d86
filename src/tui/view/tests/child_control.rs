//! What the screen shows of per-child control: the composer aimed at a
//! child (`m`), what the child was told in its transcript, and the prompts
//! queued for the parent.

use insta::assert_snapshot;
use ratatui::style::Color;

use super::fg_at;
use super::fixtures::*;
use super::scenes::three_children;
use crate::event::EventKind;
use crate::tui::ui::{Focus, Overlay, Ui};

#[test]
fn the_composer_says_which_child_a_message_goes_to() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Composer;
    ui.message_to = Some(sub(1));
    ui.composer.insert_str("skip the tests folder");
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("composer_message_to_child", text(&buf));
    assert!(find(&buf, "> message to sub-1").is_some());
    assert_eq!(fg_at(&buf, "> message to sub-1"), Color::Cyan);
}

#[test]
fn a_child_s_transcript_shows_what_the_user_told_it() {
    let mut script = three_children();
    script.push(
        11_000,
        sub(1),
        EventKind::Steer {
            text: "skip the tests folder".into(),
        },
    );
    let state = script.state(12_000);
    let mut ui = Ui::new();
    ui.overlay = Some(Overlay::Transcript(sub(1)));
    ui.overlay_scroll.to_bottom();
    let buf = draw(&state, &mut ui, 100, 30, &color());
    assert_snapshot!("transcript_told_while_running", text(&buf));
    let (x, y) = find(&buf, "you, while it ran").expect("the message's heading");
    assert!(find(&buf, "skip the tests folder").is_some_and(|(_, row)| row == y + 1));
    assert_eq!(
        buf[(x, y)].fg,
        Color::Blue,
        "said by the user, as a prompt is"
    );
}

#[test]
fn queued_prompts_are_listed_above_the_composer_and_none_is_hidden_silently() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.queued = vec![
        "now fix the refresh bug".into(),
        "then run the tests\nand the linter".into(),
        "update the changelog".into(),
        "open a pull request".into(),
        "tell me the cost".into(),
    ];
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("queued_prompts", text(&buf));
    for shown in [
        "5 queued prompts",
        " 1 now fix the refresh bug",
        " 2 then run the tests (+1 lines)",
        " 4 open a pull request",
        "… 1 more queued",
    ] {
        assert!(find(&buf, shown).is_some(), "{shown:?} is on screen");
    }
    assert!(find(&buf, "tell me the cost").is_none());
}

/// More commands than the list's rows: the last row counts the rest.
#[test]
fn the_command_list_counts_what_it_leaves_out() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Composer;
    ui.composer.insert_str("/");
    let buf = draw(&state, &mut ui, 130, 40, &color());
    // Eight rows: seven commands and the count.
    let hidden = crate::tui::slash::COMMANDS.len() - 7;
    assert!(find(&buf, "/help").is_some());
    assert!(find(&buf, "/quit").is_none(), "the last is left out");
    let count = format!("… {hidden} more: type more of the name");
    assert!(find(&buf, &count).is_some(), "{count}");
}
