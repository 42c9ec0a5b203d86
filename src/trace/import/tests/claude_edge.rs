//! Claude Code sessions built in the test: links without ids, odd field types,
//! missing timestamps, size.

use std::io::Write;

use serde_json::{Value, json};

use super::*;

#[test]
fn links_fall_back_to_the_prompt_and_ignore_other_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = "Count the TODO comments.";
    let main = dir.path().join("s1.jsonl");
    write_lines(
        &main,
        &[
            user(
                "u1",
                None,
                "2026-01-01T00:00:00Z",
                json!("count todos"),
                "s1",
            ),
            assistant(
                "a1",
                "2026-01-01T00:00:01Z",
                "m1",
                json!([
                    {"type": "tool_use", "id": "t1", "name": "Agent", "input": {"prompt": prompt, "description": "todos"}}
                ]),
            ),
            user(
                "u2",
                Some("a1"),
                "2026-01-01T00:00:09Z",
                json!([
                    {"type": "tool_result", "tool_use_id": "t1", "content": "12 TODOs"}
                ]),
                "s1",
            ),
        ],
    );
    // Same prompt, other session: must not be taken.
    let foreign = dir.path().join("agent-0000001.jsonl");
    write_lines(
        &foreign,
        &[user(
            "f1",
            None,
            "2026-01-01T00:00:02Z",
            json!(prompt),
            "s2",
        )],
    );
    let ours = dir.path().join("agent-0000002.jsonl");
    write_lines(
        &ours,
        &[
            user("o1", None, "2026-01-01T00:00:02Z", json!(prompt), "s1"),
            assistant(
                "o2",
                "2026-01-01T00:00:08Z",
                "m2",
                json!([{"type": "text", "text": "12 TODOs"}]),
            ),
        ],
    );
    let imported = import(&main).unwrap();
    assert_well_formed(&imported);
    assert_eq!(imported.children_loaded, 1);
    let sub1 = of(&imported.events, AgentId::Sub(1));
    assert!(sub1.iter().any(
        |e| matches!(&e.kind, EventKind::AssistantMessage { text, .. } if text == "12 TODOs")
    ));
    let EventKind::SubagentStart(start) = &sub1[0].kind else {
        panic!("{sub1:?}");
    };
    assert_eq!(start.profile, "general", "no subagent_type given");
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
}

#[test]
fn fields_of_the_wrong_type_degrade_instead_of_failing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.jsonl");
    write_lines(
        &path,
        &[
            json!({"type": "user", "sessionId": 7, "uuid": 1, "timestamp": 1767225600, "message": {"content": 42}}),
            json!({"type": "user", "sessionId": "s", "timestamp": "not a time", "message": "hello"}),
            json!({"type": "user", "sessionId": "s", "message": {"content": [{"type": "text", "text": 5}, "stray", {"type": "text", "text": "real question"}]}}),
            json!({"type": "assistant", "sessionId": "s", "message": {"id": 9, "model": ["x"], "content": "plain text answer",
                "usage": {"input_tokens": "12", "output_tokens": -3, "cache_read_input_tokens": null}}}),
            json!({"type": "assistant", "sessionId": "s", "message": {"id": "m2", "content": [{"type": "tool_use"}, {"type": "tool_use", "id": "t", "name": "Task", "input": "not an object"}]}}),
            json!({"type": "user", "sessionId": "s", "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes", "content": {"weird": true}}]}}),
            json!({"type": 3, "sessionId": "s"}),
        ],
    );
    let imported = import(&path).unwrap();
    assert_well_formed(&imported);
    let main = of(&imported.events, AgentId::Main);
    assert!(
        main.iter()
            .any(|e| matches!(&e.kind, EventKind::UserMessage { text } if text == "real question"))
    );
    let usage = main.iter().find_map(|e| match &e.kind {
        EventKind::AssistantMessage { text, usage, .. } if text == "plain text answer" => {
            Some(*usage)
        }
        _ => None,
    });
    assert_eq!(
        usage.map(|u| (u.input_tokens, u.output_tokens)),
        Some((12, 0))
    );
    let result = main.iter().find_map(|e| match &e.kind {
        EventKind::ToolResult {
            is_error,
            content,
            name,
            ..
        } => Some((*is_error, content.to_string(), name.clone())),
        _ => None,
    });
    assert_eq!(
        result,
        Some((false, "{\"weird\":true}".to_string(), "task".to_string()))
    );
    assert_eq!(imported.skipped.get("(no type)"), Some(&1));
    // The Task call without a transcript still has its lane.
    assert!(imported.events.iter().any(|e| e.agent == AgentId::Sub(1)));
}

