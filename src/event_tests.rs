//! Tests of the event vocabulary and the bus: wire names match serde's tags,
//! ids and events round-trip, secrets are redacted, and a slow subscriber
//! loses nothing. Beside `event.rs` so the vocabulary reads in one sitting.

use super::*;

/// One event of every kind: `wire_name` says what serde writes as `type`.
#[test]
fn wire_names_are_the_serialized_tags() {
    let usage = Usage::default();
    let kinds = [
        EventKind::UserMessage { text: "q".into() },
        EventKind::ModelRequest {
            step: 1,
            model: "m".into(),
            messages: 1,
            tools: 0,
        },
        EventKind::TextDelta { text: "t".into() },
        EventKind::AssistantMessage {
            text: "a".into(),
            tool_calls: 0,
            usage,
            stop_reason: "end_turn".into(),
        },
        EventKind::ToolCall {
            call_id: "c".into(),
            name: "grep".into(),
            input: Value::Null.into(),
            summary: Box::default(),
        },
        EventKind::ApprovalRequested(Box::new(crate::event::ApprovalAsk {
            id: 1,
            call_id: "c".into(),
            tool: "bash".into(),
            summary: "s".into(),
            reason: "r".into(),
            session_rule: String::new(),
        })),
        EventKind::PermissionDecision {
            call_id: "c".into(),
            decision: Decision::Ask,
            reason: "r".into(),
            by: DecidedBy::User,
        },
        EventKind::ToolResult {
            call_id: "c".into(),
            name: "grep".into(),
            is_error: false,
            content: "".into(),
            duration_ms: 0,
        },
        EventKind::HookContinue { text: "go".into() },
        EventKind::TurnEnd {
            reason: TerminalReason::Completed,
            steps: 1,
            usage,
        },
        EventKind::Error {
            message: "e".into(),
        },
        EventKind::Retry {
            attempt: 1,
            max_attempts: 2,
            wait_ms: 0,
            reason: "r".into(),
        },
        EventKind::Interrupted {},
        EventKind::McpServerDown {
            server: "docs".into(),
            error: "the server has stopped".into(),
        },
        EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
            parent: AgentId::Main,
            parent_call_id: "c".into(),
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
        EventKind::SubagentEnd {
            reason: TerminalReason::Completed,
            summary: "s".into(),
            steps: 1,
            tool_usage: Default::default(),
            usage,
            elapsed_ms: 0,
        },
    ];
    for kind in kinds {
        let json = serde_json::to_value(&kind).unwrap();
        assert_eq!(json["type"], kind.wire_name(), "{json}");
    }
}

#[test]
fn agent_id_round_trips_through_text() {
    for id in [AgentId::Main, AgentId::Sub(1), AgentId::Sub(42)] {
        assert_eq!(id.to_string().parse::<AgentId>().unwrap(), id);
    }
    assert!("sub-".parse::<AgentId>().is_err());
    assert!("child".parse::<AgentId>().is_err());
}

#[test]
fn event_serializes_as_one_flat_object() {
    let bus = EventBus::new();
    let event = bus.publish(
        AgentId::Sub(3),
        EventKind::ToolCall {
            call_id: "c1".into(),
            name: "grep".into(),
            input: serde_json::json!({"pattern": "fn"}).into(),
            summary: Box::default(),
        },
    );
    let json = serde_json::to_value(&event).unwrap();
    assert_eq!(json["seq"], 1);
    assert_eq!(json["agent"], "sub-3");
    assert_eq!(json["type"], "tool_call");
    assert_eq!(json["name"], "grep");
    let back: Event = serde_json::from_value(json).unwrap();
    assert_eq!(back, event);
}

