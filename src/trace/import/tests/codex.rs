//! The Codex importer on the hand-written rollouts in `tests/data/import/codex/`.
//! Every count asserted here was read off the samples by hand; the token sums
//! are worked out in `tests/data/import/README.md`.

use super::*;
use crate::event::{TerminalReason, Usage};

pub(super) const TOOLS: &str = "codex/sessions/2026/02/11/rollout-2026-02-11T09-14-03-019c4b2e-5f1a-7c3d-9e21-4a8b6c0d2f17.jsonl";
pub(super) const PARENT: &str = "codex/sessions/2026/02/11/rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl";
pub(super) const CHILD_1: &str = "codex/sessions/2026/02/11/rollout-2026-02-11T23-50-30-019c4d11-0b2c-7d3e-9f40-5a6b7c8d9e01.jsonl";
pub(super) const CHILD_2: &str = "codex/sessions/2026/02/12/rollout-2026-02-12T00-01-05-019c4d13-6e7f-7a80-b1c2-d3e4f5a6b7c8.jsonl";
pub(super) const COMPACT: &str = "codex/sessions/2026/03/02/rollout-2026-03-02T15-05-00-019c9e5a-4b3c-7d2e-8f10-a9b8c7d6e5f4.jsonl";
pub(super) const LEGACY: &str =
    "codex/legacy/rollout-2025-08-20T13-20-47-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl";

pub(super) fn load(rel: &str) -> Imported {
    let imported = import(&data(rel)).unwrap();
    assert_well_formed(&imported);
    assert!(imported.bad_lines.is_empty(), "{:?}", imported.bad_lines);
    imported
}

pub(super) fn prompts(events: &[&Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::UserMessage { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

pub(super) fn calls(events: &[&Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall { name, summary, .. } => Some((name.clone(), summary.to_string())),
            _ => None,
        })
        .collect()
}

pub(super) fn results(events: &[&Event]) -> Vec<(bool, String)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult {
                is_error, content, ..
            } => Some((*is_error, content.to_string())),
            _ => None,
        })
        .collect()
}

pub(super) fn turn_ends(events: &[&Event]) -> Vec<(TerminalReason, u32, u64)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd {
                reason,
                steps,
                usage,
            } => Some((*reason, *steps, usage.total())),
            _ => None,
        })
        .collect()
}

pub(super) fn count(events: &[&Event], wire: &str) -> usize {
    events.iter().filter(|e| e.kind.wire_name() == wire).count()
}

pub(super) fn skipped(imported: &Imported) -> Vec<(&str, usize)> {
    imported
        .skipped
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect()
}

#[test]
fn a_thread_with_tools_gives_its_prompts_steps_calls_and_token_counts() {
    let imported = load(TOOLS);
    assert_eq!(imported.format, Format::Codex);
    let h = &imported.header;
    assert_eq!(h.session, "019c4b2e-5f1a-7c3d-9e21-4a8b6c0d2f17");
    assert_eq!(
        (h.cwd.as_str(), h.model.as_str()),
        ("/home/dev/shop", "gpt-5.2-codex")
    );
    assert_eq!(h.started_at, "2026-02-11T08:14:03.388Z");
    let main = of(&imported.events, AgentId::Main);
    // Each prompt is in the file twice (response item and event) and once here;
    // the AGENTS.md and environment texts are not prompts.
    assert_eq!(
        prompts(&main),
        [
            "Why does `make test` fail on the cart module?",
            "Does the pytest 9 changelog say anything we depend on?"
        ]
    );
    assert_eq!(
        calls(&main),
        [
            ("exec_command".into(), "make test TEST=cart".into()),
            ("mcp__filesystem__read_text_file".into(), String::new()),
            ("apply_patch".into(), "edit cart/total.py".into()),
            ("exec_command".into(), "make test TEST=cart".into()),
            ("web_search".into(), String::new()),
        ]
    );
    let results = results(&main);
    let failed: Vec<bool> = results.iter().map(|r| r.0).collect();
    assert_eq!(failed, [true, false, false, false, false]);
    assert!(
        results[0]
            .1
            .starts_with("exit code 2\nFAILED cart/test_total.py"),
        "{}",
        results[0].1
    );
    assert_eq!(results[3].1, "12 passed in 1.41s");
    assert_eq!(
        results[2].1,
        "Success. Updated the following files:\nM cart/total.py\n"
    );
    // Six responses; the repeated last token_count adds nothing.
    assert_eq!(count(&main, "model_request"), 6);
    assert_eq!(
        turn_ends(&main),
        [
            (TerminalReason::Completed, 5, 60_751),
            (TerminalReason::Completed, 1, 12_609),
        ]
    );
    // The first step: 9120 input of which 4096 cached, 210 output.
    let first = main
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::AssistantMessage { usage, .. } => Some(*usage),
            _ => None,
        })
        .unwrap();
    let expected = Usage {
        input_tokens: 5024,
        output_tokens: 210,
        cache_read_tokens: 4096,
        ..Usage::default()
    };
    assert_eq!(first, expected);
    let shown: String = main
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        shown.starts_with("Reasoning: **Running the cart tests**"),
        "{shown}"
    );
    assert_eq!(shown.matches("The discount was applied twice").count(), 1);
    assert_eq!(
        skipped(&imported),
        [
            ("event_msg:thread_name_updated", 1),
            ("message (developer)", 1),
            ("message (injected context)", 2),
            ("reasoning (encrypted)", 1),
            ("world_state", 1),
        ]
    );
    assert_eq!(imported.children_loaded, 0);
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
}

