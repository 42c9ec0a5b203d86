//! MCP servers through the binary: `examples/mcp_test_server.rs` (rmcp's
//! server side, over stdio) configured in `.mcp.json` and `brood.toml`, and a
//! local server speaking the Anthropic wire format as the model. `brood mcp`
//! lists servers, states and tools; a model's call reaches the server and
//! its result the next request; a call asks unless a rule allows it; a
//! secret a server prints never reaches the trace; a crash or a timeout is
//! an error result and the session goes on.

mod common;

use std::path::PathBuf;
use std::sync::Once;
use std::time::{Duration, Instant};

use common::anthropic_sse::*;
use common::stream_server::*;
use common::{Sandbox, running_with, stderr, stdout, trace_events, unique_sleep};
use serde_json::{Value, json};

/// The test server's binary, built once if `cargo test` did not build it.
fn server_bin() -> PathBuf {
    static BUILD: Once = Once::new();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_brood"))
        .parent()
        .unwrap()
        .join("examples/mcp_test_server");
    BUILD.call_once(|| {
        if !bin.exists() {
            let status = std::process::Command::new(env!("CARGO"))
                .args(["build", "--example", "mcp_test_server"])
                .status()
                .unwrap();
            assert!(status.success(), "cannot build the MCP test server");
        }
    });
    bin
}

/// A workspace whose `.mcp.json` names the test server as `t` (and what
/// `extra` adds), allowed by the user's local settings.
fn with_server(extra: Value) -> Sandbox {
    let sb = Sandbox::new();
    let mut servers =
        json!({"t": {"command": server_bin(), "env": {"TEST_TOKEN": "${MY_TOKEN:-none}"}}});
    for (name, server) in extra.as_object().unwrap() {
        servers[name] = server.clone();
    }
    sb.write(".mcp.json", &json!({"mcpServers": servers}).to_string());
    sb.write(
        ".claude/settings.local.json",
        r#"{"enableAllProjectMcpServers": true}"#,
    );
    sb
}

#[test]
fn brood_mcp_lists_servers_their_state_and_tools() {
    let sb = with_server(json!({"gone": {"command": "/nonexistent/mcp-server"}}));
    // A server that never answers, with a short startup timeout (Codex's field).
    sb.write(
        "brood.toml",
        &format!(
            "[mcp_servers.hang]\ncommand = {:?}\nenv = {{ MCP_TEST_HANG = \"1\" }}\nstartup_timeout_sec = 1\n",
            server_bin().to_str().unwrap()
        ),
    );
    let started = Instant::now();
    let out = sb
        .command(&["mcp", "--json"])
        .env("MY_TOKEN", "tok-abcdef")
        .output()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_name = |name: &str| lines.iter().find(|l| l["name"] == name).unwrap().clone();
    let t = by_name("t");
    assert_eq!(
        (t["state"].as_str(), t["transport"].as_str()),
        (Some("ready"), Some("stdio"))
    );
    let tools: Vec<&str> = t["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "mcp__t__echo",
            "mcp__t__search",
            "mcp__t__docs",
            "mcp__t__slow",
            "mcp__t__fail",
            "mcp__t__crash",
            "mcp__t__token",
            "mcp__t__odd",
            "mcp__t__add_tool"
        ]
    );
    assert_eq!(t["tools"][2]["read_only"], true);
    // A schema the providers would refuse is reduced, and said so.
    assert_eq!(
        t["tools"][7]["schema_reduced"],
        "its input schema is not an object schema; offered without parameters"
    );
    assert!(t["tools"][0]["schema_reduced"].is_null());
    assert_eq!(by_name("hang")["error"], "it did not start within 1 s");
    assert!(
        by_name("gone")["error"]
            .as_str()
            .unwrap()
            .contains("No such file"),
        "{lines:?}"
    );
    // The table says the same for people.
    let table = stdout(&sb.command(&["mcp"]).output().unwrap());
    assert!(
        table.contains("t  stdio  ready · 9 tools  (.mcp.json)"),
        "{table}"
    );
    assert!(
        table.contains("  mcp__t__docs  [read-only]  Reads the documentation."),
        "{table}"
    );
    assert!(
        table.contains("  mcp__t__odd  [schema reduced]  Has a schema"),
        "{table}"
    );
    assert!(
        table.contains("hang  stdio  failed: it did not start within 1 s  (brood.toml)"),
        "{table}"
    );
}

