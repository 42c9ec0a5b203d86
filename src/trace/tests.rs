use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::event::{AgentId, EventBus, EventKind, TerminalReason, Usage};

fn header() -> TraceHeader {
    let mut header = TraceHeader::new("s1", "/work", "scripted", "scripted");
    header.started_at = "2026-11-30T05:34:02.000Z".into();
    header
}

fn record_session(path: &std::path::Path) -> Vec<crate::event::Event> {
    let bus = EventBus::new();
    bus.set_secrets(vec!["sk-ant-SECRET-123456".into()]);
    bus.add_recorder(Box::new(TraceWriter::create(path, &header()).unwrap()));
    let events = vec![
        bus.publish(
            AgentId::Main,
            EventKind::UserMessage {
                text: "hi sk-ant-SECRET-123456".into(),
            },
        ),
        bus.publish(
            AgentId::Sub(1),
            EventKind::TextDelta {
                text: "ünïcode ✓".into(),
            },
        ),
        bus.publish(
            AgentId::Main,
            EventKind::TurnEnd {
                reason: TerminalReason::Completed,
                steps: 1,
                usage: Usage::default(),
            },
        ),
    ];
    bus.sync().unwrap();
    assert!(matches!(&events[0].kind, EventKind::UserMessage { text } if text == "hi [redacted]"));
    events
}

#[test]
fn write_then_read_round_trips_every_event() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep/traces/s1.jsonl");
    let written = record_session(&path);
    let trace = read_trace(&path).unwrap();
    assert_eq!(trace.header, header());
    assert_eq!(trace.events, written);
    assert!(trace.bad_lines.is_empty());
    assert!(!trace.truncated_tail);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(!raw.contains("SECRET"), "a secret reached the trace: {raw}");
    assert!(
        raw.lines()
            .next()
            .unwrap()
            .contains(r#""format":"brood-trace""#)
    );
}

#[test]
fn a_truncated_last_line_is_accepted_and_others_reported_by_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let written = record_session(&path);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    // Line 5 is garbage in the middle; line 6 repeats seq 3 (seq must grow);
    // line 7 is a good event; line 8 is a half-written one.
    writeln!(file, "{{not json").unwrap();
    let repeated = serde_json::to_string(&written[2]).unwrap();
    writeln!(file, "{repeated}").unwrap();
    let mut next = written[2].clone();
    next.seq = 4;
    writeln!(file, "{}", serde_json::to_string(&next).unwrap()).unwrap();
    write!(file, "{}", &repeated[..repeated.len() / 2]).unwrap();
    drop(file);
    let trace = read_trace(&path).unwrap();
    assert_eq!(trace.events.len(), 4);
    assert_eq!(trace.events[3], next);
    let bad: Vec<usize> = trace.bad_lines.iter().map(|b| b.line).collect();
    assert_eq!(bad, [5, 6]);
    assert!(trace.bad_lines[1].error.contains("seq 3 does not follow 3"));
    assert!(trace.truncated_tail);
}

#[test]
fn files_that_are_not_traces_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    assert!(matches!(read_trace(&empty), Err(TraceError::Empty { .. })));
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, "{\"type\":\"user\"}\n").unwrap();
    let err = read_trace(&other).unwrap_err().to_string();
    assert!(err.contains("line 1 is not a brood trace header"), "{err}");
    let missing = read_trace(&dir.path().join("nope.jsonl"))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("nope.jsonl"), "{missing}");
}
