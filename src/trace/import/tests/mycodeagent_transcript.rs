//! MyCodeAgent transcripts (`memory/transcripts/…`) read as sessions of their
//! own, against the sample's transcripts and the traces of the same session.

use std::collections::BTreeMap;

use serde_json::json;

use super::real::{SHOP_CHILD_KINDS, SHOP_TRACE, count, hooks, pairs};
use super::*;
use crate::event::TerminalReason;

const SHOP_TRANSCRIPT: &str =
    "mycodeagent/shop/memory/transcripts/transcript-s-20260714-101500-7a3c.jsonl";
const SHOP_CHILD_TRANSCRIPT: &str =
    "mycodeagent/shop/memory/transcripts/transcript-subagent-s-20260714-101504-b4e1.jsonl";

fn transcript(rel: &str) -> Imported {
    let imported = import(&data(rel)).unwrap();
    assert_well_formed(&imported);
    imported
}

#[test]
fn a_transcript_tells_the_session_its_trace_tells_but_for_tokens() {
    let imported = transcript(SHOP_TRANSCRIPT);
    assert_eq!(imported.format, Format::MyCodeAgent);
    assert_eq!(imported.header.session, "s-20260714-101500-7a3c");
    assert!(imported.header.cwd.ends_with("mycodeagent/shop"));
    assert!(
        imported
            .header
            .note
            .as_deref()
            .is_some_and(|n| n.contains("MyCodeAgent transcript")),
        "{:?}",
        imported.header.note
    );
    assert_eq!(imported.children_loaded, 1);
    let events = &imported.events;
    let traced = import(&data(SHOP_TRACE)).unwrap();
    for agent in [AgentId::Main, AgentId::Sub(1)] {
        let kinds_of = |events: &[Event]| {
            of(events, agent)
                .iter()
                .map(|e| e.kind.wire_name())
                .filter(|k| *k != "text_delta")
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds_of(events), kinds_of(&traced.events), "{agent}");
        // The transcript's ids are the real ones the trace masked.
        assert_eq!(
            pairs(events, agent),
            pairs(&traced.events, agent),
            "{agent}"
        );
        assert_eq!(
            hooks(events, agent),
            hooks(&traced.events, agent),
            "{agent}"
        );
    }
    let sub1 = of(events, AgentId::Sub(1));
    assert_eq!(sub1.len(), SHOP_CHILD_KINDS.len());
    assert_eq!(count(events, AgentId::Main, "user_message"), 1);
    assert_eq!(count(events, AgentId::Main, "model_request"), 4);
    assert_eq!(count(events, AgentId::Sub(1), "tool_call"), 3);
    assert_eq!(count(events, AgentId::Sub(1), "hook_continue"), 1);
    let EventKind::SubagentStart(start) = &sub1[0].kind else {
        panic!("{sub1:?}");
    };
    let crate::event::SubagentStart {
        parent_call_id,
        description,
        prompt,
        profile,
        model,
        ..
    } = &**start;
    assert_eq!(
        (
            parent_call_id.as_str(),
            description.as_str(),
            profile.as_str(),
            model.as_str()
        ),
        ("call_00_Tk7Qm2", "find retry limit", "explore", "light")
    );
    assert!(prompt.starts_with("Find where the HTTP client's retry limit"));
    let Some(EventKind::SubagentEnd {
        reason,
        summary,
        steps,
        tool_usage,
        usage,
        elapsed_ms,
    }) = sub1.last().map(|e| &e.kind)
    else {
        panic!("{sub1:?}");
    };
    assert_eq!((*reason, *steps), (TerminalReason::Completed, 4));
    assert!(summary.starts_with("The retry limit is Client.max_retries"));
    assert_eq!(
        &**tool_usage,
        &BTreeMap::from([("Grep".to_string(), 1), ("Read".to_string(), 2)])
    );
    assert_eq!(*elapsed_ms, 11_446, "the Task result's stats.time_ms");
    // No token counts in a transcript, and the import says so.
    assert_eq!(usage.total(), 0);
    let total: u64 = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd { usage, .. } => Some(usage.total()),
            _ => None,
        })
        .sum();
    assert_eq!(total, 0);
    assert!(
        imported.notes.iter().any(|n| n.contains("no token counts")),
        "{:?}",
        imported.notes
    );
    let skipped: BTreeMap<String, usize> =
        [("state_transition", 14), ("tool_lifecycle started", 5)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
    assert_eq!(imported.skipped, skipped);
}

