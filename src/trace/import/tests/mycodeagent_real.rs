//! MyCodeAgent sessions in the shape its runtime writes them (the sample under
//! `tests/data/import/mycodeagent/shop/`): masked call ids, `subagent_*` events
//! without the task's words, completion-gate corrections.

use std::collections::BTreeMap;

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
        EventKind::SubagentStart(start) => Some(start.parent_call_id.as_str()),
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

#[test]
fn the_task_description_and_prompt_come_from_its_call() {
    let imported = shop();
    assert_eq!(imported.header.session, "s-20260714-101500-7a3c");
    assert_eq!(imported.header.model, "deepseek-chat");
    assert!(
        imported.header.cwd.ends_with("mycodeagent/shop"),
        "the project the memory/ folder is in: {}",
        imported.header.cwd
    );
    let sub1 = of(&imported.events, AgentId::Sub(1));
    let EventKind::SubagentStart(start) = &sub1[0].kind else {
        panic!("{sub1:?}");
    };
    let crate::event::SubagentStart {
        profile,
        model,
        model_name,
        description,
        prompt,
        max_steps,
        token_budget,
        context_budget,
        ..
    } = &**start;
    assert_eq!(description, "find retry limit");
    assert_eq!(
        prompt,
        "Find where the HTTP client's retry limit is configured and report file:line evidence."
    );
    assert_eq!(
        (profile.as_str(), model.as_str(), model_name.as_str()),
        ("explore", "light", "qwen-turbo")
    );
    assert_eq!(
        (*max_steps, *token_budget, *context_budget),
        (Some(12), Some(32_000), Some(16_000))
    );
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
    assert_eq!(*reason, TerminalReason::Completed);
    // What the parent received, not the child's raw JSON.
    assert!(
        summary.starts_with("The retry limit is Client.max_retries"),
        "{summary}"
    );
    assert_eq!(*steps, 4);
    assert_eq!(
        &**tool_usage,
        &BTreeMap::from([("Grep".to_string(), 1), ("Read".to_string(), 2)])
    );
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (1450 + 1890 + 2630 + 2720, 38 + 61 + 35 + 104)
    );
    assert_eq!(*elapsed_ms, 11_440);
}

#[test]
fn a_child_without_a_task_call_and_a_gate_that_kept_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let sub = |event: &str, extra: Value| {
        let mut payload = json!({"parent_session_id": "p", "parent_run_id": "run-1",
            "profile": "verification", "max_steps": 10, "context_token_budget": 20000,
            "total_token_budget": 40000, "child_session_id": "v", "child_run_id": "run-1",
            "model": "main"});
        if let (Some(p), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        line(event, payload)
    };
    let refused = "Parameter 'subagent_type' must be 'explore'.";
    write_trace(
        &dir.path().join("trace-p.jsonl"),
        &[
            line("user_input", json!({"text": "fix it, then run the tests"})),
            line(
                "tool_call",
                json!({"tool": "Task", "tool_call_id": "***",
                    "args": {"description": "fix", "prompt": "fix it", "subagent_type": "general"}}),
            ),
            line(
                "tool_result",
                json!({"tool": "Task", "result": {"status": "error", "text": refused}}),
            ),
            line("model_output", json!({"raw": "Fixed; tests pass."})),
            sub("subagent_requested", json!({})),
            sub("subagent_started", json!({})),
            sub(
                "subagent_failed",
                json!({"terminal_reason": "runtime_error", "elapsed_ms": 900,
                    "error": "child terminal reason: completion_gate_blocked"}),
            ),
            line("terminal", json!({"reason": "completed_unverified"})),
            line("finish", json!({"final": "Fixed; tests pass."})),
        ],
    );
    let ask = "Independently verify this completion candidate.\n\nStructured context:\n{}";
    let gate = "Return only a valid VerificationResult JSON object: Expecting value: line 1 column 1 (char 0)";
    let refusal = [
        line(
            "completion_gate_verdict",
            json!({"verdict": "fail", "blocking_feedback": gate}),
        ),
        line(
            "message_written",
            json!({"role": "user", "content": gate, "metadata": {"source": "completion_gate"}}),
        ),
    ];
    let mut child = vec![
        line("run_start", json!({"run_id": 1, "input": ask})),
        line("model_output", json!({"raw": "Looks right to me."})),
    ];
    child.extend(refusal.clone());
    child.push(line("model_output", json!({"raw": "It passes."})));
    child.extend(refusal);
    child.push(line(
        "terminal",
        json!({"reason": "completion_gate_blocked"}),
    ));
    write_trace(&dir.path().join("trace-v.jsonl"), &child);
    let imported = import(&dir.path().join("trace-p.jsonl")).unwrap();
    assert_well_formed(&imported);
    // The refused call keeps its result and starts nothing; the verifier gets
    // a call of its own, named by what it was asked.
    let calls: Vec<_> = imported
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall { call_id, input, .. } => {
                Some((call_id.clone(), input["prompt"].clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("main-call-1".to_string(), json!("fix it")),
            ("sub-1-task".to_string(), json!(ask))
        ]
    );
    let sub1 = of(&imported.events, AgentId::Sub(1));
    let EventKind::SubagentStart(start) = &sub1[0].kind else {
        panic!("{sub1:?}");
    };
    let crate::event::SubagentStart {
        parent_call_id,
        profile,
        description,
        prompt,
        token_budget,
        ..
    } = &**start;
    assert_eq!(
        (
            parent_call_id.as_str(),
            profile.as_str(),
            description.as_str()
        ),
        (
            "sub-1-task",
            "verification",
            "Independently verify this completion candidate."
        )
    );
    assert_eq!((prompt.as_str(), *token_budget), (ask, Some(40_000)));
    assert_eq!(hooks(&imported.events, AgentId::Sub(1)), [gate, gate]);
    let reasons: Vec<_> = sub1
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd { reason, .. } | EventKind::SubagentEnd { reason, .. } => {
                Some(*reason)
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        [
            TerminalReason::ContractViolation,
            TerminalReason::ContractViolation
        ],
        "the child's own end, not the launcher's runtime_error"
    );
}

#[test]
fn a_traces_transcript_is_read_once_even_when_its_lines_name_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let bare = |event: &str, payload: Value| json!({"ts": 1_767_000_000, "event": event, "payload": payload});
    let calls: Vec<Value> = (1..=3)
        .map(|n| {
            bare(
                "tool_call",
                json!({"tool": "Read", "args": {"path": format!("{n}.py")}, "tool_call_id": "***"}),
            )
        })
        .collect();
    write_trace(&dir.path().join("trace-s9.jsonl"), &calls);
    let fact = |n: u32| {
        json!({"event_id": format!("e{n}"), "timestamp": "2026-07-14T10:00:00Z", "session_id": "s9",
            "run_id": "run-1", "step": 1, "event_type": "tool_lifecycle", "schema_version": 1,
            "payload": {"tool_name": "Read", "tool_call_id": format!("real-{n}"), "status": "requested",
                "args": {"path": format!("{n}.py")}}})
    };
    let text = format!("{}\nnot json\n{}\n{}\n", fact(1), fact(2), fact(3));
    std::fs::write(dir.path().join("transcript-s9.jsonl"), text).unwrap();
    let imported = import(&dir.path().join("trace-s9.jsonl")).unwrap();
    assert_eq!(
        pairs(&imported.events, AgentId::Main),
        ["call real-1 Read", "call real-2 Read", "call real-3 Read"]
    );
    let bad: Vec<_> = imported.bad_lines.iter().map(|b| b.line).collect();
    assert_eq!(bad, [2], "{:?}", imported.bad_lines);
}
