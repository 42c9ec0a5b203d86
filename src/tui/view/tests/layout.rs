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

/// A parent turn with nine children: sub-1 and sub-6 done, sub-2 and sub-4
/// failed, sub-9 waiting for an approval, the others running, each with a
/// few tool calls (with `Asking::No`, sub-9 runs without asking).
fn nine_children(asking: Asking) -> Script {
    use crate::event::{EventKind, TerminalReason};
    use serde_json::json;
    let mut s = Script::default();
    s.user(0, MAIN, "Audit every service at once.");
    for n in 1..=9u32 {
        let call = format!("t{n}");
        let description = format!("audit service {n}");
        s.call(10, MAIN, &call, "task", task_input(&description, "explore"))
            .start(20 + u64::from(n), n, &call, "explore", &description);
        for k in 0..3u64 {
            let id = format!("c{n}-{k}");
            let t = 100 + u64::from(n) * 10 + k * 200;
            s.request(t, sub(n), k as u32 + 1);
            match n == 9 && k == 2 {
                true => s.call(
                    t + 1,
                    sub(n),
                    &id,
                    "bash",
                    json!({"command": "rm -rf svc9/tmp"}),
                ),
                false => s.call(
                    t + 1,
                    sub(n),
                    &id,
                    "grep",
                    json!({"pattern": format!("TODO{k}"), "path": format!("svc{n}/")}),
                ),
            };
            if !(n == 9 && k == 2) {
                s.result(
                    t + 50,
                    sub(n),
                    &id,
                    "grep",
                    "svc/a.rs:1:// TODO",
                    n == 4 && k == 1,
                );
            }
        }
    }
    for (n, reason) in [
        (1, TerminalReason::Completed),
        (2, TerminalReason::MaxSteps),
        (4, TerminalReason::ModelError),
        (6, TerminalReason::Completed),
    ] {
        s.end(
            1_000 + u64::from(n),
            n,
            reason,
            "three TODOs",
            3,
            usage(9_000, 300),
            980,
        );
    }
    if asking == Asking::No {
        return s;
    }
    s.push(
        1_100,
        sub(9),
        EventKind::ApprovalRequested(Box::new(crate::event::ApprovalAsk {
            id: 1,
            call_id: "c9-2".into(),
            tool: "bash".into(),
            summary: "rm -rf svc9/tmp".into(),
            reason: "deletes files".into(),
            session_rule: "rm".into(),
        })),
    );
    s
}

#[derive(PartialEq)]
enum Asking {
    Yes,
    No,
}

/// Every list that cannot show all its rows says how many it leaves out and
/// which need the user, at 80×24 (stacked) and 130×40.
#[test]
fn lists_say_what_they_hide_with_nine_children() {
    let state = nine_children(Asking::Yes).state(1_200);
    let mut ui = Ui::new();
    let buf = draw(&state, &mut ui, 130, 40, &color());
    let shown = text(&buf);
    assert_snapshot!("nine_children_130x40", shown);
    let asking = shown
        .lines()
        .find(|l| l.contains("? sub-9"))
        .unwrap_or_default();
    assert!(
        asking.contains("approve?"),
        "the list says who asks: {shown}"
    );
    // The budgets: six rows of nine, sub-9 (asking) among them.
    let budgets: Vec<&str> = shown
        .lines()
        .skip_while(|l| !l.contains("Budgets"))
        .take(9)
        .collect();
    let budgets = budgets.join("\n");
    assert!(budgets.contains("sub-9"), "{budgets}");
    assert!(budgets.contains("↓ 3 more"), "{budgets}");
    // The live pane, every child's lines: the earlier ones are counted.
    ui.live_mode = crate::tui::ui::LiveMode::All;
    ui.selected_child = 8;
    let shown = text(&draw(&state, &mut ui, 130, 40, &color()));
    assert!(shown.contains("more (1 failed)"), "{shown}");
    // Stacked: the budgets' one line names the asking and failed children.
    let mut ui = Ui::new();
    let shown = text(&draw(&state, &mut ui, 80, 24, &color()));
    assert_snapshot!("nine_children_80x24", shown);
    let folded = shown.lines().rev().nth(4).unwrap_or_default();
    assert!(
        folded.contains("1 waiting for approval · 2 failed"),
        "{folded}"
    );
    // The list of children, shorter than them, names the one asking.
    let mut ui = Ui::new();
    let shown = text(&draw(&state, &mut ui, 130, 30, &color()));
    assert!(
        shown.contains("↓ 4 more (1 waiting for approval)"),
        "{shown}"
    );
    // Stacked, scrolled to the last (no dialog over it this time).
    let state = nine_children(Asking::No).state(1_200);
    let mut ui = Ui::new();
    ui.focus = Focus::Subagents;
    ui.selected_child = 8;
    let shown = text(&draw(&state, &mut ui, 80, 24, &color()));
    assert_snapshot!("nine_children_80x24_subagents", shown);
    assert!(shown.contains("↑ 2 more (1 failed)"), "{shown}");
}

/// A child that ended stays in the budgets, dimmed, until the parent's next
/// turn starts.
#[test]
fn ended_children_stay_dimmed_in_the_budgets_until_the_next_turn() {
    use crate::event::{EventKind, TerminalReason};
    use ratatui::style::Modifier;
    let mut s = three_children();
    s.push(
        12_100,
        MAIN,
        EventKind::TurnEnd {
            reason: TerminalReason::Completed,
            steps: 2,
            usage: usage(1, 1),
        },
    );
    let budgets_row = |state: &State| {
        let buf = draw(state, &mut Ui::new(), 130, 40, &color());
        let top = find(&buf, "┌ Budgets").map(|(_, y)| y);
        let at = top.and_then(|top| {
            (top..buf.area.height).find_map(|y| {
                let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
                row.find("sub-2  steps").map(|_| y)
            })
        });
        at.and_then(|y| find(&buf, "sub-2  steps").map(|(x, _)| buf[(x, y)].modifier))
    };
    let modifier = budgets_row(&s.state(12_200)).expect("sub-2 still in the budgets");
    assert!(modifier.contains(Modifier::DIM), "{modifier:?}");
    s.user(13_000, MAIN, "And the tests?");
    assert_eq!(budgets_row(&s.state(13_100)), None, "gone at the next turn");
}

/// `?` opens the help at its top, and its border says how much more there
/// is below (and, scrolled to the end, above) at 80×24.
#[test]
fn help_opens_at_its_top_and_says_it_scrolls() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    press('?', &state, &mut ui);
    let shown = text(&draw(&state, &mut ui, 80, 24, &color()));
    assert_snapshot!("help_80x24", shown);
    let first = shown.lines().nth(1).unwrap_or_default();
    assert!(first.contains("Anywhere"), "{first}");
    let bottom = shown.lines().rev().nth(1).unwrap_or_default();
    assert!(
        bottom.contains("↓") && bottom.contains("more · Esc close"),
        "{bottom}"
    );
    let end = InputEvent::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
    keys::handle(&end, &state, &mut ui, Instant::now());
    let shown = text(&draw(&state, &mut ui, 80, 24, &color()));
    let bottom = shown.lines().rev().nth(1).unwrap_or_default();
    assert!(
        bottom.contains(" ↑ ") && !bottom.contains(" ↓ "),
        "{bottom}"
    );
}
