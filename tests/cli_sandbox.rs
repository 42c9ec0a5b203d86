//! The sandbox through the real binary: commands cannot write outside the
//! workspace even when every call is allowed, cannot read an API key by any
//! route (through each provider, against a local server that records every
//! request body), and do not outlive brood however it ends.

mod common;

use std::time::{Duration, Instant};

use common::stream_server::*;
use common::{Sandbox, event_types, running_with, stderr, stdout, unique_sleep};
use serde_json::{Value, json};

const KEY: &str = "sk-ant-api03-brood-sandbox-canary-7f3e";
const OTHER_KEY: &str = "brood-other-service-canary-19c2";
/// Every route to a key the issue names, and brood's config file.
const PROBE: &str = "env; echo ---; tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; \
    ps eww -p $PPID; echo ---; cat /proc/*/environ | tr '\\0' '\\n'; echo ---; \
    cat ~/config/brood/brood.toml; ls ~/data/brood | sed 's/^/data-entr''y:/'; echo probe-done";

fn brood_config(sb: &Sandbox) {
    let dir = sb.root.path().join("config/brood");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("brood.toml"), "# config-canary-5d1a\n").unwrap();
}

/// Asserts no canary is in `text`, naming where it was found.
fn assert_clean(text: &str, place: &str) {
    assert_no_key(text, place);
    assert!(
        !text.contains("config-canary-5d1a"),
        "brood's config file reached {place}:\n{text}"
    );
}

fn assert_no_key(text: &str, place: &str) {
    for canary in [KEY, OTHER_KEY] {
        assert!(!text.contains(canary), "{canary} reached {place}:\n{text}");
    }
}

/// Everything brood wrote or sent: stdout, stderr, the trace, the log.
fn assert_nothing_leaked(sb: &Sandbox, out: &std::process::Output, trace: &std::path::Path) {
    assert_clean(&stdout(out), "stdout");
    assert_clean(&stderr(out), "stderr");
    assert_clean(&std::fs::read_to_string(trace).unwrap(), "the trace");
    let log = sb.data().join("brood/brood.log");
    assert_clean(&std::fs::read_to_string(log).unwrap_or_default(), "the log");
}

fn anthropic_reply(index: usize) -> Reply {
    let start = sse_event(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    let (block, stop) = match index {
        0 => (
            json!({"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}),
            "tool_use",
        ),
        _ => (json!({"type": "text", "text": ""}), "end_turn"),
    };
    let delta = match index {
        0 => json!({"type": "input_json_delta",
            "partial_json": json!({"command": PROBE}).to_string()}),
        _ => json!({"type": "text_delta", "text": "Nothing secret here."}),
    };
    let body = start
        + &sse_event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 0, "content_block": block}),
        )
        + &sse_event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        )
        + &sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": 0}),
        )
        + &sse_event(
            "message_delta",
            &json!({"type": "message_delta", "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 5}}),
        )
        + &sse_event("message_stop", &json!({"type": "message_stop"}));
    Reply::sse(body)
}

fn openai_reply(index: usize) -> Reply {
    let chunk = |delta: Value, finish: Option<&str>| {
        sse_data(
            &json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
        )
    };
    let body = match index {
        0 => {
            chunk(
                json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1",
                "type": "function", "function": {"name": "bash",
                "arguments": json!({"command": PROBE}).to_string()}}]}),
                None,
            ) + &chunk(json!({}), Some("tool_calls"))
        }
        _ => {
            chunk(
                json!({"role": "assistant", "content": "Nothing secret here."}),
                None,
            ) + &chunk(json!({}), Some("stop"))
        }
    } + "data: [DONE]\n\n";
    Reply::sse(body)
}

/// Runs the probe through `provider` against a local server and checks every
/// request body, the output, the trace and the log.
fn probe_through(provider: &str, reply: fn(usize) -> Reply) {
    probe_in(provider, reply, "workspace-write");
}

