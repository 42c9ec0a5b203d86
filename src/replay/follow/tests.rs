//! Following files as they are written, on real files in temporary folders.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::super::source::{Item, Rewound, follow};
use super::tail::Stop;
use crate::event::{AgentId, Event, EventKind};
use crate::trace::TraceHeader;

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

fn header() -> String {
    serde_json::to_string(&TraceHeader::new("s1", "/w", "scripted", "m")).unwrap() + "\n"
}

fn event(seq: u64, text: &str) -> String {
    let event = Event {
        seq,
        t_ms: seq * 10,
        agent: AgentId::Main,
        kind: EventKind::UserMessage { text: text.into() },
    };
    serde_json::to_string(&event).unwrap() + "\n"
}

fn text_of(item: Option<Item>) -> String {
    match item {
        Some(Item::Event(Event {
            kind: EventKind::UserMessage { text },
            ..
        })) => text,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_growing_trace_is_read_event_by_event_and_a_truncated_one_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(&path, &(header() + &event(1, "one")));
    let stop = Stop::default();
    let mut source = follow(&path, stop.clone()).unwrap();
    assert_eq!(text_of(source.next_item().unwrap()), "one");
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            // Half a line, then the rest: read as one event.
            let line = event(2, "two");
            let (a, b) = line.split_at(10);
            append(&path, a);
            std::thread::sleep(Duration::from_millis(100));
            append(&path, b);
        })
    };
    assert_eq!(text_of(source.next_item().unwrap()), "two");
    writer.join().unwrap();
    // Truncated and written anew: everything comes again from the start.
    std::fs::write(&path, header() + &event(1, "fresh")).unwrap();
    match source.next_item().unwrap() {
        Some(Item::Rewind { keep: 0, why }) => assert_eq!(why, Rewound::Truncated),
        other => panic!("{other:?}"),
    }
    assert_eq!(text_of(source.next_item().unwrap()), "fresh");
    stop.stop();
    assert!(source.next_item().unwrap().is_none());
}

#[test]
fn an_empty_file_is_waited_for_until_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(&path, "");
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            append(&path, &(header() + &event(1, "late")));
        })
    };
    let mut source = follow(&path, Stop::default()).unwrap();
    assert_eq!(source.header().session, "s1");
    assert_eq!(text_of(source.next_item().unwrap()), "late");
    writer.join().unwrap();
}
