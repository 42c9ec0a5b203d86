//! Tests of the importers against the hand-written samples in
//! `tests/data/import/` and against broken copies of them.

mod claude;
mod claude_edge;
mod claude_links;
mod claude_notes;
mod codex;
mod codex_edge;
mod live;
mod mycodeagent;
mod roundtrip;

use std::path::{Path, PathBuf};

use super::*;
use crate::event::{AgentId, Event, EventKind, Recorder};
use crate::trace::{TraceHeader, TraceWriter};
use serde_json::Value;

pub(super) const SESSION: &str = "claude/-home-dev-shop/7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl";
pub(super) const INLINE: &str = "claude/-home-dev-shop/0b9d3e21-6a4c-4f7e-8d21-5c3a9e7f1b60.jsonl";
pub(super) const MCA: &str = "mycodeagent/trace-s-20260103-201533-a3f2.jsonl";
pub(super) const MCA_CHILD: &str = "mycodeagent/trace-s-20260103-201536-c1d2.jsonl";

pub(super) fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import")
        .join(rel)
}

/// Copies a sample into `dir` under another name.
pub(super) fn copy_as(rel: &str, dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(data(rel), &to).unwrap();
    to
}

/// The events of one agent.
pub(super) fn of(events: &[Event], agent: AgentId) -> Vec<&Event> {
    events.iter().filter(|e| e.agent == agent).collect()
}

/// The `type` names of events, for compact comparisons.
pub(super) fn kinds(events: &[&Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.kind.wire_name()).collect()
}

/// A sample imported, checked to be well formed.
pub(super) fn import_sample(rel: &str) -> Imported {
    let imported = import(&data(rel)).unwrap();
    assert_well_formed(&imported);
    imported
}

/// The texts of the session's `user_message`s: its prompts.
pub(super) fn prompts(events: &[Event]) -> Vec<String> {
    of(events, AgentId::Main)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::UserMessage { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Index of the first event that fits.
pub(super) fn position(events: &[Event], fits: impl Fn(&Event) -> bool) -> usize {
    events
        .iter()
        .position(fits)
        .unwrap_or_else(|| panic!("no such event"))
}

/// What every import must hold: `seq` 1.. without gaps, `t_ms` never going back.
pub(super) fn assert_well_formed(imported: &Imported) {
    for (i, e) in imported.events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1, "seq of {e:?}");
    }
    for pair in imported.events.windows(2) {
        assert!(pair[0].t_ms <= pair[1].t_ms, "t_ms goes back: {pair:?}");
    }
}

fn brood_trace(path: &Path) {
    let header = TraceHeader::new("s1", "/work", "scripted", "scripted");
    let mut writer = TraceWriter::create(path, &header).unwrap();
    writer
        .record(&Event {
            seq: 1,
            t_ms: 0,
            agent: AgentId::Main,
            kind: EventKind::UserMessage { text: "hi".into() },
        })
        .unwrap();
}

#[test]
fn formats_are_told_by_content_whatever_the_names_say() {
    let dir = tempfile::tempdir().unwrap();
    // Each file gets a name that suggests another format.
    let claude = copy_as(SESSION, dir.path(), "trace-s-20260101-000000-ab12.jsonl");
    let inline = copy_as(INLINE, dir.path(), "brood-session.jsonl");
    let mca = copy_as(
        MCA,
        dir.path(),
        "5f1c2a9e-1111-4222-8333-444455556666.jsonl",
    );
    let child = copy_as(MCA_CHILD, dir.path(), "agent-a1b2c3d.jsonl");
    let agent_file = copy_as(
        "claude/-home-dev-shop/agent-e4f5a6b.jsonl",
        dir.path(),
        "trace-x.txt",
    );
    let brood = dir.path().join("trace-s-1.jsonl");
    brood_trace(&brood);
    assert_eq!(detect(&claude).unwrap(), Format::ClaudeCode);
    assert_eq!(detect(&inline).unwrap(), Format::ClaudeCode);
    assert_eq!(detect(&agent_file).unwrap(), Format::ClaudeCode);
    assert_eq!(detect(&mca).unwrap(), Format::MyCodeAgent);
    assert_eq!(detect(&child).unwrap(), Format::MyCodeAgent);
    assert_eq!(detect(&brood).unwrap(), Format::Brood);
    // And the import follows the content too.
    assert_eq!(import(&claude).unwrap().format, Format::ClaudeCode);
    assert_eq!(import(&mca).unwrap().format, Format::MyCodeAgent);
}