/// What the `subagent_start` and `subagent_end` of a lane say.
pub(super) fn ends_of(events: &[&Event]) -> (String, String, String, String, String) {
    let start = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::SubagentStart(start) => {
                let crate::event::SubagentStart {
                    parent,
                    parent_call_id,
                    profile,
                    description,
                    model_name,
                    ..
                } = &**start;
                assert_eq!(*parent, AgentId::Main);
                Some((
                    parent_call_id.clone(),
                    profile.clone(),
                    description.clone(),
                    model_name.clone(),
                ))
            }
            _ => None,
        })
        .unwrap();
    let summary = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::SubagentEnd { summary, .. } => Some(summary.clone()),
            _ => None,
        })
        .unwrap();
    (start.0, start.1, start.2, start.3, summary)
}

pub(super) fn subagent_end(events: &[&Event]) -> (TerminalReason, u32, u64, u64) {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::SubagentEnd {
                reason,
                steps,
                usage,
                elapsed_ms,
                ..
            } => Some((*reason, *steps, usage.total(), *elapsed_ms)),
            _ => None,
        })
        .unwrap()
}

#[test]
fn sub_agent_threads_are_children_of_the_calls_that_spawned_them() {
    let imported = load(PARENT);
    assert_eq!(imported.children_loaded, 2);
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    let main = of(&imported.events, AgentId::Main);
    let names: Vec<String> = calls(&main).into_iter().map(|c| c.0).collect();
    assert_eq!(names, ["task", "wait_agent", "task", "wait_agent"]);
    assert_eq!(prompts(&main).len(), 1);
    assert_eq!(turn_ends(&main), [(TerminalReason::Completed, 5, 47_720)]);

    let one = of(&imported.events, AgentId::Sub(1));
    let two = of(&imported.events, AgentId::Sub(2));
    let (call, profile, nickname, model, summary) = ends_of(&one);
    assert_eq!(
        (call.as_str(), profile.as_str(), nickname.as_str()),
        ("call_S1", "explorer", "Euclid")
    );
    assert_eq!(model, "gpt-5.2-codex");
    assert!(
        summary.starts_with("pay.py retries charge() without an idempotency key"),
        "{summary}"
    );
    let (call, profile, nickname, model, summary) = ends_of(&two);
    assert_eq!(
        (call.as_str(), profile.as_str(), nickname.as_str()),
        ("call_S2", "worker", "Noether")
    );
    assert_eq!(model, "gpt-5.1-codex-mini");
    assert!(
        summary.starts_with("Stacking is refused only for percentage coupons"),
        "{summary}"
    );
    assert_eq!(prompts(&one).len(), 1);
    assert_eq!(prompts(&two).len(), 1);
    let names = |lane: &[&Event]| -> Vec<String> { calls(lane).into_iter().map(|c| c.0).collect() };
    assert_eq!(names(&one), ["exec_command", "shell"]);
    assert_eq!(names(&two), ["exec_command"]);
    // Steps, tokens (each rollout's last total) and time from spawn to end.
    assert_eq!(
        subagent_end(&one),
        (TerminalReason::Completed, 3, 20_130, 480_990)
    );
    assert_eq!(
        subagent_end(&two),
        (TerminalReason::Completed, 2, 11_390, 186_910)
    );

    // Each child runs after its spawn call, and its `wait_agent` returns after it ended.
    let events = &imported.events;
    let at = |agent: AgentId, wire: &str| {
        position(events, |e| e.agent == agent && e.kind.wire_name() == wire)
    };
    let call_at = |id: &str| {
        position(
            events,
            |e| matches!(&e.kind, EventKind::ToolCall { call_id, .. } if call_id == id),
        )
    };
    let result_at = |id: &str| {
        position(
            events,
            |e| matches!(&e.kind, EventKind::ToolResult { call_id, .. } if call_id == id),
        )
    };
    assert!(call_at("call_S1") < at(AgentId::Sub(1), "subagent_start"));
    assert!(at(AgentId::Sub(1), "subagent_end") < result_at("call_W1"));
    assert!(call_at("call_S2") < at(AgentId::Sub(2), "subagent_start"));
    assert!(at(AgentId::Sub(2), "subagent_end") < result_at("call_W2"));
}

