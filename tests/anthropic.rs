//! The Anthropic Messages client against local servers speaking the real wire
//! format: streams cut at nasty points, error statuses, error events inside a
//! 200, broken, stalled and abandoned connections. Everything runs on
//! 127.0.0.1. The `.sse` files under `tests/data/anthropic/` are hand-written in
//! the documented streaming format (see the comment at the top of each).

mod common;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use brood::event::AgentId;
use brood::model::anthropic::AnthropicModel;
use brood::model::http::HttpConfig;
use brood::model::{
    ContentBlock, Message, Model, ModelError, ModelRequest, ModelResponse, RetryNotice, Role,
    StopReason, StreamSink, ToolSpec,
};
use common::stream_server::{Reply, StreamEncoding, StreamServer, char_boundary_cuts, sse_event};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const TEXT: &str = include_str!("data/anthropic/text.sse");
const TOOL_USE: &str = include_str!("data/anthropic/tool_use.sse");
const TWO_TOOLS: &str = include_str!("data/anthropic/two_tools.sse");
const UNKNOWN_EVENTS: &str = include_str!("data/anthropic/unknown_events.sse");
const MAX_TOKENS_CUT: &str = include_str!("data/anthropic/max_tokens_cut.sse");
const OVERLOADED: &str = include_str!("data/anthropic/overloaded.sse");
const OVERLOADED_AFTER_TEXT: &str = include_str!("data/anthropic/overloaded_after_text.sse");

/// What the text stream says, in its deltas.
const TEXT_DELTAS: [&str; 4] = ["Hello", "! héllo ✓ 世界", " — the answer", " is 42."];

/// Collects what the client reports while it runs; cancels `cancel_on_text`
/// at the first text delta, when set.
#[derive(Default)]
struct Collect {
    deltas: Vec<String>,
    retries: Vec<RetryNotice>,
    cancel_on_text: Option<CancellationToken>,
}

impl StreamSink for Collect {
    fn text_delta(&mut self, text: &str) {
        self.deltas.push(text.to_string());
        if let Some(cancel) = &self.cancel_on_text {
            cancel.cancel();
        }
    }

    fn retry(&mut self, notice: &RetryNotice) {
        self.retries.push(notice.clone());
    }
}

fn config(base_url: &str) -> HttpConfig {
    let mut config = HttpConfig::new(base_url, Some("test-key-not-real".into()));
    config.backoff_base = Duration::from_millis(5);
    config.idle_timeout = Duration::from_secs(10);
    config
}

fn request(messages: Vec<Message>) -> ModelRequest<'static> {
    ModelRequest {
        agent: AgentId::Main,
        model: "claude-test".into(),
        system: "You are terse.".into(),
        messages: messages.into(),
        tools: vec![ToolSpec {
            name: "grep".into(),
            description: "Searches files.".into(),
            input_schema: json!({"type": "object", "properties": {"pattern": {"type": "string"}},
                "required": ["pattern"]}),
        }]
        .into(),
        max_tokens: 2048,
    }
}

async fn complete_with(
    config: HttpConfig,
    sink: &mut Collect,
    cancel: &CancellationToken,
) -> Result<ModelResponse, ModelError> {
    let model = AnthropicModel::new(config).unwrap();
    model
        .complete(&request(vec![Message::user_text("hi")]), sink, cancel)
        .await
}

async fn complete(config: HttpConfig) -> (Result<ModelResponse, ModelError>, Collect) {
    let mut sink = Collect::default();
    let result = complete_with(config, &mut sink, &CancellationToken::new()).await;
    (result, sink)
}

/// A server answering every request with `reply`.
fn serve(reply: Reply) -> StreamServer {
    StreamServer::start(move |_, _| reply.clone())
}

/// `body` cut at every split point the stream server considers nasty.
fn sse_nasty(body: &str) -> Reply {
    let cuts = char_boundary_cuts(body.as_bytes());
    Reply::sse_cut_at(body, cuts, Duration::ZERO)
}

fn error_body(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message},
        "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"})
}

