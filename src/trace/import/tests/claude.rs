use std::collections::BTreeMap;
use std::io::Write;

use super::*;
use crate::event::{TerminalReason, Usage};

fn session() -> Imported {
    let imported = import(&data(SESSION)).unwrap();
    assert_well_formed(&imported);
    imported
}

#[test]
fn lines_sharing_a_message_id_are_one_message() {
    let imported = session();
    let main = of(&imported.events, AgentId::Main);
    let messages: Vec<_> = main
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AssistantMessage {
                text,
                tool_calls,
                usage,
                stop_reason,
            } => Some((text.as_str(), *tool_calls, *usage, stop_reason.as_str())),
            _ => None,
        })
        .collect();
    // Four lines of msg_01MainA, two of msg_01MainB, then C, D and E.
    assert_eq!(messages.len(), 5, "{messages:?}");
    let usage = Usage {
        input_tokens: 3,
        output_tokens: 214,
        cache_read_tokens: 12000,
        cache_write_tokens: 900,
        reasoning_tokens: 0,
        estimated: false,
    };
    assert_eq!(
        messages[0],
        ("I'll look at both in parallel.", 2, usage, "tool_use")
    );
    assert_eq!(messages[1].0, "Let me confirm the refresh call site.");
    assert_eq!(messages[1].1, 1);
    let steps: Vec<u32> = main
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::ModelRequest { step, .. } => Some(step),
            _ => None,
        })
        .collect();
    assert_eq!(steps, [1, 2, 3, 1, 2], "steps restart with each user turn");
    // The request comes first, then the text, the message and its calls.
    assert_eq!(
        kinds(&main[..7]),
        [
            "user_message",
            "model_request",
            "text_delta",
            "assistant_message",
            "tool_call",
            "tool_call",
            "tool_result"
        ]
    );
    let turn_ends: Vec<_> = main
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd { reason, steps, .. } => Some((*reason, *steps, e.t_ms)),
            _ => None,
        })
        .collect();
    // The first turn ends with its last answer (38 s), not at the next prompt.
    assert_eq!(
        turn_ends,
        [
            (TerminalReason::Completed, 3, 38_000),
            (TerminalReason::Completed, 2, 83_000)
        ]
    );
}

#[test]
fn task_calls_become_child_lanes_in_call_order() {
    let imported = session();
    let events = &imported.events;
    assert_eq!(imported.children_loaded, 2);
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    let starts: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SubagentStart(start) => {
                let crate::event::SubagentStart {
                    parent,
                    parent_call_id,
                    profile,
                    model,
                    model_name,
                    description,
                    prompt,
                    max_steps,
                    ..
                } = &**start;
                assert_eq!(*parent, AgentId::Main);
                assert_eq!(model, "main");
                assert!(max_steps.is_none());
                assert!(prompt.starts_with(if e.agent == AgentId::Sub(1) {
                    "Find where"
                } else {
                    "Explain how"
                }));
                Some((
                    e.agent,
                    parent_call_id.as_str(),
                    profile.as_str(),
                    model_name.as_str(),
                    description.as_str(),
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        [
            (
                AgentId::Sub(1),
                "toolu_01AuthEntry",
                "Explore",
                "claude-haiku-4-5-20251001",
                "find auth entry points"
            ),
            (
                AgentId::Sub(2),
                "toolu_01Refresh",
                "general-purpose",
                "claude-sonnet-4-5-20250929",
                "token refresh flow"
            ),
        ]
    );
    // The calls are brood's task tool, so the screen draws task cells.
    let task_calls = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::ToolCall { name, .. } if name == "task"))
        .count();
    assert_eq!(task_calls, 2);

    let sub1 = of(events, AgentId::Sub(1));
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
            "assistant_message",
            "tool_call",
            "tool_call",
            "tool_result",
            "tool_result",
            "model_request",
            "text_delta",
            "assistant_message",
            "turn_end",
            "subagent_end",
        ]
    );
    let EventKind::SubagentEnd {
        reason,
        summary,
        steps,
        tool_usage,
        usage,
        elapsed_ms,
    } = &sub1.last().unwrap().kind
    else {
        panic!("sub-1 does not end with subagent_end");
    };
    assert_eq!(*reason, TerminalReason::Completed);
    assert!(
        summary.starts_with("Authentication entry points:"),
        "{summary}"
    );
    assert!(
        !summary.contains("agentId"),
        "the trailer is for the model: {summary}"
    );
    assert_eq!(*steps, 3);
    assert_eq!(
        &**tool_usage,
        &BTreeMap::from([("Glob".to_string(), 1), ("Grep".to_string(), 2)])
    );
    assert_eq!(usage.output_tokens, 48 + 61 + 120);
    assert_eq!(*elapsed_ms, 27_600, "from toolUseResult.totalDurationMs");
}

