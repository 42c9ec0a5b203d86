//! MyCodeAgent sessions in the shape its runtime writes them (the sample under
//! `tests/data/import/mycodeagent/shop/`): masked call ids, `subagent_*` events
//! without the task's words, completion-gate corrections.

use serde_json::json;

use super::*;
use crate::event::TerminalReason;

pub(super) const SHOP_TRACE: &str =
    "mycodeagent/shop/memory/traces/trace-s-20260714-101500-7a3c.jsonl";
pub(super) const SHOP_CHILD_TRACE: &str =
    "mycodeagent/shop/memory/traces/trace-s-20260714-101504-b4e1.jsonl";

fn shop() -> Imported {
    let imported = import(&data(SHOP_TRACE)).unwrap();
    assert_well_formed(&imported);
    imported
}

/// `call ID NAME` and `result ID NAME` lines of one agent, in order.
pub(super) fn pairs(events: &[Event], agent: AgentId) -> Vec<String> {
    of(events, agent)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall { call_id, name, .. } => Some(format!("call {call_id} {name}")),
            EventKind::ToolResult { call_id, name, .. } => Some(format!("result {call_id} {name}")),
            _ => None,
        })
        .collect()
}

/// How many events of `kind` (a wire name) `agent` has.
pub(super) fn count(events: &[Event], agent: AgentId, kind: &str) -> usize {
    of(events, agent)
        .iter()
        .filter(|e| e.kind.wire_name() == kind)
        .count()
}

