use super::*;
use crate::event::{AgentId, Event, EventKind, TerminalReason, Usage};
use crate::protocol::SessionInfo;
use serde_json::json;

fn state() -> State {
    let mut state = State::new(SessionInfo {
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        light_model: Some("claude-haiku-4-5".into()),
        trace_path: Some("/t/s-9.jsonl".into()),
        ..SessionInfo::scripted("s-9", "/work/shop")
    });
    let events = [
        (
            AgentId::Main,
            EventKind::UserMessage {
                text: "where is auth?".into(),
            },
        ),
        (
            AgentId::Main,
            EventKind::ToolCall {
                call_id: "c1".into(),
                name: "read_file".into(),
                input: json!({"path": "README.md"}).into(),
                summary: Box::default(),
            },
        ),
        (
            AgentId::Main,
            EventKind::ToolResult {
                call_id: "c1".into(),
                name: "read_file".into(),
                is_error: false,
                content: "```rust\nfn main() {}\n```\n\u{1b}[31mred\u{1b}[0m".into(),
                duration_ms: 3,
            },
        ),
        (
            AgentId::Main,
            EventKind::ToolCall {
                call_id: "t1".into(),
                name: "task".into(),
                input: json!({"prompt": "find auth", "description": "find auth", "subagent_type": "explore"}).into(),
                summary: Box::default(),
            },
        ),
        (
            AgentId::Sub(1),
            EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
                parent: AgentId::Main,
                parent_call_id: "t1".into(),
                profile: "explore".into(),
                model: "light".into(),
                model_name: "claude-haiku-4-5".into(),
                description: "find auth".into(),
                prompt: "find auth".into(),
                max_steps: Some(12),
                token_budget: None,
                context_budget: None,
                color: None,
            })),
        ),
        (
            AgentId::Sub(1),
            EventKind::UserMessage {
                text: "find auth".into(),
            },
        ),
        (
            AgentId::Sub(1),
            EventKind::Steer {
                text: "only src/".into(),
            },
        ),
        (
            AgentId::Sub(1),
            EventKind::SubagentEnd {
                reason: TerminalReason::Completed,
                summary: "auth is in src/auth.rs:3".into(),
                steps: 2,
                tool_usage: Default::default(),
                usage: Usage::default(),
                elapsed_ms: 40,
            },
        ),
        (
            AgentId::Main,
            EventKind::AssistantMessage {
                text: "Auth lives in `src/auth.rs`.".into(),
                tool_calls: 0,
                usage: Usage::default(),
                stop_reason: "end_turn".into(),
            },
        ),
    ];
    for (i, (agent, kind)) in events.into_iter().enumerate() {
        state.apply(&Event {
            seq: i as u64 + 1,
            t_ms: i as u64 * 10,
            agent,
            kind,
        });
    }
    state
}

#[test]
fn the_export_holds_the_conversation_its_calls_and_each_child_s_transcript() {
    let md = markdown(&state());
    assert!(md.starts_with("# brood session s-9\n"), "{md}");
    assert!(md.contains("- light model: claude-haiku-4-5"));
    assert!(md.contains("## You\n\nwhere is auth?\n"));
    assert!(md.contains("**read_file** `README.md` ✓"), "{md}");
    assert!(md.contains("## brood\n\nAuth lives in `src/auth.rs`.\n"));
    assert!(
        md.contains("## sub-1 · explore · find auth · completed"),
        "{md}"
    );
    assert!(md.contains("**you, while it ran**\n\nonly src/"));
    // The output's own fence cannot close the export's: a longer one holds it.
    assert!(md.contains("````\n```rust\nfn main() {}\n```\n"), "{md}");
    // No escape reaches the file.
    assert!(!md.contains('\u{1b}'));
    assert!(md.contains("^[[31mred"));
}

#[test]
fn an_export_never_writes_over_a_file_it_was_not_told_to() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("brood-s-9.md");
    std::fs::write(&path, "mine").unwrap();
    let err = write(&path, "new", false).unwrap_err();
    assert!(err.to_string().contains("is there already"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
    write(&path, "new", true).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
}
