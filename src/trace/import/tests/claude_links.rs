//! Claude Code sessions shaped like 2.0 and 2.1 files: sidechains told apart by
//! `agentId`, children carried by `agent_progress` lines, messages split over
//! lines with tool results between them. The counts asserted were read off the
//! samples in `tests/data/import/claude/-home-dev-notes/` by hand.

use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::event::{TerminalReason, Usage};

const INLINE_IDS: &str = "claude/-home-dev-notes/3a41c7e2-5b9d-4f60-8e2a-7c1d9b4f0a63.jsonl";
const USAGE: &str = "claude/-home-dev-notes/5d2e8f14-0c7a-4b3e-9f61-2a8d4c6e1b07.jsonl";
const PROGRESS: &str = "claude/-home-dev-notes/8b7c6d5e-4f3a-4b21-8c0d-9e8f7a6b5c4d.jsonl";

/// `(text, tool calls, usage)` of each assistant message of one agent.
fn messages(events: &[Event], agent: AgentId) -> Vec<(String, usize, Usage)> {
    of(events, agent)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AssistantMessage {
                text,
                tool_calls,
                usage,
                ..
            } => Some((text.clone(), *tool_calls, *usage)),
            _ => None,
        })
        .collect()
}

/// `(steps, output tokens)` of each of the session's turns.
fn turns(events: &[Event]) -> Vec<(u32, u64)> {
    of(events, AgentId::Main)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd { steps, usage, .. } => Some((*steps, usage.output_tokens)),
            _ => None,
        })
        .collect()
}

/// What a child's `subagent_end` says: reason, steps, tools, output tokens.
fn end_of(events: &[Event], n: u32) -> (TerminalReason, u32, BTreeMap<String, u32>, u64, String) {
    of(events, AgentId::Sub(n))
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::SubagentEnd {
                reason,
                steps,
                tool_usage,
                usage,
                summary,
                ..
            } => Some((
                *reason,
                *steps,
                (**tool_usage).clone(),
                usage.output_tokens,
                summary.clone(),
            )),
            _ => None,
        })
        .unwrap_or_else(|| panic!("sub-{n} has no subagent_end"))
}

fn tools(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn inline_sidechains_are_linked_by_the_agent_id_on_the_result_line() {
    let imported = import_sample(INLINE_IDS);
    let events = &imported.events;
    assert_eq!(imported.children_loaded, 2);
    // The CLI child's chain has no prompt line: only the `agentId` on its
    // result line (toolUseResult has none, nor has the text a trailer) links it.
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    assert_eq!(prompts(events).len(), 1);
    let main = messages(events, AgentId::Main);
    assert_eq!(
        main.len(),
        2,
        "three lines of msg_01NotesMainA are one message"
    );
    assert_eq!(main[0].0, "I'll have one agent read each side.");
    assert_eq!(main[0].1, 2);
    assert_eq!(
        main.iter().map(|m| m.2.output_tokens).sum::<u64>(),
        260 + 155
    );
    let sub1 = of(events, AgentId::Sub(1));
    assert!(
        !sub1
            .iter()
            .any(|e| matches!(e.kind, EventKind::Error { .. })),
        "{sub1:?}"
    );
    // Its prompt comes from the call, as the chain has none.
    assert!(
        matches!(&sub1[1].kind, EventKind::UserMessage { text } if text.starts_with("Trace how the CLI"))
    );
    let sub1_messages = messages(events, AgentId::Sub(1));
    assert_eq!(sub1_messages.len(), 2, "msg_01NotesCliA spans two lines");
    assert_eq!(sub1_messages[0].1, 1);
    let (reason, steps, used, output, summary) = end_of(events, 1);
    assert_eq!((reason, steps), (TerminalReason::Completed, 2));
    assert_eq!(used, tools(&[("Read", 1)]));
    assert_eq!(output, 71 + 190);
    assert!(summary.starts_with("CLI settings:"), "{summary}");
    let (_, steps, used, output, summary) = end_of(events, 2);
    assert_eq!(steps, 2);
    assert_eq!(used, tools(&[("Grep", 1)]));
    assert_eq!(output, 88 + 210);
    assert!(summary.starts_with("Web settings:"), "{summary}");
}

#[test]
fn a_message_continued_after_its_first_result_counts_its_last_usage_once() {
    let imported = import_sample(USAGE);
    let events = &imported.events;
    let main = messages(events, AgentId::Main);
    // The file's output tokens, each message id at its last line:
    // 8,700 + 402 + 4,154 + 20,600 + 2,400. Taking msg_01UsageA where its
    // first result came (1,200) gave 28,756.
    assert_eq!(main.iter().map(|m| m.2.output_tokens).sum::<u64>(), 36_256);
    assert_eq!(main.len(), 5);
    assert_eq!(
        (main[0].1, main[0].2),
        (
            2,
            Usage {
                input_tokens: 5,
                output_tokens: 8_700,
                cache_read_tokens: 21_000,
                cache_write_tokens: 9_800,
                reasoning_tokens: 0,
                estimated: false,
            }
        )
    );
    assert_eq!(
        turns(events),
        [(3, 8_700 + 402 + 4_154), (2, 20_600 + 2_400)]
    );
    // One request for the message, its two calls, then their results.
    let lane = of(events, AgentId::Main);
    assert_eq!(
        kinds(&lane[..8]),
        [
            "user_message",
            "model_request",
            "text_delta",
            "assistant_message",
            "tool_call",
            "tool_call",
            "tool_result",
            "tool_result"
        ]
    );
    let steps: Vec<u32> = lane
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::ModelRequest { step, .. } => Some(step),
            _ => None,
        })
        .collect();
    assert_eq!(steps, [1, 2, 3, 1, 2]);
}

