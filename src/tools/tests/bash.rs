//! bash: exit codes, output sections, truncation, timeouts, cancellation, secrets.

use std::time::{Duration, Instant};

use serde_json::json;

use super::Fixture;
use crate::config::is_secret_var as is_secret_env;
use crate::tools::{BashTool, ToolError};

/// A `sleep` argument no other process has: how a test finds its own
/// processes from outside, whatever PID namespace the sandbox put them in.
fn unique_sleep() -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("6{n:02}.{:06}{:03}", std::process::id() % 1_000_000, n)
}

/// Whether a live (not zombie) process has `arg` on its command line.
fn running_with(arg: &str) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|entry| {
        let path = entry.path();
        let Ok(cmdline) = std::fs::read(path.join("cmdline")) else {
            return false;
        };
        let zombie = std::fs::read_to_string(path.join("stat")).is_ok_and(|stat| {
            // The state follows the parenthesised command name: "pid (comm) S ...".
            stat.rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z'))
        });
        !zombie
            && cmdline
                .split(|&b| b == 0)
                .any(|word| word == arg.as_bytes())
    })
}

/// Polls until no process runs with `arg` or `limit` passes; returns whether
/// they are all gone.
async fn wait_gone(arg: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if !running_with(arg) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    !running_with(arg)
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
    let sleep = unique_sleep();
    let start = Instant::now();
    let err = fx
        .run(
            &BashTool,
            json!({"command": format!("echo started; sleep {sleep} & wait"), "timeout_ms": 300}),
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
    assert!(
        wait_gone(&sleep, Duration::from_secs(5)).await,
        "sleep {sleep} survived"
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
    let sleep = unique_sleep();
    let start = Instant::now();
    let result = fx
        .run(
            &BashTool,
            json!({"command": format!("sleep {sleep} & wait")}),
        )
        .await;
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "waited for the sleep"
    );
    assert!(matches!(result, Err(ToolError::Interrupted)), "{result:?}");
    assert!(wait_gone(&sleep, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn bash_background_job_does_not_outlive_the_command() {
    let fx = Fixture::new();
    let sleep = unique_sleep();
    let start = Instant::now();
    let out = fx
        .ok(
            &BashTool,
            json!({"command": format!("sleep {sleep} & echo hi"), "timeout_ms": 120000}),
        )
        .await;
    assert!(out.starts_with("exit code: 0\nstdout:\nhi"), "{out}");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "waited for the job"
    );
    assert!(wait_gone(&sleep, Duration::from_secs(5)).await);
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
