//! The screen of a real scripted session (the engine's own events), with times
//! normalized so the snapshot is stable.

use std::sync::Arc;

use insta::assert_snapshot;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::fixtures::*;
use crate::agent::{AutoApprove, Hooks, Profile};
use crate::event::{Event, EventKind};
use crate::model::scripted::ScriptedModel;
use crate::session::{Session, SessionOptions, TraceTarget};
use crate::tui::state::State;
use crate::tui::ui::Ui;

const VALID: &str = r#"{"status":"completed","summary":"Login is at auth.rs:1; refresh at auth.rs:2.","findings":[],"evidence":["auth.rs:1"],"unresolved_questions":[]}"#;

async fn record(script: serde_json::Value) -> Vec<Event> {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("auth.rs"),
        "fn login() {}\nfn refresh() {}\n",
    )
    .expect("write");
    let mut session = Session::start(SessionOptions {
        workspace: dir.path().to_path_buf(),
        model: Arc::new(ScriptedModel::from_json(&script.to_string()).expect("script")),
        model_name: "scripted".into(),
        light_model: None,
        profiles: vec![Profile::general(), Profile::explore()],
        max_parallel: 4,
        note: None,
        trace: TraceTarget::Off,
        approver: Arc::new(AutoApprove::DenyAll),
        max_steps: None,
        hooks: Hooks::default(),
        command_hooks: Vec::new(),
        mcp: Vec::new(),
        secrets: Vec::new(),
        resume: None,
        prices: Default::default(),
        compact_at: None,
        telemetry: None,
        rules: Default::default(),
        instructions: Default::default(),
        sandbox: Default::default(),
    })
    .expect("session");
    let mut rx = session.bus().subscribe();
    session
        .send(
            "Where is login, and how do tokens refresh?",
            &CancellationToken::new(),
        )
        .await;
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

/// Times from the wall clock replaced by ones that depend only on the order.
fn normalize(events: &mut [Event]) {
    for e in events {
        e.t_ms = e.seq * 100;
        match &mut e.kind {
            EventKind::ToolResult { duration_ms, .. } => *duration_ms = 7,
            EventKind::SubagentEnd { elapsed_ms, .. } => *elapsed_ms = 2_300,
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_recorded_scripted_session() {
    let mut events = record(json!({"agents": {
        "main": [
            {"text": "I'll grep first.", "tool_calls": [{"id": "g", "name": "grep", "input": {"pattern": "fn "}}]},
            {"tool_calls": [{"id": "t", "name": "task", "input": {"prompt": "find login and refresh", "description": "find login and refresh"}}]},
            {"text": "Login is in `auth.rs` line 1, refresh on line 2.", "usage": {"input_tokens": 5200, "output_tokens": 40}}
        ],
        "sub-1": [
            {"tool_calls": [{"name": "read_file", "input": {"path": "auth.rs"}}], "usage": {"input_tokens": 900, "output_tokens": 50}},
            {"text": VALID, "usage": {"input_tokens": 1000, "output_tokens": 80}}
        ]
    }}))
    .await;
    normalize(&mut events);
    let mut state = State::new(info());
    for e in &events {
        state.apply(e);
    }
    let mut ui = Ui::new();
    let buf = draw(&state, &mut ui, 120, 32, &color());
    assert_snapshot!("recorded_session", text(&buf));
}
