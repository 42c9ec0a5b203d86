use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use super::*;
use crate::event::TerminalReason;

#[path = "mycodeagent_real.rs"]
mod real;
#[path = "mycodeagent_transcript.rs"]
mod transcript;

fn sample() -> Imported {
    let imported = import(&data(MCA)).unwrap();
    assert_well_formed(&imported);
    imported
}

#[test]
fn a_child_trace_becomes_a_lane_tied_to_its_task_call() {
    let imported = sample();
    assert_eq!(imported.children_loaded, 1);
    assert_eq!(imported.header.provider, "mycodeagent");
    assert_eq!(imported.header.session, "s-20260103-201533-a3f2");
    assert_eq!(imported.header.model, "deepseek-chat");
    assert_eq!(imported.header.cwd, "/home/dev/shop");
    let sub1 = of(&imported.events, AgentId::Sub(1));
    assert_eq!(
        kinds(&sub1),
        [
            "subagent_start",
            "user_message",
            "model_request",
            "text_delta",
            "assistant_message",
            "tool_call",
            "tool_result",
            "model_request",
            "text_delta",
            "assistant_message",
            "tool_call",
            "tool_result",
            "model_request",
            "text_delta",
            "assistant_message",
            "turn_end",
            "subagent_end",
        ]
    );
    let EventKind::SubagentStart(start) = &sub1[0].kind else {
        panic!("{sub1:?}");
    };
    let crate::event::SubagentStart {
        parent_call_id,
        profile,
        model,
        model_name,
        ..
    } = &**start;
    assert_eq!(
        (
            parent_call_id.as_str(),
            profile.as_str(),
            model.as_str(),
            model_name.as_str()
        ),
        ("call_01", "explore", "light", "deepseek-chat-lite")
    );
    // Results without ids answer the open call of their tool.
    let pairs: Vec<_> = sub1
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall { call_id, name, .. } => Some(format!("call {call_id} {name}")),
            EventKind::ToolResult { call_id, name, .. } => Some(format!("result {call_id} {name}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        pairs,
        [
            "call sub-1-call-1 Grep",
            "result sub-1-call-1 Grep",
            "call sub-1-call-2 Read",
            "result sub-1-call-2 Read"
        ]
    );
    let EventKind::SubagentEnd {
        reason,
        summary,
        steps,
        tool_usage,
        elapsed_ms,
        usage,
    } = &sub1[16].kind
    else {
        panic!("{sub1:?}");
    };
    assert_eq!(*reason, TerminalReason::Completed);
    assert!(summary.starts_with("DATABASE_URL is read at"));
    assert_eq!(*steps, 3);
    assert_eq!(
        &**tool_usage,
        &BTreeMap::from([("Grep".to_string(), 1), ("Read".to_string(), 1)])
    );
    assert_eq!(*elapsed_ms, 13_690);
    assert_eq!(
        usage.input_tokens,
        900 + 1130 + 1300,
        "summed from the child's outputs"
    );
    let events = &imported.events;
    let call = position(
        events,
        |e| matches!(&e.kind, EventKind::ToolCall { call_id, .. } if call_id == "call_01"),
    );
    let result = position(
        events,
        |e| matches!(&e.kind, EventKind::ToolResult { call_id, .. } if call_id == "call_01"),
    );
    let start = position(events, |e| e.agent == AgentId::Sub(1));
    let end = position(events, |e| {
        e.agent == AgentId::Sub(1) && matches!(e.kind, EventKind::SubagentEnd { .. })
    });
    assert!(
        call < start && end < result,
        "{call} {start} {end} {result}"
    );
}

#[test]
fn a_missing_child_trace_is_a_lane_with_a_note_and_an_error() {
    let imported = sample();
    let sub2 = of(&imported.events, AgentId::Sub(2));
    assert_eq!(
        kinds(&sub2),
        [
            "subagent_start",
            "user_message",
            "error",
            "turn_end",
            "subagent_end"
        ]
    );
    let EventKind::Error { message } = &sub2[2].kind else {
        panic!("{sub2:?}");
    };
    assert!(
        message.contains("trace-s-20260103-201551-e9f0.jsonl"),
        "{message}"
    );
    let EventKind::SubagentEnd {
        reason, summary, ..
    } = &sub2[4].kind
    else {
        panic!("{sub2:?}");
    };
    assert_eq!(*reason, TerminalReason::ModelError);
    assert!(summary.contains("timed out"), "{summary}");
    assert_eq!(imported.notes.len(), 1, "{:?}", imported.notes);
    assert!(
        imported.notes[0].contains("s-20260103-201551-e9f0"),
        "{:?}",
        imported.notes
    );
    // The parent's own result of the call is the one shown, not a made-up one.
    let results: Vec<bool> = imported
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult {
                call_id, is_error, ..
            } if call_id == "call_02" => Some(*is_error),
            _ => None,
        })
        .collect();
    assert_eq!(results, [true]);
}

#[test]
fn unknown_events_are_counted_and_the_input_is_not_doubled() {
    let imported = sample();
    let expected: BTreeMap<String, usize> = [
        ("context_build", 1),
        ("message_written", 1),
        ("parsed_action", 1),
        ("state_transition", 1),
        ("system_messages", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(imported.skipped, expected);
    let main = of(&imported.events, AgentId::Main);
    let users = main
        .iter()
        .filter(|e| matches!(e.kind, EventKind::UserMessage { .. }))
        .count();
    assert_eq!(users, 1, "run_start and user_input carry the same text");
    let ends: Vec<_> = main
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::TurnEnd { reason, steps, .. } => Some((reason, steps)),
            _ => None,
        })
        .collect();
    assert_eq!(ends, [(TerminalReason::Completed, 2)]);
}

