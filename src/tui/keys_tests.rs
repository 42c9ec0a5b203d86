//! Quitting: Ctrl-D from every focus, overlay and dialog while nothing is
//! typed; never while the composer holds text.

use std::time::Instant;

use crossterm::event::{Event as InputEvent, KeyCode, KeyEvent, KeyModifiers};

use super::{Action, handle};
use crate::event::{AgentId, Event, EventKind};
use crate::protocol::SessionInfo;
use crate::tui::state::State;
use crate::tui::ui::{Focus, Overlay, Ui};

fn ctrl_d() -> InputEvent {
    InputEvent::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL))
}

fn state() -> State {
    State::new(SessionInfo::scripted("s", "/tmp"))
}

/// A session where the parent waits for an answer to an approval.
fn asking() -> State {
    let mut state = state();
    state.apply(&Event {
        seq: 1,
        t_ms: 0,
        agent: AgentId::Main,
        kind: EventKind::ApprovalRequested(Box::new(crate::event::ApprovalAsk {
            id: 1,
            call_id: "c1".into(),
            tool: "bash".into(),
            summary: "rm -rf build".into(),
            reason: "`rm -rf build` deletes files".into(),
            session_rule: crate::policy::command_prefix("rm -rf build"),
        })),
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

fn press(code: KeyCode) -> InputEvent {
    InputEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// `n` asks why; what is typed goes to the model with the denial; Enter with
/// nothing typed, or Esc, denies without a reason.
#[test]
fn n_then_a_reason_then_enter_denies_with_that_reason() {
    use crate::event::{ApprovalAnswer, Op};
    let state = asking();
    let mut ui = Ui::new();
    let keys = |code: KeyCode, ui: &mut Ui| handle(&press(code), &state, ui, Instant::now());
    assert!(
        keys(KeyCode::Char('n'), &mut ui).is_empty(),
        "n waits for the reason"
    );
    for c in "not yetx".chars() {
        assert!(keys(KeyCode::Char(c), &mut ui).is_empty());
    }
    assert!(keys(KeyCode::Backspace, &mut ui).is_empty());
    let sent = keys(KeyCode::Enter, &mut ui);
    assert_eq!(
        sent,
        vec![Action::Send(Op::Approval {
            id: 1,
            answer: ApprovalAnswer::DenyBecause("not yet".into())
        })]
    );
    assert!(ui.deny_reason.is_none());
    // `y` typed into a reason is text, not "allow".
    keys(KeyCode::Char('n'), &mut ui);
    assert!(keys(KeyCode::Char('y'), &mut ui).is_empty());
    let sent = keys(KeyCode::Esc, &mut ui);
    assert_eq!(
        sent,
        vec![Action::Send(Op::Approval {
            id: 1,
            answer: ApprovalAnswer::Deny
        })]
    );
    keys(KeyCode::Char('n'), &mut ui);
    let sent = keys(KeyCode::Enter, &mut ui);
    assert_eq!(
        sent,
        vec![Action::Send(Op::Approval {
            id: 1,
            answer: ApprovalAnswer::Deny
        })]
    );
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer_not_the_focused_one() {
    use crossterm::event::{MouseEvent, MouseEventKind};
    use ratatui::layout::Rect;
    let state = state();
    let mut ui = Ui::new();
    ui.focus = Focus::Composer;
    ui.panes = vec![
        (Focus::Conversation, Rect::new(0, 1, 40, 20)),
        (Focus::Subagents, Rect::new(40, 1, 40, 8)),
        (Focus::Live, Rect::new(40, 9, 40, 12)),
    ];
    let wheel = |column, row| {
        InputEvent::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollUp,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    handle(&wheel(50, 12), &state, &mut ui, Instant::now());
    assert!(
        !ui.live.following(),
        "the live pane under the pointer scrolled"
    );
    assert!(
        ui.conversation.following(),
        "the focused conversation did not"
    );
    handle(&wheel(5, 5), &state, &mut ui, Instant::now());
    assert!(!ui.conversation.following());
    assert!(ui.subagents.following());
}

#[test]
fn brackets_in_a_transcript_move_to_the_next_childs_transcript() {
    let mut state = state();
    for n in 1..=2 {
        state.apply(&Event {
            seq: 10 + u64::from(n),
            t_ms: 0,
            agent: AgentId::Sub(n),
            kind: EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
                parent: AgentId::Main,
                parent_call_id: format!("t{n}"),
                profile: "explore".into(),
                model: "light".into(),
                model_name: "m".into(),
                description: "d".into(),
                prompt: "p".into(),
                max_steps: None,
                token_budget: None,
                context_budget: None,
                color: None,
            })),
        });
    }
    let mut ui = Ui::new();
    ui.overlay = Some(Overlay::Transcript(AgentId::Sub(1)));
    handle(&press(KeyCode::Char(']')), &state, &mut ui, Instant::now());
    assert_eq!(ui.overlay, Some(Overlay::Transcript(AgentId::Sub(2))));
    handle(&press(KeyCode::Char('[')), &state, &mut ui, Instant::now());
    assert_eq!(ui.overlay, Some(Overlay::Transcript(AgentId::Sub(1))));
}

/// Types `text` into the composer and presses Enter.
fn submit(text: &str, ui: &mut Ui) -> Vec<Action> {
    ui.focus = Focus::Composer;
    ui.composer = super::empty_composer();
    ui.composer.insert_str(text);
    let enter = InputEvent::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    handle(&enter, &state(), ui, Instant::now())
}

#[test]
fn slash_commands_run_in_brood_and_an_unknown_one_is_never_sent() {
    use crate::event::{ModelSlot, Op};
    let mut ui = Ui::new();
    assert_eq!(submit("/compact", &mut ui), [Action::Send(Op::Compact)]);
    assert_eq!(
        submit("/model light claude-haiku-4-5", &mut ui),
        [Action::Send(Op::SetModel {
            slot: ModelSlot::Light,
            name: "claude-haiku-4-5".into()
        })]
    );
    assert_eq!(
        submit("/model gpt-5", &mut ui),
        [Action::Send(Op::SetModel {
            slot: ModelSlot::Main,
            name: "gpt-5".into()
        })]
    );
    assert_eq!(submit("/quit", &mut ui), [Action::Quit]);
    assert!(submit("/help", &mut ui).is_empty());
    assert_eq!(ui.overlay, Some(Overlay::Help));
    ui.overlay = None;
    // A typo stays in the composer, said, not sent.
    assert!(submit("/halp me", &mut ui).is_empty());
    assert_eq!(ui.composer_text(), "/halp me");
    assert!(
        ui.flash
            .as_deref()
            .unwrap()
            .contains("unknown command /halp")
    );
    assert!(submit("/cost", &mut ui).is_empty());
    assert!(
        ui.flash.as_deref().unwrap().contains("no price is known"),
        "{:?}",
        ui.flash
    );
    // A path is a prompt.
    assert_eq!(
        submit("/etc/hosts: what is it?", &mut ui),
        [Action::Send(Op::UserMessage(
            "/etc/hosts: what is it?".into()
        ))]
    );
}

#[test]
fn tab_completes_a_command_and_otherwise_moves_focus() {
    let mut ui = Ui::new();
    ui.focus = Focus::Composer;
    ui.composer.insert_str("/he");
    let tab = InputEvent::Key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    handle(&tab, &state(), &mut ui, Instant::now());
    assert_eq!(ui.composer_text(), "/help ");
    assert_eq!(ui.focus, Focus::Composer);
    handle(&tab, &state(), &mut ui, Instant::now());
    assert_ne!(
        ui.focus,
        Focus::Composer,
        "no command is being typed any more"
    );
}

fn key(code: KeyCode) -> InputEvent {
    InputEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

#[test]
fn esc_interrupts_a_running_turn_twice_clears_and_never_leaves_the_composer() {
    use crate::event::Op;
    let mut running = state();
    running.apply(&Event {
        seq: 1,
        t_ms: 0,
        agent: AgentId::Main,
        kind: EventKind::UserMessage { text: "go".into() },
    });
    let mut ui = Ui::new();
    ui.focus = Focus::Composer;
    ui.composer.insert_str("next question");
    let now = Instant::now();
    assert_eq!(
        handle(&key(KeyCode::Esc), &running, &mut ui, now),
        [Action::Send(Op::Interrupt)]
    );
    assert_eq!(ui.focus, Focus::Composer);
    assert_eq!(ui.composer_text(), "next question", "the text is kept");
    // Idle: the first Esc warns, the second clears.
    let idle = state();
    assert!(handle(&key(KeyCode::Esc), &idle, &mut ui, now).is_empty());
    assert_eq!(ui.composer_text(), "next question");
    assert!(handle(&key(KeyCode::Esc), &idle, &mut ui, now).is_empty());
    assert_eq!(ui.composer_text(), "");
    assert_eq!(ui.focus, Focus::Composer);
    // Typing goes on into the composer, not into pane shortcuts.
    handle(&key(KeyCode::Char('t')), &idle, &mut ui, now);
    assert_eq!(ui.composer_text(), "t");
}

#[test]
fn up_and_down_recall_prompts_on_the_first_and_last_line_only() {
    let mut ui = Ui::new();
    ui.focus = Focus::Composer;
    ui.history = vec!["first".into(), "second".into()];
    let s = state();
    let now = Instant::now();
    handle(&key(KeyCode::Up), &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "second");
    handle(&key(KeyCode::Up), &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "first");
    handle(&key(KeyCode::Down), &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "second");
    // In a text of several lines, Up moves the cursor until the first line.
    ui.composer = super::empty_composer();
    ui.composer.insert_str("line one\nline two");
    handle(&key(KeyCode::Up), &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "line one\nline two");
    assert_eq!(ui.composer.cursor().0, 0);
    handle(&key(KeyCode::Up), &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "second");
}

#[test]
fn a_paste_takes_cr_as_newlines_and_a_long_one_is_one_block_until_sent() {
    use crate::event::Op;
    let mut ui = Ui::new();
    let s = state();
    let now = Instant::now();
    handle(
        &InputEvent::Paste("one\rtwo\r\n\u{1b}[2J".into()),
        &s,
        &mut ui,
        now,
    );
    assert_eq!(ui.composer_text(), "one\ntwo\n\u{fffd}[2J");
    ui.composer = super::empty_composer();
    let long: String = (1..=120).map(|i| format!("line {i}\r\n")).collect();
    handle(&InputEvent::Paste(long), &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "[pasted #1: 120 lines]");
    ui.composer.insert_str(" what is wrong here?");
    let sent = handle(&key(KeyCode::Enter), &s, &mut ui, now);
    let [Action::Send(Op::UserMessage(text))] = sent.as_slice() else {
        panic!("{sent:?}")
    };
    assert!(text.starts_with("line 1\nline 2\n"), "{text}");
    assert!(text.ends_with("line 120\n what is wrong here?"), "{text}");
    assert!(ui.pastes.is_empty());
}

#[test]
fn ctrl_r_searches_earlier_prompts_newest_first() {
    let mut ui = Ui::new();
    ui.focus = Focus::Composer;
    ui.history = vec![
        "cargo test".into(),
        "git status".into(),
        "cargo build --release".into(),
    ];
    ui.composer.insert_str("half typed");
    let s = state();
    let now = Instant::now();
    let ctrl_r = InputEvent::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL));
    handle(&ctrl_r, &s, &mut ui, now);
    for c in "CARGO".chars() {
        handle(&key(KeyCode::Char(c)), &s, &mut ui, now);
    }
    assert_eq!(
        ui.composer_text(),
        "cargo build --release",
        "newest first, any case"
    );
    handle(&ctrl_r, &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "cargo test");
    handle(&ctrl_r, &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "cargo test", "nothing older: it stays");
    handle(&key(KeyCode::Enter), &s, &mut ui, now);
    assert!(ui.search.is_none());
    assert_eq!(ui.composer_text(), "cargo test", "taken, not sent");
    // Esc puts back what was typed.
    handle(&ctrl_r, &s, &mut ui, now);
    handle(&key(KeyCode::Char('g')), &s, &mut ui, now);
    handle(&key(KeyCode::Char('i')), &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "git status");
    handle(&key(KeyCode::Esc), &s, &mut ui, now);
    assert_eq!(ui.composer_text(), "cargo test");
    assert!(ui.search.is_none());
}

/// `<` and `>` move the split only outside the composer: there they are
/// text.
#[test]
fn split_keys_act_in_the_panes_and_type_in_the_composer() {
    let state = state();
    let mut ui = Ui::new();
    let key = |c| InputEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    handle(&key('>'), &state, &mut ui, Instant::now());
    assert_eq!(ui.split, None);
    assert_eq!(ui.composer_text(), ">");
    ui.focus = Focus::Subagents;
    handle(&key('>'), &state, &mut ui, Instant::now());
    assert_eq!(ui.split, Some(50), "one step from the layout's 45");
    handle(&key('<'), &state, &mut ui, Instant::now());
    handle(&key('<'), &state, &mut ui, Instant::now());
    assert_eq!(ui.split, Some(40));
}
