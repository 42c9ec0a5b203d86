//! OpenTelemetry export through the real binary, to a collector on
//! 127.0.0.1 that decodes the OTLP/HTTP protobuf it is sent: a live session
//! with two children, and saved sessions (a Claude Code session with its
//! subagent) sent or written as OTLP/JSON.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use common::{Sandbox, stderr};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// A collector on 127.0.0.1: each OTLP/HTTP request is answered 200 and
/// its spans handed over.
fn collector() -> (String, mpsc::Receiver<Vec<Span>>) {
    let (address, rx, _) = collector_with_headers();
    (address, rx)
}

/// [`collector`], also handing over each request's header lines.
fn collector_with_headers() -> (
    String,
    mpsc::Receiver<Vec<Span>>,
    mpsc::Receiver<Vec<String>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    let (header_tx, header_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            let mut headers = Vec::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                headers.push(line.to_ascii_lowercase());
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n",
            );
            let spans = request
                .resource_spans
                .into_iter()
                .flat_map(|r| r.scope_spans)
                .flat_map(|s| s.spans)
                .collect();
            let _ = tx.send(spans);
            let _ = header_tx.send(headers);
        }
    });
    (address, rx, header_rx)
}

/// Everything received until nothing more comes for a second.
fn drain(rx: &mpsc::Receiver<Vec<Span>>) -> Vec<Span> {
    let mut all = Vec::new();
    while let Ok(spans) = rx.recv_timeout(Duration::from_secs(2)) {
        all.extend(spans);
    }
    all
}

fn attr<'a>(span: &'a Span, key: &str) -> Option<&'a AnyValue> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
}

fn text(span: &Span, key: &str) -> String {
    match attr(span, key) {
        Some(AnyValue::StringValue(s)) => s.clone(),
        other => panic!("{key} of {}: {other:?}", span.name),
    }
}

fn int_sum(spans: &[Span], prefix: &str, key: &str) -> i64 {
    spans
        .iter()
        .filter(|s| s.name.starts_with(prefix))
        .filter_map(|s| match attr(s, key) {
            Some(AnyValue::IntValue(n)) => Some(*n),
            _ => None,
        })
        .sum()
}

#[test]
fn a_live_session_exports_its_tree_with_both_children() {
    let sb = Sandbox::new();
    sb.write("src/auth.rs", "fn login() {}\n");
    let (endpoint, received) = collector();
    let script = sb.script(common::two_children());
    let out = sb
        .scripted_run(&script, "where is login? SECRET-PROMPT")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
        .env("OTEL_SERVICE_NAME", "brood-test")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let spans = drain(&received);
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    let by = |name: &str| -> Vec<&Span> { spans.iter().filter(|s| s.name == name).collect() };
    let parent = by("invoke_agent brood");
    assert_eq!(parent.len(), 1, "{names:?}");
    let tasks = by("execute_tool task");
    assert_eq!(tasks.len(), 2, "{names:?}");
    let children = by("invoke_agent general");
    assert_eq!(children.len(), 2, "{names:?}");
    for task in &tasks {
        assert_eq!(task.parent_span_id, parent[0].span_id);
        let child = children
            .iter()
            .find(|c| c.parent_span_id == task.span_id)
            .unwrap_or_else(|| panic!("no child under {}", text(task, "gen_ai.tool.call.id")));
        assert!(child.start_time_unix_nano >= task.start_time_unix_nano);
    }
    let grep = by("execute_tool grep");
    assert_eq!(grep.len(), 1, "{names:?}");
    assert!(children.iter().any(|c| c.span_id == grep[0].parent_span_id));
    assert_eq!(
        int_sum(&spans, "chat ", "gen_ai.usage.output_tokens"),
        100 + 40 + 50 + 9 + 7,
        "every request's output tokens"
    );
    let session = text(parent[0], "gen_ai.conversation.id");
    assert!(
        spans
            .iter()
            .all(|s| text(s, "gen_ai.conversation.id") == session)
    );
    assert!(spans.iter().all(|s| s.trace_id == parent[0].trace_id));
    // Content is off unless asked for.
    let all = format!("{spans:?}");
    assert!(!all.contains("SECRET-PROMPT"), "the prompt was exported");
}

