use serde_json::json;

use super::*;
use crate::event::{TerminalReason, Usage};

fn at(seq: u64, agent: AgentId, kind: EventKind) -> Event {
    Event {
        seq,
        t_ms: seq * 10,
        agent,
        kind,
    }
}

fn main_events(kinds: Vec<EventKind>) -> Vec<Event> {
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| at(i as u64 + 1, AgentId::Main, k))
        .collect()
}

fn answer(text: &str, calls: usize) -> EventKind {
    EventKind::AssistantMessage {
        text: text.into(),
        tool_calls: calls,
        usage: Usage::default(),
        stop_reason: "tool_use".into(),
    }
}

fn call(id: &str, name: &str) -> EventKind {
    EventKind::ToolCall {
        call_id: id.into(),
        name: name.into(),
        input: json!({"path": id}).into(),
        summary: Box::default(),
    }
}

fn result(id: &str, content: &str) -> EventKind {
    EventKind::ToolResult {
        call_id: id.into(),
        name: "task".into(),
        is_error: false,
        content: content.into(),
        duration_ms: 1,
    }
}

fn results(message: &Message) -> Vec<(String, String, bool)> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => Some((tool_use_id.clone(), content.clone(), *is_error)),
            ContentBlock::Text { .. }
            | ContentBlock::ToolUse { .. }
            | ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. } => None,
        })
        .collect()
}

#[test]
fn results_that_finished_out_of_order_go_back_in_call_order() {
    let mut events = main_events(vec![
        EventKind::UserMessage { text: "go".into() },
        answer("Two children.", 2),
        call("a", "task"),
        call("b", "task"),
    ]);
    // A child's own events sit between the parent's.
    events.push(at(5, AgentId::Sub(1), call("x", "grep")));
    events.push(at(6, AgentId::Main, result("b", "second")));
    events.push(at(7, AgentId::Main, result("a", "first")));
    events.push(at(8, AgentId::Main, answer("Done.", 0)));
    let messages = rebuild(&events);
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0], Message::user_text("go"));
    assert_eq!(messages[1].text(), "Two children.");
    assert_eq!(messages[1].tool_calls().len(), 2);
    assert_eq!(
        results(&messages[2]),
        [
            ("a".to_string(), "first".to_string(), false),
            ("b".to_string(), "second".to_string(), false)
        ]
    );
    assert_eq!(messages[3], Message::assistant("Done.".into(), Vec::new()));
}

#[test]
fn a_call_cut_short_by_a_kill_still_gets_a_result() {
    let events = main_events(vec![
        EventKind::UserMessage { text: "go".into() },
        answer("", 1),
        call("a", "bash"),
    ]);
    let messages = rebuild(&events);
    assert_eq!(messages.len(), 3);
    // No empty text block for an answer that was only a call.
    assert!(matches!(
        &messages[1].content[..],
        [ContentBlock::ToolUse { .. }]
    ));
    let sent = results(&messages[2]);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].2, "{sent:?}");
    assert!(sent[0].1.contains("stopped"), "{sent:?}");
}

#[test]
fn hook_context_and_continuations_are_sent_as_they_were() {
    let events = main_events(vec![
        EventKind::UserMessage {
            text: "fix it".into(),
        },
        EventKind::PromptContext {
            text: "branch: main".into(),
        },
        answer("Fixed.", 0),
        EventKind::HookContinue {
            text: "run the tests".into(),
        },
        answer("They pass.", 0),
        EventKind::TurnEnd {
            reason: TerminalReason::Completed,
            steps: 2,
            usage: Usage::default(),
        },
        // A turn interrupted before the model answered leaves its prompt.
        EventKind::UserMessage {
            text: "and then".into(),
        },
        EventKind::Interrupted {},
    ]);
    let messages = rebuild(&events);
    let texts: Vec<(Role, String)> = messages.iter().map(|m| (m.role, m.text())).collect();
    assert_eq!(
        texts,
        [
            (Role::User, "fix it\n\nbranch: main".to_string()),
            (Role::Assistant, "Fixed.".to_string()),
            (Role::User, "run the tests".to_string()),
            (Role::Assistant, "They pass.".to_string()),
            (Role::User, "and then".to_string()),
        ]
    );
}

#[test]
fn a_locked_name_finds_one_session_by_either_end_of_its_id() {
    let dir = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    for id in ["20261201-101010-aaaaaa", "20261201-111111-bbbbbb"] {
        let header = TraceHeader::new(id, &ws.path().display().to_string(), "offline", "m");
        crate::trace::TraceWriter::create(&dir.path().join(format!("{id}.jsonl")), &header)
            .unwrap();
    }
    let named = |name: &str| locate(&ResumeFrom::Named(name.into()), ws.path(), dir.path());
    assert!(
        named("bbbbbb")
            .unwrap()
            .ends_with("20261201-111111-bbbbbb.jsonl")
    );
    assert!(
        named("20261201-10")
            .unwrap()
            .ends_with("20261201-101010-aaaaaa.jsonl")
    );
    match named("20261201") {
        Err(ResumeError::Ambiguous { ids, .. }) => assert_eq!(ids.len(), 2),
        other => panic!("{other:?}"),
    }
    assert!(matches!(named("zzz"), Err(ResumeError::NotFound { .. })));
    let other = tempfile::tempdir().unwrap();
    assert!(matches!(
        locate(&ResumeFrom::Newest, other.path(), dir.path()),
        Err(ResumeError::NoSession { .. })
    ));
    assert!(locate(&ResumeFrom::Newest, ws.path(), dir.path()).is_ok());
}

#[test]
fn appending_to_a_trace_cut_mid_line_starts_on_a_line_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let header = TraceHeader::new("s", "/w", "offline", "m");
    let mut writer = crate::trace::TraceWriter::create(&path, &header).unwrap();
    use crate::event::Recorder;
    writer
        .record(&at(
            1,
            AgentId::Main,
            EventKind::UserMessage { text: "a".into() },
        ))
        .unwrap();
    drop(writer);
    // Killed in the middle of the next line.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(br#"{"seq":2,"t_ms":5,"agent":"ma"#);
    std::fs::write(&path, bytes).unwrap();
    let mut writer = crate::trace::TraceWriter::append(&path).unwrap();
    writer
        .record(&at(
            2,
            AgentId::Main,
            EventKind::UserMessage { text: "b".into() },
        ))
        .unwrap();
    drop(writer);
    let resumed = Resume::load(&path).unwrap();
    assert_eq!(resumed.events.len(), 2);
    assert_eq!(resumed.next_seq(), 3);
    assert_eq!(
        resumed.messages,
        [Message::user_text("a"), Message::user_text("b")]
    );
}
