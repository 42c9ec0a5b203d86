//! The reducer on event streams recorded from real scripted sessions.

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::agent::{AutoApprove, Hooks, Profile};
use crate::model::scripted::ScriptedModel;
use crate::session::{Session, SessionOptions, TraceTarget};

/// Runs `script` with `prompt` in a temp workspace and returns every event.
async fn record(script: serde_json::Value, approve: AutoApprove) -> Vec<Event> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("auth.rs"),
        "fn login() {}\nfn refresh() {}\n",
    )
    .unwrap();
    let mut session = Session::start(SessionOptions {
        workspace: dir.path().to_path_buf(),
        model: Arc::new(ScriptedModel::from_json(&script.to_string()).unwrap()),
        model_name: "scripted".into(),
        light_model: None,
        profiles: vec![Profile::general(), Profile::explore()],
        max_parallel: 4,
        note: None,
        trace: TraceTarget::Off,
        approver: Arc::new(approve),
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
    .unwrap();
    let mut rx = session.bus().subscribe();
    session
        .send("Where is login?", &CancellationToken::new())
        .await;
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

fn replay(events: &[Event]) -> State {
    let mut state = State::new(SessionInfo::default());
    for e in events {
        state.apply(e);
    }
    state
}

const VALID: &str = r#"{"status":"completed","summary":"Login is at auth.rs:1.","findings":[],"evidence":["auth.rs:1"],"unresolved_questions":[]}"#;

#[tokio::test]
async fn a_parent_turn_becomes_user_text_and_tool_cells() {
    let events = record(
        json!([
            {"text": "Let me look.", "tool_calls": [
                {"id": "g", "name": "grep", "input": {"pattern": "login"}},
                {"id": "r", "name": "bash", "input": {"command": "rm auth.rs"}}
            ]},
            {"text": "It is in **auth.rs**."}
        ]),
        AutoApprove::DenyAll,
    )
    .await;
    let state = replay(&events);
    let kinds: Vec<&str> = state
        .entries
        .iter()
        .map(|e| match &e.kind {
            EntryKind::User(_) => "user",
            EntryKind::Assistant { .. } => "assistant",
            EntryKind::Tool(_) => "tool",
            EntryKind::Task(_) => "task",
            EntryKind::Thinking { .. } => "thinking",
            EntryKind::Notice { .. } => "notice",
        })
        .collect();
    assert_eq!(kinds, ["user", "assistant", "tool", "tool", "assistant"]);
    let EntryKind::Assistant { text, streaming } = &state.entries[1].kind else {
        panic!()
    };
    assert_eq!((text.as_str(), *streaming), ("Let me look.", false));
    let EntryKind::Tool(grep) = &state.entries[2].kind else {
        panic!()
    };
    assert_eq!(grep.status, CallStatus::Done);
    assert!(grep.output.contains("auth.rs:1:fn login"));
    assert!(grep.duration_ms.is_some());
    let EntryKind::Tool(rm) = &state.entries[3].kind else {
        panic!()
    };
    assert_eq!(rm.status, CallStatus::Denied);
    assert!(!state.running);
    assert_eq!(state.main.steps, 2);
    assert!(state.approvals.is_empty(), "answered approvals are gone");
    assert_eq!(state.events, events.len() as u64);
}

#[tokio::test]
async fn streaming_text_grows_one_entry_and_bumps_its_revision() {
    let mut state = State::new(SessionInfo::default());
    let mut seq = 0;
    let mut event = |kind| {
        seq += 1;
        Event {
            seq,
            t_ms: seq * 10,
            agent: AgentId::Main,
            kind,
        }
    };
    state.apply(&event(EventKind::UserMessage { text: "hi".into() }));
    state.apply(&event(EventKind::TextDelta { text: "Hel".into() }));
    let rev = state.entries[1].rev;
    state.apply(&event(EventKind::TextDelta { text: "lo".into() }));
    assert!(state.entries[1].rev > rev);
    assert_eq!(state.entries.len(), 2);
    let EntryKind::Assistant { text, streaming } = &state.entries[1].kind else {
        panic!()
    };
    assert_eq!((text.as_str(), *streaming), ("Hello", true));
    assert!(state.busy());
    // Deltas fold into one timeline row.
    assert_eq!(state.timeline.len(), 2);
    assert_eq!(state.timeline[1].count, 2);
    assert_eq!(state.timeline[1].detail, "Hello");
}

#[tokio::test]
async fn children_get_lanes_live_lines_and_their_task_cells_the_outcome() {
    let events = record(
        json!({"agents": {
            "main": [
                {"tool_calls": [
                    {"id": "t1", "name": "task", "input": {"prompt": "find login", "description": "find login"}},
                    {"id": "t2", "name": "task", "input": {"prompt": "run it", "description": "run the tests", "subagent_type": "general"}}
                ]},
                {"text": "Done."}
            ],
            "sub-1": [
                {"tool_calls": [{"name": "grep", "input": {"pattern": "fn login"}}], "usage": {"input_tokens": 900, "output_tokens": 50}},
                {"text": VALID, "usage": {"input_tokens": 1000, "output_tokens": 80}}
            ],
            "sub-2": [{"error": "boom"}]
        }}),
        AutoApprove::DenyAll,
    )
    .await;
    let state = replay(&events);
    assert_eq!(state.children.len(), 2);
    let one = state.child(AgentId::Sub(1)).unwrap();
    assert_eq!(
        (one.status, one.reason),
        (ChildStatus::Done, Some(TerminalReason::Completed))
    );
    assert_eq!(one.profile, "explore");
    assert_eq!((one.steps, one.max_steps), (2, Some(12)));
    assert_eq!(one.tokens, 2030);
    assert_eq!(one.token_budget, Some(32_000));
    assert_eq!(one.context_tokens, 1000);
    assert_eq!(one.live.len(), 1);
    assert_eq!(one.live[0].tool, "grep");
    assert_eq!(one.live[0].status, CallStatus::Done);
    assert!(
        one.live[0]
            .result
            .as_deref()
            .unwrap()
            .starts_with("auth.rs:1:fn login")
    );
    assert!(matches!(one.transcript[0], TranscriptItem::Prompt(ref p) if p == "find login"));
    let two = state.child(AgentId::Sub(2)).unwrap();
    assert_eq!(
        (two.status, two.reason),
        (ChildStatus::Failed, Some(TerminalReason::ModelError))
    );
    let tasks: Vec<&TaskCell> = state
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Task(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0].child, Some(AgentId::Sub(1)));
    assert_eq!(tasks[0].status, CallStatus::Done);
    assert_eq!(tasks[0].summary.as_deref(), Some("Login is at auth.rs:1."));
    assert_eq!(tasks[1].status, CallStatus::Failed);
    assert_eq!(tasks[1].reason, Some(TerminalReason::ModelError));
    assert!(state.kept_out_tokens > 0 && state.kept_out_tokens < 2030);
    assert_eq!(state.running_children(), 0);
}

#[test]
fn approvals_wait_until_answered_and_retries_until_output_resumes() {
    let mut state = State::new(SessionInfo::default());
    let ask = Event {
        seq: 1,
        t_ms: 5,
        agent: AgentId::Sub(2),
        kind: EventKind::ApprovalRequested(Box::new(crate::event::ApprovalAsk {
            id: 7,
            call_id: "c".into(),
            tool: "bash".into(),
            summary: "rm -rf build".into(),
            reason: "rm deletes files".into(),
            session_rule: crate::policy::command_prefix("rm -rf build"),
        })),
    };
    state.apply(&ask);
    assert_eq!(state.approvals.len(), 1);
    assert_eq!(state.approvals[0].agent, AgentId::Sub(2));
    let answer = Event {
        seq: 2,
        t_ms: 9,
        agent: AgentId::Sub(2),
        kind: EventKind::PermissionDecision {
            call_id: "c".into(),
            decision: Decision::Allow,
            reason: "rm deletes files".into(),
            by: DecidedBy::User,
        },
    };
    state.apply(&answer);
    assert!(state.approvals.is_empty());
    state.apply(&Event {
        seq: 3,
        t_ms: 10,
        agent: AgentId::Main,
        kind: EventKind::Retry {
            attempt: 1,
            max_attempts: 4,
            wait_ms: 2000,
            reason: "HTTP 529".into(),
        },
    });
    assert_eq!(state.retry.as_ref().unwrap().attempt, 1);
    state.apply(&Event {
        seq: 4,
        t_ms: 2100,
        agent: AgentId::Main,
        kind: EventKind::TextDelta { text: "ok".into() },
    });
    assert!(state.retry.is_none());
}

#[test]
fn the_trace_pane_counts_one_step_and_one_call_in_the_singular() {
    let usage = Usage {
        input_tokens: 10,
        output_tokens: 2,
        ..Usage::default()
    };
    let kinds = [
        EventKind::AssistantMessage {
            text: String::new(),
            tool_calls: 1,
            usage,
            stop_reason: "tool_use".into(),
        },
        EventKind::SubagentEnd {
            reason: TerminalReason::Completed,
            summary: "done".into(),
            steps: 1,
            tool_usage: Default::default(),
            usage,
            elapsed_ms: 5,
        },
        EventKind::TurnEnd {
            reason: TerminalReason::Completed,
            steps: 1,
            usage,
        },
    ];
    let events: Vec<Event> = kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| Event {
            seq: i as u64 + 1,
            t_ms: 0,
            agent: AgentId::Main,
            kind,
        })
        .collect();
    let state = replay(&events);
    let details: Vec<&str> = state.timeline.iter().map(|r| r.detail.as_str()).collect();
    assert_eq!(
        details,
        [
            "tool_use · 1 call · 12 tokens",
            "completed · 1 step · 12 tokens",
            "completed · 1 step · 12 tokens"
        ]
    );
}
