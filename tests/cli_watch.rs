//! `brood watch` through the binary: sessions written while it runs, line by
//! line, as Claude Code and brood write them, followed with `--json`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{Sandbox, stderr, stdout};
use serde_json::Value;

const SAMPLE: &str = "tests/data/import/claude/-home-dev-shop";
const SESSION: &str = "7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17";

/// A running `brood watch --json`, its lines arriving with the time they came.
struct Watch {
    child: Child,
    lines: mpsc::Receiver<(Instant, Value)>,
}

impl Watch {
    fn start(sb: &Sandbox, args: &[&str]) -> Watch {
        let mut child = sb
            .command(&[&["watch", "--json"][..], args].concat())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let value = serde_json::from_str(&line).unwrap_or(Value::Null);
                if send.send((Instant::now(), value)).is_err() {
                    return;
                }
            }
        });
        Watch { child, lines }
    }

    /// Waits for an event that `wanted` picks; everything before it is kept
    /// in `seen`.
    fn wait(
        &self,
        seen: &mut Vec<Value>,
        wanted: impl Fn(&Value) -> bool,
    ) -> Option<(Instant, Value)> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            let (at, event) = self.lines.recv_timeout(left).ok()?;
            seen.push(event.clone());
            if wanted(&event) {
                return Some((at, event));
            }
        }
        None
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn append(path: &Path, line: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    file.write_all(line.as_bytes()).unwrap();
    file.write_all(b"\n").unwrap();
}

