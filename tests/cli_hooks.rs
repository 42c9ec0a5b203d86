//! The user's command hooks through the binary, against a local server
//! speaking the Anthropic wire format: a PreToolUse hook that blocks a call,
//! a SubagentStop hook that makes a child go on, one that times out and
//! fails open, a UserPromptSubmit hook that stops a prompt. Every run is a
//! `hook_run` event in the trace.

mod common;

use std::time::Duration;

use common::anthropic_sse::*;
use common::stream_server::*;
use common::{Sandbox, stderr, stdout, trace_events};
use serde_json::{Value, json};

fn hook_runs(events: &[Value]) -> Vec<&Value> {
    events.iter().filter(|e| e["type"] == "hook_run").collect()
}

/// One bash call, then a closing sentence.
fn one_call(command: &'static str) -> StreamServer {
    StreamServer::start(move |request, _| {
        let stream = match answered(&request.json()) {
            false => tool_turn(
                500,
                &[(
                    "toolu_01Call",
                    "bash",
                    &json!({"command": command}).to_string(),
                )],
            ),
            true => text_turn(700, "Done."),
        };
        Reply::sse_per_event(&stream, Duration::ZERO)
    })
}

#[test]
fn a_pre_tool_use_hook_blocks_a_call_and_the_model_reads_why() {
    let sb = Sandbox::new();
    sb.write(
        "hooks/no-push.sh",
        "input=$(cat)\ncase \"$input\" in *'\"command\":\"git push'*) echo 'no pushes on Fridays' >&2; exit 2;; esac\n",
    );
    sb.write(
        "brood.toml",
        "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\ncommand = \"bash hooks/no-push.sh\"\n",
    );
    let server = one_call("git push origin main");
    let trace = sb.root.path().join("t.jsonl");
    let out = sb.run_anthropic(
        &server.base_url(),
        &[
            "--model",
            "claude-test",
            "--trace",
            trace.to_str().unwrap(),
            "push it",
        ],
    );
    let result = &results_of(&server.requests()[1].json())[0];
    assert_eq!(result["is_error"], true);
    let text = result["content"].to_string();
    assert!(
        text.contains("a PreToolUse hook blocked it: no pushes on Fridays"),
        "{text}"
    );
    let events = trace_events(&trace);
    let runs = hook_runs(&events);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["hook"], "PreToolUse");
    assert_eq!(runs[0]["outcome"], "blocked");
    assert_eq!(runs[0]["exit_code"], 2);
    assert!(stdout(&out).contains("hook PreToolUse"), "{}", stdout(&out));
}

/// Runs `echo ran-anyway` as the model's one call under the hook table
/// `hooks` of `brood.toml`, checks the call still ran, and returns the hook
/// runs of the trace.
fn ran_anyway_under(hooks: &str) -> Vec<Value> {
    let sb = Sandbox::new();
    sb.write("brood.toml", hooks);
    let server = one_call("echo ran-anyway");
    let trace = sb.root.path().join("t.jsonl");
    let trace_arg = trace.to_str().unwrap();
    sb.run_anthropic(
        &server.base_url(),
        &["--model", "claude-test", "--trace", trace_arg, "go"],
    );
    let result = results_of(&server.requests()[1].json())[0].clone();
    assert!(
        result["content"].to_string().contains("ran-anyway"),
        "a failing hook is a warning: {result}"
    );
    let events = trace_events(&trace);
    hook_runs(&events).into_iter().cloned().collect()
}

#[test]
fn a_hook_that_runs_too_long_fails_open_with_a_warning() {
    let runs = ran_anyway_under("[[hooks.PreToolUse]]\ncommand = \"sleep 5\"\ntimeout = 1\n");
    assert_eq!(runs[0]["outcome"], "timed_out", "{runs:?}");
    assert!(runs[0]["duration_ms"].as_u64().unwrap() < 4000);
}

#[test]
fn a_subagent_stop_hook_from_claude_settings_makes_the_child_go_on() {
    let sb = Sandbox::new();
    let claude = sb.root.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let hook = r#"input=$(cat); case "$input" in *'"stop_hook_active":false'*) echo "also run the tests" >&2; exit 2;; esac"#;
    std::fs::write(
        claude.join("settings.json"),
        json!({"hooks": {"SubagentStop": [{"hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    )
    .unwrap();
    let server = StreamServer::start(|request, _| {
        let body = request.json();
        let parent = tool_names(&body).iter().any(|n| n == "task");
        let stream = match (parent, answered(&body)) {
            (true, false) => tool_turn(
                900,
                &[(
                    "toolu_01Task",
                    "task",
                    r#"{"prompt": "Fix the bug", "subagent_type": "general"}"#,
                )],
            ),
            (true, true) => text_turn(900, "All done."),
            (false, _) => text_turn(300, "Fixed."),
        };
        Reply::sse_per_event(&stream, Duration::ZERO)
    });
    sb.run_anthropic(
        &server.base_url(),
        &["--model", "claude-test", "--no-trace", "fix it"],
    );
    let child_requests: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.json())
        .filter(|b| !tool_names(b).iter().any(|n| n == "task"))
        .collect();
    assert_eq!(
        child_requests.len(),
        2,
        "the child went on once, then stopped"
    );
    let last = child_requests[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(last.contains("also run the tests"), "{last}");
}

#[test]
fn a_user_prompt_submit_hook_stops_a_prompt_before_the_model_sees_it() {
    let sb = Sandbox::new();
    sb.write(
        "brood.toml",
        "[[hooks.UserPromptSubmit]]\ncommand = 'grep -q password && { echo \"no secrets in prompts\" >&2; exit 2; }; exit 0'\n",
    );
    let server = one_call("true");
    let out = sb
        .command(&[
            "run",
            "--provider",
            "anthropic",
            "--model",
            "claude-test",
            "--no-trace",
            "my password is hunter2",
        ])
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env("ANTHROPIC_API_KEY", "test-key-not-real")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert_eq!(server.request_count(), 0, "the prompt never left");
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("blocked the prompt: no secrets in prompts"),
        "{said}"
    );
}

/// A hook that prints without end is cut, not kept whole, and the call goes
/// on: a failing hook is a warning.
#[test]
fn a_hook_that_floods_its_output_is_cut_and_fails_open() {
    let runs = ran_anyway_under(
        "[[hooks.PreToolUse]]\ncommand = \"head -c 30000000 /dev/zero | tr '\\\\0' x >&2; exit 1\"\n",
    );
    assert_eq!(runs[0]["outcome"], "failed");
    assert_eq!(runs[0]["exit_code"], 1);
    let said = runs[0]["message"].as_str().unwrap();
    assert!(
        said.len() <= 64 * 1024 && said.starts_with("xxxx"),
        "{}",
        said.len()
    );
}