/// The first `n` events of a data file (comments and all before them).
fn first_events(body: &str, n: usize) -> String {
    body.split_inclusive("\n\n").take(n).collect()
}

#[tokio::test]
async fn text_arrives_as_deltas_in_order() {
    let server = serve(Reply::sse(TEXT));
    let (result, sink) = complete(config(&server.base_url())).await;
    let response = result.unwrap();
    assert_eq!(sink.deltas, TEXT_DELTAS);
    assert_eq!(response.message.role, Role::Assistant);
    assert_eq!(response.message.text(), TEXT_DELTAS.concat());
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (25, 15)
    );
    assert!(!response.usage.estimated);
    assert!(sink.retries.is_empty());
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn a_tool_call_is_assembled_across_chunks_cut_mid_line_and_mid_utf8() {
    let every_byte = Reply::sse_cut_at(TOOL_USE, (1..TOOL_USE.len()).collect(), Duration::ZERO);
    for reply in [sse_nasty(TOOL_USE), every_byte, Reply::sse(TOOL_USE)] {
        let server = serve(reply);
        let (result, sink) = complete(config(&server.base_url())).await;
        let response = result.unwrap();
        assert_eq!(
            sink.deltas.concat(),
            "Searching for héllo ✓ 世界 in the sources."
        );
        assert_eq!(response.stop_reason, StopReason::ToolUse);
        assert_eq!(
            response.message.content[1],
            ContentBlock::ToolUse {
                id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(),
                name: "grep".into(),
                input: json!({"pattern": "héllo ✓ 世界", "path": "src", "context": 2}),
            }
        );
        assert_eq!(response.message.content.len(), 2);
    }
}

#[tokio::test]
async fn two_tool_calls_in_one_message_keep_their_order() {
    let server = serve(sse_nasty(TWO_TOOLS));
    let (result, sink) = complete(config(&server.base_url())).await;
    let response = result.unwrap();
    assert!(sink.deltas.is_empty());
    let calls = response.message.tool_calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].name.as_str(), &calls[0].input),
        ("glob", &json!({"pattern": "**/*.rs"}))
    );
    assert_eq!(
        (calls[1].name.as_str(), &calls[1].input),
        ("read_file", &json!({"path": "Cargo.toml"}))
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
}

#[tokio::test]
async fn a_tool_call_without_input_gets_an_empty_object() {
    let body = [
        sse_event(
            "message_start",
            &json!({"type": "message_start", "message": {"id": "m", "usage":
                {"input_tokens": 9, "output_tokens": 1}}}),
        ),
        sse_event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 0, "content_block":
                {"type": "tool_use", "id": "toolu_empty", "name": "list_todos", "input": {}}}),
        ),
        sse_event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta":
                {"type": "input_json_delta", "partial_json": ""}}),
        ),
        sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": 0}),
        ),
        sse_event(
            "message_delta",
            &json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 12}}),
        ),
        sse_event("message_stop", &json!({"type": "message_stop"})),
    ]
    .concat();
    let server = serve(Reply::sse(body));
    let (result, _) = complete(config(&server.base_url())).await;
    let calls = result.unwrap().message.tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].input, json!({}));
}

#[tokio::test]
async fn usage_has_cache_tokens_and_the_cumulative_output_count() {
    let server = serve(Reply::sse(TOOL_USE));
    let (result, _) = complete(config(&server.base_url())).await;
    let usage = result.unwrap().usage;
    assert_eq!(usage.input_tokens, 472);
    assert_eq!(usage.cache_write_tokens, 1830);
    assert_eq!(usage.cache_read_tokens, 9120);
    assert_eq!(usage.output_tokens, 89, "message_delta's total, not 2 + 89");
    assert!(!usage.estimated);
}

