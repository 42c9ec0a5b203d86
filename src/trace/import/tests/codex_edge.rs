//! The Codex importer on broken or rearranged copies of the samples: missing
//! and unclaimed children, unknown and bad lines, other names, mangled bytes.

use serde_json::json;

use super::codex::{
    CHILD_1, CHILD_2, COMPACT, LEGACY, PARENT, TOOLS, calls, ends_of, prompts, subagent_end,
    turn_ends,
};
use super::*;
use crate::event::TerminalReason;

/// The parent's sessions tree copied to a temporary folder.
fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&data("codex/sessions"), &dir.path().join("sessions"));
    let parent = dir.path().join(PARENT.trim_start_matches("codex/"));
    (dir, parent)
}

#[test]
fn a_child_whose_rollout_is_missing_gets_a_lane_that_says_so() {
    let (dir, parent) = tree();
    std::fs::remove_file(dir.path().join(CHILD_2.trim_start_matches("codex/"))).unwrap();
    let imported = import(&parent).unwrap();
    assert_well_formed(&imported);
    assert_eq!(imported.children_loaded, 1);
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n
                .starts_with("sub-2 (thread 019c4d13-6e7f-7a80-b1c2-d3e4f5a6b7c8): no rollout")),
        "{:?}",
        imported.notes
    );
    let two = of(&imported.events, AgentId::Sub(2));
    assert_eq!(
        kinds(&two),
        [
            "subagent_start",
            "user_message",
            "error",
            "turn_end",
            "subagent_end"
        ]
    );
    // The parent's wait said how it ended.
    let (reason, ..) = subagent_end(&two);
    assert_eq!(reason, TerminalReason::Completed);
    assert!(ends_of(&two).4.starts_with("Stacking is refused"));
}

#[test]
fn a_thread_naming_the_session_that_no_call_spawned_still_gets_a_lane() {
    let (dir, parent) = tree();
    let orphan = dir
        .path()
        .join("sessions/2026/02/12/rollout-2026-02-12T00-03-00-019c4d15-aaaa-7bbb-8ccc-dddddddddddd.jsonl");
    let meta = json!({"timestamp": "2026-02-11T23:03:00.000Z", "type": "session_meta", "payload": {
        "id": "019c4d15-aaaa-7bbb-8ccc-dddddddddddd", "timestamp": "2026-02-11T23:03:00.000Z",
        "source": {"subagent": {"thread_spawn": {"parent_thread_id": "019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12", "depth": 1}}}}});
    let prompt = json!({"timestamp": "2026-02-11T23:03:00.100Z", "type": "response_item",
        "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Row 7 of the CSV"}]}});
    write_lines(&orphan, &[meta, prompt]);
    // And one of another session, which is not this one's child.
    let stranger = dir
        .path()
        .join("sessions/2026/02/12/rollout-2026-02-12T00-04-00-019c4d16-aaaa-7bbb-8ccc-eeeeeeeeeeee.jsonl");
    write_lines(
        &stranger,
        &[
            json!({"timestamp": "2026-02-11T23:04:00.000Z", "type": "session_meta", "payload": {
        "id": "019c4d16-aaaa-7bbb-8ccc-eeeeeeeeeeee",
        "source": {"subagent": {"thread_spawn": {"parent_thread_id": "019c0000-0000-7000-8000-000000000000"}}}}}),
        ],
    );
    // Nor is one that started days after the session's last line.
    let later = dir
        .path()
        .join("sessions/2026/02/20/rollout-2026-02-20T10-00-00-019c4d17-aaaa-7bbb-8ccc-ffffffffffff.jsonl");
    std::fs::create_dir_all(later.parent().unwrap()).unwrap();
    write_lines(
        &later,
        &[
            json!({"timestamp": "2026-02-20T09:00:00.000Z", "type": "session_meta", "payload": {
        "id": "019c4d17-aaaa-7bbb-8ccc-ffffffffffff",
        "source": {"subagent": {"thread_spawn": {"parent_thread_id": "019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12"}}}}}),
        ],
    );
    let imported = import(&parent).unwrap();
    assert_well_formed(&imported);
    assert_eq!(imported.children_loaded, 3);
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("sub-3") && n.contains("no spawn_agent call")),
        "{:?}",
        imported.notes
    );
    let three = of(&imported.events, AgentId::Sub(3));
    assert_eq!(prompts(&three), ["Row 7 of the CSV"]);
    assert_eq!(ends_of(&three).0, "");
    assert!(of(&imported.events, AgentId::Sub(4)).is_empty());
    // It starts after the parent's last event before 23:03.
    let start = position(&imported.events, |e| e.agent == AgentId::Sub(3));
    let spawn_2 = position(
        &imported.events,
        |e| matches!(&e.kind, EventKind::ToolCall { call_id, .. } if call_id == "call_S2"),
    );
    assert!(spawn_2 < start);
}