/// The importer reads a few fields of each line and scans past the rest
/// (a tool's whole output in `toolUseResult`, the version, the branch): what
/// is wrong in a field it never reads cannot cost the line, while what is
/// wrong in one it shows makes the line a bad line, said by number.
#[test]
fn damage_in_a_field_never_read_keeps_the_line_and_in_a_read_one_skips_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.jsonl");
    let mut text = Vec::new();
    // Line 1: bytes that are not UTF-8 in the version and in a Read's copy
    // of a binary file, and an unpaired surrogate in the branch name.
    text.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"s\",\"version\":\"2.0\xff\",\"gitBranch\":\"\\ud800\",\"message\":{\"role\":\"user\",\"content\":\"first question\"}}\n");
    text.extend_from_slice(b"{\"type\":\"assistant\",\"uuid\":\"a1\",\"sessionId\":\"s\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Read\",\"input\":{\"file_path\":\"/bin/ls\"}}]}}\n");
    text.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"u2\",\"sessionId\":\"s\",\"toolUseResult\":{\"file\":{\"content\":\"\x7fELF\xc0\xaf\"}},\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"binary file\"}]}}\n");
    // Line 4: the prompt itself is not UTF-8.
    text.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"u3\",\"sessionId\":\"s\",\"message\":{\"content\":\"second \xff question\"}}\n");
    std::fs::write(&path, text).unwrap();

    let imported = import(&path).unwrap();
    assert_well_formed(&imported);
    let main = of(&imported.events, AgentId::Main);
    let prompts: Vec<_> = main
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::UserMessage { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(prompts, ["first question"]);
    assert!(main.iter().any(|e| matches!(&e.kind,
        EventKind::ToolResult { call_id, content, .. } if call_id == "t1" && content.to_string() == "binary file")));
    let bad: Vec<_> = imported.bad_lines.iter().map(|b| b.line).collect();
    assert_eq!(bad, [4]);
}

/// A call's arguments are kept as the file's text, and text nested deeper
/// than any JSON reader here takes would be written out by `--json` or a
/// trace and never read back: such a line is a bad line, as it was when the
/// line was read whole, and the calls around it stay.
#[test]
fn arguments_nested_past_reading_make_a_bad_line_and_the_rest_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.jsonl");
    let call = |uuid: &str, id: &str, input: &str| {
        format!(
            r#"{{"type":"assistant","uuid":"{uuid}","sessionId":"s","message":{{"id":"m{id}","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{input}}}]}}}}"#
        )
    };
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    let text = [
        r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"go"}}"#
            .to_string(),
        call("a1", "t1", &deep),
        call("a2", "t2", r#"{ "command" : "ls" }"#),
    ]
    .join("\n");
    std::fs::write(&path, text + "\n").unwrap();

    let imported = import(&path).unwrap();
    assert_well_formed(&imported);
    let bad: Vec<_> = imported.bad_lines.iter().map(|b| b.line).collect();
    assert_eq!(bad, [2]);
    let calls: Vec<_> = imported
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall { call_id, input, .. } => Some((call_id.as_str(), input.text())),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [("t2", r#"{"command":"ls"}"#)]);
}

#[test]
fn without_timestamps_children_still_sit_inside_their_calls() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    copy_tree(&data("claude/-home-dev-shop"), &project);
    for file in [
        "7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl",
        "7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17/subagents/agent-a1b2c3d.jsonl",
        "agent-e4f5a6b.jsonl",
    ] {
        let path = project.join(file);
        let lines: Vec<Value> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("timestamp");
                v
            })
            .collect();
        write_lines(&path, &lines);
    }
    let imported = import(&project.join("7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl")).unwrap();
    assert_well_formed(&imported);
    let events = &imported.events;
    assert!(events.iter().all(|e| e.t_ms == 0));
    for (n, id) in [(1, "toolu_01AuthEntry"), (2, "toolu_01Refresh")] {
        let call = position(
            events,
            |e| matches!(&e.kind, EventKind::ToolCall { call_id, .. } if call_id == id),
        );
        let result = position(
            events,
            |e| matches!(&e.kind, EventKind::ToolResult { call_id, .. } if call_id == id),
        );
        let lane: Vec<usize> = (0..events.len())
            .filter(|&i| events[i].agent == AgentId::Sub(n))
            .collect();
        assert!(call < lane[0], "sub-{n} starts before its call");
        assert!(
            *lane.last().unwrap() < result,
            "sub-{n} ends after its result"
        );
    }
}

