//! Small bugs, each with the test that would have caught it: footers that
//! offered keys doing nothing, a replay's help listing a live session's
//! keys, narrow task cells losing their child's id.

use std::time::Instant;

use crossterm::event::{Event as InputEvent, KeyCode, KeyEvent, KeyModifiers};

use super::fixtures::*;
use super::scenes::*;
use crate::tui::keys;
use crate::tui::state::State;
use crate::tui::ui::{Focus, Overlay, ReplayBar, Ui};

fn status_line(state: &State, ui: &mut Ui) -> String {
    let shown = text(&draw(state, ui, 130, 40, &color()));
    shown.lines().last().unwrap_or_default().to_string()
}

fn replay_bar() -> ReplayBar {
    ReplayBar {
        position: 10,
        total: 100,
        loading: false,
        recorded_ms: 1_000,
        total_ms: 12_000,
        speed: 1.0,
        playing: false,
        skipped: 0,
        source: "session.jsonl · brood".into(),
        pace: crate::tui::ui::Pace::Recorded,
        rewound: None,
    }
}

/// `x stop` and `m message` are offered for a running child only, and never
/// in a replay; `[ ] child` only with two children to move between.
#[test]
fn footers_offer_only_keys_that_work_there() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Subagents;
    ui.selected_child = 0;
    let running = status_line(&state, &mut ui);
    assert!(running.contains("x stop"), "{running}");
    ui.selected_child = 1;
    let done = status_line(&state, &mut ui);
    assert!(
        !done.contains("x stop") && !done.contains("m message"),
        "sub-2 has ended: {done}"
    );
    ui.open(Overlay::Transcript(sub(2)));
    let transcript = status_line(&state, &mut ui);
    assert!(!transcript.contains("x stop"), "{transcript}");
    assert!(transcript.contains("[ ] child"), "{transcript}");
    // In a replay nothing can be stopped or messaged.
    let mut ui = Ui::new();
    ui.focus = Focus::Subagents;
    ui.replay = Some(replay_bar());
    let replay = status_line(&state, &mut ui);
    assert!(!replay.contains("x stop"), "{replay}");
    // One child: nothing to move between.
    let mut one = Script::default();
    one.user(0, MAIN, "one")
        .call(10, MAIN, "t1", "task", task_input("look", "explore"))
        .start(20, 1, "t1", "explore", "look");
    let mut ui = Ui::new();
    ui.focus = Focus::Live;
    let line = status_line(&one.state(100), &mut ui);
    assert!(!line.contains("[ ] child"), "{line}");
}

/// A replay's help lists the replay's keys and none that need a live
/// session (interrupting a turn, stopping or messaging a child, the
/// composer); `m` in a replay does not move to a composer it lacks.
#[test]
fn a_replays_help_lists_replay_keys() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    ui.replay = Some(replay_bar());
    ui.open(Overlay::Help);
    let help = text(&draw(&state, &mut ui, 130, 120, &color()));
    for shown in ["Replay", "play/pause", "one event", "A child's transcript"] {
        assert!(help.contains(shown), "{shown}: {help}");
    }
    for hidden in [
        "interrupt the turn",
        "stop the selected child",
        "send the selected child a message",
        "to the composer",
        "Composer",
        "Commands (typed in the composer)",
    ] {
        assert!(!help.contains(hidden), "{hidden}: {help}");
    }
    ui.overlay = None;
    ui.focus = Focus::Subagents;
    let m = InputEvent::Key(KeyEvent::new(KeyCode::Char('m'), KeyModifiers::NONE));
    assert!(keys::handle(&m, &state, &mut ui, Instant::now()).is_empty());
    assert_eq!(ui.focus, Focus::Subagents);
    assert_eq!(ui.message_to, None);
}

/// A task cell too narrow for all it says keeps `task sub-N`: its time and
/// tokens go first, then the description.
#[test]
fn narrow_task_cells_keep_the_child_id() {
    let mut s = three_children();
    s.end(
        11_500,
        3,
        crate::event::TerminalReason::ContextBudget,
        "ran out of context",
        30,
        usage(120_000, 3_000),
        65_430,
    )
    .result(
        11_510,
        MAIN,
        "t3",
        "task",
        "{\"text\":\"sub-3 failed\"}",
        true,
    );
    let state = s.state(12_000);
    let mut ui = Ui::new();
    ui.split = Some(25);
    let shown = text(&draw(&state, &mut ui, 100, 30, &color()));
    // The conversation's column: up to the border between the panes.
    let row = shown
        .lines()
        .filter_map(|l| l.split("││").next())
        .find(|l| l.contains("context_budget"))
        .unwrap_or_default();
    assert!(row.contains("task sub-3"), "{row}\n{shown}");
}

/// Every trace row keeps a space between its type and its detail, even for
/// a type longer than the column (`permission_decisionallow:` read as one
/// word before).
#[test]
fn trace_rows_keep_a_space_after_any_type() {
    use crate::tui::state::{Mark, TimelineRow};
    let mut state = three_children().state(12_000);
    for kind in ["permission_decision", "a_type_longer_than_the_column"] {
        state.timeline.push(TimelineRow {
            seq: 99,
            t_ms: 12_000,
            agent: MAIN,
            kind,
            mark: Mark::Plain,
            detail: "allow: no destructive command found".into(),
            count: 1,
        });
    }
    let mut ui = Ui::new();
    ui.show_trace = true;
    let shown = text(&draw(&state, &mut ui, 160, 40, &color()));
    assert!(shown.contains("permission_decision allow:"), "{shown}");
    assert!(
        shown.contains("a_type_longer_than_the_column allow:"),
        "{shown}"
    );
}

/// `↑↓ scroll` is offered where there is more than fits: a transcript that
/// fits offers only to close it, in its border and on the status line.
#[test]
fn scrolling_is_offered_only_where_there_is_more() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.open(Overlay::Transcript(sub(3)));
    let shown = text(&draw(&state, &mut ui, 130, 40, &color()));
    let status = shown.lines().last().unwrap_or_default();
    assert!(!status.contains("scroll"), "{status}");
    assert!(!shown.contains("PgDn scroll"), "{shown}");
    ui.open(Overlay::Transcript(sub(1)));
    let shown = text(&draw(&state, &mut ui, 130, 12 + 8, &color()));
    let status = shown.lines().last().unwrap_or_default();
    assert!(status.contains("↑↓ scroll"), "{status}\n{shown}");
    // A conversation that fits offers no scrolling either.
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    let status = status_line(&state, &mut ui);
    assert!(!status.contains("↑↓ scroll"), "{status}");
}