fn probe_in(provider: &str, reply: fn(usize) -> Reply, sandbox: &str) {
    let sb = Sandbox::new();
    brood_config(&sb);
    let server = StreamServer::start(move |_, index| reply(index));
    let trace = sb.root.path().join("t.jsonl");
    let out = sb
        .command(&[
            "run",
            "--provider",
            provider,
            "--model",
            "m",
            "--sandbox",
            sandbox,
            "--yes",
            "--trace",
            trace.to_str().unwrap(),
            "look around",
        ])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.base_url()))
        .env("OTHER_SERVICE_API_KEY", OTHER_KEY)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the probe ran and its result went back");
    let result = requests[1].text();
    assert!(result.contains("probe-done"), "the probe ran: {result}");
    assert!(result.contains("PATH="), "env printed: {result}");
    for request in &requests {
        let place = format!("a {provider} request body");
        match sandbox {
            // Unconfined, a command can read brood's files, but a key it
            // prints is still cut from the result before the model sees it.
            "off" => assert_no_key(&request.text(), &place),
            _ => assert_clean(&request.text(), &place),
        }
    }
    if sandbox == "off" {
        assert!(
            result.contains("[redacted]"),
            "the key was found and cut: {result}"
        );
        return;
    }
    // Confined, no route reached the key at all: redaction had nothing to
    // cut, and brood's data folder (log, traces) showed no entry.
    assert!(
        !result.contains("[redacted]"),
        "a command read the key: {result}"
    );
    assert!(
        !result.contains("data-entry:"),
        "brood's data folder is visible: {result}"
    );
    assert_nothing_leaked(&sb, &out, &trace);
}

#[test]
fn a_key_an_unconfined_command_prints_never_reaches_the_model() {
    probe_in("anthropic", anthropic_reply, "off");
    probe_in("openai", openai_reply, "off");
}

#[test]
fn no_command_reads_a_key_through_anthropic() {
    probe_through("anthropic", anthropic_reply);
}

#[test]
fn no_command_reads_a_key_through_openai() {
    probe_through("openai", openai_reply);
}

#[test]
fn writes_outside_the_workspace_fail_even_when_allowed() {
    let sb = Sandbox::new();
    let sentinel = sb.root.path().join("sentinel");
    std::fs::create_dir(&sentinel).unwrap();
    std::fs::write(sentinel.join("keep"), "keep").unwrap();
    let command = "rm -rf ../sentinel; touch ~/brood-x; echo x > /etc/brood-x; echo done";
    let out = sb.run(&[
        "tool",
        "bash",
        "--yes",
        &json!({ "command": command }).to_string(),
    ]);
    let text = stdout(&out);
    assert_eq!(
        text.matches("Read-only file system").count(),
        3,
        "each write fails with the OS error: {text}"
    );
    assert!(text.contains("done"), "{text}");
    assert_eq!(
        std::fs::read_to_string(sentinel.join("keep")).unwrap(),
        "keep"
    );
    assert!(!sb.root.path().join("brood-x").exists());
    assert!(!std::path::Path::new("/etc/brood-x").exists());
    // Inside the workspace the same command line works.
    let out = sb.run(&[
        "tool",
        "bash",
        "--yes",
        r#"{"command": "mkdir -p build && touch build/x && rm -rf build && echo ok"}"#,
    ]);
    assert!(stdout(&out).contains("ok"), "{}", stdout(&out));
}