#[test]
fn a_claude_code_session_is_sent_with_its_subagent_and_written_as_otlp_json() {
    let sb = Sandbox::new();
    let session = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import/claude/-home-dev-shop/7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl");
    let (endpoint, received) = collector();
    let out = sb
        .command(&["export", "--otlp", session.to_str().unwrap()])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let spans = drain(&received);
    let child = spans
        .iter()
        .find(|s| s.name.starts_with("invoke_agent ") && text(s, "gen_ai.agent.id") == "sub-1")
        .unwrap_or_else(|| panic!("{:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>()));
    let task = spans
        .iter()
        .find(|s| s.span_id == child.parent_span_id)
        .unwrap();
    assert_eq!(task.name, "execute_tool task");
    assert_eq!(text(child, "gen_ai.provider.name"), "anthropic");
    assert!(
        child.start_time_unix_nano > 1_600_000_000_000_000_000,
        "the recorded time, not now's: {}",
        child.start_time_unix_nano
    );

    let file = sb.root.path().join("spans.json");
    let out = sb.run(&[
        "export",
        "--otlp-file",
        file.to_str().unwrap(),
        session.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written: ExportTraceServiceRequest =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let from_file: usize = written
        .resource_spans
        .iter()
        .flat_map(|r| &r.scope_spans)
        .map(|s| s.spans.len())
        .sum();
    assert_eq!(from_file, spans.len(), "the file holds what was sent");
}

#[test]
fn export_without_an_endpoint_or_to_one_that_is_down_says_so() {
    let sb = Sandbox::new();
    let session = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import/claude/-home-dev-shop/7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl");
    let out = sb.run(&["export", "--otlp", session.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("OTEL_EXPORTER_OTLP_ENDPOINT"),
        "{}",
        stderr(&out)
    );
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = sb
        .command(&["export", "--otlp", session.to_str().unwrap()])
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("did not take the spans"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_live_session_whose_backend_is_down_still_completes() {
    let sb = Sandbox::new();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = sb
        .command(&[
            "run",
            "--provider",
            "offline",
            "--no-trace",
            "where is main?",
        ])
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn headers_and_the_traces_url_come_from_the_standard_variables() {
    let sb = Sandbox::new();
    let session = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import/claude/-home-dev-shop/7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl");
    let (endpoint, received, headers) = collector_with_headers();
    let out = sb
        .command(&["export", "--otlp", session.to_str().unwrap()])
        .env(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            format!("{endpoint}/custom/traces"),
        )
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "x-team-key=t0p,x-project-name=shop",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!drain(&received).is_empty());
    let sent = headers.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(
        sent.iter().any(|h| h.starts_with("post /custom/traces ")),
        "the traces URL as given: {sent:?}"
    );
    assert!(sent.contains(&"x-team-key: t0p".to_string()), "{sent:?}");
    assert!(
        sent.contains(&"x-project-name: shop".to_string()),
        "{sent:?}"
    );
}

#[test]
fn a_codex_rollout_with_a_sub_agent_is_written_as_the_same_tree() {
    let sb = Sandbox::new();
    let rollout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/data/import/codex/sessions/2026/02/11/rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl",
    );
    let file = sb.root.path().join("codex.json");
    let out = sb.run(&[
        "export",
        "--otlp-file",
        file.to_str().unwrap(),
        rollout.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written: ExportTraceServiceRequest =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let spans: Vec<Span> = written
        .resource_spans
        .into_iter()
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .collect();
    let parent = spans
        .iter()
        .find(|s| s.name == "invoke_agent codex")
        .unwrap();
    assert_eq!(text(parent, "gen_ai.provider.name"), "openai");
    let child = spans
        .iter()
        .find(|s| s.name == "invoke_agent explorer")
        .unwrap();
    let task = spans
        .iter()
        .find(|s| s.span_id == child.parent_span_id)
        .unwrap();
    assert_eq!(task.name, "execute_tool task");
    assert_eq!(task.parent_span_id, parent.span_id);
}

/// `[telemetry]` in the user's own brood.toml turns export on; the same
/// table in a workspace's brood.toml does not, so a cloned repository cannot
/// send the user's sessions to a server of its choosing.
#[test]
fn only_the_user_s_own_config_can_turn_export_on() {
    let table = |endpoint: &str| format!("[telemetry]\nendpoint = \"{endpoint}\"\n");
    let run = |sb: &Sandbox| {
        let script = sb.script(common::two_children());
        let out = sb
            .scripted_run(&script, "where is login?")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    };

    let workspace = Sandbox::new();
    let (endpoint, received) = collector();
    workspace.write("brood.toml", &table(&endpoint));
    run(&workspace);
    assert!(
        drain(&received).is_empty(),
        "a workspace's [telemetry] exported"
    );

    let user = Sandbox::new();
    let (endpoint, received) = collector();
    let dir = user.root.path().join("config/brood");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("brood.toml"), table(&endpoint)).unwrap();
    run(&user);
    let spans = drain(&received);
    assert_eq!(
        spans
            .iter()
            .filter(|s| s.name == "invoke_agent general")
            .count(),
        2,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
}