#[tokio::test]
async fn unknown_events_and_fields_are_ignored_and_thinking_is_kept_apart() {
    let server = serve(sse_nasty(UNKNOWN_EVENTS));
    let (result, sink) = complete(config(&server.base_url())).await;
    let response = result.unwrap();
    assert_eq!(sink.deltas, ["Hi there."]);
    assert_eq!(
        response.message.content,
        [
            ContentBlock::Thinking {
                thinking: "The user wants a greeting.".into(),
                signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h".into()
            },
            ContentBlock::RedactedThinking {
                data: "EmwKAhgBEgy3va3pzix".into()
            },
            ContentBlock::Text {
                text: "Hi there.".into()
            }
        ]
    );
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (50, 34)
    );
}

#[tokio::test]
async fn an_overloaded_stream_before_output_is_retried() {
    let server = StreamServer::start(|_, i| match i {
        0 => Reply::sse(OVERLOADED),
        _ => Reply::sse(TEXT),
    });
    let (result, sink) = complete(config(&server.base_url())).await;
    let response = result.unwrap();
    assert_eq!(server.request_count(), 2);
    assert_eq!(sink.retries.len(), 1);
    assert_eq!(sink.retries[0].attempt, 1);
    assert!(
        sink.retries[0].reason.contains("overloaded_error"),
        "{:?}",
        sink.retries[0]
    );
    assert_eq!(
        sink.deltas, TEXT_DELTAS,
        "only the successful attempt's text"
    );
    assert_eq!(response.message.text(), TEXT_DELTAS.concat());
}