pub(super) fn hooks(events: &[Event], agent: AgentId) -> Vec<String> {
    of(events, agent)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::HookContinue { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// What sub-1 does in the sample, from its start to its end.
pub(super) const SHOP_CHILD_KINDS: [&str; 22] = [
    "subagent_start",
    "user_message",
    "model_request",
    "text_delta",
    "assistant_message",
    "tool_call",
    "tool_result",
    "model_request",
    "assistant_message",
    "tool_call",
    "tool_call",
    "tool_result",
    "tool_result",
    "model_request",
    "text_delta",
    "assistant_message",
    "hook_continue",
    "model_request",
    "text_delta",
    "assistant_message",
    "turn_end",
    "subagent_end",
];

#[test]
fn a_childs_completion_gate_correction_is_a_line_of_its_lane() {
    let imported = shop();
    assert_eq!(imported.children_loaded, 1);
    let events = &imported.events;
    let sub1 = of(events, AgentId::Sub(1));
    assert_eq!(kinds(&sub1), SHOP_CHILD_KINDS);
    // Right after the answer the gate refused, before the answer it took.
    let EventKind::AssistantMessage { text, .. } = &sub1[15].kind else {
        panic!("{sub1:?}");
    };
    assert!(text.starts_with("The retry limit is MAX_RETRIES"), "{text}");
    assert_eq!(
        hooks(events, AgentId::Sub(1)),
        [
            "Return only a valid ExploreResult JSON object: Expecting value: line 1 column 1 (char 0)"
        ]
    );
    // The parent's own gate asked for the tests: one correction, though the
    // trace logs both the verdict and the message it became; not a prompt.
    let main = hooks(events, AgentId::Main);
    assert_eq!(main.len(), 1, "{main:?}");
    assert!(
        main[0].starts_with("<system-reminder>Completion blocked by runtime gate."),
        "{main:?}"
    );
    assert_eq!(count(events, AgentId::Main, "user_message"), 1);
    assert_eq!(count(events, AgentId::Main, "model_request"), 4);
    assert_eq!(count(events, AgentId::Main, "tool_call"), 2);
    let ends: Vec<_> = of(events, AgentId::Main)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd {
                reason,
                steps,
                usage,
            } => Some((*reason, *steps, usage.input_tokens, usage.output_tokens)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ends,
        [(
            TerminalReason::Completed,
            4,
            3120 + 3510 + 3680 + 3790,
            96 + 58 + 40 + 52
        )]
    );
}

#[test]
fn masked_call_ids_come_back_from_the_transcript() {
    let imported = shop();
    let events = &imported.events;
    assert_eq!(
        pairs(events, AgentId::Main),
        [
            "call call_00_Tk7Qm2 task",
            "result call_00_Tk7Qm2 task",
            "call call_00_Bs3Lw9 Bash",
            "result call_00_Bs3Lw9 Bash"
        ]
    );
    // The two reads ran at once and the second finished first.
    assert_eq!(
        pairs(events, AgentId::Sub(1)),
        [
            "call call_00_Gr4pQx Grep",
            "result call_00_Gr4pQx Grep",
            "call call_01_Rd8kLm Read",
            "call call_02_Rd2vNc Read",
            "result call_02_Rd2vNc Read",
            "result call_01_Rd8kLm Read"
        ]
    );
    let settings = events.iter().find_map(|e| match &e.kind {
        EventKind::ToolResult {
            call_id, content, ..
        } if call_id == "call_02_Rd2vNc" => Some(content.to_string()),
        _ => None,
    });
    assert!(
        settings.is_some_and(|c| c.contains("31: HTTP_RETRIES")),
        "{events:?}"
    );
    let start = events.iter().find_map(|e| match &e.kind {
        EventKind::SubagentStart { parent_call_id, .. } => Some(parent_call_id.as_str()),
        _ => None,
    });
    assert_eq!(start, Some("call_00_Tk7Qm2"));
}

#[test]
fn without_a_transcript_masked_ids_are_unique_and_results_find_their_calls() {
    let dir = tempfile::tempdir().unwrap();
    let parent = copy_as(SHOP_TRACE, dir.path(), "trace-s-20260714-101500-7a3c.jsonl");
    copy_as(
        SHOP_CHILD_TRACE,
        dir.path(),
        "trace-s-20260714-101504-b4e1.jsonl",
    );
    let imported = import(&parent).unwrap();
    assert_well_formed(&imported);
    let events = &imported.events;
    assert_eq!(
        pairs(events, AgentId::Main),
        [
            "call main-call-1 task",
            "result main-call-1 task",
            "call main-call-2 Bash",
            "result main-call-2 Bash"
        ]
    );
    // A result's envelope repeats its call's arguments: the read of
    // settings.py (call 3) finished first and is answered as such.
    assert_eq!(
        pairs(events, AgentId::Sub(1)),
        [
            "call sub-1-call-1 Grep",
            "result sub-1-call-1 Grep",
            "call sub-1-call-2 Read",
            "call sub-1-call-3 Read",
            "result sub-1-call-3 Read",
            "result sub-1-call-2 Read"
        ]
    );
    // Without arguments to go by, results answer their tool's calls in order;
    // a call that failed before it had a result is answered by its failure.
    let masked = |tool: &str, args: Value| {
        line(
            "tool_call",
            json!({"tool": tool, "args": args, "tool_call_id": "***"}),
        )
    };
    write_trace(
        &dir.path().join("trace-m.jsonl"),
        &[
            line("user_input", json!({"text": "find a and b"})),
            masked("Grep", json!({"pattern": "a"})),
            masked("Grep", json!({"pattern": "b"})),
            line(
                "tool_result",
                json!({"tool": "Grep", "result": {"status": "success", "text": "a hits"}}),
            ),
            line(
                "tool_result",
                json!({"tool": "Grep", "result": {"status": "success", "text": "b hits"}}),
            ),
            masked("Read", json!({"path": "gone.py"})),
            line(
                "tool_lifecycle",
                json!({"tool_name": "Read", "tool_call_id": "***", "status": "failed",
                    "payload": {"error": "boom", "args": {"path": "gone.py"}}}),
            ),
        ],
    );
    let imported = import(&dir.path().join("trace-m.jsonl")).unwrap();
    let results: Vec<_> = imported
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult {
                call_id,
                content,
                is_error,
                ..
            } => Some((call_id.as_str(), content.to_string(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("main-call-1", "a hits".to_string(), false),
            ("main-call-2", "b hits".to_string(), false),
            ("main-call-3", "boom".to_string(), true)
        ]
    );
}