#[test]
fn a_workspace_server_does_not_start_without_the_users_yes() {
    let sb = Sandbox::new();
    let log = sb.root.path().join("calls.log");
    sb.write(
        ".mcp.json",
        &json!({"mcpServers": {"t": {"command": server_bin(), "env": {"MCP_TEST_LOG": log}}}})
            .to_string(),
    );
    let out = sb.run(&["mcp"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("no MCP servers configured"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("MCP server `t` is the workspace's and starts once you allow it"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_model_calls_an_mcp_tool_and_reads_its_result() {
    let sb = with_server(json!({}));
    let trace = sb.root.path().join("t.jsonl");
    let server = calls_in_turn(vec![
        ("mcp__t__echo", json!({"text": "hello"})),
        (
            "mcp__t__search",
            json!({"query": {"terms": ["a", "b"], "filters": {"limit": 2}}}),
        ),
        ("mcp__t__token", json!({})),
        ("mcp__t__fail", json!({})),
    ]);
    let out = sb.run_anthropic_with(
        &server.base_url(),
        &[
            "--model",
            "claude-test",
            "--yes",
            "--trace",
            trace.to_str().unwrap(),
            "use the server",
        ],
        &[("MY_TOKEN", "tok-secret-9876"), ("BROOD_LOG", "debug")],
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 5);
    assert!(
        stderr(&out).contains("MCP tool mcp__t__odd: its input schema is not an object schema"),
        "{}",
        stderr(&out)
    );
    let first = requests[0].json();
    let names = tool_names(&first);
    assert!(
        names.contains(&"mcp__t__echo".to_string()) && names.contains(&"bash".to_string()),
        "{names:?}"
    );
    // The nested schema is offered as the server wrote it.
    let search = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__t__search")
        .unwrap();
    assert_eq!(
        search["input_schema"]["properties"]["query"]["properties"]["terms"]["items"]["type"],
        "string"
    );
    let results = results_of(&requests[4].json());
    let text = |i: usize| {
        results[i]["content"]
            .as_str()
            .map(String::from)
            .unwrap_or_else(|| results[i]["content"].to_string())
    };
    assert_eq!(text(0), "echo: hello");
    assert!(
        text(1).contains(r#"searched {"terms":["a","b"],"filters":{"limit":2}}"#),
        "{}",
        text(1)
    );
    assert!(
        !text(2).contains("tok-secret-9876") && text(2).contains("[redacted]"),
        "{}",
        text(2)
    );
    assert_eq!(
        (
            text(3).contains("it failed on purpose"),
            results[3]["is_error"].as_bool()
        ),
        (true, Some(true))
    );
    let written = std::fs::read_to_string(&trace).unwrap();
    assert!(
        !written.contains("tok-secret-9876"),
        "the secret reached the trace"
    );
    // The server's stderr is in the log, without the secret it printed.
    let log = std::fs::read_to_string(sb.data().join("brood/brood.log")).unwrap();
    assert!(
        log.contains("mcp test server starting, token [redacted]"),
        "{log}"
    );
    assert!(
        !log.contains("tok-secret-9876"),
        "the secret reached the log"
    );
    assert!(written.contains("\"name\":\"mcp__t__echo\""));
    assert!(
        stdout(&out).contains(r#"> mcp__t__echo: {"text":"hello"}"#),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_mcp_call_asks_unless_a_rule_allows_it() {
    let sb = with_server(json!({}));
    let server = calls_in_turn(vec![
        ("mcp__t__echo", json!({"text": "hi"})),
        ("mcp__t__docs", json!({})),
    ]);
    sb.write("brood.toml", "[permissions]\nallow = [\"mcp__t__docs\"]\n");
    let out = sb.run_anthropic(&server.base_url(), &["--model", "claude-test", "go"]);
    let results = results_of(&server.requests()[2].json());
    assert_eq!(results[0]["is_error"], true, "{results:?}");
    assert!(
        results[0]["content"]
            .to_string()
            .contains("asks unless a rule allows it"),
        "{results:?}"
    );
    assert_eq!(
        results[1]["content"].as_str(),
        Some("docs about everything"),
        "{results:?}"
    );
    assert!(stdout(&out).contains("All done."));
}

#[test]
fn a_crashed_or_slow_server_is_an_error_result_and_the_session_goes_on() {
    let sb = with_server(json!({}));
    sb.write(
        "brood.toml",
        &format!(
            "[mcp_servers.s]\ncommand = {:?}\ntool_timeout_sec = 1\n",
            server_bin().to_str().unwrap()
        ),
    );
    let server = calls_in_turn(vec![
        ("mcp__s__slow", json!({"seconds": 5})),
        ("mcp__t__crash", json!({})),
        ("mcp__t__echo", json!({"text": "after"})),
        ("mcp__s__echo", json!({"text": "still here"})),
    ]);
    let trace = sb.root.path().join("t.jsonl");
    let started = Instant::now();
    let out = sb.run_anthropic(
        &server.base_url(),
        &[
            "--model",
            "claude-test",
            "--yes",
            "--trace",
            trace.to_str().unwrap(),
            "go",
        ],
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let results = results_of(&server.requests()[4].json());
    let text = |i: usize| results[i]["content"].to_string();
    assert!(
        text(0).contains("MCP server s: no answer within 1 s"),
        "{}",
        text(0)
    );
    // The call in flight when the server died says so; after it, the
    // server's tools are gone from the list and a call to one is unknown.
    assert!(
        text(1).contains("MCP server t: the server has stopped; its tools are withdrawn"),
        "{}",
        text(1)
    );
    assert!(
        text(2).contains(r#"unknown tool \"mcp__t__echo\""#) && !text(2).contains("mcp__t__docs"),
        "{}",
        text(2)
    );
    assert_eq!(results[3]["content"].as_str(), Some("echo: still here"));
    assert!(stdout(&out).contains("All done."));
    // The screen and the trace are told once that the server stopped.
    let downs: Vec<Value> = trace_events(&trace)
        .into_iter()
        .filter(|e| e["type"] == "mcp_server_down")
        .collect();
    assert_eq!(downs.len(), 1, "{downs:?}");
    assert_eq!(downs[0]["server"], "t");
    assert!(
        stdout(&out).contains("MCP server t stopped: the server stopped during a call"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_parent_and_an_explore_child_each_call_an_mcp_tool() {
    let sb = with_server(json!({}));
    sb.write("src/a.rs", "fn login() {}\n");
    sb.write(
        "brood.toml",
        "[profiles.docs]\ndescription = \"Reads the docs server.\"\ncontract = \"explore\"\nread_only = true\nmcp_servers = [\"t\"]\n",
    );
    let server = StreamServer::start(|request, _| {
        let body = request.json();
        let parent = tool_names(&body).iter().any(|n| n == "task");
        let done = results_of(&body).len();
        let stream = match (parent, done) {
            (true, 0) => tool_turn(
                400,
                &[("toolu_p0", "mcp__t__echo", r#"{"text":"from the parent"}"#)],
            ),
            (true, 1) => tool_turn(
                400,
                &[(
                    "toolu_p1",
                    "task",
                    r#"{"prompt":"What do the docs say about login?","description":"docs","subagent_type":"docs"}"#,
                )],
            ),
            (false, 0) => tool_turn(300, &[("toolu_c0", "mcp__t__docs", r#"{"topic":"login"}"#)]),
            (false, _) => text_turn(
                300,
                &json!({"status": "completed", "summary": "The docs describe login.",
                    "findings": ["login is documented"], "evidence": ["src/a.rs:1"],
                    "unresolved_questions": []})
                .to_string(),
            ),
            (true, _) => text_turn(500, "All done."),
        };
        Reply::sse_per_event(&stream, Duration::ZERO)
    });
    let trace = sb.root.path().join("t.jsonl");
    let out = sb.run_anthropic(
        &server.base_url(),
        &[
            "--model",
            "claude-test",
            "--yes",
            "--trace",
            trace.to_str().unwrap(),
            "go",
        ],
    );
    let requests: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    let child: Vec<&Value> = requests
        .iter()
        .filter(|b| !tool_names(b).iter().any(|n| n == "task"))
        .collect();
    // The read-only child is offered its server's read-only tool and no other.
    assert_eq!(
        tool_names(child[0]),
        ["glob", "grep", "mcp__t__docs", "read_file"]
    );
    let child_results = results_of(child.last().unwrap());
    assert_eq!(
        child_results[0]["content"].as_str(),
        Some("docs about login")
    );
    let parent_last = requests.last().unwrap();
    let parent_results = results_of(parent_last);
    assert_eq!(
        parent_results[0]["content"].as_str(),
        Some("echo: from the parent")
    );
    assert!(
        parent_results[1]["content"]
            .to_string()
            .contains("The docs describe login.")
    );
    // The child's MCP call is in the trace under its own lane.
    let child_call = trace_events(&trace)
        .into_iter()
        .find(|e| e["type"] == "tool_call" && e["name"] == "mcp__t__docs")
        .unwrap();
    assert_eq!(child_call["agent"], "sub-1");
    assert!(
        stdout(&out).contains("[sub-1] mcp__t__docs"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_changed_tool_list_is_offered_from_the_next_request() {
    let sb = with_server(json!({}));
    let server = calls_in_turn(vec![
        ("mcp__t__add_tool", json!({})),
        ("mcp__t__echo", json!({"text": "meanwhile"})),
        ("mcp__t__extra", json!({})),
    ]);
    sb.run_anthropic(
        &server.base_url(),
        &["--model", "claude-test", "--yes", "go"],
    );
    let requests: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    let offers_extra = |body: &Value| tool_names(body).contains(&"mcp__t__extra".to_string());
    assert!(!offers_extra(&requests[0]), "extra before add_tool");
    assert!(offers_extra(&requests[2]), "{:?}", tool_names(&requests[2]));
    let results = results_of(requests.last().unwrap());
    assert_eq!(
        results[2]["content"].as_str(),
        Some("extra works"),
        "{results:?}"
    );
}

#[test]
fn a_server_that_never_answers_leaves_no_process_behind() {
    let sb = Sandbox::new();
    let (child, grandchild) = (unique_sleep(31), unique_sleep(32));
    sb.write(
        "brood.toml",
        &format!(
            "[mcp_servers.mute]\ncommand = \"sh\"\nargs = [\"-c\", \"sleep {grandchild} & exec sleep {child}\"]\nstartup_timeout_sec = 1\n"
        ),
    );
    sb.write(
        ".claude/settings.local.json",
        r#"{"enabledMcpjsonServers": ["mute"]}"#,
    );
    let out = sb.run(&["mcp", "--json"]);
    assert!(
        stdout(&out).contains("it did not start within 1 s"),
        "{}",
        stdout(&out)
    );
    // Its whole process group goes, the background `sleep` too.
    let started = Instant::now();
    while running_with(&child) + running_with(&grandchild) > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "the server's processes live on"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
