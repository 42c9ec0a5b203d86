//! A real public MCP server, `@modelcontextprotocol/server-everything` from
//! npm (`.ci/run` installs it and names its entry script in
//! `BROOD_MCP_EVERYTHING`), driven end to end: the model calls its tools
//! through brood and their results reach the model's next request.

mod common;

use std::time::Duration;

use common::anthropic_sse::*;
use common::{Sandbox, stdout};
use serde_json::{Value, json};

/// The server's entry script, when installed; CI always installs it.
fn everything() -> Option<String> {
    let ci = std::env::var_os("CI").is_some();
    let Ok(script) = std::env::var("BROOD_MCP_EVERYTHING") else {
        // CI installs it: there, a missing server is a failure, not a skip.
        assert!(!ci, "BROOD_MCP_EVERYTHING is not set; .ci/run sets it");
        eprintln!(
            "skipped: set BROOD_MCP_EVERYTHING to server-everything's dist/index.js (.ci/run does)"
        );
        return None;
    };
    let installed = std::path::Path::new(&script).is_file();
    if !installed && ci {
        panic!("BROOD_MCP_EVERYTHING={script} is not a file");
    }
    if !installed {
        eprintln!("skipped: {script} is not a file; .ci/run installs server-everything");
    }
    installed.then_some(script)
}

#[test]
fn the_everything_server_from_npm_answers_through_brood() {
    let Some(script) = everything() else {
        return;
    };
    let sb = Sandbox::new();
    sb.write(
        ".mcp.json",
        &json!({"mcpServers": {"everything": {"command": "node", "args": [script, "stdio"]}}})
            .to_string(),
    );
    sb.write(
        ".claude/settings.local.json",
        r#"{"enabledMcpjsonServers": ["everything"]}"#,
    );
    let listed = sb.run(&["mcp", "--json"]);
    let server: Value = serde_json::from_str(stdout(&listed).lines().next().unwrap()).unwrap();
    assert_eq!(server["state"], "ready", "{server}");
    let model = calls_in_turn(vec![
        ("mcp__everything__get-sum", json!({"a": 2, "b": 3})),
        ("mcp__everything__get-tiny-image", json!({})),
        ("mcp__everything__get-env", json!({})),
    ]);
    let out = sb.run_anthropic(
        &model.base_url(),
        &["--model", "claude-test", "--yes", "go"],
    );
    assert!(stdout(&out).contains("All done."));
    let requests = model.requests();
    let first = requests[0].json();
    assert!(tool_names(&first).contains(&"mcp__everything__get-sum".to_string()));
    let results = results_of(&requests.last().unwrap().json());
    let text = |i: usize| results[i]["content"].to_string();
    assert!(text(0).contains('5'), "{}", text(0));
    assert!(text(1).contains("[image: image/png, "), "{}", text(1));
    // The server sees brood's environment without its keys.
    assert!(
        text(2).contains("PATH") && !text(2).contains("test-key-not-real"),
        "{}",
        text(2)
    );
}

/// The same server in its streamable HTTP mode, on a loopback port.
struct HttpServer {
    child: std::process::Child,
    port: u16,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_server(script: &str) -> HttpServer {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new("node")
        .args([script, "streamableHttp"])
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the HTTP server did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    HttpServer { child, port }
}

#[test]
fn the_everything_server_answers_over_streamable_http() {
    let Some(script) = everything() else {
        return;
    };
    let server = http_server(&script);
    let sb = Sandbox::new();
    sb.write(
        "brood.toml",
        &format!(
            "[mcp_servers.web]\nurl = \"http://127.0.0.1:{}/mcp\"\nhttp_headers = {{ \"X-Client\" = \"brood-test\" }}\n",
            server.port
        ),
    );
    // The workspace's own brood.toml brings it: the user says yes.
    sb.write(
        ".claude/settings.local.json",
        r#"{"enabledMcpjsonServers": ["web"]}"#,
    );
    let listed = sb.run(&["mcp", "--json"]);
    let line: Value = serde_json::from_str(stdout(&listed).lines().next().unwrap()).unwrap();
    assert_eq!(
        (line["state"].as_str(), line["transport"].as_str()),
        (Some("ready"), Some("http")),
        "{line}"
    );
    let model = calls_in_turn(vec![("mcp__web__get-sum", json!({"a": 20, "b": 22}))]);
    sb.run_anthropic(
        &model.base_url(),
        &["--model", "claude-test", "--yes", "go"],
    );
    let results = results_of(&model.requests().last().unwrap().json());
    assert!(
        results[0]["content"].to_string().contains("42"),
        "{results:?}"
    );
}
