//! The messages a newcomer can hit, through the real binary: each says what
//! happened once and what to do next, in lines of at most 80 columns, and
//! usage errors exit 2.

mod common;

use common::{Sandbox, stderr, stdout};
use serde_json::json;

/// `text` as a person sees it: every line at most 80 columns (the sandbox's
/// temp path counted as a short one), no cause said twice, no `brood: brood`.
fn assert_reads_well(sb: &Sandbox, text: &str) {
    let root = sb.root.path().display().to_string();
    for line in text.lines() {
        let shown = line.replace(&root, "/tmp/x");
        assert!(
            shown.chars().count() <= 80,
            "over 80 columns: {shown:?}\n{text}"
        );
        let parts: Vec<&str> = line.split(": ").collect();
        assert!(
            parts.windows(2).all(|w| w[0] != w[1]),
            "a cause said twice: {line:?}"
        );
    }
    assert!(!text.contains("brood: brood"), "{text}");
}

/// Exit code and stderr of `brood ARGS`, which must print nothing on stdout.
fn fails(sb: &Sandbox, args: &[&str]) -> (Option<i32>, String) {
    let out = sb.run(args);
    assert_eq!(stdout(&out), "", "{args:?}");
    let err = stderr(&out);
    assert_reads_well(sb, &err);
    (out.status.code(), err)
}

