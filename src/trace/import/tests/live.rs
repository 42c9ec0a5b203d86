//! Live imports: a session fed to [`Live`] a line at a time ends where the
//! whole import of the finished files is, and never ends what is still open.

use std::io::Write;
use std::path::Path;

use super::data;
use crate::event::EventKind;
use crate::trace::import::{Ending, Start, import, live};

/// Copies the folder of the sample `rel` to a temporary one, with the session
/// file itself empty; returns the folder and the session's path in it.
fn copy_without_session(rel: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let from = data(rel);
    let dir = tempfile::tempdir().unwrap();
    let src = from.parent().unwrap();
    copy_tree(src, dir.path());
    let session = dir.path().join(from.file_name().unwrap());
    std::fs::write(&session, "").unwrap();
    (dir, session)
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Writes the sample's session file into the copy line by line (the last
/// line in two halves), reading and snapshotting open after each write; then
/// the closed snapshot must equal the whole import of the copy.
fn follow_equals_import(rel: &str) {
    let text = std::fs::read_to_string(data(rel)).unwrap();
    let (_dir, session) = copy_without_session(rel);
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines.pop().unwrap();
    let write = |s: &str| {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&session)
            .unwrap();
        file.write_all(s.as_bytes()).unwrap();
    };
    write(&format!("{}\n", lines[0]));
    let mut follower = live(&session, Start::All).unwrap();
    for line in &lines[1..] {
        write(&format!("{line}\n"));
        follower.read_more().unwrap();
        let open = follower.snapshot(Ending::Open).unwrap();
        // Nothing is said to have ended only because the file ends here:
        // a subagent_end needs its call's result.
        for event in &open.events {
            if let EventKind::SubagentEnd { summary, .. } = &*event.kind {
                assert!(!summary.contains("session ended while"), "{rel}: {summary}");
            }
        }
    }
    let (a, b) = last.split_at(last.len() / 2);
    write(a);
    follower.read_more().unwrap();
    follower.snapshot(Ending::Open).unwrap();
    write(&format!("{b}\n"));
    follower.read_more().unwrap();
    let followed = follower.snapshot(Ending::Closed).unwrap().into_owned();
    let whole = import(&session).unwrap();
    assert_eq!(followed.events.len(), whole.events.len(), "{rel}");
    for (f, w) in followed.events.iter().zip(&whole.events) {
        assert_eq!(f, w, "{rel}");
    }
    assert_eq!(followed.bad_lines, whole.bad_lines, "{rel}");
    assert_eq!(followed.skipped, whole.skipped, "{rel}");
}

#[test]
fn claude_sessions_followed_line_by_line_end_as_their_import() {
    for rel in [
        super::SESSION,
        super::INLINE,
        "claude/-home-dev-notes/2f9e4c1a-7b6d-4e5f-a0b1-c2d3e4f5a6b7.jsonl",
        "claude/-home-dev-notes/3a41c7e2-5b9d-4f60-8e2a-7c1d9b4f0a63.jsonl",
        "claude/-home-dev-notes/5d2e8f14-0c7a-4b3e-9f61-2a8d4c6e1b07.jsonl",
        "claude/-home-dev-notes/6c3b2a19-8d7e-4f6a-b5c4-d3e2f1a0b9c8.jsonl",
        "claude/-home-dev-notes/8b7c6d5e-4f3a-4b21-8c0d-9e8f7a6b5c4d.jsonl",
        // A rewind: the file is read again once a branch is abandoned.
        "claude/-home-dev-notes/9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a.jsonl",
    ] {
        follow_equals_import(rel);
    }
}

#[test]
fn codex_sessions_followed_line_by_line_end_as_their_import() {
    for rel in [
        "codex/sessions/2026/02/11/rollout-2026-02-11T09-14-03-019c4b2e-5f1a-7c3d-9e21-4a8b6c0d2f17.jsonl",
        "codex/sessions/2026/02/11/rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl",
        "codex/sessions/2026/03/02/rollout-2026-03-02T15-05-00-019c9e5a-4b3c-7d2e-8f10-a9b8c7d6e5f4.jsonl",
    ] {
        follow_equals_import(rel);
    }
}

/// A look in the middle of a message: its first call's result came before
/// its last block. The result shows with its call's name and duration,
/// though a look's copy of the conversation leaves the calls map behind.
#[test]
fn a_result_held_for_an_open_message_shows_with_its_call() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir
        .path()
        .join("5e55a0b1-0000-4000-8000-000000000001.jsonl");
    let lines = [
        serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s",
            "timestamp": "2026-12-01T10:00:00.000Z",
            "message": {"role": "user", "content": "read it"}}),
        serde_json::json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
            "timestamp": "2026-12-01T10:00:01.000Z",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read",
                    "input": {"file_path": "/w/a.rs"}}],
                "usage": {"input_tokens": 10, "output_tokens": 2}}}),
        serde_json::json!({"type": "user", "uuid": "r1", "parentUuid": "a1", "sessionId": "s",
            "timestamp": "2026-12-01T10:00:02.500Z",
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_1", "content": "fn main() {}"}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&session, text).unwrap();
    let mut follower = live(&session, Start::All).unwrap();
    let open = follower.snapshot(Ending::Open).unwrap();
    let result = open
        .events
        .iter()
        .find_map(|e| match &*e.kind {
            EventKind::ToolResult {
                name, duration_ms, ..
            } => Some((name.clone(), *duration_ms)),
            _ => None,
        })
        .expect("the held result is shown");
    assert_eq!(result, ("Read".to_string(), 1500));
}
