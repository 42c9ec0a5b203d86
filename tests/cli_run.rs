//! `brood run` and `brood check-command` through the real binary.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::{Sandbox, event_types, running_with, stderr, stdout, unique_sleep};
use serde_json::json;

fn tour_script() -> serde_json::Value {
    json!({"agents": {"main": [
        {"text": "Looking at the sources.", "tool_calls": [
            {"name": "glob", "input": {"pattern": "**/*.rs"}},
            {"name": "grep", "input": {"pattern": "fn \\w+", "path": "src"}}
        ], "usage": {"input_tokens": 1200, "output_tokens": 60}},
        {"text": "Reading the entry point.", "tool_calls": [
            {"name": "read_file", "input": {"path": "src/main.rs"}},
            {"name": "bash", "input": {"command": "rm -rf target"}}
        ], "usage": {"input_tokens": 1500, "output_tokens": 70}},
        {"text": "There are two functions: `main` in src/main.rs:1 and `helper` in src/lib.rs:1.",
         "usage": {"input_tokens": 1800, "output_tokens": 30}}
    ]}})
}

fn tour_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.write("src/main.rs", "fn main() {\n    helper();\n}\n");
    sb.write("src/lib.rs", "fn helper() {}\n");
    sb.write("target/debug/junk.rs", "fn ignored() {}\n");
    sb.write(".gitignore", "target/\n");
    sb
}

