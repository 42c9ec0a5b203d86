//! The converter fed one line at a time, as a follower of a growing rollout
//! would feed it.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::*;
use crate::trace::import::lines::{JsonLines, Reading};

fn sample(rel: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import/codex")
        .join(rel);
    let mut lines = JsonLines::open(&path).unwrap();
    let mut report = Report::default();
    let mut out = Vec::new();
    while let Some((_, line)) = lines.next_object(Reading::ToEnd, &mut report).unwrap() {
        out.push(line);
    }
    out
}

fn kinds(buf: &LaneBuf) -> Vec<EventKind> {
    buf.iter().map(|p| (*p.kind).clone()).collect()
}

#[test]
fn fed_a_line_at_a_time_what_is_settled_never_changes() {
    for rel in [
        "sessions/2026/02/11/rollout-2026-02-11T09-14-03-019c4b2e-5f1a-7c3d-9e21-4a8b6c0d2f17.jsonl",
        "sessions/2026/02/11/rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl",
        "sessions/2026/03/02/rollout-2026-03-02T15-05-00-019c9e5a-4b3c-7d2e-8f10-a9b8c7d6e5f4.jsonl",
        "legacy/rollout-2025-08-20T13-20-47-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl",
    ] {
        let mut conv = Converter::new(Lane::Session);
        let mut report = Report::default();
        let mut settled: Vec<EventKind> = Vec::new();
        let mut grew = 0;
        for line in sample(rel) {
            conv.line(&line, &mut report);
            let now = kinds(&conv.buf);
            assert_eq!(
                now[..settled.len()],
                settled[..],
                "{rel}: a settled event changed"
            );
            let next = settled_len(&conv);
            assert!(next >= settled.len(), "{rel}: settled went back");
            grew += usize::from(next > settled.len());
            settled = now[..next].to_vec();
        }
        let done = conv.finish(crate::trace::import::Ending::Closed);
        assert_eq!(kinds(&done.buf)[..settled.len()], settled[..], "{rel}");
        // Events settle as the file grows, not only at its end.
        assert!(grew > 3, "{rel}: settled {grew} times");
    }
}

/// Events before this index are final: later ones may still get the token
/// counts of their step (what a follower would otherwise see change).
fn settled_len(conv: &Converter) -> usize {
    conv.awaiting.unwrap_or(conv.buf.events.len())
}

fn feed(lines: &[Value]) -> Converter {
    let mut conv = Converter::new(Lane::Session);
    let mut report = Report::default();
    for line in lines {
        conv.line(line, &mut report);
    }
    conv.finish(crate::trace::import::Ending::Closed)
}

fn item(payload: Value) -> Value {
    json!({"timestamp": "2026-04-01T10:00:00Z", "type": "response_item", "payload": payload})
}

fn event(payload: Value) -> Value {
    json!({"timestamp": "2026-04-01T10:00:00Z", "type": "event_msg", "payload": payload})
}

fn said(text: &str) -> Value {
    item(
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}),
    )
}

fn typed(text: &str) -> Value {
    event(json!({"type": "user_message", "message": text}))
}

fn answer(text: &str) -> Value {
    item(
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}),
    )
}

fn total(input: u64, output: u64) -> Value {
    let usage = json!({"input_tokens": input, "cached_input_tokens": 0, "output_tokens": output});
    event(
        json!({"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}}),
    )
}

fn turn_usages(conv: &Converter) -> Vec<u64> {
    conv.buf
        .iter()
        .filter_map(|p| match &*p.kind {
            EventKind::TurnEnd { usage, .. } => Some(usage.total()),
            _ => None,
        })
        .collect()
}

fn prompts(conv: &Converter) -> Vec<String> {
    conv.buf
        .iter()
        .filter_map(|p| match &*p.kind {
            EventKind::UserMessage { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_total_that_goes_back_counts_again_from_zero() {
    // A resumed session's new process counts from zero in the same file.
    let conv = feed(&[
        said("one"),
        answer("a"),
        total(1000, 100),
        said("two"),
        answer("b"),
        total(500, 50),
    ]);
    assert_eq!(turn_usages(&conv), [1100, 550]);
}

#[test]
fn each_prompt_is_shown_once_whichever_copy_comes_first() {
    let conv = feed(&[
        typed("first"),
        said("first"),
        answer("a"),
        said("second"),
        typed("second"),
        answer("b"),
        // Sent twice on purpose: both are prompts.
        said("again"),
        said("again"),
    ]);
    assert_eq!(prompts(&conv), ["first", "second", "again", "again"]);
}
