//! The session task as the workbench runs it: queued messages, approvals,
//! session rules, quitting.

use std::time::Duration;

use serde_json::json;

use super::*;
use crate::agent::{Hooks, Profile};
use crate::event::{AgentId, Event, EventKind, TerminalReason};
use crate::model::scripted::ScriptedModel;
use crate::session::{SessionOptions, TraceTarget};

/// A workbench session on `dir` driven by `script`, as the screen runs it.
pub(super) struct Running {
    pub ops: mpsc::UnboundedSender<Op>,
    pub events: mpsc::UnboundedReceiver<Event>,
    pub driver: tokio::task::JoinHandle<Driven>,
    pub policy: Arc<Policy>,
}

pub(super) fn start(dir: &std::path::Path, script: &serde_json::Value) -> Running {
    let model = Arc::new(ScriptedModel::from_json(&script.to_string()).unwrap());
    start_with(dir, model)
}

/// A workbench session on `dir` whose agents ask `model`.
pub(super) fn start_with(dir: &std::path::Path, model: Arc<dyn crate::model::Model>) -> Running {
    let approver = Arc::new(ChannelApprover::new());
    let session = Session::start(SessionOptions {
        workspace: dir.to_path_buf(),
        model,
        model_name: "scripted".into(),
        light_model: None,
        profiles: vec![Profile::general(), Profile::explore()],
        max_parallel: 4,
        note: None,
        trace: TraceTarget::Off,
        approver: approver.clone(),
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
    let policy = session.policy().clone();
    let events = session.bus().subscribe();
    let (ops, op_rx) = mpsc::unbounded_channel();
    let driver = tokio::spawn(drive(
        session,
        op_rx,
        Some(approver),
        CancellationToken::new(),
        Ending::OnQuit,
    ));
    Running {
        ops,
        events,
        driver,
        policy,
    }
}

pub(super) async fn quit(ops: mpsc::UnboundedSender<Op>, driver: tokio::task::JoinHandle<Driven>) {
    ops.send(Op::Quit).unwrap();
    tokio::time::timeout(Duration::from_secs(5), driver)
        .await
        .unwrap()
        .unwrap();
}

pub(super) async fn next_matching(
    rx: &mut mpsc::UnboundedReceiver<Event>,
    what: impl Fn(&Event) -> bool,
) -> Event {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("timed out waiting for an event")
            .expect("bus closed");
        if what(&event) {
            return event;
        }
    }
}

/// A denial with a reason: the model reads the person's words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denial_carries_the_reason_the_person_typed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.log"), "x").unwrap();
    let script = json!([
        {"tool_calls": [{"name": "bash", "input": {"command": "rm a.log"}}]},
        {"text": "Kept it."}
    ]);
    let Running {
        ops,
        mut events,
        driver,
        ..
    } = start(dir.path(), &script);
    ops.send(Op::UserMessage("clean up".into())).unwrap();
    let ask = next_matching(&mut events, |e| {
        matches!(e.kind, EventKind::ApprovalRequested(_))
    })
    .await;
    let EventKind::ApprovalRequested(asked) = ask.kind else {
        unreachable!()
    };
    let id = asked.id;
    ops.send(Op::Approval {
        id,
        answer: ApprovalAnswer::DenyBecause("the log is evidence".into()),
    })
    .unwrap();
    let result = next_matching(&mut events, |e| {
        matches!(e.kind, EventKind::ToolResult { .. })
    })
    .await;
    let EventKind::ToolResult {
        content, is_error, ..
    } = result.kind
    else {
        unreachable!()
    };
    assert!(is_error);
    assert_eq!(
        content.to_string(),
        "Permission denied by user, who said: the log is evidence"
    );
    assert!(dir.path().join("a.log").exists());
    quit(ops, driver).await;
}

/// "Allow `rm` for the session" given to one child answers the same
/// question another child is already waiting on, and nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_rule_answers_the_waiting_questions_it_covers() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.log", "b.log"] {
        std::fs::write(dir.path().join(name), "x").unwrap();
    }
    let child = |command: &str| {
        json!([
            {"tool_calls": [{"name": "bash", "input": {"command": command}}]},
            {"text": "done"}
        ])
    };
    let script = json!({"agents": {
        "main": [
            {"tool_calls": [
                {"name": "task", "input": {"prompt": "a", "description": "a", "subagent_type": "general"}},
                {"name": "task", "input": {"prompt": "b", "description": "b", "subagent_type": "general"}}
            ]},
            {"text": "Both done."}
        ],
        "sub-1": child("rm a.log"),
        "sub-2": child("rm b.log"),
    }});
    let Running {
        ops,
        mut events,
        driver,
        ..
    } = start(dir.path(), &script);
    ops.send(Op::UserMessage("clean up".into())).unwrap();
    let mut asked = Vec::new();
    while asked.len() < 2 {
        let ask = next_matching(&mut events, |e| {
            matches!(e.kind, EventKind::ApprovalRequested(_))
        })
        .await;
        if let EventKind::ApprovalRequested(question) = ask.kind {
            asked.push(question.id);
        }
    }
    ops.send(Op::Approval {
        id: asked[0],
        answer: ApprovalAnswer::AllowPrefix("rm".into()),
    })
    .unwrap();
    // Without the rule's answer the second child waits, and this times out.
    next_matching(&mut events, |e| {
        e.agent == AgentId::Main && matches!(e.kind, EventKind::TurnEnd { .. })
    })
    .await;
    assert!(!dir.path().join("a.log").exists());
    assert!(
        !dir.path().join("b.log").exists(),
        "the waiting question was answered"
    );
    quit(ops, driver).await;
}