/// Appends a line as Claude Code does, writing a subagent's `meta.json` when
/// its transcript is created.
fn write_line(path: &Path, line: &str) {
    if path.ends_with("agent-a1b2c3d.jsonl") && !path.exists() {
        let meta = Path::new(SAMPLE).join(format!("{SESSION}/subagents/agent-a1b2c3d.meta.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::copy(meta, path.with_extension("meta.json")).unwrap();
    }
    append(path, line);
}

/// Every line of the sample's three files, with the file it goes to, in the
/// order Claude Code wrote them (by timestamp; lines without one stay put).
fn lines_in_write_order(to: &Path) -> Vec<(PathBuf, String, Option<String>)> {
    let files = [
        format!("{SESSION}.jsonl"),
        format!("{SESSION}/subagents/agent-a1b2c3d.jsonl"),
        "agent-e4f5a6b.jsonl".into(),
    ];
    in_write_order(Path::new(SAMPLE), &files, to)
}

/// The lines of `files` (relative to `from`), each with where it goes under
/// `to`, in the order they were written: by timestamp, a line without one
/// right after the line before it.
fn in_write_order(
    from: &Path,
    files: &[String],
    to: &Path,
) -> Vec<(PathBuf, String, Option<String>)> {
    let mut lines = Vec::new();
    for rel in files {
        let text = std::fs::read_to_string(from.join(rel)).unwrap();
        let mut last = String::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let value: Value = serde_json::from_str(line).unwrap();
            let ts = value["timestamp"].as_str().map(String::from);
            let key = ts.clone().unwrap_or_else(|| last.clone());
            last = key.clone();
            lines.push((key, to.join(rel), line.to_string(), ts));
        }
    }
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    lines.into_iter().map(|(_, p, l, ts)| (p, l, ts)).collect()
}

/// Once the writing is done, what was followed (`seen` and what is still
/// coming) has every call of every agent that a replay of the finished files
/// has, in the same order.
fn assert_ends_like_a_replay(sb: &Sandbox, session: &Path, watch: &Watch, seen: &mut Vec<Value>) {
    std::thread::sleep(Duration::from_millis(600));
    while let Ok((_, event)) = watch.lines.try_recv() {
        seen.push(event);
    }
    let replay = sb.run(&["replay", "--json", session.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
    let replayed: Vec<Value> = stdout(&replay)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for agent in ["main", "sub-1", "sub-2"] {
        assert_eq!(calls_of(seen, agent), calls_of(&replayed, agent), "{agent}");
        assert!(!calls_of(&replayed, agent).is_empty(), "{agent}");
    }
}

/// The tool calls of one agent in a stream of events, applying rewinds (an
/// event whose `seq` does not follow takes back everything from it on).
fn calls_of(events: &[Value], agent: &str) -> Vec<String> {
    let mut kept: Vec<&Value> = Vec::new();
    for event in events {
        let seq = event["seq"].as_u64().unwrap_or(0);
        kept.retain(|e| e["seq"].as_u64().unwrap_or(0) < seq);
        kept.push(event);
    }
    kept.iter()
        .filter(|e| e["type"] == "tool_call" && e["agent"] == agent)
        .map(|e| e["call_id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The sample session in a project folder of `sb`, its first line written
/// (the session starts before brood looks at it), and the lines still to write.
fn started_session(sb: &Sandbox) -> (PathBuf, Vec<(PathBuf, String, Option<String>)>) {
    let project = sb.root.path().join("projects/-home-dev-shop");
    let lines = lines_in_write_order(&project);
    let (first_path, first_line, _) = &lines[0];
    append(first_path, first_line);
    (project.join(format!("{SESSION}.jsonl")), lines)
}

#[test]
fn a_claude_session_and_its_subagents_are_followed_line_by_line() {
    let sb = Sandbox::new();
    let (session, lines) = started_session(&sb);
    let watch = Watch::start(&sb, &[session.to_str().unwrap()]);
    let mut seen = Vec::new();
    let mut latencies = Vec::new();
    for (path, line, _) in &lines[1..] {
        write_line(path, line);
        let value: Value = serde_json::from_str(line).unwrap();
        let child_call = path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("agent-")
            && value["type"] == "assistant"
            && value["message"]["content"][0]["type"] == "tool_use";
        if child_call {
            let id = value["message"]["content"][0]["id"]
                .as_str()
                .unwrap()
                .to_string();
            let written = Instant::now();
            let found = watch.wait(&mut seen, |e| {
                e["type"] == "tool_call" && e["call_id"] == id
            });
            let (at, event) =
                found.unwrap_or_else(|| panic!("child call {id} never came; saw {seen:#?}"));
            assert!(
                event["agent"].as_str().unwrap().starts_with("sub-"),
                "{event}"
            );
            latencies.push(at - written);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // The follower ends where a replay of the finished files starts.
    assert_ends_like_a_replay(&sb, &session, &watch, &mut seen);
    assert_eq!(latencies.len(), 4, "the sample's children make four calls");
    latencies.sort();
    // Generous: CI machines are busy. `benches/follow_latency.sh` measures it.
    assert!(
        latencies[latencies.len() / 2] < Duration::from_secs(1),
        "{latencies:?}"
    );
}

#[test]
fn a_brood_trace_is_followed_event_by_event_with_its_children() {
    let sb = Sandbox::new();
    sb.write("src/auth.rs", "pub fn login() {}\n");
    let script = serde_json::json!({"agents": {
        "main": [
            {"text": "Asking an explorer.", "tool_calls": [
                {"name": "task", "input": {"prompt": "Find login", "description": "find login", "subagent_type": "explore"}}
            ]},
            {"text": "Login is in src/auth.rs."}
        ],
        "sub-1": [
            {"tool_calls": [{"name": "grep", "input": {"pattern": "fn login"}}]},
            {"text": "{\"answer\": \"src/auth.rs:1\", \"files\": [\"src/auth.rs\"]}"}
        ]
    }});
    let live = sb.run_script(script, &[]);
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    let recorded = sb.traces()[0].clone();
    let text = std::fs::read_to_string(&recorded).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let followed = sb.root.path().join("followed.jsonl");
    append(&followed, lines[0]);
    let watch = Watch::start(&sb, &[followed.to_str().unwrap()]);
    let mut seen = Vec::new();
    for line in &lines[1..] {
        append(&followed, line);
        let seq = serde_json::from_str::<Value>(line).unwrap()["seq"].clone();
        assert!(
            watch.wait(&mut seen, |e| e["seq"] == seq).is_some(),
            "event {seq} never came: {seen:?}"
        );
    }
    assert_eq!(seen.len(), lines.len() - 1);
    assert!(
        seen.iter()
            .any(|e| e["type"] == "tool_call" && e["agent"] == "sub-1"),
        "{seen:?}"
    );
}

#[test]
fn list_shows_the_sessions_of_each_tool_newest_first() {
    let sb = Sandbox::new();
    let claude = sb.root.path().join("claude-home");
    let project = claude.join("projects/-home-dev-shop");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(
        Path::new(SAMPLE).join(format!("{SESSION}.jsonl")),
        project.join(format!("{SESSION}.jsonl")),
    )
    .unwrap();
    let live = sb.run_script(serde_json::json!([{"text": "Hi."}]), &[]);
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    let out = sb
        .command(&["watch", "--list"])
        .env("CLAUDE_CONFIG_DIR", &claude)
        .env("CODEX_HOME", sb.root.path().join("no-codex"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[0].starts_with("TOOL"), "{text}");
    assert!(
        rows[0].contains("PROJECT") && rows[0].contains("CHILDREN"),
        "{text}"
    );
    // The brood run was written last, so it comes first.
    assert!(
        rows[1].starts_with("brood") && rows[1].contains("do the thing"),
        "{text}"
    );
    assert!(rows[2].starts_with("claude"), "{text}");
    assert!(rows[2].contains("/home/dev/shop"), "{text}");

    // With nothing anywhere, it says where it looked.
    let empty = Sandbox::new();
    let out = empty
        .command(&["watch", "--list"])
        .env("CLAUDE_CONFIG_DIR", empty.root.path().join("c"))
        .env("CODEX_HOME", empty.root.path().join("x"))
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(err.contains("no session to follow"), "{err}");
    assert!(err.contains("(claude)") && err.contains("(codex)"), "{err}");
}

/// The workbench follows a session in a real terminal: what is appended shows
/// up, child lane included, and the bar says it is following.
#[test]
fn the_workbench_follows_a_session_in_a_real_terminal() {
    use common::tmux::Tmux;
    let sb = Sandbox::new();
    let (session, lines) = started_session(&sb);
    let tmux = Tmux::shell(&sb, 140, 40);
    tmux.command(&format!(
        "brood watch {}; echo watch-exited-$?",
        session.display()
    ));
    let screen = tmux.wait_for("● following", Duration::from_secs(15));
    assert!(screen.contains("┌ watch 7c1e9a52"), "{screen}");
    // Up to the first child's first tool call.
    let upto = lines
        .iter()
        .position(|(p, l, _)| p.ends_with("agent-a1b2c3d.jsonl") && l.contains("tool_use"))
        .unwrap();
    for (path, line, _) in &lines[1..=upto] {
        write_line(path, line);
    }
    let screen = tmux.wait_for("[sub-1]", Duration::from_secs(10));
    assert!(screen.contains("Where is auth handled"), "{screen}");
    // The rest, then the parent's last answer.
    for (path, line, _) in &lines[upto + 1..] {
        write_line(path, line);
    }
    let screen = tmux.wait_for("One test fails", Duration::from_secs(10));
    assert!(screen.contains("● following"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("watch-exited-0", Duration::from_secs(10));
}

/// A Codex session and its two sub-agents' rollouts (one in the next day's
/// folder) written line by line: each sub-agent's calls come live, in order,
/// and the followed stream ends where a replay of the finished files starts.
#[test]
fn a_codex_session_and_its_sub_agent_threads_are_followed() {
    let sb = Sandbox::new();
    let sessions = sb.root.path().join("codex/sessions");
    let files = [
        "2026/02/11/rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl"
            .to_string(),
        "2026/02/11/rollout-2026-02-11T23-50-30-019c4d11-0b2c-7d3e-9f40-5a6b7c8d9e01.jsonl".into(),
        "2026/02/12/rollout-2026-02-12T00-01-05-019c4d13-6e7f-7a80-b1c2-d3e4f5a6b7c8.jsonl".into(),
    ];
    let lines = in_write_order(
        Path::new("tests/data/import/codex/sessions"),
        &files,
        &sessions,
    );
    let session = sessions.join(&files[0]);
    let (first_path, first_line, _) = &lines[0];
    append(first_path, first_line);
    let watch = Watch::start(&sb, &[session.to_str().unwrap()]);
    let mut seen = Vec::new();
    let mut child_calls = 0;
    for (path, line, _) in &lines[1..] {
        append(path, line);
        let value: Value = serde_json::from_str(line).unwrap();
        let call = value["payload"]["type"] == "function_call" && *path != session;
        if call {
            let id = value["payload"]["call_id"].as_str().unwrap().to_string();
            let found = watch.wait(&mut seen, |e| {
                e["type"] == "tool_call" && e["call_id"] == id
            });
            let (_, event) =
                found.unwrap_or_else(|| panic!("child call {id} never came: {seen:#?}"));
            assert!(
                event["agent"].as_str().unwrap().starts_with("sub-"),
                "{event}"
            );
            child_calls += 1;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child_calls >= 2, "{child_calls}");
    assert_ends_like_a_replay(&sb, &session, &watch, &mut seen);
}

/// A follower lives as long as the session it follows and is held to a
/// bound on its memory (`benches/follow_latency.sh memory`), so its heap is
/// never backed by huge pages, which are held whole; `brood replay`, which
/// reads a session at once and ends, may use them.
#[test]
#[cfg(target_os = "linux")]
fn a_follower_refuses_huge_pages() {
    let sb = Sandbox::new();
    let (session, lines) = started_session(&sb);
    let watch = Watch::start(&sb, &[session.to_str().unwrap()]);
    for (path, line, _) in &lines[1..] {
        write_line(path, line);
    }
    let mut seen = Vec::new();
    assert!(watch.wait(&mut seen, |_| true).is_some(), "no event came");
    let status = std::fs::read_to_string(format!("/proc/{}/status", watch.child.id())).unwrap();
    // The line is there since Linux 5.0; an older kernel has nothing to check.
    if let Some(line) = status.lines().find(|l| l.starts_with("THP_enabled:")) {
        assert_eq!(line.split_whitespace().nth(1), Some("0"), "{line}");
    }
}
