//! bash: exit codes, output sections, truncation, timeouts, cancellation, secrets.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use serde_json::json;

use super::Fixture;
use crate::tools::bash::{is_secret_env, secret_env_names};
use crate::tools::{BashTool, ToolError};

/// Whether `pid` is gone (or a zombie nobody has reaped yet, which runs nothing).
fn is_dead(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the parenthesised command name: "pid (comm) S ...".
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Polls until `pid` is dead or `limit` passes; returns whether it died.
async fn wait_dead(pid: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    is_dead(pid)
}

#[tokio::test]
async fn bash_reports_exit_code_stdout_and_stderr() {
    let fx = Fixture::new();
    let out = fx
        .ok(
            &BashTool,
            json!({"command": "echo out; echo err >&2; exit 3"}),
        )
        .await;
    assert_eq!(out, "exit code: 3\nstdout:\nout\nstderr:\nerr");
    let quiet = fx.ok(&BashTool, json!({"command": "true"})).await;
    assert_eq!(quiet, "exit code: 0");
}

#[tokio::test]
async fn bash_runs_in_the_workspace_root_with_no_stdin() {
    let fx = Fixture::new();
    fx.write("marker.txt", "");
    let out = fx
        .ok(&BashTool, json!({"command": "ls; cat; echo end"}))
        .await;
    assert_eq!(out, "exit code: 0\nstdout:\nmarker.txt\nend");
}

#[tokio::test]
async fn bash_keeps_head_and_tail_of_long_output() {
    let fx = Fixture::new();
    let out = fx
        .ok(
            &BashTool,
            json!({"command": "echo FIRST; seq 1 100000; echo LAST"}),
        )
        .await;
    assert!(
        out.starts_with("exit code: 0\nstdout:\nFIRST\n1\n"),
        "{}",
        &out[..40]
    );
    assert!(out.ends_with("100000\nLAST"));
    assert!(out.contains(" characters cut ...]"));
    assert!(out.len() < 45_000, "{}", out.len());
}

#[tokio::test]
async fn bash_big_output_on_both_pipes_does_not_deadlock() {
    let fx = Fixture::new();
    let out = fx
        .ok(
            &BashTool,
            json!({"command": "seq 1 200000 >&2; seq 1 200000; echo done", "timeout_ms": 60000}),
        )
        .await;
    assert!(out.contains("\nstderr:\n"), "no stderr section");
    assert!(out.contains("200000\ndone\nstderr:"), "stdout tail missing");
}

#[tokio::test]
async fn bash_timeout_kills_the_whole_process_group() {
    let fx = Fixture::new();
    let start = Instant::now();
    let err = fx
        .run(
            &BashTool,
            json!({"command": "echo started; sleep 60 & echo $! > pid; wait", "timeout_ms": 300}),
        )
        .await
        .unwrap_err();
    // Far from a speed test: only proves the sleep cannot have ended on its own.
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "waited for the sleep"
    );
    let message = err.to_string();
    assert!(
        message.starts_with("command timed out after 300 ms"),
        "{message}"
    );
    assert!(
        message.contains("started"),
        "partial output is kept: {message}"
    );
    let pid = fx.read("pid");
    let pid = pid.trim();
    assert!(!pid.is_empty());
    assert!(
        wait_dead(pid, Duration::from_secs(5)).await,
        "sleep {pid} survived"
    );
}

#[tokio::test]
async fn bash_cancel_interrupts_and_kills() {
    let fx = Fixture::new();
    let cancel = fx.ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let start = Instant::now();
    let result = fx
        .run(
            &BashTool,
            json!({"command": "sleep 60 & echo $! > pid; wait"}),
        )
        .await;
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "waited for the sleep"
    );
    assert!(matches!(result, Err(ToolError::Interrupted)), "{result:?}");
    let pid = fx.read("pid");
    assert!(wait_dead(pid.trim(), Duration::from_secs(5)).await);
}

#[tokio::test]
async fn bash_background_job_holding_output_does_not_hang() {
    let fx = Fixture::new();
    let out = fx
        .ok(
            &BashTool,
            json!({"command": "sleep 60 & echo $! > pid; echo hi", "timeout_ms": 120000}),
        )
        .await;
    assert!(out.starts_with("exit code: 0\nstdout:\nhi"), "{out}");
    assert!(
        out.contains("background processes kept the output open"),
        "{out}"
    );
    let pid = fx.read("pid");
    assert!(wait_dead(pid.trim(), Duration::from_secs(5)).await);
}

#[test]
fn secret_environment_variables_are_recognised() {
    for name in [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "GEMINI_API_KEY",
        "my_service_api_key",
    ] {
        assert!(is_secret_env(name), "{name}");
    }
    for name in [
        "PATH",
        "HOME",
        "API_KEYS_DIR",
        "KEYBOARD",
        "ANTHROPIC_BASE_URL",
    ] {
        assert!(!is_secret_env(name), "{name}");
    }
    let names = ["PATH", "FOO_API_KEY", "HOME", "OPENAI_API_KEY"].map(OsString::from);
    assert_eq!(
        secret_env_names(names),
        [
            OsString::from("FOO_API_KEY"),
            OsString::from("OPENAI_API_KEY")
        ]
    );
}

#[tokio::test]
async fn bash_environment_has_no_api_keys() {
    let fx = Fixture::new();
    let out = fx.ok(&BashTool, json!({"command": "env"})).await;
    assert!(out.contains("PATH="), "env ran: {out}");
    for line in out.lines() {
        let name = line.split('=').next().unwrap_or("");
        assert!(!is_secret_env(name), "{name} leaked into the child");
    }
}