#[test]
fn children_interleave_with_each_other_and_sit_inside_their_calls() {
    let imported = session();
    let events = &imported.events;
    let call = |id: &str| {
        position(
            events,
            |e| matches!(&e.kind, EventKind::ToolCall { call_id, .. } if call_id == id),
        )
    };
    let result = |id: &str| {
        position(
            events,
            |e| matches!(&e.kind, EventKind::ToolResult { call_id, .. } if call_id == id),
        )
    };
    let start = |n| {
        position(events, |e| {
            e.agent == AgentId::Sub(n) && matches!(e.kind, EventKind::SubagentStart(_))
        })
    };
    let end = |n| {
        position(events, |e| {
            e.agent == AgentId::Sub(n) && matches!(e.kind, EventKind::SubagentEnd { .. })
        })
    };
    assert!(call("toolu_01AuthEntry") < start(1));
    assert!(call("toolu_01Refresh") < start(2));
    assert!(end(1) < result("toolu_01AuthEntry"));
    assert!(end(2) < result("toolu_01Refresh"));
    // sub-2 finished first, while sub-1 was still working.
    assert!(end(2) < end(1));
    assert!(start(1) < start(2));
    // Between the two starts and the first end, both lanes take turns.
    let middle: Vec<AgentId> = events[start(2)..end(2)].iter().map(|e| e.agent).collect();
    let switches = middle.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(switches >= 3, "lanes do not interleave: {middle:?}");
}

