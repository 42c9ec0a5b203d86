//! Finding followable sessions in folders laid out as each tool lays them out.

use std::path::Path;
use std::time::{Duration, SystemTime};

use super::*;

fn write(path: &Path, text: &str, age_s: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    let when = SystemTime::now() - Duration::from_secs(age_s);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(when).unwrap();
}

const CLAUDE_LINE: &str = r#"{"type":"user","sessionId":"s","cwd":"/home/dev/shop","timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":"fix the login"}}
"#;

fn codex_meta(id: &str, source: &str) -> String {
    format!(
        r#"{{"timestamp":"2026-11-30T10:00:00Z","type":"session_meta","payload":{{"id":"{id}","timestamp":"2026-11-30T10:00:00Z","cwd":"/srv/api","source":{source}}}}}
{{"timestamp":"2026-11-30T10:00:01Z","type":"event_msg","payload":{{"type":"user_message","message":"add a health check"}}}}
"#
    )
}

fn layout(root: &Path) -> Vec<Root> {
    let claude = root.join("claude/projects/-home-dev-shop");
    write(&claude.join("aaaa.jsonl"), CLAUDE_LINE, 300);
    write(&claude.join("aaaa/subagents/agent-1.jsonl"), CLAUDE_LINE, 5);
    write(&claude.join("agent-old.jsonl"), CLAUDE_LINE, 1);
    let day = root.join("codex/sessions/2026/11/30");
    write(
        &day.join("rollout-2026-11-30T10-00-00-p1.jsonl"),
        &codex_meta("p1", r#""cli""#),
        60,
    );
    write(
        &day.join("rollout-2026-11-30T10-00-05-c1.jsonl"),
        &codex_meta(
            "c1",
            r#"{"subagent":{"thread_spawn":{"parent_thread_id":"p1","depth":1}}}"#,
        ),
        2,
    );
    vec![
        Root {
            tool: Tool::ClaudeCode,
            dir: root.join("claude/projects"),
        },
        Root {
            tool: Tool::Codex,
            dir: root.join("codex/sessions"),
        },
    ]
}

#[test]
fn children_are_not_sessions_and_the_newest_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    let roots = layout(dir.path());
    let sessions: Vec<_> = find(&roots).into_iter().filter(|f| !is_child(f)).collect();
    let names: Vec<_> = sessions
        .iter()
        .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // The Codex child (2 s old) and the Claude subagent files are left out.
    assert_eq!(
        names,
        ["rollout-2026-11-30T10-00-00-p1.jsonl", "aaaa.jsonl"],
        "{sessions:?}"
    );
}

#[test]
fn described_sessions_name_their_project_prompt_and_children() {
    let dir = tempfile::tempdir().unwrap();
    let roots = layout(dir.path());
    let found = find(&roots);
    let by_name = |name: &str| {
        let f = found
            .iter()
            .find(|f| f.path.ends_with(name))
            .unwrap()
            .clone();
        describe(&f)
    };
    let claude = by_name("aaaa.jsonl");
    assert_eq!(claude.project, "/home/dev/shop");
    assert_eq!(claude.first_prompt.as_deref(), Some("fix the login"));
    assert_eq!(claude.children, 1);
    let codex = by_name("rollout-2026-11-30T10-00-00-p1.jsonl");
    assert_eq!(codex.project, "/srv/api");
    assert_eq!(codex.first_prompt.as_deref(), Some("add a health check"));
    assert_eq!(codex.children, 1);
}

#[test]
fn a_folder_resolves_to_its_newest_session_and_a_missing_path_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let roots = layout(dir.path());
    let project = dir.path().join("claude/projects/-home-dev-shop");
    assert_eq!(
        resolve(&project, &roots).unwrap(),
        project.join("aaaa.jsonl")
    );
    let codex = dir.path().join("codex/sessions");
    assert!(
        resolve(&codex, &roots)
            .unwrap()
            .ends_with("rollout-2026-11-30T10-00-00-p1.jsonl")
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let error = resolve(&empty, &roots).unwrap_err().to_string();
    assert!(error.contains("no session to follow"), "{error}");
    let error = resolve(&dir.path().join("nope"), &roots)
        .unwrap_err()
        .to_string();
    assert!(error.contains("no such file"), "{error}");
}

#[test]
fn a_working_folder_resolves_to_the_newest_session_recorded_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let roots = layout(dir.path());
    // A project at a real path, with a Claude Code folder named after it.
    let work = dir.path().join("src/my_app");
    std::fs::create_dir_all(&work).unwrap();
    let real = work.canonicalize().unwrap();
    let slug = claude_slug(&real.to_string_lossy());
    assert!(!slug.contains('/') && !slug.contains('_'), "{slug}");
    let session = dir
        .path()
        .join("claude/projects")
        .join(&slug)
        .join("bbbb.jsonl");
    write(&session, CLAUDE_LINE, 30);
    assert_eq!(resolve(&work, &roots).unwrap(), session);
    // A Codex rollout recorded in that folder, written later, wins.
    let day = dir.path().join("codex/sessions/2026/12/01");
    let meta = codex_meta("p2", r#""cli""#).replace("/srv/api", &real.to_string_lossy());
    let rollout = day.join("rollout-2026-12-01T09-00-00-p2.jsonl");
    write(&rollout, &meta, 10);
    assert_eq!(resolve(&work, &roots).unwrap(), rollout);
}