#[test]
fn a_message_shown_before_its_last_line_adds_only_what_it_grew_by() {
    // A result that comes with text of the user's ends the message early;
    // the line after it still belongs to the message.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let usage =
        |out| json!({"input_tokens": 10, "cache_read_input_tokens": 500, "output_tokens": out});
    write_lines(
        &path,
        &[
            json!({"type": "user", "uuid": "u1", "message": {"role": "user", "content": "go"}}),
            json!({"type": "assistant", "uuid": "a1", "message": {"id": "m1", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}], "usage": usage(100)}}),
            json!({"type": "user", "uuid": "u2", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                {"type": "text", "text": "and look at the tests too"}]}}),
            json!({"type": "assistant", "uuid": "a2", "message": {"id": "m1", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "Reading them."}], "usage": usage(400)}}),
        ],
    );
    let imported = import(&path).unwrap();
    assert_well_formed(&imported);
    let main = messages(&imported.events, AgentId::Main);
    assert_eq!(main.iter().map(|m| m.2.output_tokens).sum::<u64>(), 400);
    assert_eq!(main.iter().map(|m| m.2.input_tokens).sum::<u64>(), 10);
    assert_eq!(main[1].0, "Reading them.");
}

#[test]
fn children_are_read_from_progress_lines_when_no_transcript_file_exists() {
    let imported = import_sample(PROGRESS);
    let events = &imported.events;
    assert_eq!(imported.children_loaded, 2);
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    assert_eq!(prompts(events).len(), 1);
    let sub1 = of(events, AgentId::Sub(1));
    assert_eq!(
        kinds(&sub1),
        [
            "subagent_start",
            "user_message",
            "model_request",
            "assistant_message",
            "tool_call",
            "tool_result",
            "model_request",
            "assistant_message",
            "tool_call",
            "tool_result",
            "model_request",
            "text_delta",
            "assistant_message",
            "turn_end",
            "subagent_end"
        ]
    );
    let (reason, steps, used, output, summary) = end_of(events, 1);
    assert_eq!((reason, steps), (TerminalReason::Completed, 3));
    assert_eq!(used, tools(&[("Grep", 2)]));
    assert_eq!(output, 64 + 58 + 143);
    assert!(summary.starts_with("Dead code in billing/"), "{summary}");
    assert!(!summary.contains("agentId"), "{summary}");
    let (_, steps, used, output, _) = end_of(events, 2);
    assert_eq!(steps, 2, "msg_01CovA spans two progress lines");
    assert_eq!(used, tools(&[("Bash", 1)]));
    assert_eq!(output, 97 + 176);
    // Hook and bash progress lines are not a child's.
    assert_eq!(imported.skipped.get("progress"), Some(&2));
    // Both children run at once, inside their calls.
    let start2 = position(events, |e| {
        e.agent == AgentId::Sub(2) && matches!(e.kind, EventKind::SubagentStart(_))
    });
    let end1 = position(events, |e| {
        e.agent == AgentId::Sub(1) && matches!(e.kind, EventKind::SubagentEnd { .. })
    });
    let result1 = position(
        events,
        |e| matches!(&e.kind, EventKind::ToolResult { call_id, .. } if call_id == "toolu_01DeadCode"),
    );
    assert!(start2 < end1 && end1 < result1);
}

#[test]
fn progress_lines_do_not_replace_a_transcript_file() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    let session = copy_as(
        PROGRESS,
        &project,
        "8b7c6d5e-4f3a-4b21-8c0d-9e8f7a6b5c4d.jsonl",
    );
    let subagents = project.join("8b7c6d5e-4f3a-4b21-8c0d-9e8f7a6b5c4d/subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let prompt = "List the functions in billing/ that nothing else calls.";
    write_lines(
        &subagents.join("agent-d3adc0d.jsonl"),
        &[
            json!({"type": "user", "uuid": "f1", "isSidechain": true, "agentId": "d3adc0d",
                   "message": {"role": "user", "content": prompt}}),
            json!({"type": "assistant", "uuid": "f2", "isSidechain": true, "agentId": "d3adc0d",
                   "message": {"id": "mf", "model": "claude-haiku-4-5", "content": [{"type": "text", "text": "From the file."}]}}),
        ],
    );
    std::fs::write(
        subagents.join("agent-d3adc0d.meta.json"),
        json!({"agentType": "Explore", "toolUseId": "toolu_01DeadCode"}).to_string(),
    )
    .unwrap();
    let imported = import(&session).unwrap();
    assert_well_formed(&imported);
    assert_eq!(imported.children_loaded, 2);
    let (_, steps, _, _, _) = end_of(&imported.events, 1);
    assert_eq!(steps, 1, "sub-1 is the file's");
    // Its progress lines were counted, not read.
    assert_eq!(imported.skipped.get("progress"), Some(&(2 + 6)));
    assert_eq!(end_of(&imported.events, 2).1, 2);
}