#[tokio::test]
async fn an_overloaded_stream_after_output_fails_without_a_retry() {
    let server = serve(Reply::sse(OVERLOADED_AFTER_TEXT));
    let (result, sink) = complete(config(&server.base_url())).await;
    let error = result.unwrap_err();
    let ModelError::Stream(text) = &error else {
        panic!("expected a stream error, got {error:?}");
    };
    assert!(text.contains("after output began"), "{text}");
    assert!(text.contains("overloaded_error"), "{text}");
    assert_eq!(sink.deltas, ["Let me think about"]);
    assert!(sink.retries.is_empty());
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn a_429_waits_as_long_as_retry_after_ms_says() {
    let server = StreamServer::start(|_, i| match i {
        0 => Reply::json(
            429,
            error_body(
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit",
            ),
        )
        .with_header("retry-after-ms", "10")
        .with_header("retry-after", "30"),
        _ => Reply::sse(TEXT),
    });
    let (result, sink) = complete(config(&server.base_url())).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(server.request_count(), 2);
    assert_eq!(sink.retries.len(), 1);
    assert_eq!(sink.retries[0].wait_ms, 10);
    assert!(
        sink.retries[0].reason.contains("429"),
        "{:?}",
        sink.retries[0]
    );
    assert!(
        sink.retries[0].reason.contains("rate limit"),
        "{:?}",
        sink.retries[0]
    );
}

#[tokio::test]
async fn a_persistent_529_gives_up_after_max_retries() {
    let server = serve(Reply::json(
        529,
        error_body("overloaded_error", "Overloaded"),
    ));
    let mut config = config(&server.base_url());
    config.max_retries = 4;
    let (result, sink) = complete(config).await;
    let error = result.unwrap_err();
    assert_eq!(server.request_count(), 5);
    assert_eq!(sink.retries.len(), 4);
    match &error {
        ModelError::RetriesExhausted { attempts, last } => {
            assert_eq!(*attempts, 5);
            assert_eq!(
                **last,
                ModelError::Api {
                    status: 529,
                    message: "Overloaded".into()
                }
            );
        }
        other => panic!("expected RetriesExhausted, got {other:?}"),
    }
    assert!(error.to_string().contains("5 attempts"), "{error}");
}

#[tokio::test]
async fn a_401_is_an_auth_error_naming_the_key_variable_and_not_retried() {
    let server = serve(Reply::json(
        401,
        error_body("authentication_error", "invalid x-api-key"),
    ));
    let (result, sink) = complete(config(&server.base_url())).await;
    let error = result.unwrap_err();
    assert_eq!(
        error,
        ModelError::Auth {
            status: 401,
            message: "invalid x-api-key".into(),
            variable: "ANTHROPIC_API_KEY"
        }
    );
    assert!(error.to_string().contains("ANTHROPIC_API_KEY"), "{error}");
    assert_eq!(server.request_count(), 1);
    assert!(sink.retries.is_empty());
}

#[tokio::test]
async fn a_400_carries_the_apis_own_message() {
    let server = wiremock::MockServer::start().await;
    let message = "messages.0.content.0.text: text content blocks must be non-empty";
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .and(wiremock::matchers::path("/v1/messages"))
        .respond_with(
            wiremock::ResponseTemplate::new(400)
                .set_body_json(error_body("invalid_request_error", message)),
        )
        .expect(1)
        .mount(&server)
        .await;
    let (result, sink) = complete(config(&server.uri())).await;
    assert_eq!(
        result.unwrap_err(),
        ModelError::Api {
            status: 400,
            message: message.into()
        }
    );
    assert!(sink.retries.is_empty());
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_a_connect_error() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut config = config(&format!("http://127.0.0.1:{port}"));
    config.max_retries = 2;
    let (result, sink) = complete(config).await;
    match result.unwrap_err() {
        ModelError::RetriesExhausted { attempts, last } => {
            assert_eq!(attempts, 3);
            assert!(
                matches!(*last, ModelError::Connect { ref url, .. } if url.contains(&port.to_string())),
                "{last:?}"
            );
        }
        other => panic!("expected RetriesExhausted, got {other:?}"),
    }
    assert_eq!(sink.retries.len(), 2);
}

#[tokio::test]
async fn a_silent_stream_hits_the_idle_timeout() {
    let body = first_events(TEXT, 4);
    let server = serve(Reply::StreamThenHang {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        cuts: vec![],
        body: body.into_bytes(),
        delay: Duration::ZERO,
        encoding: StreamEncoding::Chunked,
    });
    let mut config = config(&server.base_url());
    config.idle_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let (result, sink) = complete(config).await;
    assert!(
        matches!(result, Err(ModelError::IdleTimeout { .. })),
        "{result:?}"
    );
    assert_eq!(sink.deltas, ["Hello"]);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(server.request_count(), 1, "output had begun: no retry");
}

// Multi-threaded: the client's connection task must run (and close the
// socket) while this thread blocks waiting for the server to notice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_mid_stream_returns_at_once_and_drops_the_connection() {
    let server = serve(Reply::StreamThenHang {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        cuts: vec![],
        body: first_events(TEXT, 4).into_bytes(),
        delay: Duration::ZERO,
        encoding: StreamEncoding::Chunked,
    });
    let cancel = CancellationToken::new();
    let mut sink = Collect {
        cancel_on_text: Some(cancel.clone()),
        ..Collect::default()
    };
    let started = Instant::now();
    let result = complete_with(config(&server.base_url()), &mut sink, &cancel).await;
    assert_eq!(result.unwrap_err(), ModelError::Cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        server.wait_for_disconnects(1, Duration::from_secs(5)),
        1,
        "the server saw the client leave"
    );
}

// Multi-threaded: the client's connection task must run (and close the
// socket) while this thread blocks waiting for the server to notice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_while_waiting_for_the_response_returns_at_once() {
    let server = Arc::new(serve(Reply::Hang));
    let cancel = CancellationToken::new();
    // Cancels once the server holds the request, so the disconnect it then
    // sees can only be the client leaving.
    let canceller = {
        let (cancel, server) = (cancel.clone(), server.clone());
        tokio::task::spawn_blocking(move || {
            assert_eq!(server.wait_for_requests(1, Duration::from_secs(10)), 1);
            cancel.cancel();
            Instant::now()
        })
    };
    let mut sink = Collect::default();
    let result = complete_with(config(&server.base_url()), &mut sink, &cancel).await;
    let returned = Instant::now();
    let cancelled_at = canceller.await.unwrap();
    assert_eq!(result.unwrap_err(), ModelError::Cancelled);
    assert!(
        returned.duration_since(cancelled_at) < Duration::from_secs(2),
        "{:?}",
        returned.duration_since(cancelled_at)
    );
    assert_eq!(server.wait_for_disconnects(1, Duration::from_secs(5)), 1);
}

