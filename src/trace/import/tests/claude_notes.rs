//! What Claude Code writes into a session for itself (slash commands, their
//! output, `!` commands, task notifications, `isMeta` text, compaction) and
//! rewinds: shown as notes, never as prompts, and never as empty turns. The
//! counts asserted were read off the samples by hand.

use serde_json::json;

use super::*;
use crate::protocol::SessionInfo;
use crate::tui::state::{CallStatus, EntryKind, State};

const HARNESS: &str = "claude/-home-dev-notes/2f9e4c1a-7b6d-4e5f-a0b1-c2d3e4f5a6b7.jsonl";
const COMPACT: &str = "claude/-home-dev-notes/6c3b2a19-8d7e-4f6a-b5c4-d3e2f1a0b9c8.jsonl";
const REWIND: &str = "claude/-home-dev-notes/9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a.jsonl";

/// `(name, label)` of each tool call the session's lane makes.
fn calls(events: &[Event]) -> Vec<(String, String)> {
    of(events, AgentId::Main)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall { name, summary, .. } => Some((name.clone(), summary.to_string())),
            _ => None,
        })
        .collect()
}

/// `(name, label, text, failed)` of each note (a call whose name has a space).
fn notes(events: &[Event]) -> Vec<(String, String, String, bool)> {
    let lane = of(events, AgentId::Main);
    calls(events)
        .into_iter()
        .filter(|(name, _)| name.contains(' ') || ["compaction", "rewind"].contains(&name.as_str()))
        .map(|(name, label)| {
            let result = lane
                .iter()
                .find_map(|e| match &e.kind {
                    EventKind::ToolResult {
                        name: n,
                        content,
                        is_error,
                        call_id,
                        ..
                    } if *n == name && note_label(&lane, call_id) == label => {
                        Some((content.to_string(), *is_error))
                    }
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{name} {label}: no result"));
            (name, label, result.0, result.1)
        })
        .collect()
}

fn note_label(lane: &[&Event], id: &str) -> String {
    lane.iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolCall {
                call_id, summary, ..
            } if call_id == id => Some(summary.to_string()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The model's own calls: names without a space.
fn model_calls(events: &[Event]) -> Vec<String> {
    calls(events)
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| !name.contains(' ') && !["compaction", "rewind"].contains(&name.as_str()))
        .collect()
}

fn turn_steps(events: &[Event]) -> Vec<u32> {
    of(events, AgentId::Main)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd { steps, .. } => Some(*steps),
            _ => None,
        })
        .collect()
}

fn screen(imported: &Imported) -> State {
    let mut state = State::new(SessionInfo::default());
    for event in &imported.events {
        state.apply(event);
    }
    state
}

fn note(name: &str, label: &str, text: &str) -> (String, String, String, bool) {
    (name.into(), label.into(), text.into(), false)
}

#[test]
fn commands_their_output_and_notifications_are_notes_not_prompts() {
    let imported = import_sample(HARNESS);
    let events = &imported.events;
    assert_eq!(
        prompts(events),
        [
            "Start the production build in the background and tell me when it is done.",
            "Thanks, that's all."
        ]
    );
    assert_eq!(
        notes(events),
        [
            note(
                "slash command",
                "/model opus",
                "Set model to opus (claude-opus-4-5-20251101)"
            ),
            note(
                "task notification",
                "Background command \"npm run build\" completed (exit code 0)",
                "Read the output file to retrieve the result: /tmp/claude/-home-dev-notes/tasks/5c1f2a.output"
            ),
            note(
                "user shell",
                "git status --short",
                " M src/app.ts\n?? notes.md"
            ),
            note(
                "slash command",
                "/review-pr 42",
                "Review pull request 42: read the diff with `gh pr diff 42`, then list bugs, risky changes and missing tests.\n\nARGUMENTS: 42"
            ),
        ]
    );
    assert_eq!(model_calls(events), ["Bash", "Bash"]);
    // The prompt's turn, the notification's, the command's, the last prompt's:
    // each answered, none empty.
    assert_eq!(turn_steps(events), [2, 1, 2, 1]);
    assert_eq!(imported.skipped.get("user (command caveat)"), Some(&1));
    // The notification came after the agent had finished: its turn was over.
    let lane = of(events, AgentId::Main);
    let notification = lane
        .iter()
        .position(
            |e| matches!(&e.kind, EventKind::ToolCall { name, .. } if name == "task notification"),
        )
        .unwrap();
    assert_eq!(lane[notification - 1].kind.wire_name(), "turn_end");
    let state = screen(&imported);
    assert!(!state.busy());
    let users = state
        .entries
        .iter()
        .filter(|e| matches!(e.kind, EntryKind::User(_)))
        .count();
    assert_eq!(users, 2);
    let model = state.entries.iter().find_map(|e| match &e.kind {
        EntryKind::Tool(cell) if cell.name == "slash command" => Some(cell),
        _ => None,
    });
    let model = model.expect("no slash command cell");
    assert_eq!(model.label, "/model opus");
    assert_eq!(model.status, CallStatus::Done);
    assert!(!model.output.contains('\u{1b}'), "{:?}", model.output);
}

#[test]
fn compaction_boundaries_and_summaries_are_marked_where_they_happened() {
    let imported = import_sample(COMPACT);
    let events = &imported.events;
    assert_eq!(
        prompts(events),
        [
            "Refactor the importer into smaller modules.",
            "Go ahead with step one."
        ]
    );
    let notes = notes(events);
    let labels: Vec<(&str, &str)> = notes
        .iter()
        .map(|(n, l, _, _)| (n.as_str(), l.as_str()))
        .collect();
    assert_eq!(
        labels,
        [
            ("slash command", "/compact keep the module list"),
            (
                "compaction",
                "context compacted (manual, 48.2k tokens before)"
            ),
            ("compaction", "context compacted (auto, 155k tokens before)"),
        ]
    );
    assert_eq!(notes[0].2, "Compacted (ctrl+o to see full summary)");
    for (_, _, summary, _) in &notes[1..] {
        assert!(
            summary.starts_with("This session is being continued"),
            "{summary}"
        );
    }
    // The automatic compaction came mid-turn: the turn goes on through it.
    assert_eq!(turn_steps(events), [1, 2]);
    assert_eq!(model_calls(events), ["Write"]);
    let state = screen(&imported);
    let cells: Vec<&str> = state
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Tool(cell) if cell.name == "compaction" => Some(cell.label.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(cells.len(), 2);
}

#[test]
fn a_rewind_folds_the_abandoned_branch_and_follows_the_kept_one() {
    let imported = import_sample(REWIND);
    let events = &imported.events;
    assert_eq!(
        prompts(events),
        [
            "Add a --verbose flag to the CLI.",
            "Actually, make --verbose also show the config it loaded.",
            "Run the tests."
        ]
    );
    assert_eq!(
        notes(events),
        [note(
            "rewind",
            "2 messages, 1 tool call abandoned",
            "prompt: Now make it also print timings.\ntool: Edit\nanswer: Timings now print after each step."
        )]
    );
    // The abandoned Edit is not among the session's calls; the Reads that
    // hang from one line (a result and the message's next block) are.
    assert_eq!(model_calls(events), ["Read", "Read", "Edit", "Bash"]);
    assert_eq!(turn_steps(events), [2, 2, 2]);
    let output: u64 = of(events, AgentId::Main)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AssistantMessage { usage, .. } => Some(usage.output_tokens),
            _ => None,
        })
        .sum();
    assert_eq!(output, 104 + 40 + 280 + 30 + 45 + 9);
    // The note sits where the branch was: after the first turn, before the
    // prompt that replaced it.
    let lane = of(events, AgentId::Main);
    let rewind = lane
        .iter()
        .position(|e| matches!(&e.kind, EventKind::ToolCall { name, .. } if name == "rewind"))
        .unwrap();
    assert_eq!(lane[rewind - 1].kind.wire_name(), "turn_end");
    assert!(
        matches!(&lane[rewind + 2].kind, EventKind::UserMessage { text } if text.starts_with("Actually"))
    );
    assert_eq!(imported.skipped.get("file-history-snapshot"), Some(&1));
}

