//! OpenTelemetry export into a real backend: Arize Phoenix (from PyPI),
//! started on 127.0.0.1, sent a live session with two children and an
//! imported Claude Code session, and read back through its own REST API.
//!
//! `.ci/run` installs Phoenix and sets `BROOD_PHOENIX` to its `phoenix`
//! command; without it the test says so in one line and passes.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Sandbox, stderr};
use serde_json::Value;

struct Phoenix {
    child: Child,
    base: String,
    grpc: String,
    _dir: tempfile::TempDir,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn client() -> reqwest::blocking::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

fn start(phoenix: &Path) -> Phoenix {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let grpc_port = free_port();
    let log = std::fs::File::create(dir.path().join("phoenix.log")).unwrap();
    let child = Command::new(phoenix)
        .arg("serve")
        .env("PHOENIX_WORKING_DIR", dir.path())
        .env("PHOENIX_HOST", "127.0.0.1")
        .env("PHOENIX_PORT", port.to_string())
        .env("PHOENIX_GRPC_PORT", grpc_port.to_string())
        .env("PHOENIX_TELEMETRY_ENABLED", "false")
        .env("PHOENIX_ALLOW_EXTERNAL_RESOURCES", "false")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let server = Phoenix {
        child,
        base: format!("http://127.0.0.1:{port}"),
        grpc: format!("http://127.0.0.1:{grpc_port}"),
        _dir: dir,
    };
    let http = client();
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let up = http
            .get(format!("{}/healthz", server.base))
            .send()
            .is_ok_and(|r| r.status().is_success());
        if up {
            return server;
        }
        assert!(Instant::now() < deadline, "Phoenix did not start in 240 s");
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// The project's spans once `want` of them are in (ingestion is
/// asynchronous), by span id.
fn spans(base: &str, project: &str, want: usize) -> Vec<Value> {
    let http = client();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got = http
            .get(format!("{base}/v1/projects/{project}/spans?limit=1000"))
            .send()
            .ok()
            .and_then(|r| r.json::<Value>().ok())
            .and_then(|v| v["data"].as_array().cloned())
            .unwrap_or_default();
        if got.len() >= want || Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|s| s["name"] == name).collect()
}

fn id(span: &Value) -> &str {
    span["context"]["span_id"].as_str().unwrap_or_default()
}

#[test]
fn spans_reach_phoenix_as_a_tree_with_their_tokens() {
    let Some(phoenix) = std::env::var_os("BROOD_PHOENIX") else {
        eprintln!("skipped: BROOD_PHOENIX is not set (.ci/run installs Arize Phoenix and sets it)");
        return;
    };
    let server = start(Path::new(&phoenix));
    let sb = Sandbox::new();
    sb.write("src/auth.rs", "fn login() {}\n");
    let script = sb.script(common::two_children());
    let out = sb
        .scripted_run(&script, "where is login?")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &server.base)
        .env(
            "OTEL_RESOURCE_ATTRIBUTES",
            "openinference.project.name=brood-live",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // 1 turn, 2 tasks, 2 children, 1 grep, 5 model requests.
    let live = spans(&server.base, "brood-live", 11);
    let parent = named(&live, "invoke_agent brood");
    assert_eq!(parent.len(), 1, "{live:#?}");
    let tasks = named(&live, "execute_tool task");
    let children = named(&live, "invoke_agent general");
    assert_eq!((tasks.len(), children.len()), (2, 2));
    for task in &tasks {
        assert_eq!(task["parent_id"].as_str(), Some(id(parent[0])));
        assert!(
            children
                .iter()
                .any(|c| c["parent_id"].as_str() == Some(id(task))),
            "a child under each task call"
        );
    }
    let output: i64 = live
        .iter()
        .filter(|s| s["name"].as_str().is_some_and(|n| n.starts_with("chat ")))
        .filter_map(|s| s["attributes"]["gen_ai.usage.output_tokens"].as_i64())
        .sum();
    assert_eq!(output, 100 + 40 + 50 + 9 + 7);
    assert!(
        children
            .iter()
            .all(|c| c["attributes"]["gen_ai.agent.name"] == "general")
    );

    let session = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import/claude/-home-dev-shop/7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl");
    let out = sb
        .command(&["export", "--otlp", session.to_str().unwrap()])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &server.base)
        .env(
            "OTEL_RESOURCE_ATTRIBUTES",
            "openinference.project.name=brood-import",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent: usize = stderr(&out)
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(sent > 0, "{}", stderr(&out));
    let imported = spans(&server.base, "brood-import", sent);
    assert_eq!(imported.len(), sent, "every span arrived");
    let child = imported
        .iter()
        .find(|s| {
            s["attributes"]["gen_ai.agent.id"] == "sub-1"
                && s["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("invoke_agent"))
        })
        .unwrap_or_else(|| panic!("{imported:#?}"));
    let task = imported
        .iter()
        .find(|s| child["parent_id"].as_str() == Some(id(s)))
        .unwrap();
    assert_eq!(task["name"], "execute_tool task");
    assert!(
        child["start_time"]
            .as_str()
            .is_some_and(|t| !t.starts_with("2026-12")),
        "the recorded time: {}",
        child["start_time"]
    );

    // The same live session over gRPC.
    let out = sb
        .scripted_run(&script, "where is login?")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &server.grpc)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .env(
            "OTEL_RESOURCE_ATTRIBUTES",
            "openinference.project.name=brood-grpc",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let grpc = spans(&server.base, "brood-grpc", 11);
    assert_eq!(grpc.len(), 11, "{grpc:#?}");
    assert_eq!(named(&grpc, "invoke_agent general").len(), 2);
}