/// A child waiting for approval holds up only itself: its sibling finishes
/// meanwhile, and the answer "allow for the session" lets it go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_asking_child_waits_for_the_dialog() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.log"), "x").unwrap();
    let script = json!({"agents": {
        "main": [
            {"tool_calls": [
                {"name": "task", "input": {"prompt": "clean", "description": "clean", "subagent_type": "general"}},
                {"name": "task", "input": {"prompt": "read", "description": "read", "subagent_type": "general"}}
            ]},
            {"text": "Both done."}
        ],
        "sub-1": [
            {"tool_calls": [{"name": "bash", "input": {"command": "rm old.log"}}]},
            {"text": "Removed."}
        ],
        "sub-2": [
            {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]},
            {"text": "Listed."}
        ]
    }});
    let Running {
        ops,
        mut events,
        driver,
        policy,
    } = start(dir.path(), &script);
    ops.send(Op::UserMessage("clean up".into())).unwrap();

    let ask = next_matching(&mut events, |e| {
        matches!(e.kind, EventKind::ApprovalRequested(_))
    })
    .await;
    assert_eq!(ask.agent, AgentId::Sub(1));
    let EventKind::ApprovalRequested(asked) = ask.kind else {
        unreachable!()
    };
    let id = asked.id;
    // While sub-1 waits, sub-2 runs to its end.
    let sibling = next_matching(&mut events, |e| {
        matches!(e.kind, EventKind::SubagentEnd { .. })
    })
    .await;
    assert_eq!(sibling.agent, AgentId::Sub(2));
    assert!(
        dir.path().join("old.log").exists(),
        "nothing ran before the answer"
    );

    ops.send(Op::Approval {
        id,
        answer: ApprovalAnswer::AllowPrefix("rm".into()),
    })
    .unwrap();
    let end = next_matching(&mut events, |e| {
        e.agent == AgentId::Sub(1) && matches!(e.kind, EventKind::SubagentEnd { .. })
    })
    .await;
    assert!(matches!(
        end.kind,
        EventKind::SubagentEnd {
            reason: TerminalReason::Completed,
            ..
        }
    ));
    assert!(!dir.path().join("old.log").exists());
    assert_eq!(policy.allowed_prefixes(), ["rm"]);
    next_matching(&mut events, |e| {
        e.agent == AgentId::Main && matches!(e.kind, EventKind::TurnEnd { .. })
    })
    .await;
    quit(ops, driver).await;
}

/// `/compact` asked while a turn runs waits for it, then the model's summary
/// takes the place of what came before.
#[tokio::test]
async fn a_compaction_asked_for_waits_for_the_turn_and_replaces_the_history() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let script = json!({"agents": {"main": [
        {"text": "Reading.", "tool_calls": [{"name": "read_file", "input": {"path": "a.txt"}}]},
        {"text": "It says alpha."},
        {"text": "We read a.txt; it says alpha."},
        {"text": "Still alpha."}
    ]}});
    let Running {
        ops,
        mut events,
        driver,
        ..
    } = start(dir.path(), &script);
    ops.send(Op::UserMessage("what is in a.txt?".into()))
        .unwrap();
    next_matching(&mut events, |e| {
        matches!(e.kind, EventKind::ToolCall { .. })
    })
    .await;
    ops.send(Op::Compact).unwrap();
    let turn_end =
        next_matching(&mut events, |e| matches!(e.kind, EventKind::TurnEnd { .. })).await;
    let compacted = next_matching(&mut events, |e| {
        matches!(e.kind, EventKind::Compacted { .. })
    })
    .await;
    assert!(compacted.seq > turn_end.seq, "it waited for the turn");
    let EventKind::Compacted {
        trigger,
        summary,
        kept_messages,
        ..
    } = &compacted.kind
    else {
        unreachable!()
    };
    assert_eq!(trigger, "asked");
    assert_eq!(summary, "We read a.txt; it says alpha.");
    // A quarter of the history: the last answer.
    assert_eq!(*kept_messages, 1);
    ops.send(Op::UserMessage("and now?".into())).unwrap();
    next_matching(
        &mut events,
        |e| matches!(&e.kind, EventKind::AssistantMessage { text, .. } if text == "Still alpha."),
    )
    .await;
    let Driven { session, .. } = {
        ops.send(Op::Quit).unwrap();
        tokio::time::timeout(Duration::from_secs(5), driver)
            .await
            .unwrap()
            .unwrap()
    };
    assert!(
        session.messages[0]
            .text()
            .ends_with("We read a.txt; it says alpha.")
    );
    assert_eq!(session.messages.len(), 4);
}