fn dropped(body: String, encoding: StreamEncoding) -> Reply {
    Reply::StreamThenDrop {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        cuts: (9..body.len()).step_by(9).collect(),
        body: body.into_bytes(),
        delay: Duration::ZERO,
        encoding,
    }
}

#[tokio::test]
async fn a_stream_dropped_after_output_before_message_stop_is_a_clear_error() {
    // Close-delimited: the body just ends, so the missing message_stop is the
    // only sign.
    let server = serve(dropped(
        first_events(TEXT, 5),
        StreamEncoding::CloseDelimited,
    ));
    let (result, sink) = complete(config(&server.base_url())).await;
    let error = result.unwrap_err();
    let ModelError::Stream(text) = &error else {
        panic!("expected a stream error, got {error:?}");
    };
    assert!(text.contains("ended before message_stop"), "{text}");
    assert!(text.contains("content_block_delta"), "{text}");
    assert_eq!(sink.deltas, TEXT_DELTAS[..2]);
    assert_eq!(server.request_count(), 1, "output had begun: no retry");

    // Chunked without the last chunk: the connection breaks mid-body.
    let server = serve(dropped(first_events(TEXT, 5), StreamEncoding::Chunked));
    let (result, _) = complete(config(&server.base_url())).await;
    let error = result.unwrap_err();
    assert!(matches!(error, ModelError::Stream(_)), "{error:?}");
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn a_stream_dropped_before_any_output_is_retried() {
    let server = StreamServer::start(|_, i| match i {
        0 => dropped(first_events(TEXT, 1), StreamEncoding::CloseDelimited),
        _ => Reply::sse(TEXT),
    });
    let (result, sink) = complete(config(&server.base_url())).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(server.request_count(), 2);
    assert_eq!(sink.retries.len(), 1);
    assert!(
        sink.retries[0].reason.contains("ended before message_stop"),
        "{:?}",
        sink.retries[0]
    );
}

#[tokio::test]
async fn malformed_json_in_the_stream_is_a_clear_error() {
    let body = first_events(TEXT, 2)
        + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\n\n";
    let server = serve(Reply::sse(body));
    let (result, _) = complete(config(&server.base_url())).await;
    let error = result.unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("malformed content_block_start event"),
        "{text}"
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn max_tokens_keeps_a_cut_tool_input_as_a_string() {
    let server = serve(sse_nasty(MAX_TOKENS_CUT));
    let (result, _) = complete(config(&server.base_url())).await;
    let response = result.unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    let calls = response.message.tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "write_file");
    assert_eq!(
        calls[0].input,
        Value::String("{\"path\": \"notes.md\", \"content\": \"héllo ✓ 世".into())
    );
}

#[tokio::test]
async fn the_request_has_the_documented_headers_and_body() {
    let server = serve(Reply::sse(TEXT));
    let model = AnthropicModel::new(config(&server.base_url())).unwrap();
    assert_eq!(model.provider(), "anthropic");
    let history = vec![
        Message::user_text("find héllo"),
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text { text: "".into() },
                ContentBlock::ToolUse {
                    id: "toolu_1".into(),
                    name: "grep".into(),
                    input: json!({"pattern": "héllo"}),
                },
                ContentBlock::ToolUse {
                    id: "toolu_2".into(),
                    name: "grep".into(),
                    input: Value::String("{\"pattern\": ".into()),
                },
            ],
        },
        Message {
            role: Role::User,
            content: vec![
                ContentBlock::ToolResult {
                    tool_use_id: "toolu_1".into(),
                    content: "src/a.rs:3: héllo".into(),
                    is_error: false,
                },
                ContentBlock::ToolResult {
                    tool_use_id: "toolu_2".into(),
                    content: "the arguments are not valid JSON".into(),
                    is_error: true,
                },
            ],
        },
        // An assistant turn that said nothing must not reach the API.
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::Text { text: "".into() }],
        },
        Message::user_text("go on"),
    ];
    let mut sink = Collect::default();
    model
        .complete(&request(history), &mut sink, &CancellationToken::new())
        .await
        .unwrap();

    let recorded = &server.requests()[0];
    assert_eq!(recorded.method, "POST");
    assert_eq!(recorded.path, "/v1/messages");
    assert_eq!(recorded.header("x-api-key"), Some("test-key-not-real"));
    assert_eq!(recorded.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(recorded.header("content-type"), Some("application/json"));
    assert_eq!(
        recorded.json(),
        json!({
            "model": "claude-test",
            "max_tokens": 2048,
            // Prompt caching is on by default: breakpoints after the tools,
            // the system prompt, and the ends of the previous and this request.
            "system": [{"type": "text", "text": "You are terse.",
                "cache_control": {"type": "ephemeral"}}],
            "stream": true,
            "tools": [{"name": "grep", "description": "Searches files.", "input_schema":
                {"type": "object", "properties": {"pattern": {"type": "string"}},
                 "required": ["pattern"]}, "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "find héllo",
                    "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "grep",
                        "input": {"pattern": "héllo"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "grep", "input": {}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1",
                        "content": "src/a.rs:3: héllo"},
                    {"type": "tool_result", "tool_use_id": "toolu_2",
                        "content": "the arguments are not valid JSON", "is_error": true},
                    {"type": "text", "text": "go on", "cache_control": {"type": "ephemeral"}},
                ]},
            ],
        })
    );
    let text = recorded.text();
    assert!(
        !text.contains(r#""text":"""#),
        "no empty text blocks: {text}"
    );
}