#[test]
fn bad_lines_are_reported_by_file_and_number_and_a_cut_last_line_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let parent = copy_as(MCA, dir.path(), "trace-s-20260103-201533-a3f2.jsonl");
    let child = copy_as(MCA_CHILD, dir.path(), "trace-s-20260103-201536-c1d2.jsonl");
    let body = std::fs::read_to_string(&parent).unwrap();
    let mut lines: Vec<&str> = body.lines().collect();
    lines.insert(2, "{\"ts\": oops}");
    lines.insert(4, "{\"ts\": \"2026-01-03T20:15:33Z\", \"payload\": {}}");
    std::fs::write(&parent, lines.join("\n") + "\n").unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&child)
        .unwrap();
    write!(
        file,
        "{{\"ts\": \"2026-01-03T20:15:49.7Z\", \"event\": \"fin"
    )
    .unwrap();
    drop(file);
    let imported = import(&parent).unwrap();
    assert_well_formed(&imported);
    let bad: Vec<_> = imported
        .bad_lines
        .iter()
        .map(|b| (b.path.clone(), b.line))
        .collect();
    assert_eq!(bad, [(parent.clone(), 3), (parent.clone(), 5)]);
    assert!(
        imported.bad_lines[1].error.contains("event"),
        "{:?}",
        imported.bad_lines
    );
    assert_eq!(imported.truncated, [child]);
    assert_eq!(imported.children_loaded, 1);
}

#[test]
fn cycles_between_traces_end_instead_of_looping() {
    let dir = tempfile::tempdir().unwrap();
    let start = |child: &str| {
        line(
            "subagent_started",
            json!({"child_session_id": child, "prompt": "go"}),
        )
    };
    let end = |child: &str| {
        line(
            "subagent_finished",
            json!({"child_session_id": child, "status": "completed"}),
        )
    };
    write_trace(
        &dir.path().join("trace-a.jsonl"),
        &[
            line("user_input", json!({"text": "hi"})),
            start("b"),
            end("b"),
        ],
    );
    // b starts a (its own parent) and itself.
    write_trace(
        &dir.path().join("trace-b.jsonl"),
        &[start("a"), end("a"), start("b"), end("b")],
    );
    let imported = import(&dir.path().join("trace-a.jsonl")).unwrap();
    assert_well_formed(&imported);
    assert_eq!(imported.children_loaded, 1);
    let cycles = imported
        .notes
        .iter()
        .filter(|n| n.contains("cycle"))
        .count();
    assert_eq!(cycles, 2, "{:?}", imported.notes);
    // b is sub-1; its two children are lanes of their own, parented by sub-1.
    let parents: Vec<_> = imported
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SubagentStart(start) => Some((e.agent, start.parent)),
            _ => None,
        })
        .collect();
    assert_eq!(
        parents,
        [
            (AgentId::Sub(1), AgentId::Main),
            (AgentId::Sub(2), AgentId::Sub(1)),
            (AgentId::Sub(3), AgentId::Sub(1))
        ]
    );
}

#[test]
fn a_subagent_without_its_call_or_end_still_makes_sense() {
    let dir = tempfile::tempdir().unwrap();
    write_trace(
        &dir.path().join("trace-p.jsonl"),
        &[
            line("user_input", json!({"text": "hi"})),
            line(
                "subagent_spawned",
                json!({"child_session_id": "c", "description": "look", "prompt": "look around"}),
            ),
            line("subagent_end", json!({"child_session_id": "zzz"})),
            line("mystery_event", json!({})),
        ],
    );
    write_trace(
        &dir.path().join("trace-c.jsonl"),
        &[line(
            "model_output",
            json!({"content": "looking", "usage": {"input_tokens": 5, "output_tokens": 2}}),
        )],
    );
    let imported = import(&dir.path().join("trace-p.jsonl")).unwrap();
    assert_well_formed(&imported);
    // A task call is made up, so the screen has a cell to tie the child to.
    let call = imported.events.iter().find_map(|e| match &e.kind {
        EventKind::ToolCall {
            call_id,
            name,
            input,
            ..
        } if e.agent == AgentId::Main => {
            Some((call_id.clone(), name.clone(), input["prompt"].clone()))
        }
        _ => None,
    });
    assert_eq!(
        call,
        Some((
            "sub-1-task".to_string(),
            "task".to_string(),
            json!("look around")
        ))
    );
    let sub1 = of(&imported.events, AgentId::Sub(1));
    assert_eq!(
        kinds(&sub1),
        [
            "subagent_start",
            "user_message",
            "model_request",
            "text_delta",
            "assistant_message",
            "turn_end",
            "subagent_end"
        ]
    );
    let EventKind::SubagentEnd { reason, usage, .. } = &sub1[6].kind else {
        panic!("{sub1:?}");
    };
    assert_eq!(*reason, TerminalReason::Interrupted, "no end was recorded");
    assert_eq!(usage.total(), 7);
    assert_eq!(imported.skipped.get("mystery_event"), Some(&1));
    assert!(
        imported.notes.iter().any(|n| n.contains("never started")),
        "{:?}",
        imported.notes
    );
}

fn line(event: &str, payload: Value) -> Value {
    json!({"ts": "2026-01-03T20:15:33.112Z", "session_id": "x", "step": 0, "event": event, "payload": payload})
}

fn write_trace(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}