#[test]
fn a_childs_transcript_alone_is_a_session() {
    let imported = transcript(SHOP_CHILD_TRANSCRIPT);
    assert_eq!(imported.header.session, "subagent-s-20260714-101504-b4e1");
    assert_eq!(imported.children_loaded, 0);
    let events = &imported.events;
    assert_eq!(count(events, AgentId::Main, "user_message"), 1);
    assert_eq!(count(events, AgentId::Main, "model_request"), 4);
    assert_eq!(count(events, AgentId::Main, "tool_call"), 3);
    assert_eq!(count(events, AgentId::Main, "tool_result"), 3);
    assert_eq!(
        hooks(events, AgentId::Main),
        [
            "Return only a valid ExploreResult JSON object: Expecting value: line 1 column 1 (char 0)"
        ]
    );
    assert!(events.iter().all(|e| e.agent == AgentId::Main));
}

#[test]
fn a_transcript_is_told_by_content_and_a_missing_child_is_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let renamed = copy_as(SHOP_TRANSCRIPT, dir.path(), "session.jsonl");
    assert_eq!(detect(&renamed).unwrap(), Format::MyCodeAgent);
    let imported = import(&renamed).unwrap();
    assert_well_formed(&imported);
    assert_eq!(imported.children_loaded, 0);
    assert!(
        imported.notes.iter().any(|n| n
            .contains("transcript-subagent-s-20260714-101504-b4e1.jsonl")
            && n.contains("was not found")),
        "{:?}",
        imported.notes
    );
    let sub1 = of(&imported.events, AgentId::Sub(1));
    assert_eq!(
        kinds(&sub1),
        [
            "subagent_start",
            "user_message",
            "error",
            "turn_end",
            "subagent_end"
        ]
    );
}

#[test]
fn tool_messages_without_lifecycles_pair_with_their_calls() {
    // A session imported from a legacy snapshot has messages only.
    let dir = tempfile::tempdir().unwrap();
    let fact = |n: u32, kind: &str, payload: Value| {
        json!({"event_id": format!("evt-{n}"), "timestamp": format!("2026-07-14T10:00:0{n}Z"),
            "session_id": "s", "run_id": "legacy-1", "step": n, "event_type": kind,
            "payload": payload, "schema_version": 1})
    };
    let calls = json!([{"id": "c1", "name": "Read", "arguments": "{\"path\": \"a.py\"}"}]);
    let lines = [
        fact(
            1,
            "message",
            json!({"role": "user", "content": "read a.py", "metadata": {}}),
        ),
        fact(
            2,
            "message",
            json!({"role": "assistant", "content": "", "metadata": {"tool_calls": calls}}),
        ),
        fact(
            3,
            "message",
            json!({"role": "tool", "content": "{\"status\": \"success\", \"text\": \"print(1)\"}",
                "metadata": {"tool_name": "Read", "tool_call_id": "c1"}}),
        ),
        fact(
            4,
            "message",
            json!({"role": "assistant", "content": "It prints 1.", "metadata": {}}),
        ),
        fact(
            5,
            "checkpoint",
            json!({"checkpoint_id": "legacy-snapshot-import"}),
        ),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let path = dir.path().join("transcript-s.jsonl");
    std::fs::write(&path, text).unwrap();
    let imported = import(&path).unwrap();
    assert_well_formed(&imported);
    let calls: Vec<_> = imported
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall { call_id, input, .. } => Some(format!("call {call_id} {input}")),
            EventKind::ToolResult {
                call_id, content, ..
            } => Some(format!("result {call_id} {content}")),
            _ => None,
        })
        .collect();
    assert_eq!(calls, ["call c1 {\"path\":\"a.py\"}", "result c1 print(1)"]);
    assert_eq!(count(&imported.events, AgentId::Main, "model_request"), 2);
    assert_eq!(imported.skipped.get("checkpoint"), Some(&1));
}
