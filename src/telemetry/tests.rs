//! A saved session through the SDK and the wire: OTLP/JSON written and read
//! back, and OTLP/HTTP protobuf received by a collector on 127.0.0.1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;

use super::spans::tests::{T0, session};
use super::*;
use crate::trace::{TraceHeader, TraceWriter};

/// The fixture session written as a brood trace.
fn saved(dir: &Path) -> PathBuf {
    let path = dir.join("s-1.jsonl");
    let mut header = TraceHeader::new("s-1", "/work/shop", "anthropic", "claude-sonnet-4-5");
    header.started_at = chrono::DateTime::from_timestamp_millis(T0 as i64)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default();
    let mut writer = TraceWriter::create(&path, &header).unwrap();
    for event in session() {
        writer.record(&event).unwrap();
    }
    path
}

fn settings(endpoint: Option<String>) -> Settings {
    let table = TelemetryTable {
        endpoint,
        ..TelemetryTable::default()
    };
    Settings::resolve(Some(&table), &|_| None).unwrap()
}

/// Every span of a request: (name, span id, parent span id, attributes).
fn spans_of(
    request: &ExportTraceServiceRequest,
) -> Vec<opentelemetry_proto::tonic::trace::v1::Span> {
    request
        .resource_spans
        .iter()
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| s.spans.clone())
        .collect()
}

fn check_tree(request: &ExportTraceServiceRequest) {
    let spans = spans_of(request);
    assert_eq!(
        spans.len(),
        9,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let by_name = |name: &str| spans.iter().find(|s| s.name == name).unwrap();
    let parent = by_name("invoke_agent brood");
    let task = by_name("execute_tool task");
    let child = by_name("invoke_agent explore");
    assert!(parent.parent_span_id.is_empty());
    assert_eq!(task.parent_span_id, parent.span_id);
    assert_eq!(child.parent_span_id, task.span_id);
    assert_eq!(
        child.start_time_unix_nano,
        (T0 + 902) * 1_000_000,
        "the recorded time"
    );
    let tokens: i64 = spans
        .iter()
        .filter(|s| s.name.starts_with("chat "))
        .flat_map(|s| &s.attributes)
        .filter(|kv| kv.key == "gen_ai.usage.output_tokens")
        .filter_map(|kv| match kv.value.as_ref()?.value.as_ref()? {
            opentelemetry_proto::tonic::common::v1::any_value::Value::IntValue(n) => Some(*n),
            _ => None,
        })
        .sum();
    assert_eq!(tokens, 20 + 10 + 5 + 30, "every request's output tokens");
    let service = request.resource_spans[0]
        .resource
        .as_ref()
        .map(|r| r.attributes.iter().any(|kv| kv.key == "service.name"));
    assert_eq!(service, Some(true));
}

#[test]
fn a_saved_session_is_written_as_otlp_json_that_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let trace = saved(dir.path());
    let out = dir.path().join("spans.json");
    let n = export_saved(&trace, &Destination::File(out.clone()), &settings(None)).unwrap();
    assert_eq!(n, 9);
    let text = std::fs::read_to_string(&out).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let first = &json["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
    assert!(
        first["traceId"].as_str().is_some_and(|id| id.len() == 32),
        "hex ids: {first}"
    );
    assert!(
        first["startTimeUnixNano"].is_string(),
        "nanoseconds as text: {first}"
    );
    let request: ExportTraceServiceRequest = serde_json::from_str(&text).unwrap();
    check_tree(&request);
}

/// A collector on 127.0.0.1 that answers one OTLP/HTTP request with 200
/// and hands over what it decoded.
fn collector() -> (String, mpsc::Receiver<(String, ExportTraceServiceRequest)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut length = 0;
            let mut content_type = String::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                let (name, value) = line.split_once(':').unwrap_or((line, ""));
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap(),
                    "content-type" => content_type = value.trim().to_string(),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let decoded = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
            let path = request_line
                .split_whitespace()
                .nth(1)
                .unwrap_or("")
                .to_string();
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n")
                .unwrap();
            let _ = tx.send((format!("{path} {content_type}"), decoded));
        }
    });
    (address, rx)
}

#[test]
fn a_saved_session_is_sent_as_otlp_http_protobuf() {
    let dir = tempfile::tempdir().unwrap();
    let trace = saved(dir.path());
    let (address, received) = collector();
    let n = export_saved(&trace, &Destination::Endpoint, &settings(Some(address))).unwrap();
    assert_eq!(n, 9);
    let (request, decoded) = received
        .recv_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    assert_eq!(request, "/v1/traces application/x-protobuf");
    check_tree(&decoded);
}

#[test]
fn a_backend_that_is_down_is_an_error_for_a_saved_session() {
    let dir = tempfile::tempdir().unwrap();
    let trace = saved(dir.path());
    // A port nothing listens on: bound, then let go.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings = settings(Some(format!("http://127.0.0.1:{port}")));
    let error = export_saved(&trace, &Destination::Endpoint, &settings).unwrap_err();
    assert!(matches!(error, TelemetryError::Export(_)), "{error}");
}

#[test]
fn a_live_export_to_a_backend_that_is_down_warns_and_loses_nothing_else() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings = settings(Some(format!("http://127.0.0.1:{port}")));
    let header = TraceHeader::new("s-1", "/work/shop", "anthropic", "claude-sonnet-4-5");
    let warning = crate::protocol::SideWarning::default();
    let live = LiveExport::start(&header, &settings, warning.clone())
        .unwrap()
        .unwrap();
    let mut recorder = live.recorder();
    for event in session() {
        assert_eq!(recorder.record(&event), Ok(()), "the session goes on");
    }
    let said = live.finish(std::time::Duration::from_secs(5));
    assert!(
        said.as_deref()
            .is_some_and(|s| s.contains("did not reach the OTLP endpoint")),
        "{said:?}"
    );
    assert_eq!(
        warning.get().as_deref(),
        Some("telemetry: spans are not reaching the OTLP endpoint")
    );
}

/// Quitting waits for telemetry no longer than it was told to, even when the
/// backend takes connections and never answers (the exporter's own request
/// timeout is 10 s).
#[test]
fn finishing_against_a_backend_that_never_answers_keeps_to_its_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Takes each connection and holds it open without a word.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let settings = settings(Some(format!("http://127.0.0.1:{port}")));
    let header = TraceHeader::new("s-1", "/work/shop", "anthropic", "claude-sonnet-4-5");
    let live = LiveExport::start(&header, &settings, crate::protocol::SideWarning::default())
        .unwrap()
        .unwrap();
    let mut recorder = live.recorder();
    for event in session() {
        assert_eq!(recorder.record(&event), Ok(()));
    }
    let started = std::time::Instant::now();
    let said = live.finish(std::time::Duration::from_millis(500));
    let waited = started.elapsed();
    assert!(
        waited < std::time::Duration::from_secs(3),
        "finish waited {waited:?} with a 500 ms timeout"
    );
    assert!(
        said.as_deref().is_some_and(|s| s.starts_with("telemetry:")),
        "what was not sent is said: {said:?}"
    );
}