/// A session of a few MB, of many turns and results a few KB long, imports
/// whole: every result, every turn. (How fast is `benches/compare.sh`'s to
/// say, on the bench session; this once timed itself, which a test should not.)
#[test]
fn a_large_session_imports_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let output = "x".repeat(3000);
    let mut n = 0;
    let mut size = 0;
    while size < 4 * 1024 * 1024 {
        n += 1;
        let ts = format!("2026-01-01T00:{:02}:{:02}.000Z", (n / 60) % 60, n % 60);
        let lines = [
            user(
                &format!("u{n}"),
                None,
                &ts,
                json!(format!("question {n}")),
                "s1",
            ),
            assistant(
                &format!("a{n}"),
                &ts,
                &format!("m{n}"),
                json!([{"type": "thinking", "thinking": "hmm"}]),
            ),
            assistant(
                &format!("b{n}"),
                &ts,
                &format!("m{n}"),
                json!([{"type": "text", "text": "Reading."}]),
            ),
            assistant(
                &format!("c{n}"),
                &ts,
                &format!("m{n}"),
                json!([
                    {"type": "tool_use", "id": format!("t{n}"), "name": "Read", "input": {"file_path": "/src/lib.rs"}}
                ]),
            ),
            user(
                &format!("r{n}"),
                None,
                &ts,
                json!([{"type": "tool_result", "tool_use_id": format!("t{n}"), "content": output}]),
                "s1",
            ),
            assistant(
                &format!("d{n}"),
                &ts,
                &format!("n{n}"),
                json!([{"type": "text", "text": "Done."}]),
            ),
        ];
        for line in lines {
            let text = format!("{line}\n");
            size += text.len();
            out.write_all(text.as_bytes()).unwrap();
        }
    }
    drop(out);
    let imported = import(&path).unwrap();
    assert_eq!(imported.skipped.get("block:thinking"), Some(&n));
    let results: Vec<&str> = imported
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult { content, .. } => Some(&**content),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), n);
    assert!(results.iter().all(|r| *r == output));
    let turns = imported
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::TurnEnd { .. }))
        .count();
    assert_eq!(turns, n);
    assert!(imported.bad_lines.is_empty());
}

fn user(uuid: &str, parent: Option<&str>, ts: &str, content: Value, session: &str) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": session != "s1" || uuid.starts_with('o'),
           "sessionId": session, "timestamp": ts, "message": {"role": "user", "content": content}})
}

fn assistant(uuid: &str, ts: &str, id: &str, content: Value) -> Value {
    json!({"type": "assistant", "uuid": uuid, "isSidechain": uuid.starts_with('o'), "sessionId": "s1",
           "timestamp": ts, "message": {"id": id, "model": "claude-sonnet-4-5", "role": "assistant",
           "content": content, "usage": {"input_tokens": 10, "output_tokens": 5}}})
}

#[test]
fn a_background_agent_runs_past_its_launch_result() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("s1.jsonl");
    write_lines(
        &main,
        &[
            user("u1", None, "2026-01-01T00:00:00Z", json!("index it"), "s1"),
            assistant(
                "a1",
                "2026-01-01T00:00:01Z",
                "m1",
                json!([
                    {"type": "tool_use", "id": "t1", "name": "Agent",
                     "input": {"prompt": "Map the indexer.", "run_in_background": true}}
                ]),
            ),
            json!({"type": "user", "uuid": "u2", "sessionId": "s1", "timestamp": "2026-01-01T00:00:01.500Z",
                   "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                       "content": "Async agent launched successfully.\nagentId: bg1"}]},
                   "toolUseResult": {"isAsync": true, "status": "async_launched", "agentId": "bg1"}}),
            assistant(
                "a2",
                "2026-01-01T00:00:02Z",
                "m2",
                json!([{"type": "text", "text": "It runs in the background."}]),
            ),
        ],
    );
    let subagents = dir.path().join("s1/subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    write_lines(
        &subagents.join("agent-bg1.jsonl"),
        &[
            user(
                "o1",
                None,
                "2026-01-01T00:00:01.200Z",
                json!("Map the indexer."),
                "s1",
            ),
            assistant(
                "o2",
                "2026-01-01T00:00:10Z",
                "m3",
                json!([{"type": "text", "text": "Three stages."}]),
            ),
        ],
    );
    let imported = import(&main).unwrap();
    assert_well_formed(&imported);
    let events = &imported.events;
    let launch = position(events, |e| matches!(e.kind, EventKind::ToolResult { .. }));
    let main_text = position(
        events,
        |e| matches!(&e.kind, EventKind::AssistantMessage { text, .. } if text.starts_with("It runs")),
    );
    let end = position(events, |e| matches!(e.kind, EventKind::SubagentEnd { .. }));
    assert!(
        launch < main_text && main_text < end,
        "{launch} {main_text} {end}"
    );
    let EventKind::SubagentEnd {
        reason,
        summary,
        elapsed_ms,
        ..
    } = &events[end].kind
    else {
        panic!("{events:?}");
    };
    assert_eq!(*reason, crate::event::TerminalReason::Completed);
    assert_eq!(summary, "Three stages.");
    assert_eq!(*elapsed_ms, 9_000);
    assert_eq!(events[end].t_ms, 10_000);
}