#[test]
fn a_script_that_cannot_be_read_is_a_usage_error_that_names_its_cause_once() {
    let sb = Sandbox::new();
    let missing = sb.root.path().join("no-such.json");
    let missing = missing.to_str().unwrap();
    let (code, err) = fails(
        &sb,
        &["run", "--provider", "scripted", "--script", missing, "x"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err, format!("brood: script {missing}: no such file\n"));
    // A folder cannot be read as a script: the OS's reason, said once.
    let folder = sb.workspace();
    let folder = folder.to_str().unwrap();
    let (code, err) = fails(
        &sb,
        &["run", "--provider", "scripted", "--script", folder, "x"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.starts_with("brood: cannot read script "), "{err}");
    assert_eq!(err.matches("Is a directory").count(), 1, "{err}");
}

#[test]
fn a_script_that_is_not_json_is_a_usage_error_that_points_to_the_format() {
    let sb = Sandbox::new();
    let path = sb.root.path().join("script.json");
    std::fs::write(&path, "not json").unwrap();
    let path = path.to_str().unwrap();
    let (code, err) = fails(
        &sb,
        &["run", "--provider", "scripted", "--script", path, "x"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is not valid: expected ident"), "{err}");
    assert!(err.contains("\"Scripted model\""), "{err}");
    let (code, err) = fails(&sb, &["run", "--provider", "scripted", "x"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs --script FILE"), "{err}");
}

#[test]
fn speeds_that_are_not_a_number_above_zero_are_usage_errors() {
    let sb = Sandbox::new();
    for speed in ["0", "-1", "NaN", "inf", "fast"] {
        let flag = format!("--speed={speed}");
        for verb in [
            &["demo", "--headless", &flag][..],
            &["run", "--provider", "offline", &flag, "hi"][..],
        ] {
            let (code, err) = fails(&sb, verb);
            assert_eq!(code, Some(2), "{verb:?}: {err}");
            assert!(err.contains("use a number above 0"), "{verb:?}: {err}");
        }
    }
}

#[test]
fn cwd_must_be_a_folder_that_exists() {
    let sb = Sandbox::new();
    let file = sb.write("notes.txt", "hi");
    let missing = sb.root.path().join("gone");
    for (dir, says) in [
        (file.to_str().unwrap(), "it is a file"),
        (missing.to_str().unwrap(), "no such folder"),
    ] {
        for args in [
            &["demo", "--headless", "--cwd", dir][..],
            &["run", "--provider", "offline", "--cwd", dir, "hi"][..],
            &["tool", "--cwd", dir, "glob", r#"{"pattern": "*"}"#][..],
        ] {
            let (code, err) = fails(&sb, args);
            assert_eq!(code, Some(2), "{args:?}: {err}");
            assert!(err.contains(says), "{args:?}: {err}");
        }
    }
}

#[test]
fn traces_of_a_folder_that_is_not_there_is_an_error() {
    let sb = Sandbox::new();
    let missing = sb.root.path().join("gone");
    let (code, err) = fails(&sb, &["traces", missing.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("gone: no such folder\n"), "{err}");
    assert!(err.contains("`brood traces` with no folder"), "{err}");
    let file = sb.write("notes.txt", "hi");
    let (code, err) = fails(&sb, &["traces", file.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("is not a folder"), "{err}");
}

const REFUSAL: &str = "Permission denied: `rm -r target` deletes files.\n\
    The policy asks about this, and no one could answer; --yes allows it.";

#[test]
fn tool_names_the_rule_that_refused_a_call_and_that_yes_allows_it() {
    let sb = Sandbox::new();
    sb.write("target/junk", "x");
    let out = sb.run(&["tool", "bash", r#"{"command": "rm -r target"}"#]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), format!("{REFUSAL}\n"));
    assert_reads_well(&sb, &stdout(&out));
}

#[test]
fn run_tells_the_model_and_the_person_the_same_reason() {
    let sb = Sandbox::new();
    sb.write("target/junk", "x");
    let script = json!([
        {"tool_calls": [{"name": "bash", "input": {"command": "rm -r target"}}]},
        {"text": "I was not allowed."}
    ]);
    let out = sb.run_script(script.clone(), &["--no-trace", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["type"] == "tool_result")
        .unwrap();
    assert_eq!(result["content"], REFUSAL, "what the model reads");
    let out = sb.run_script(script, &["--no-trace"]);
    let text = stdout(&out);
    assert!(
        text.contains("  error: Permission denied: `rm -r target` deletes files.\n"),
        "{text}"
    );
    assert_eq!(text.matches("deletes files").count(), 1, "{text}");
    assert_reads_well(&sb, &text);
}

/// The no-key message: a few short lines, the last one offering the demo.
fn assert_no_key_message(err: &str, names: &[&str]) {
    let lines: Vec<&str> = err.lines().collect();
    assert!((2..=5).contains(&lines.len()), "{err}");
    assert!(
        lines.last().is_some_and(|l| l.ends_with("brood demo")),
        "{err}"
    );
    for name in names {
        assert!(err.contains(name), "{name}: {err}");
    }
}

#[test]
fn with_no_key_brood_says_how_to_set_one_and_offers_the_demo() {
    let sb = Sandbox::new();
    let all = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"];
    for args in [&[][..], &["run", "hello"][..]] {
        let (code, err) = fails(&sb, args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.starts_with("brood: no model is configured."), "{err}");
        assert_no_key_message(&err, &all);
    }
    for (provider, names) in [
        ("anthropic", &["ANTHROPIC_API_KEY"][..]),
        ("openai", &["OPENAI_API_KEY", "OPENAI_BASE_URL"][..]),
    ] {
        for args in [
            &["--provider", provider][..],
            &["run", "--provider", provider, "hello"][..],
        ] {
            let (code, err) = fails(&sb, args);
            assert_eq!(code, Some(1), "{args:?}: {err}");
            assert!(err.starts_with(&format!("brood: {provider} needs an API key")));
            assert_no_key_message(&err, names);
        }
    }
}

#[test]
fn replay_last_with_nothing_saved_offers_the_demo() {
    let sb = Sandbox::new();
    let (code, err) = fails(&sb, &["replay", "--last"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.starts_with("brood: no saved sessions in "), "{err}");
    assert!(err.contains("`brood demo`"), "{err}");
}

fn replay_print(sb: &Sandbox, path: &std::path::Path) -> (Option<i32>, String) {
    fails(sb, &["replay", "--print", path.to_str().unwrap()])
}

fn assert_lists_the_formats(err: &str) {
    assert!(
        err.contains("\nbrood reads (replay and watch alike):\n"),
        "{err}"
    );
    for format in [
        "brood traces",
        "Claude Code session files",
        "Codex CLI rollouts",
        "MyCodeAgent traces",
    ] {
        assert!(err.contains(format), "{format}: {err}");
    }
}

#[test]
fn replay_of_what_it_cannot_read_lists_the_formats_it_reads() {
    let sb = Sandbox::new();
    let empty = sb.write("empty.jsonl", "");
    let unknown = sb.write("notes.jsonl", "{\"hello\": \"world\"}\n");
    let missing = sb.workspace().join("missing.jsonl");
    for (path, says) in [
        (empty, "is empty"),
        (
            unknown,
            "is not in a format brood reads.\nIt looks like JSON Lines, but of none of these formats.\n",
        ),
        (missing, "missing.jsonl: no such file\n"),
        (sb.workspace(), "is a folder"),
    ] {
        let (code, err) = replay_print(&sb, &path);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(says), "{says}: {err}");
        assert_lists_the_formats(&err);
    }
}

/// A file of another tool is named for what it looks like, never by a parser's
/// complaint, both by `replay` and in the `traces` listing.
#[test]
fn a_file_of_another_tool_is_named_for_what_it_looks_like() {
    let sb = Sandbox::new();
    let rollout = sb.write(
        "traces/rollout-2026.jsonl",
        "{\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"a\",\"cwd\":\"/x\"}}\n",
    );
    let gemini = sb.write(
        "traces/chat.json",
        "{\n  \"sessionId\": \"s\",\n  \"messages\": [{\"type\": \"user\", \"content\": \"hi\"}]\n}\n",
    );
    // Newer Gemini CLI versions write JSON Lines: metadata first, then records.
    let gemini_lines = sb.write(
        "traces/session-d98cf9e7.jsonl",
        "{\"sessionId\":\"s\",\"projectHash\":\"p\",\"startTime\":\"2026-05-22T14:59:00Z\",\"kind\":\"main\"}\n\
         {\"id\":\"m1\",\"timestamp\":\"2026-05-22T14:59:01Z\",\"type\":\"user\",\"content\":[{\"text\":\"hi\"}]}\n",
    );
    let text = sb.write("traces/notes.jsonl", "just some notes\n");
    for (path, looks) in [
        (&gemini, "It looks like a Gemini CLI chat"),
        (&gemini_lines, "It looks like a Gemini CLI chat"),
        (&text, "It looks like plain text, not JSON Lines."),
    ] {
        let (code, err) = replay_print(&sb, path);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(looks), "{looks}: {err}");
        assert!(!err.contains("missing field"), "{err}");
        assert_lists_the_formats(&err);
    }
    // A Codex rollout is read, not refused; the listing of brood's own traces
    // still names it, and says how to open it.
    let out = sb.run(&["replay", "--print", rollout.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = sb.run(&["traces", sb.workspace().join("traces").to_str().unwrap()]);
    let listing = stderr(&out);
    assert!(
        listing.contains(
            "rollout-2026.jsonl: not a brood trace; it looks like a Codex CLI rollout: \
             `brood replay FILE` reads it"
        ),
        "{listing}"
    );
    assert!(!listing.contains("missing field"), "{listing}");
}