#[tokio::test]
async fn without_a_key_no_x_api_key_header_is_sent() {
    let default = HttpConfig::new("https://api.anthropic.com", None);
    assert!(AnthropicModel::new(default).is_ok());

    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .and(wiremock::matchers::path("/v1/messages"))
        .and(wiremock::matchers::header(
            "anthropic-version",
            "2023-06-01",
        ))
        .and(wiremock::matchers::body_partial_json(
            json!({"model": "claude-test", "stream": true}),
        ))
        .respond_with(
            wiremock::ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(TEXT),
        )
        .expect(1)
        .mount(&server)
        .await;
    let mut config = config(&server.uri());
    config.api_key = None;
    let (result, _) = complete(config).await;
    assert_eq!(result.unwrap().message.text(), TEXT_DELTAS.concat());
    let received = server.received_requests().await.unwrap();
    assert!(received[0].headers.get("x-api-key").is_none());
}

#[tokio::test]
async fn one_model_serves_concurrent_requests() {
    let server = serve(Reply::sse(TEXT));
    let model = Arc::new(AnthropicModel::new(config(&server.base_url())).unwrap());
    let tasks: Vec<_> = (0..3)
        .map(|_| {
            let model = model.clone();
            tokio::spawn(async move {
                let mut sink = Collect::default();
                model
                    .complete(
                        &request(vec![Message::user_text("hi")]),
                        &mut sink,
                        &CancellationToken::new(),
                    )
                    .await
                    .map(|r| r.message.text())
            })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap().unwrap(), TEXT_DELTAS.concat());
    }
    assert_eq!(server.request_count(), 3);
}

#[tokio::test]
async fn a_finished_stream_leaves_its_connection_reusable() {
    let server = serve(Reply::sse(TEXT));
    let model = AnthropicModel::new(config(&server.base_url())).unwrap();
    for _ in 0..3 {
        let mut sink = Collect::default();
        model
            .complete(
                &request(vec![Message::user_text("hi")]),
                &mut sink,
                &CancellationToken::new(),
            )
            .await
            .unwrap();
    }
    assert_eq!(server.request_count(), 3);
    assert_eq!(
        server.connections(),
        1,
        "one kept-alive connection for all three"
    );
}

