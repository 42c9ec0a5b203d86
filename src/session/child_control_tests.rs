//! Control of one child while the turn runs: `x` stops it alone, `m` tells
//! it something that it reads before its next model call.

use serde_json::json;

use super::tests::{Running, next_matching, quit, start, start_with};
use crate::event::{AgentId, EventKind, Op, TerminalReason};
use crate::model::scripted::Recording;

/// Words enough that streaming them at `chunk_delay_ms` takes a while.
fn long_text(words: usize) -> String {
    vec!["reading"; words].join(" ")
}

/// `x` on one of two children: it ends `interrupted` at once, its sibling
/// finishes its work, and the parent reads a failure that says the user
/// stopped it, then answers: the turn is not interrupted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_one_child_leaves_its_sibling_and_the_parent_going() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let script = json!({"agents": {
        "main": [
            {"tool_calls": [
                {"name": "task", "input": {"prompt": "slow", "description": "slow", "subagent_type": "general"}},
                {"name": "task", "input": {"prompt": "quick", "description": "quick", "subagent_type": "general"}}
            ]},
            {"text": "One was stopped; the other listed."}
        ],
        "sub-1": [{"text": long_text(300), "chunk_delay_ms": 50}],
        "sub-2": [
            {"text": long_text(10), "chunk_delay_ms": 40, "tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]},
            {"text": "Listed."}
        ]
    }});
    let Running {
        ops,
        mut events,
        driver,
        ..
    } = start(dir.path(), &script);
    ops.send(Op::UserMessage("look".into())).unwrap();
    next_matching(&mut events, |e| {
        e.agent == AgentId::Sub(2) && matches!(e.kind, EventKind::SubagentStart(_))
    })
    .await;
    ops.send(Op::StopChild(AgentId::Sub(1))).unwrap();

    let stopped = next_matching(&mut events, |e| {
        e.agent == AgentId::Sub(1) && matches!(e.kind, EventKind::SubagentEnd { .. })
    })
    .await;
    let EventKind::SubagentEnd {
        reason, summary, ..
    } = &stopped.kind
    else {
        unreachable!()
    };
    assert_eq!(*reason, TerminalReason::Interrupted);
    assert!(summary.contains("stopped by the user"), "{summary}");

    let result = next_matching(&mut events, |e| {
        e.agent == AgentId::Main
            && matches!(&e.kind, EventKind::ToolResult { content, .. } if content.contains(r#""child_id":"sub-1""#))
    })
    .await;
    let EventKind::ToolResult {
        content, is_error, ..
    } = &result.kind
    else {
        unreachable!()
    };
    assert!(*is_error, "the parent reads a failure: {content}");
    let envelope: serde_json::Value = serde_json::from_str(content).unwrap();
    assert_eq!(envelope["child_id"], "sub-1");
    assert_eq!(envelope["terminal_reason"], "interrupted");
    assert_eq!(envelope["error"], "stopped by the user");

    let sibling = next_matching(&mut events, |e| {
        e.agent == AgentId::Sub(2) && matches!(e.kind, EventKind::SubagentEnd { .. })
    })
    .await;
    assert!(
        matches!(
            sibling.kind,
            EventKind::SubagentEnd {
                reason: TerminalReason::Completed,
                ..
            }
        ),
        "the sibling went on: {:?}",
        sibling.kind
    );

    let end = next_matching(&mut events, |e| {
        e.agent == AgentId::Main && matches!(e.kind, EventKind::TurnEnd { .. })
    })
    .await;
    assert!(
        matches!(
            end.kind,
            EventKind::TurnEnd {
                reason: TerminalReason::Completed,
                ..
            }
        ),
        "the parent went on: {:?}",
        end.kind
    );
    quit(ops, driver).await;
}

/// `m` on a running child: the message waits for the call in flight, then
/// the child's next request carries it after the tool results, and a
/// `steer` event says when it was read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_to_a_running_child_is_read_before_its_next_step() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let script = json!({"agents": {
        "main": [
            {"tool_calls": [
                {"name": "task", "input": {"prompt": "list", "description": "list", "subagent_type": "general"}}
            ]},
            {"text": "Done."}
        ],
        "sub-1": [
            {"text": long_text(20), "chunk_delay_ms": 30, "tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]},
            {"text": "Listed, skipping tests."}
        ]
    }});
    let model = std::sync::Arc::new(Recording::new(&script));
    let Running {
        ops,
        mut events,
        driver,
        ..
    } = start_with(dir.path(), model.clone());
    ops.send(Op::UserMessage("look".into())).unwrap();
    next_matching(&mut events, |e| {
        e.agent == AgentId::Sub(1) && matches!(e.kind, EventKind::ModelRequest { step: 1, .. })
    })
    .await;
    ops.send(Op::MessageChild {
        child: AgentId::Sub(1),
        text: "skip the tests folder".into(),
    })
    .unwrap();

    let steer = next_matching(&mut events, |e| {
        e.agent == AgentId::Sub(1)
            && matches!(
                e.kind,
                EventKind::Steer { .. } | EventKind::ModelRequest { step: 2, .. }
            )
    })
    .await;
    assert_eq!(
        steer.kind,
        EventKind::Steer {
            text: "skip the tests folder".into()
        },
        "read before the second request"
    );
    next_matching(&mut events, |e| {
        e.agent == AgentId::Main && matches!(e.kind, EventKind::TurnEnd { .. })
    })
    .await;
    quit(ops, driver).await;

    let child = model.messages_of(AgentId::Sub(1));
    assert_eq!(child.len(), 2);
    assert!(!format!("{:?}", child[0]).contains("skip the tests folder"));
    // One user turn: the glob's result, then what the user said.
    let last = child[1].last().unwrap();
    let shown = format!("{last:?}");
    let result_at = shown.find("ToolResult").expect("the result is there");
    let said_at = shown
        .find("skip the tests folder")
        .expect("the message is there");
    assert!(result_at < said_at, "{shown}");
    assert_eq!(
        child[1].len(),
        3,
        "prompt, answer, results with the message"
    );
    // The parent never saw it.
    assert!(!format!("{:?}", model.messages_of(AgentId::Main)).contains("skip the tests folder"));
}