#[test]
fn secrets_never_reach_a_subscriber() {
    let bus = EventBus::new();
    bus.set_secrets(vec!["sk-test-0123456789".into(), "short".into()]);
    let mut rx = bus.subscribe();
    bus.publish(
        AgentId::Main,
        EventKind::ToolResult {
            call_id: "c".into(),
            name: "bash".into(),
            is_error: false,
            content: "KEY=sk-test-0123456789 and short".into(),
            duration_ms: 1,
        },
    );
    bus.publish(
        AgentId::Main,
        EventKind::ToolCall {
            call_id: "c".into(),
            name: "bash".into(),
            input: serde_json::json!({"command": ["echo sk-test-0123456789"]}).into(),
            summary: "echo sk-test-0123456789".into(),
        },
    );
    let first = serde_json::to_string(&rx.try_recv().unwrap()).unwrap();
    let second = serde_json::to_string(&rx.try_recv().unwrap()).unwrap();
    for line in [first, second] {
        assert!(!line.contains("sk-test"), "{line}");
        assert!(line.contains("[redacted]"), "{line}");
    }
}

/// A call's arguments are kept as their JSON text, where an escape can spell
/// a secret without its letters (`\u0073k-…`): such text is read as a value
/// to be cleaned, not searched as it is.
#[test]
fn a_secret_spelled_with_escapes_in_a_calls_arguments_is_redacted() {
    let bus = EventBus::new();
    bus.set_secrets(vec!["sk-test-0123456789".into()]);
    let mut rx = bus.subscribe();
    let raw: Box<serde_json::value::RawValue> =
        serde_json::from_str(r#"{"command":"echo \u0073k-test-0123456789","n":1}"#).unwrap();
    bus.publish(
        AgentId::Main,
        EventKind::ToolCall {
            call_id: "c".into(),
            name: "bash".into(),
            input: crate::event::ToolInput::from_raw(&raw),
            summary: Box::default(),
        },
    );
    let EventKind::ToolCall { input, .. } = rx.try_recv().unwrap().kind else {
        panic!("not a tool call")
    };
    assert_eq!(input.text(), r#"{"command":"echo [redacted]","n":1}"#);
}

/// 100,000 events from four concurrent publishers reach a slow subscriber and a
/// fast one complete and in the same order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_subscriber_loses_nothing() {
    let bus = EventBus::new();
    let mut slow = bus.subscribe();
    let mut fast = bus.subscribe();
    let publishers: Vec<_> = (0..4u32)
        .map(|p| {
            let bus = bus.clone();
            tokio::spawn(async move {
                for i in 0..25_000u32 {
                    bus.publish(
                        AgentId::Sub(p),
                        EventKind::TextDelta {
                            text: i.to_string(),
                        },
                    );
                    if i % 1000 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            })
        })
        .collect();
    let fast_reader = tokio::spawn(async move {
        let mut seqs = Vec::with_capacity(100_000);
        while seqs.len() < 100_000 {
            seqs.push(fast.recv().await.unwrap().seq);
        }
        seqs
    });
    let mut seen = Vec::with_capacity(100_000);
    let mut next_per_publisher = [0u32; 4];
    while seen.len() < 100_000 {
        let event = slow.recv().await.unwrap();
        if seen.len() % 10_000 == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        // Each publisher's own events arrive in the order it published them.
        let (AgentId::Sub(p), EventKind::TextDelta { text }) = (event.agent, &event.kind) else {
            panic!("unexpected event {event:?}");
        };
        assert_eq!(text, &next_per_publisher[p as usize].to_string());
        next_per_publisher[p as usize] += 1;
        seen.push(event.seq);
    }
    for p in publishers {
        p.await.unwrap();
    }
    let expected: Vec<u64> = (1..=100_000).collect();
    assert_eq!(seen, expected, "slow subscriber saw a gap or reorder");
    assert_eq!(fast_reader.await.unwrap(), expected);
}

/// A follower holds every event of a session it follows, and every event is
/// as big as the biggest kind: a rare kind that grows past this makes all of
/// them grow (box its fields, as `approval_requested` and `subagent_start` do).
#[test]
fn an_event_stays_small_whatever_its_kind() {
    assert!(
        std::mem::size_of::<EventKind>() <= 104,
        "EventKind is {} bytes",
        std::mem::size_of::<EventKind>()
    );
}