#[tokio::test]
async fn a_server_that_never_sends_headers_fails_without_retrying() {
    let server = serve(Reply::Hang);
    let mut config = config(&server.base_url());
    config.header_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let (result, _) = complete(config).await;
    let error = result.unwrap_err();
    assert!(matches!(error, ModelError::NoResponse { .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(server.request_count(), 1);
}

/// A gigantic error body is read only as far as a few kilobytes, and the
/// message the user reads is cut to a few hundred characters.
#[tokio::test]
async fn a_huge_error_body_is_cut_to_a_readable_message() {
    for body in [
        "x".repeat(5_000_000),
        json!({"type": "error", "error": {"type": "invalid_request_error",
               "message": "y".repeat(1_000_000)}})
        .to_string(),
    ] {
        let server = serve(Reply::Body {
            status: 400,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into_bytes(),
        });
        let (result, _) = complete(config(&server.base_url())).await;
        let error = result.unwrap_err();
        let ModelError::Api { status, message } = &error else {
            panic!("expected an API error, got {error:?}");
        };
        assert_eq!(*status, 400);
        assert!(message.chars().count() <= 510, "{} chars", message.len());
        assert!(message.ends_with("… (cut)"), "{message}");
    }
}

/// Pings are not the reply: a server that pings forever after the first text
/// still hits the idle timeout, which only text, tool input or usage restart.
#[tokio::test]
async fn pings_do_not_keep_a_stalled_stream_alive() {
    let mut body = first_events(TEXT, 4);
    for _ in 0..200 {
        body.push_str("event: ping\ndata: {\"type\": \"ping\"}\n\n");
    }
    // The pings alone would last 10 s.
    assert_stalls_after_hello(Reply::sse_per_event(&body, Duration::from_millis(50))).await;
}

/// The first text arrives, then nothing that is part of the reply: the turn
/// ends with the idle timeout (400 ms here) well before `reply` would.
async fn assert_stalls_after_hello(reply: Reply) {
    let server = serve(reply);
    let mut config = config(&server.base_url());
    config.idle_timeout = Duration::from_millis(400);
    let started = Instant::now();
    let (result, sink) = complete(config).await;
    assert!(
        matches!(result, Err(ModelError::IdleTimeout { .. })),
        "{result:?}"
    );
    assert_eq!(sink.deltas, ["Hello"]);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

/// A stream that keeps sending text without end is stopped by the caps on
/// one response: its time and its size.
#[tokio::test]
async fn an_endless_stream_is_capped_in_time_and_in_bytes() {
    let start = first_events(TEXT, 3);
    let delta = |text: &str| {
        format!(
            "event: content_block_delta\ndata: {}\n\n",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": text}})
        )
    };
    let mut slow = start.clone();
    for _ in 0..300 {
        slow.push_str(&delta("more "));
    }
    let server = serve(Reply::sse_per_event(&slow, Duration::from_millis(20)));
    let mut slow_config = config(&server.base_url());
    slow_config.max_response_time = Duration::from_millis(500);
    let (result, _) = complete(slow_config).await;
    let error = result.unwrap_err();
    assert!(
        error.to_string().contains("took longer than 0.5 s"),
        "{error}"
    );

    let mut big = start;
    let piece = "x".repeat(1000);
    for _ in 0..100 {
        big.push_str(&delta(&piece));
    }
    let server = serve(Reply::sse(big));
    let mut small_config = config(&server.base_url());
    small_config.max_response_bytes = 20_000;
    let (result, _) = complete(small_config).await;
    let error = result.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("passed 19 KB, the limit for one reply"),
        "{error}"
    );
}

/// A server that trickles one byte at a time sends no complete event: the
/// bytes alone do not restart the idle timer.
#[tokio::test]
async fn a_byte_at_a_time_does_not_keep_a_stream_alive() {
    let head = first_events(TEXT, 4);
    let tail = format!(
        "event: content_block_delta\ndata: {}\n\n",
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "text_delta", "text": "x".repeat(200)}})
    );
    let body = format!("{head}{tail}");
    let cuts: Vec<usize> = (head.len()..body.len()).collect();
    // The trickle alone would last 5 s.
    assert_stalls_after_hello(Reply::sse_cut_at(body, cuts, Duration::from_millis(20))).await;
}
