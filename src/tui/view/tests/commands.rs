//! Overlays that slash commands open: `/agents`.

use std::time::Instant;

use crossterm::event::{Event, KeyCode, KeyEvent};
use insta::assert_snapshot;

use super::fixtures::*;
use super::scenes::three_children;
use crate::protocol::AgentSummary;
use crate::tui::keys::handle;
use crate::tui::ui::{Focus, Overlay, Ui};

fn agents() -> Vec<AgentSummary> {
    vec![
        AgentSummary {
            name: "explore".into(),
            from: "built in".into(),
            tools: "read_file, glob, grep (read-only)".into(),
            model: "light".into(),
            limits: "12 steps, 32000 tokens, 16000 context, JSON answer".into(),
            warnings: Vec::new(),
        },
        AgentSummary {
            name: "reviewer".into(),
            from: "claude ~/.claude/agents/reviewer.md".into(),
            tools: "read_file, grep, bash".into(),
            model: "main".into(),
            limits: "30 steps".into(),
            warnings: vec!["tool WebFetch is not one of brood's: left out".into()],
        },
    ]
}

#[test]
fn slash_agents_lists_each_profile_and_where_it_came_from() {
    let mut state = three_children().state(12_000);
    state.info.agents = agents();
    let mut ui = Ui::new();
    ui.focus = Focus::Composer;
    let key = |code| Event::Key(KeyEvent::from(code));
    for c in "/agents".chars() {
        handle(&key(KeyCode::Char(c)), &state, &mut ui, Instant::now());
    }
    handle(&key(KeyCode::Enter), &state, &mut ui, Instant::now());
    assert_eq!(ui.overlay, Some(Overlay::Agents));
    let buf = draw(&state, &mut ui, 100, 30, &color());
    assert_snapshot!("agents_overlay", text(&buf));
    assert!(find(&buf, "claude ~/.claude/agents/reviewer.md").is_some());
    assert!(find(&buf, "! tool WebFetch is not one of brood's").is_some());
}
