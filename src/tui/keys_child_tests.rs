//! Keys that reach one child (`x` stops it, `m` messages it) and the
//! prompts queued for the parent (↑ takes the last one back).

use std::time::Instant;

use crossterm::event::{Event as InputEvent, KeyCode, KeyEvent, KeyModifiers};

use super::{Action, handle};
use crate::event::{AgentId, Event, EventKind, Op, TerminalReason, Usage};
use crate::protocol::SessionInfo;
use crate::tui::state::State;
use crate::tui::ui::{Focus, Ui};

fn press(code: KeyCode) -> InputEvent {
    InputEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn typed(text: &str, state: &State, ui: &mut Ui) {
    for c in text.chars() {
        handle(&press(KeyCode::Char(c)), state, ui, Instant::now());
    }
}

/// A turn with two children: sub-1 running, sub-2 finished.
fn two_children() -> State {
    let mut state = State::new(SessionInfo::scripted("s", "/tmp"));
    let mut seq = 0;
    let mut apply = |agent, kind| {
        seq += 1;
        state.apply(&Event {
            seq,
            t_ms: seq * 10,
            agent,
            kind,
        });
    };
    apply(AgentId::Main, EventKind::UserMessage { text: "go".into() });
    for n in 1..=2 {
        apply(
            AgentId::Sub(n),
            EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
                parent: AgentId::Main,
                parent_call_id: format!("t{n}"),
                profile: "explore".into(),
                model: "light".into(),
                model_name: "m".into(),
                description: format!("job {n}"),
                prompt: "p".into(),
                max_steps: Some(12),
                token_budget: None,
                context_budget: None,
                color: None,
            })),
        );
    }
    apply(AgentId::Sub(2), ended());
    state
}

/// A child's end, completed.
fn ended() -> EventKind {
    EventKind::SubagentEnd {
        reason: TerminalReason::Completed,
        summary: "done".into(),
        steps: 1,
        tool_usage: Default::default(),
        usage: Usage::default(),
        elapsed_ms: 5,
    }
}

#[test]
fn x_stops_the_selected_running_child_and_only_it() {
    let state = two_children();
    let mut ui = Ui::new();
    ui.focus = Focus::Subagents;
    let actions = handle(&press(KeyCode::Char('x')), &state, &mut ui, Instant::now());
    assert_eq!(actions, [Action::Send(Op::StopChild(AgentId::Sub(1)))]);
    assert_eq!(ui.flash.as_deref(), Some("stopping sub-1…"));

    ui.selected_child = 1;
    let actions = handle(&press(KeyCode::Char('x')), &state, &mut ui, Instant::now());
    assert!(actions.is_empty(), "a finished child cannot be stopped");
    assert_eq!(ui.flash.as_deref(), Some("sub-2 is not running"));
}

#[test]
fn m_aims_the_composer_at_the_child_and_enter_sends_it_there() {
    let state = two_children();
    let mut ui = Ui::new();
    ui.focus = Focus::Subagents;
    let actions = handle(&press(KeyCode::Char('m')), &state, &mut ui, Instant::now());
    assert!(actions.is_empty());
    assert_eq!(ui.focus, Focus::Composer);
    assert_eq!(ui.message_to, Some(AgentId::Sub(1)));
    typed("skip tests", &state, &mut ui);
    let actions = handle(&press(KeyCode::Enter), &state, &mut ui, Instant::now());
    assert_eq!(
        actions,
        [Action::Send(Op::MessageChild {
            child: AgentId::Sub(1),
            text: "skip tests".into()
        })]
    );
    assert_eq!(ui.message_to, None);
    assert!(ui.composer_text().is_empty());
    assert!(ui.queued.is_empty(), "not queued for the parent");
}

#[test]
fn esc_takes_the_composer_back_from_the_child_without_interrupting() {
    let state = two_children();
    assert!(state.busy());
    let mut ui = Ui::new();
    ui.focus = Focus::Subagents;
    handle(&press(KeyCode::Char('m')), &state, &mut ui, Instant::now());
    typed("hello", &state, &mut ui);
    let actions = handle(&press(KeyCode::Esc), &state, &mut ui, Instant::now());
    assert!(actions.is_empty(), "nothing is interrupted: {actions:?}");
    assert_eq!(ui.message_to, None);
    assert_eq!(ui.composer_text(), "hello", "what was typed stays");
    // The next Esc is the usual one: it interrupts the running turn.
    let actions = handle(&press(KeyCode::Esc), &state, &mut ui, Instant::now());
    assert_eq!(actions, [Action::Send(Op::Interrupt)]);
}

#[test]
fn up_in_an_empty_composer_takes_the_last_queued_prompt_back_to_edit() {
    let state = two_children();
    let mut ui = Ui::new();
    typed("first", &state, &mut ui);
    handle(&press(KeyCode::Enter), &state, &mut ui, Instant::now());
    typed("second", &state, &mut ui);
    handle(&press(KeyCode::Enter), &state, &mut ui, Instant::now());
    assert_eq!(ui.queued, ["first", "second"], "queued while the turn runs");

    handle(&press(KeyCode::Up), &state, &mut ui, Instant::now());
    assert_eq!(ui.composer_text(), "second");
    assert_eq!(ui.queued, ["first"]);
    typed(" and third", &state, &mut ui);
    handle(&press(KeyCode::Enter), &state, &mut ui, Instant::now());
    assert_eq!(
        ui.queued,
        ["first", "second and third"],
        "edited and queued again"
    );

    // Taken back and cleared, it is dropped.
    handle(&press(KeyCode::Up), &state, &mut ui, Instant::now());
    let now = Instant::now();
    handle(&press(KeyCode::Esc), &two_idle(), &mut ui, now);
    handle(&press(KeyCode::Esc), &two_idle(), &mut ui, now);
    assert!(ui.composer_text().is_empty());
    assert_eq!(ui.queued, ["first"]);
}

/// The same session once its turn is over: Esc no longer interrupts.
fn two_idle() -> State {
    let mut state = two_children();
    state.apply(&Event {
        seq: 99,
        t_ms: 990,
        agent: AgentId::Sub(1),
        kind: ended(),
    });
    state.apply(&Event {
        seq: 100,
        t_ms: 1_000,
        agent: AgentId::Main,
        kind: EventKind::TurnEnd {
            reason: TerminalReason::Completed,
            steps: 1,
            usage: Usage::default(),
        },
    });
    state
}

/// j and k are letters in the composer, never history keys (they were, on
/// the first line: "skip" came out "sip").
#[test]
fn j_and_k_type_in_the_composer() {
    let state = two_idle();
    let mut ui = Ui::new();
    ui.history.push("an earlier prompt".into());
    typed("jack kept joking", &state, &mut ui);
    assert_eq!(ui.composer_text(), "jack kept joking");
}
