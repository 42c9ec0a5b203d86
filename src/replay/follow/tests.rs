//! Following files as they are written, on real files in temporary folders.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::super::source::{Item, Rewound, follow};
use super::tail::Stop;
use crate::event::{AgentId, Event, EventKind};
use crate::trace::TraceHeader;

/// Appends `text` to the file at `path`, creating it.
pub(super) fn append(path: &Path, text: &str) {
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

/// Everything `source` gives until its end, rewinds applied.
fn drained(source: &mut crate::replay::Source) -> Vec<Event> {
    let mut events = Vec::new();
    while let Some(item) = source.next_item().unwrap() {
        match item {
            Item::Event(event) => events.push(event),
            Item::Rewind { keep, .. } => events.truncate(keep),
            Item::Skipped(_) => {}
        }
    }
    events
}

/// A replay read in two steps (its first lines for the first frame, then
/// the whole file) ends with exactly the events of a whole import.
#[test]
fn a_staged_replay_ends_with_the_events_of_a_whole_read() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/import");
    for rel in [
        "claude/-home-dev-shop/7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl",
        "claude/-home-dev-notes/9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a.jsonl",
        "codex/sessions/2026/02/11/rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl",
    ] {
        let path = samples.join(rel);
        let whole = drained(&mut crate::replay::open(&path).unwrap());
        let staged = drained(&mut crate::replay::open_staged(&path).unwrap());
        assert!(!whole.is_empty(), "{rel}");
        assert_eq!(staged, whole, "{rel}");
    }
}