#[test]
fn run_prints_text_tool_calls_and_result_heads() {
    let sb = tour_sandbox();
    let out = sb.run_script(tour_script(), &["--no-trace"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
    // The ask (rm -rf target) was denied headlessly, so target/ is still there.
    assert!(sb.workspace().join("target/debug/junk.rs").exists());
}

#[test]
fn json_prints_every_event_in_order() {
    let sb = tour_sandbox();
    let out = sb.run_script(tour_script(), &["--no-trace", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let events: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    let count = |t: &str| events.iter().filter(|e| e["type"] == t).count();
    assert_eq!(count("user_message"), 1);
    assert_eq!(count("model_request"), 3);
    assert_eq!(count("tool_call"), 4);
    assert_eq!(count("permission_decision"), 4);
    assert_eq!(count("tool_result"), 4);
    assert_eq!(count("turn_end"), 1);
    let denied = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["name"] == "bash")
        .unwrap();
    assert_eq!(
        denied["content"],
        brood::agent::unattended_refusal("`rm -rf target` deletes files")
    );
    assert!(events.iter().all(|e| e["agent"] == "main"));
}

#[test]
fn default_trace_goes_to_the_data_folder_with_mode_0600() {
    let sb = tour_sandbox();
    let out = sb.run_script(tour_script(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let traces = sb.traces();
    assert_eq!(traces.len(), 1, "{traces:?}");
    let mode = std::fs::metadata(&traces[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let text = std::fs::read_to_string(&traces[0]).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["format"], "brood-trace");
    assert_eq!(header["version"], 1);
    assert_eq!(header["provider"], "scripted");
    let types = event_types(&traces[0]);
    assert_eq!(types.first().map(String::as_str), Some("user_message"));
    assert_eq!(types.last().map(String::as_str), Some("turn_end"));

    // --trace chooses the file; --no-trace writes none.
    let chosen = sb.root.path().join("chosen/t.jsonl");
    let out = sb.run_script(tour_script(), &["--trace", chosen.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(chosen.exists());
    let out = sb.run_script(tour_script(), &["--no-trace"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(sb.traces().len(), 1);
}

#[test]
fn the_log_is_readable_by_its_owner_only() {
    let sb = Sandbox::new();
    let log = sb.data().join("brood/brood.log");
    let out = sb.run(&["check-command", "--", "ls"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mode = std::fs::metadata(&log).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // A log left readable by an older brood is closed up on the next start.
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = sb.run(&["check-command", "--", "ls"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mode = std::fs::metadata(&log).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn an_api_key_never_reaches_the_trace_or_the_output() {
    let sb = Sandbox::new();
    let key = "sk-ant-api03-brood-test-key-0000000000";
    let script = sb.script(json!([
        {"text": "Checking the environment.", "tool_calls": [
            {"name": "bash", "input": {"command": "env; echo \"key=$ANTHROPIC_API_KEY\""}},
            {"name": "write_file", "input": {"path": "k.txt", "content": key}},
            {"name": "read_file", "input": {"path": "k.txt"}}
        ]},
        {"text": format!("I will not repeat {key}.")}
    ]));
    let trace = sb.root.path().join("t.jsonl");
    let out = sb
        .command(&[
            "run",
            "--provider",
            "scripted",
            "--script",
            script.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
            "--json",
            &format!("here is my key {key}"),
        ])
        .env("ANTHROPIC_API_KEY", key)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        !text.contains("brood-test-key"),
        "the key reached the trace"
    );
    assert!(text.contains("[redacted]"));
    assert!(
        !stdout(&out).contains("brood-test-key"),
        "the key reached stdout"
    );
    // The shell never had the key to begin with.
    assert!(
        text.contains("key=\\n") || text.contains("key=\""),
        "{text}"
    );
}

#[test]
fn exit_codes_say_how_the_run_ended() {
    let sb = Sandbox::new();
    // 2: usage error.
    assert_eq!(sb.run(&["run"]).status.code(), Some(2));
    assert_eq!(sb.run(&["run", "--bogus", "x"]).status.code(), Some(2));
    // 1: a failed run, with a one-line reason.
    let out = sb.run_script(
        json!([{"error": "the upstream model is on fire"}]),
        &["--no-trace"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("the upstream model is on fire"), "{err}");
    let call = json!({"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]});
    let out = sb.run_script(
        json!([call, call, call]),
        &["--no-trace", "--max-steps", "2"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("stopped after 2 steps"),
        "{}",
        stderr(&out)
    );
    // 1 as well when no model is configured, saying in a few lines what to do.
    let out = sb.run(&["run", "hello"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.lines().count() <= 5, "{err}");
    for needle in ["ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "brood demo"] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
    // 2 for a script that cannot be read: a usage error.
    let out = sb.run(&[
        "run",
        "--provider",
        "scripted",
        "--script",
        "/no/such.json",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/no/such.json"), "{}", stderr(&out));
}

#[test]
fn yes_approves_what_would_be_asked() {
    let sb = Sandbox::new();
    sb.write("doomed.txt", "bye");
    let out = sb.run_script(
        json!([
            {"tool_calls": [{"name": "bash", "input": {"command": "rm doomed.txt && echo gone"}}]},
            {"text": "Removed."}
        ]),
        &["--no-trace", "--yes"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !sb.workspace().join("doomed.txt").exists(),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("→ allowed"), "{}", stdout(&out));
}

/// brood started with no descriptor but the standard three (as on a fresh
/// machine) still hands bubblewrap its seccomp program: the program's file
/// then lands on the very number bubblewrap reads it from.
#[test]
fn commands_run_when_brood_inherits_no_descriptors() {
    use std::os::unix::process::CommandExt;
    let sb = Sandbox::new();
    sb.write("doomed.txt", "bye");
    let script = sb.script(json!([
        {"tool_calls": [{"name": "bash", "input": {"command": "rm doomed.txt && echo gone"}}]},
        {"text": "Removed."}
    ]));
    let mut command = sb.command(&[
        "run",
        "--provider",
        "scripted",
        "--script",
        script.to_str().unwrap(),
        "--no-trace",
        "--yes",
        "do the thing",
    ]);
    // SAFETY: close_range is async-signal-safe and touches only descriptors
    // above the standard three, in the child.
    unsafe {
        command.pre_exec(|| {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            Ok(())
        });
    }
    let out = command.output().unwrap();
    assert!(stdout(&out).contains("  gone"), "{}", stdout(&out));
    assert!(!sb.workspace().join("doomed.txt").exists());
}

/// Waits until the trace holds an event of type `kind`.
fn wait_for_event(trace: &std::path::Path, kind: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if trace.exists() && event_types(trace).iter().any(|t| t == kind) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no {kind} event in {}", trace.display());
}

/// A run whose one command sleeps: `sleep <unique_sleep(tag)>`.
fn slow_run(sb: &Sandbox, trace: &std::path::Path, tag: u32) -> std::process::Child {
    let script = sb.script(json!([
        {"text": "Waiting.", "tool_calls": [{"name": "bash", "input": {"command": format!("sleep {}", unique_sleep(tag))}}]},
        {"text": "never reached"}
    ]));
    sb.command(&[
        "run",
        "--provider",
        "scripted",
        "--script",
        script.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "wait",
    ])
    .stdout(std::process::Stdio::null())
    .spawn()
    .unwrap()
}

#[test]
fn ctrl_c_exits_130_and_the_trace_ends_interrupted() {
    let sb = Sandbox::new();
    let trace = sb.root.path().join("t.jsonl");
    let mut child = slow_run(&sb, &trace, 1);
    wait_for_event(&trace, "tool_call");
    std::thread::sleep(Duration::from_millis(200));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let types = event_types(&trace);
    assert_eq!(
        types.last().map(String::as_str),
        Some("interrupted"),
        "{types:?}"
    );
    assert!(types.contains(&"tool_result".to_string()));
    // What the tool started is gone too.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(running_with(&unique_sleep(1)), 0, "the sleep survived");
}

#[test]
fn a_killed_process_leaves_every_event_readable() {
    let sb = Sandbox::new();
    let trace = sb.root.path().join("t.jsonl");
    let mut child = slow_run(&sb, &trace, 2);
    wait_for_event(&trace, "permission_decision");
    child.kill().unwrap();
    child.wait().unwrap();
    let parsed = brood::trace::read_trace(&trace).unwrap();
    assert!(parsed.bad_lines.is_empty());
    assert!(!parsed.truncated_tail);
    let types = event_types(&trace);
    let expected_prefix = ["user_message", "model_request"];
    assert_eq!(&types[..2], expected_prefix);
    assert!(types.contains(&"tool_call".to_string()));
    assert!(types.contains(&"permission_decision".to_string()));
}

#[test]
fn check_command_prints_one_decision_line() {
    let sb = Sandbox::new();
    let cases = [
        (vec!["rm", "-rf", "build"], "ask: "),
        (vec!["cd d && rm -r build"], "ask: "),
        (vec!["ls", "-la"], "allow: "),
        (vec!["sudo", "ls"], "deny: "),
        (vec!["echo", "rm", "x"], "allow: "),
        (vec!["echo 'unterminated"], "ask: "),
    ];
    for (words, expected) in cases {
        let mut args = vec!["check-command", "--"];
        args.extend(words.iter().copied());
        let out = sb.run(&args);
        assert_eq!(out.status.code(), Some(0));
        let text = stdout(&out);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with(expected), "{words:?} → {text}");
    }
}

#[test]
fn tool_runs_one_call_as_the_model_would_and_exits_by_its_result() {
    let sb = tour_sandbox();
    let out = sb.run(&["tool", "grep", r#"{"pattern": "fn \\w+", "path": "src"}"#]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "src/lib.rs:1:fn helper() {}\nsrc/main.rs:1:fn main() {\n"
    );
    let out = sb.run(&["tool", "read_file", r#"{"path": "missing.rs"}"#]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("missing.rs"));
    // The policy applies: an ask is denied unless --yes.
    let out = sb.run(&["tool", "bash", r#"{"command": "rm -r target"}"#]);
    assert_eq!(out.status.code(), Some(1));
    let refusal = brood::agent::unattended_refusal("`rm -r target` deletes files");
    assert_eq!(stdout(&out), format!("{refusal}\n"));
    assert!(sb.workspace().join("target").exists());
    let out = sb.run(&[
        "tool",
        "--yes",
        "bash",
        r#"{"command": "rm -r target && echo gone"}"#,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(!sb.workspace().join("target").exists());
    // A write outside the workspace is denied even with --yes.
    let outside = sb.root.path().join("outside.txt");
    let input =
        serde_json::json!({"path": outside.display().to_string(), "content": "x"}).to_string();
    let out = sb.run(&["tool", "--yes", "write_file", &input]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!outside.exists());
}

#[test]
fn stopping_after_one_step_says_one_step() {
    let sb = Sandbox::new();
    let call = json!({"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]});
    let out = sb.run_script(json!([call, call]), &["--no-trace", "--max-steps", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("stopped after 1 step without"), "{err}");
}

/// A server that repeats a tool-call id in one turn (`call_0` twice) gets
/// distinct ids back, each result answering its own call.
#[test]
fn repeated_tool_call_ids_are_made_unique() {
    let sb = tour_sandbox();
    let script = json!([
        {"text": "Two calls, one id.", "tool_calls": [
            {"id": "call_0", "name": "glob", "input": {"pattern": "src/*.rs"}},
            {"id": "call_0", "name": "read_file", "input": {"path": "src/lib.rs"}}
        ]},
        {"text": "done"}
    ]);
    let out = sb.run_script(script, &["--no-trace", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pairs = |kind: &str| -> Vec<(String, String)> {
        events
            .iter()
            .filter(|e| e["type"] == kind)
            .map(|e| {
                (
                    e["call_id"].as_str().unwrap().to_string(),
                    e["name"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let calls = pairs("tool_call");
    assert_eq!(
        calls,
        [
            ("call_0".to_string(), "glob".to_string()),
            ("call_0_2".to_string(), "read_file".to_string())
        ]
    );
    let mut results = pairs("tool_result");
    results.sort();
    assert_eq!(results, calls);
}