#[test]
fn a_child_rollout_read_alone_is_a_session_of_its_own() {
    for (rel, prompt, tokens) in [
        (
            CHILD_1,
            "Review payment retries in checkout/pay.py: when is a card charged twice?",
            20_130,
        ),
        (
            CHILD_2,
            "List the coupon rules in checkout/coupons.py and check that stacking is refused.",
            11_390,
        ),
    ] {
        let imported = load(rel);
        let main = of(&imported.events, AgentId::Main);
        assert_eq!(prompts(&main), [prompt]);
        let total: u64 = turn_ends(&main).iter().map(|t| t.2).sum();
        assert_eq!(total, tokens, "{rel}");
        assert!(imported.events.iter().all(|e| e.agent == AgentId::Main));
    }
}

#[test]
fn compaction_an_interrupted_turn_and_an_error_are_marked() {
    let imported = load(COMPACT);
    let main = of(&imported.events, AgentId::Main);
    // Logged as a `compacted` record and a `context_compacted` event: one mark.
    let marks = main
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::AssistantMessage { text, .. } if text == "[context compacted]"))
        .count();
    assert_eq!(marks, 1);
    assert_eq!(count(&main, "interrupted"), 1);
    assert_eq!(
        turn_ends(&main),
        [
            (TerminalReason::Interrupted, 2, 264_700),
            (TerminalReason::Completed, 1, 18_100),
        ]
    );
    // The tokens of the compaction itself go to the next step: 18,100 + 5,100.
    let usages: Vec<u64> = main
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AssistantMessage {
                usage, stop_reason, ..
            } if stop_reason != "compacted" => Some(usage.total()),
            _ => None,
        })
        .collect();
    assert_eq!(usages, [241_500, 23_200, 18_100]);
    let errors: Vec<&str> = main
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Error { message } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].starts_with("stream disconnected before completion"),
        "{errors:?}"
    );
    assert_eq!(prompts(&main).len(), 2);
    let failed: Vec<bool> = results(&main).iter().map(|r| r.0).collect();
    assert_eq!(failed, [false, true]);
    assert_eq!(skipped(&imported), [("message (injected context)", 1)]);
}

#[test]
fn a_2025_rollout_of_bare_items_reads_like_a_new_one() {
    let imported = load(LEGACY);
    assert_eq!(imported.format, Format::Codex);
    assert_eq!(
        imported.header.session,
        "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
    );
    assert_eq!(imported.header.started_at, "2025-08-20T13:20:47.060Z");
    let main = of(&imported.events, AgentId::Main);
    assert_eq!(
        prompts(&main),
        ["List the files in src/ and count the TODOs."]
    );
    assert_eq!(
        calls(&main),
        [
            ("shell".into(), "ls src".into()),
            (
                "shell".into(),
                "grep -c TODO src/cart.py src/pay.py src/legacy.py".into()
            ),
        ]
    );
    let results = results(&main);
    assert_eq!(results[0], (false, "cart.py\npay.py\n".to_string()));
    assert!(results[1].0);
    // No token counts in rollouts of that time.
    assert_eq!(turn_ends(&main), [(TerminalReason::Completed, 3, 0)]);
    assert_eq!(skipped(&imported), [("message (injected context)", 1)]);
}