#[test]
fn unused_line_types_and_blocks_are_counted() {
    let imported = session();
    let expected: BTreeMap<String, usize> = [
        ("block:thinking", 1),
        ("file-history-snapshot", 2),
        ("progress", 1),
        ("summary", 1),
        ("system", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(imported.skipped, expected);
    assert!(imported.bad_lines.is_empty());
    assert!(imported.truncated.is_empty());
}

#[test]
fn inline_sidechains_become_lanes_linked_by_prompt() {
    let imported = import(&data(INLINE)).unwrap();
    assert_well_formed(&imported);
    let events = &imported.events;
    assert_eq!(imported.children_loaded, 2);
    // The flat agent file beside it belongs to another session: not linked, no note.
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    let main = of(events, AgentId::Main);
    assert!(
        !main
            .iter()
            .any(|e| matches!(&e.kind, EventKind::ToolCall { name, .. } if name != "task")),
        "a sidechain's calls leaked into the main lane"
    );
    assert!(
        main.iter()
            .any(|e| matches!(e.kind, EventKind::Interrupted {}))
    );
    let ends: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SubagentEnd {
                reason,
                summary,
                tool_usage,
                ..
            } => Some((e.agent, *reason, summary.clone(), (**tool_usage).clone())),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2);
    assert_eq!(ends[0].0, AgentId::Sub(1));
    assert_eq!(ends[0].1, TerminalReason::Completed);
    assert!(ends[0].2.starts_with("Dependencies:"));
    assert_eq!(ends[0].3, BTreeMap::from([("Read".to_string(), 1)]));
    assert_eq!(ends[1].0, AgentId::Sub(2));
    assert_eq!(ends[1].1, TerminalReason::Interrupted);
    assert_eq!(
        ends[1].3,
        BTreeMap::from([("Glob".to_string(), 1), ("Read".to_string(), 1)])
    );
    let first_turn = main.iter().find_map(|e| match e.kind {
        EventKind::TurnEnd { reason, .. } => Some(reason),
        _ => None,
    });
    assert_eq!(first_turn, Some(TerminalReason::Interrupted));
    let prompts: Vec<_> = events
        .iter()
        .filter(|e| e.agent != AgentId::Main)
        .filter_map(|e| match &e.kind {
            EventKind::UserMessage { text } => {
                Some((e.agent, text.split(' ').next().unwrap_or_default()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        prompts,
        [(AgentId::Sub(2), "Audit"), (AgentId::Sub(1), "List")]
    );
}

#[test]
fn bad_lines_are_reported_by_file_and_number_and_a_cut_last_line_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("-home-dev-shop");
    copy_tree(&data("claude/-home-dev-shop"), &project);
    let main = project.join("7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl");
    let child = project.join("7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17/subagents/agent-a1b2c3d.jsonl");
    insert_line(&main, 4, "{\"type\": \"user\", \"message\": ");
    insert_line(&main, 6, "[1, 2, 3]");
    insert_line(&child, 2, "not json at all");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&main)
        .unwrap();
    write!(
        file,
        "{{\"type\":\"assistant\",\"message\":{{\"id\":\"msg_cut\",\"content\":[{{\"type\":\"te"
    )
    .unwrap();
    drop(file);
    let imported = import(&main).unwrap();
    assert_well_formed(&imported);
    let bad: Vec<(String, usize)> = imported
        .bad_lines
        .iter()
        .map(|b| {
            (
                b.path.file_name().unwrap().to_string_lossy().into_owned(),
                b.line,
            )
        })
        .collect();
    assert_eq!(
        bad,
        [
            ("7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl".to_string(), 4),
            ("7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl".to_string(), 6),
            ("agent-a1b2c3d.jsonl".to_string(), 2),
        ]
    );
    assert_eq!(imported.truncated, [main]);
    // Everything else is still there.
    assert_eq!(imported.children_loaded, 2);
    assert_eq!(
        of(&imported.events, AgentId::Main).len(),
        session()
            .events
            .iter()
            .filter(|e| e.agent == AgentId::Main)
            .count()
    );
}

#[test]
fn a_call_without_transcript_gets_a_lane_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let main = copy_as(
        SESSION,
        dir.path(),
        "7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl",
    );
    let imported = import(&main).unwrap();
    assert_well_formed(&imported);
    // Without its files, sub-1 still has the one progress line the session
    // carries (its prompt); sub-2 has nothing.
    assert_eq!(imported.children_loaded, 1);
    assert_eq!(imported.notes.len(), 1, "{:?}", imported.notes);
    assert!(
        imported.notes[0].contains("toolu_01Refresh"),
        "{:?}",
        imported.notes
    );
    let sub1 = of(&imported.events, AgentId::Sub(1));
    assert_eq!(
        kinds(&sub1),
        ["subagent_start", "user_message", "turn_end", "subagent_end"]
    );
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
    let EventKind::SubagentEnd {
        reason,
        summary,
        usage,
        ..
    } = &sub2[4].kind
    else {
        panic!("{sub2:?}");
    };
    assert_eq!(*reason, TerminalReason::Completed);
    assert!(summary.starts_with("Refresh happens in auth/tokens.py"));
    assert_eq!(usage.output_tokens, 180, "from toolUseResult.usage");
}

#[test]
fn a_subagent_file_alone_is_shown_as_the_session() {
    let imported = import(&data("claude/-home-dev-shop/agent-e4f5a6b.jsonl")).unwrap();
    assert_well_formed(&imported);
    let main = of(&imported.events, AgentId::Main);
    assert_eq!(imported.events.len(), main.len(), "no child lanes");
    assert!(
        matches!(&main[0].kind, EventKind::UserMessage { text } if text.starts_with("Explain how"))
    );
    assert!(
        main.iter()
            .any(|e| matches!(&e.kind, EventKind::ToolCall { name, .. } if name == "Read"))
    );
    assert_eq!(imported.header.model, "claude-sonnet-4-5-20250929");
}
