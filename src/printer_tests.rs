//! The text printer on hand-made events: a denial is said once, with the
//! rule that asked.

use super::*;
use crate::agent::{DENIED_BY_USER, unattended_refusal};

fn printed(events: &[EventKind]) -> String {
    let mut printer = TextPrinter::new();
    let mut out = String::new();
    for (i, kind) in events.iter().enumerate() {
        out.push_str(&printer.format(&Event {
            seq: i as u64 + 1,
            t_ms: 0,
            agent: AgentId::Main,
            kind: kind.clone(),
        }));
    }
    out
}

fn denied_call(result: &str) -> Vec<EventKind> {
    vec![
        EventKind::ToolCall {
            call_id: "c".into(),
            name: "bash".into(),
            input: serde_json::json!({"command": "rm -r build"}).into(),
            summary: "rm -r build".into(),
        },
        EventKind::PermissionDecision {
            call_id: "c".into(),
            decision: Decision::Deny,
            reason: "`rm -r build` deletes files".into(),
            by: DecidedBy::User,
        },
        EventKind::ToolResult {
            call_id: "c".into(),
            name: "bash".into(),
            is_error: true,
            content: result.into(),
            duration_ms: 0,
        },
    ]
}

#[test]
fn an_unattended_denial_names_its_rule_once() {
    let refusal = unattended_refusal("`rm -r build` deletes files");
    let out = printed(&denied_call(&refusal));
    assert_eq!(out.matches("deletes files").count(), 1, "{out}");
    assert!(out.contains("--yes allows it"), "{out}");
}

#[test]
fn a_person_s_denial_keeps_the_rule_that_asked() {
    let out = printed(&denied_call(DENIED_BY_USER));
    assert!(
        out.contains(
            "  ask: `rm -r build` deletes files → denied\n  error: Permission denied by user"
        ),
        "{out}"
    );
}

#[test]
fn each_turn_starts_with_the_users_prompt() {
    let out = printed(&[
        EventKind::UserMessage {
            text: "find login\nand the tests".into(),
        },
        EventKind::TextDelta {
            text: "Found it.".into(),
        },
        EventKind::UserMessage {
            text: "thanks".into(),
        },
    ]);
    assert_eq!(
        out,
        "you  find login\n     and the tests\nFound it.\nyou  thanks\n"
    );
}

#[test]
fn a_child_sent_back_by_a_hook_says_so_in_its_lines() {
    let mut printer = TextPrinter::new();
    let child = |kind| Event {
        seq: 1,
        t_ms: 0,
        agent: AgentId::Sub(1),
        kind,
    };
    let out = printer.format(&child(EventKind::HookContinue {
        text: "Return only a valid ExploreResult JSON object:\n{...}".into(),
    }));
    assert!(
        out.starts_with("  [sub-1] stop hook: Return only a valid ExploreResult JSON object:"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
}

#[test]
fn a_result_shows_its_first_lines_and_counts_the_rest_as_lines_would() {
    let result = |content: &str| {
        printed(&[EventKind::ToolResult {
            call_id: "c".into(),
            name: "bash".into(),
            is_error: false,
            content: content.into(),
            duration_ms: 0,
        }])
    };
    assert_eq!(result("a\nb\n"), "  a\n  b\n");
    assert_eq!(
        result("a\r\nb\r\nc\r\nd\r\ne\r\nf"),
        "  a\n  b\n  c\n  d\n  … +2 lines\n"
    );
    assert_eq!(
        result("1\n2\n3\n4\n5\n"),
        "  1\n  2\n  3\n  4\n  … +1 line\n"
    );
    assert_eq!(
        result("1\n2\n3\n4\n\n\n"),
        "  1\n  2\n  3\n  4\n  … +2 lines\n"
    );
    assert_eq!(result("1\n2\n3\n4"), "  1\n  2\n  3\n  4\n");
}

/// The closing line's cost counts a compaction's summary request like any
/// answer.
#[test]
fn a_compaction_is_priced_in_the_closing_line() {
    let million = crate::event::Usage {
        input_tokens: 1_000_000,
        ..crate::event::Usage::default()
    };
    let text = printed(&[
        EventKind::ModelRequest {
            step: 1,
            model: "claude-sonnet-4-5".into(),
            messages: 9,
            tools: 7,
        },
        EventKind::Compacted {
            trigger: "auto".into(),
            before_tokens: 170_000,
            after_tokens: 9_000,
            kept_messages: 2,
            summary: "s".into(),
            usage: Box::new(million),
        },
        EventKind::TurnEnd {
            reason: crate::event::TerminalReason::Completed,
            steps: 1,
            usage: million,
        },
    ]);
    assert!(text.contains("cost $3.00"), "{text}");
}

proptest::proptest! {
    /// The head of a child's output is its words as `split_whitespace`
    /// splits them, Unicode spaces and all, cut once it is long enough to
    /// show.
    #[test]
    fn a_flattened_head_is_the_first_words_joined_by_single_spaces(
        text in "([a-zé😀]{1,12}|[ \t\n\r\u{0b}\u{0c}\u{1c}\u{a0}\u{2003}\u{3000}\u{85}]{1,3}){0,40}",
        max in 1usize..60,
    ) {
        let want = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let got = flatten_head(&text, max);
        proptest::prop_assert!(want.starts_with(&got));
        // Cut only once there is more than is shown.
        proptest::prop_assert!(got == want || got.chars().count() > max);
        proptest::prop_assert_eq!(truncate_chars(&got, max), truncate_chars(&want, max));
    }
}
