//! `bash`: run a shell command in the workspace root. The command runs in its own
//! process group, so a timeout or an interrupt kills everything it started (not
//! just the shell). It runs inside the session's sandbox (see `crate::sandbox`),
//! with no API key in its environment.

use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::Instant;

use super::output::Capture;
use super::util::{one_line, optional_str, optional_u64, required_str};
use super::{Tool, ToolContext, ToolError, ToolKind};
use crate::protocol::EXIT_CODE_PREFIX;

pub(super) const DEFAULT_TIMEOUT_MS: u64 = 120_000;
pub(super) const MAX_TIMEOUT_MS: u64 = 600_000;
/// How long output pipes may stay open after the shell exits (a background job
/// holding them) before the job's process group is stopped.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// Runs a shell command.
pub struct BashTool;

#[async_trait]
impl Tool for BashTool {
    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        "Run a command with `bash -c` in the workspace root and return its exit code, \
         stdout and stderr. There is no input (stdin is empty) and no terminal, so use \
         non-interactive flags. Default timeout 120000 ms (at most 600000); on timeout \
         the command and everything it started are killed, and so are background jobs \
         (`&`) still running when it ends. Commands usually run in a sandbox: writes outside the \
         workspace and its temporary folder ($TMPDIR) fail with \"Read-only file system\", \
         and the network is off unless the user turned it on. Long output keeps its beginning and \
         end. Prefer read_file, glob and grep for reading and searching \
         files, and write_file/edit_file for changing them."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The command line to run."
                },
                "timeout_ms": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT_MS,
                    "description": "Timeout in milliseconds (default 120000)."
                }
            },
            "required": ["command"]
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Exec
    }

    fn summarize(&self, input: &Value) -> String {
        one_line(optional_str(input, "command").unwrap_or("?"), 80)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let command = required_str(&input, "command")?;
        let timeout_ms = optional_u64(&input, "timeout_ms")
            .unwrap_or(DEFAULT_TIMEOUT_MS)
            .clamp(1, MAX_TIMEOUT_MS);
        run_command(command, timeout_ms, ctx).await
    }
}

/// Kills a process group when dropped, unless disarmed: if the tool's future is
/// dropped mid-run, nothing it started outlives it.
struct GroupGuard {
    pgid: Option<i32>,
}

impl GroupGuard {
    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            // SAFETY: killpg only sends a signal; the group id came from our own
            // child, which leads its group (process_group(0)). It fails harmlessly
            // (ESRCH) if the group is already gone.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }

    fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads `pipe` to its end into `capture`.
async fn pump(mut pipe: impl AsyncRead + Unpin, capture: Arc<Mutex<Capture>>) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => capture
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(&buf[..n]),
        }
    }
}

enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

async fn run_command(
    command: &str,
    timeout_ms: u64,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let mut cmd = ctx.sandbox.command(command, ctx.workspace.root());
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|source| ToolError::Io {
        context: "starting bash".to_string(),
        source,
    })?;
    let mut guard = GroupGuard {
        pgid: child.id().and_then(|pid| i32::try_from(pid).ok()),
    };
    let stdout = Arc::new(Mutex::new(Capture::default()));
    let stderr = Arc::new(Mutex::new(Capture::default()));
    let mut readers = Vec::new();
    if let Some(pipe) = child.stdout.take() {
        readers.push(tokio::spawn(pump(pipe, Arc::clone(&stdout))));
    }
    if let Some(pipe) = child.stderr.take() {
        readers.push(tokio::spawn(pump(pipe, Arc::clone(&stderr))));
    }
    let aborts: Vec<_> = readers.iter().map(|reader| reader.abort_handle()).collect();
    let mut all_read = std::pin::pin!(futures::future::join_all(readers));
    let mut read_done = false;
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);

    let ending = tokio::select! {
        status = child.wait() => match status {
            Ok(status) => Ending::Exited(status),
            Err(source) => return Err(ToolError::Io { context: "waiting for bash".into(), source }),
        },
        () = tokio::time::sleep_until(deadline) => Ending::TimedOut,
        () = ctx.cancel.cancelled() => Ending::Cancelled,
    };
    let mut note = "";
    match ending {
        Ending::Exited(_) => {
            tokio::select! {
                _ = &mut all_read => {
                    read_done = true;
                    guard.disarm();
                }
                () = tokio::time::sleep(EXIT_GRACE) => {
                    note = "\n[background processes kept the output open; they were stopped]";
                    guard.kill();
                }
                () = ctx.cancel.cancelled() => {
                    guard.kill();
                    return Err(ToolError::Interrupted);
                }
            }
        }
        Ending::TimedOut | Ending::Cancelled => {
            guard.kill();
            // The shell itself too, in case the group could not be signalled.
            let _ = child.start_kill();
            // SIGKILL cannot be ignored, so this wait is short.
            let _ = child.wait().await;
        }
    }
    // Pipes close once the group is dead; a process that left the group may still
    // hold them, so do not wait on it for long.
    if !read_done
        && tokio::time::timeout(EXIT_GRACE, &mut all_read)
            .await
            .is_err()
    {
        aborts.iter().for_each(|abort| abort.abort());
    }
    let sections = |stdout: &Mutex<Capture>, stderr: &Mutex<Capture>| {
        let mut out = String::new();
        for (label, capture) in [("stdout", stdout), ("stderr", stderr)] {
            let text = capture
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .render();
            let text = text.trim_end_matches(['\n', '\r']);
            if !text.is_empty() {
                out.push_str(&format!("\n{label}:\n{text}"));
            }
        }
        out
    };
    match ending {
        Ending::Exited(status) => Ok(format!(
            "{}{}{note}",
            describe_status(status),
            sections(&stdout, &stderr)
        )),
        Ending::TimedOut => Err(ToolError::Failed(format!(
            "command timed out after {timeout_ms} ms{}",
            sections(&stdout, &stderr)
        ))),
        Ending::Cancelled => Err(ToolError::Interrupted),
    }
}

fn describe_status(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("{EXIT_CODE_PREFIX}{code}"),
        (None, Some(signal)) => format!("{EXIT_CODE_PREFIX}none (killed by signal {signal})"),
        (None, None) => format!("{EXIT_CODE_PREFIX}unknown"),
    }
}