#[test]
fn unknown_and_broken_lines_are_counted_or_reported_never_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_as(TOOLS, dir.path(), "rollout-x.jsonl");
    insert_line(
        &path,
        2,
        r#"{"timestamp":"2026-02-11T08:14:03.500Z","type":"inter_agent_communication","payload":{"to":"x"}}"#,
    );
    insert_line(
        &path,
        3,
        r#"{"timestamp":"2026-02-11T08:14:03.501Z","type":"event_msg","payload":{"type":"brand_new_event"}}"#,
    );
    insert_line(
        &path,
        4,
        r#"{"timestamp":"2026-02-11T08:14:03.502Z","type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{}}}"#,
    );
    insert_line(&path, 5, "[1, 2]");
    insert_line(&path, 6, r#"{"timestamp": "2026-02-11T08:14"#);
    let mut body = std::fs::read_to_string(&path).unwrap();
    body.push_str(
        r#"{"timestamp":"2026-02-11T08:20:00.000Z","type":"event_msg","payload":{"type":"tok"#,
    );
    std::fs::write(&path, body).unwrap();
    let imported = import(&path).unwrap();
    assert_well_formed(&imported);
    let lines: Vec<usize> = imported.bad_lines.iter().map(|b| b.line).collect();
    assert_eq!(lines, [5, 6]);
    assert_eq!(imported.truncated.len(), 1);
    for (what, n) in [
        ("inter_agent_communication", 1),
        ("event_msg:brand_new_event", 1),
        ("response_item:ghost_snapshot", 1),
    ] {
        assert_eq!(
            imported.skipped.get(what),
            Some(&n),
            "{what}: {:?}",
            imported.skipped
        );
    }
    // The rest reads as before.
    let main = of(&imported.events, AgentId::Main);
    assert_eq!(calls(&main).len(), 5);
    assert_eq!(turn_ends(&main).iter().map(|t| t.2).sum::<u64>(), 73_360);
}

#[test]
fn rollouts_are_told_by_content_whatever_they_are_called() {
    let dir = tempfile::tempdir().unwrap();
    for (rel, name) in [
        (TOOLS, "7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl"),
        (LEGACY, "trace-s-20250820-132047-ab12.jsonl"),
        (COMPACT, "session.jsonl"),
    ] {
        let path = copy_as(rel, dir.path(), name);
        assert_eq!(detect(&path).unwrap(), Format::Codex, "{rel}");
        assert_eq!(import(&path).unwrap().format, Format::Codex);
    }
    assert_eq!(Format::Codex.to_string(), "Codex CLI rollout");
    assert_eq!(Format::Codex.provider(), "codex");
    assert!(
        KNOWN_FORMATS.contains("Codex CLI rollouts"),
        "{KNOWN_FORMATS}"
    );
}

/// The samples cut, spliced and with bytes flipped import without panicking,
/// and what comes out is well formed.
#[test]
fn mangled_rollouts_never_panic() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let (dir, parent) = tree();
    let files = [
        parent.clone(),
        dir.path().join(CHILD_1.trim_start_matches("codex/")),
        dir.path().join(CHILD_2.trim_start_matches("codex/")),
        dir.path().join(TOOLS.trim_start_matches("codex/")),
    ];
    let originals: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    for round in 0..60 {
        for (path, original) in files.iter().zip(&originals) {
            let mut bytes = original.clone();
            let at = next(bytes.len());
            match next(3) {
                0 => bytes.truncate(at),
                1 => {
                    let piece = bytes[at..(at + next(300)).min(bytes.len())].to_vec();
                    let to = next(bytes.len());
                    bytes.splice(to..to, piece);
                }
                _ => {
                    let noise = b"{}[]\":,\n\\x\xff";
                    if let Some(byte) = bytes.get_mut(at) {
                        *byte = noise[next(noise.len())];
                    }
                }
            }
            std::fs::write(path, bytes).unwrap();
        }
        for path in [&files[0], &files[3]] {
            match import(path) {
                Ok(imported) => assert_well_formed(&imported),
                Err(ImportError::Empty { .. } | ImportError::UnknownFormat { .. }) => {}
                Err(e) => panic!("round {round}: {e}"),
            }
        }
    }
}

#[test]
fn a_spawn_whose_output_was_never_written_finds_its_child_by_time() {
    let (_dir, parent) = tree();
    // The session ended while the second spawn_agent call ran: no output, no wait.
    let body = std::fs::read_to_string(&parent).unwrap();
    let cut: Vec<&str> = body
        .lines()
        .take_while(|l| !l.contains("\"call_id\":\"call_S2\",\"output\""))
        .collect();
    std::fs::write(&parent, cut.join("\n") + "\n").unwrap();
    let imported = import(&parent).unwrap();
    assert_well_formed(&imported);
    assert_eq!(imported.children_loaded, 2);
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    let two = of(&imported.events, AgentId::Sub(2));
    assert_eq!(ends_of(&two).0, "call_S2");
    assert_eq!(calls(&two).len(), 1);
}