#[test]
fn the_mode_is_in_the_trace_header_and_off_is_said_at_start() {
    let sb = Sandbox::new();
    let script = sb.script(json!([{"text": "hi"}]));
    for (mode, label) in [
        ("workspace-write", "workspace-write"),
        ("read-only", "read-only"),
        ("off", "off"),
    ] {
        let trace = sb.root.path().join(format!("{mode}.jsonl"));
        let out = sb.run(&[
            "run",
            "--provider",
            "scripted",
            "--script",
            script.to_str().unwrap(),
            "--sandbox",
            mode,
            "--trace",
            trace.to_str().unwrap(),
            "hi",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let header: Value = serde_json::from_str(
            std::fs::read_to_string(&trace)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(header["sandbox"]["mode"], label, "{header}");
        match mode {
            "off" => {
                assert!(header["sandbox"].get("enforced_by").is_none());
                assert!(
                    stderr(&out).contains("the sandbox is off"),
                    "{}",
                    stderr(&out)
                );
            }
            _ => {
                assert_eq!(header["sandbox"]["enforced_by"], "bubblewrap");
                assert!(!stderr(&out).contains("sandbox"), "{}", stderr(&out));
            }
        }
    }
    let out = sb.run(&["run", "--sandbox", "none", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("workspace-write, read-only or off"));
}

#[test]
fn a_workspace_config_cannot_turn_the_sandbox_off() {
    let sb = Sandbox::new();
    sb.write(
        "brood.toml",
        "[sandbox]\nmode = \"off\"\nnetwork = true\nwritable = [\"/\"]\n",
    );
    let sentinel = sb.root.path().join("sentinel");
    std::fs::write(&sentinel, "keep").unwrap();
    let out = sb.run(&[
        "tool",
        "bash",
        "--yes",
        r#"{"command": "echo gone > ../sentinel"}"#,
    ]);
    assert!(
        stdout(&out).contains("Read-only file system"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read_to_string(&sentinel).unwrap(), "keep");
    let warnings = stderr(&out);
    for refused in [
        "sandbox.mode = \"off\"",
        "sandbox.network",
        "sandbox.writable",
    ] {
        assert!(warnings.contains(refused), "{refused}: {warnings}");
    }
}

/// Starts a run whose command leaves a background job and waits in the
/// foreground, kills brood with `signal`, and checks every process it started
/// is gone within a second.
fn no_process_outlives(signal: i32, tag: u32, sandbox: &str) -> Vec<String> {
    let sb = Sandbox::new();
    let (background, foreground) = (unique_sleep(tag), unique_sleep(tag + 1));
    let command = format!("(sleep {background} > /dev/null 2>&1 &); sleep {foreground}");
    let script = sb.script(json!([
        {"tool_calls": [{"name": "bash", "input": {"command": command}}]},
        {"text": "never reached"}
    ]));
    let trace = sb.root.path().join("t.jsonl");
    let mut child = sb
        .command(&[
            "run",
            "--provider",
            "scripted",
            "--script",
            script.to_str().unwrap(),
            "--yes",
            "--sandbox",
            sandbox,
            "--trace",
            trace.to_str().unwrap(),
            "wait",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while running_with(&background) + running_with(&foreground) < 2 {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, signal) };
    let killed = Instant::now();
    let _ = child.wait();
    while running_with(&background) + running_with(&foreground) > 0 {
        assert!(
            killed.elapsed() < Duration::from_secs(1),
            "a tool process outlived brood (signal {signal}, sandbox {sandbox})"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    event_types(&trace)
}

#[test]
fn no_tool_process_outlives_sigterm_or_sighup_and_the_trace_says_interrupted() {
    for (signal, tag) in [(libc::SIGTERM, 10), (libc::SIGHUP, 20)] {
        for (sandbox, offset) in [("workspace-write", 0), ("off", 4)] {
            let types = no_process_outlives(signal, tag + offset, sandbox);
            assert_eq!(
                types.last().map(String::as_str),
                Some("interrupted"),
                "signal {signal}: {types:?}"
            );
        }
    }
}

#[test]
fn no_tool_process_outlives_sigkill() {
    no_process_outlives(libc::SIGKILL, 30, "workspace-write");
    no_process_outlives(libc::SIGKILL, 34, "off");
}

#[test]
fn a_child_runs_in_the_same_sandbox() {
    let sb = Sandbox::new();
    let sentinel = sb.root.path().join("sentinel");
    std::fs::write(&sentinel, "keep").unwrap();
    let trace = sb.root.path().join("t.jsonl");
    let script = sb.script(json!({"agents": {
        "main": [
            {"tool_calls": [{"name": "task", "input": {"prompt": "clean up",
                "description": "clean up", "subagent_type": "general"}}]},
            {"text": "done"}
        ],
        "sub-1": [
            {"tool_calls": [{"name": "bash", "input": {"command": "echo gone > ../sentinel"}}]},
            {"text": "tried"}
        ]
    }}));
    let out = sb.run(&[
        "run",
        "--provider",
        "scripted",
        "--script",
        script.to_str().unwrap(),
        "--yes",
        "--trace",
        trace.to_str().unwrap(),
        "go",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&sentinel).unwrap(), "keep");
    let child_result = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "tool_result" && e["agent"] == "sub-1")
        .expect("the child's bash result");
    let content = child_result["content"].as_str().unwrap_or_default();
    assert!(content.contains("Read-only file system"), "{child_result}");
}