#[test]
fn a_rewind_to_the_first_prompt_is_folded_and_a_replayed_prompt_is_no_rewind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let user = |uuid: &str, parent: Option<&str>, ts: &str, text: &str| {
        json!({"type": "user", "uuid": uuid, "parentUuid": parent, "timestamp": ts,
               "message": {"role": "user", "content": text}})
    };
    let answer = |uuid: &str, parent: &str, ts: &str, text: &str| {
        json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "timestamp": ts,
               "message": {"id": format!("m-{uuid}"), "model": "claude-sonnet-4-5",
                           "content": [{"type": "text", "text": text}]}})
    };
    write_lines(
        &path,
        &[
            user("u1", None, "2026-01-01T00:00:00Z", "first try"),
            answer("a1", "u1", "2026-01-01T00:00:05Z", "first answer"),
            // Rewound to the very start: a second root.
            user("u2", None, "2026-01-01T00:01:00Z", "second try"),
            answer("a2", "u2", "2026-01-01T00:01:05Z", "second answer"),
            user("u3", Some("a2"), "2026-01-01T00:02:00Z", "go on"),
            // A replay: the same prompt again, at the same time, new uuid.
            user("u3r", Some("a2"), "2026-01-01T00:02:00Z", "go on"),
            answer("a3", "u3", "2026-01-01T00:02:05Z", "went on"),
        ],
    );
    let imported = import(&path).unwrap();
    assert_well_formed(&imported);
    let events = &imported.events;
    let prompts = prompts(events);
    assert_eq!(prompts[..2], ["second try", "go on"]);
    assert!(!prompts.iter().any(|p| p == "first try"), "{prompts:?}");
    // The replay is no rewind: one note, for the first branch.
    let notes = notes(events);
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].1, "2 messages abandoned");
    assert_eq!(notes[0].2, "prompt: first try\nanswer: first answer");
}