#[test]
fn detection_passes_over_blank_and_broken_first_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.jsonl");
    let body = std::fs::read_to_string(data(MCA)).unwrap();
    std::fs::write(&path, format!("\n\n{{\"ts\": \"2026-01-03T20:15\n{body}")).unwrap();
    assert_eq!(detect(&path).unwrap(), Format::MyCodeAgent);
}

#[test]
fn a_brood_trace_is_sent_to_the_trace_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    brood_trace(&path);
    let err = import(&path).unwrap_err();
    assert!(matches!(err, ImportError::NativeTrace { .. }), "{err:?}");
    assert!(err.to_string().contains("TraceReader"), "{err}");
}

#[test]
fn unknown_and_empty_files_are_refused_with_what_brood_reads() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("notes.jsonl");
    std::fs::write(
        &other,
        "{\"role\": \"user\", \"text\": \"hi\"}\nplain text\n",
    )
    .unwrap();
    let err = import(&other).unwrap_err();
    assert!(matches!(err, ImportError::UnknownFormat { .. }), "{err:?}");
    let message = err.to_string();
    for format in [
        "brood traces",
        "Claude Code session files",
        "MyCodeAgent traces",
    ] {
        assert!(message.contains(format), "{message}");
    }
    assert!(message.contains("notes.jsonl"), "{message}");

    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "\n  \n").unwrap();
    assert!(matches!(import(&empty), Err(ImportError::Empty { .. })));

    let missing = import(&dir.path().join("nope.jsonl")).unwrap_err();
    assert!(matches!(missing, ImportError::Io { .. }), "{missing:?}");
    assert!(missing.to_string().contains("nope.jsonl"), "{missing}");
}

#[test]
fn format_names_are_for_people() {
    assert_eq!(Format::ClaudeCode.to_string(), "Claude Code session");
    assert_eq!(Format::MyCodeAgent.to_string(), "MyCodeAgent trace");
    assert_eq!(Format::Brood.to_string(), "brood trace");
    assert_eq!(Format::ClaudeCode.provider(), "claude-code");
    assert_eq!(Format::MyCodeAgent.provider(), "mycodeagent");
}

pub(super) fn write_lines(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// Puts `text` at 1-based line `at`, moving the rest down.
pub(super) fn insert_line(path: &Path, at: usize, text: &str) {
    let body = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<&str> = body.lines().collect();
    lines.insert(at - 1, text);
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

pub(super) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Samples cut at random bytes, with lines dropped, doubled or swapped, import
/// without panicking, and whatever comes out is well formed.
#[test]
fn mangled_samples_never_panic() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    copy_tree(&data("claude/-home-dev-shop"), &project);
    copy_tree(&data("mycodeagent"), &dir.path().join("m"));
    let notes = dir.path().join("n");
    copy_tree(&data("claude/-home-dev-notes"), &notes);
    let mut targets = vec![
        project.join("7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl"),
        project.join("0b9d3e21-6a4c-4f7e-8d21-5c3a9e7f1b60.jsonl"),
        dir.path().join("m/trace-s-20260103-201533-a3f2.jsonl"),
    ];
    // Each shape of session: sidechains by id, usage, progress lines,
    // commands, compaction, a rewind.
    for entry in std::fs::read_dir(&notes).unwrap() {
        targets.push(entry.unwrap().path());
    }
    targets.sort();
    let children = [
        project.join("7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17/subagents/agent-a1b2c3d.jsonl"),
        project.join("agent-e4f5a6b.jsonl"),
        dir.path().join("m/trace-s-20260103-201536-c1d2.jsonl"),
    ];
    let originals: Vec<Vec<u8>> = targets
        .iter()
        .chain(&children)
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    for round in 0..80 {
        for (path, original) in targets.iter().chain(&children).zip(&originals) {
            let mut bytes = original.clone();
            match next(4) {
                0 => bytes.truncate(next(bytes.len())),
                1 => {
                    let at = next(bytes.len());
                    bytes.drain(at..(at + next(200)).min(bytes.len()));
                }
                2 => {
                    let at = next(bytes.len());
                    let piece = bytes[at..(at + next(400)).min(bytes.len())].to_vec();
                    let to = next(bytes.len());
                    bytes.splice(to..to, piece);
                }
                _ => {
                    let noise = b"{}[]\":,\n\\x\xff";
                    let at = next(bytes.len());
                    if let Some(byte) = bytes.get_mut(at) {
                        *byte = noise[next(noise.len())];
                    }
                }
            }
            std::fs::write(path, bytes).unwrap();
        }
        for path in &targets {
            match import(path) {
                Ok(imported) => assert_well_formed(&imported),
                Err(ImportError::Empty { .. } | ImportError::UnknownFormat { .. }) => {}
                Err(e) => panic!("round {round}: {e}"),
            }
        }
    }
}
