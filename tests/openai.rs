//! The Chat Completions client against local servers speaking the wire format of
//! OpenAI, Ollama, vLLM and llama.cpp (streams in `tests/data/openai/`, hand-written
//! from their documented formats), plus every failure the network can produce.

mod common;

use std::time::{Duration, Instant};

use brood::event::AgentId;
use brood::model::http::HttpConfig;
use brood::model::openai::OpenAiModel;
use brood::model::{
    ContentBlock, Message, Model, ModelError, ModelRequest, ModelResponse, RetryNotice, Role,
    StopReason, StreamSink, ToolSpec,
};
use common::stream_server::*;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const OPENAI: &str = include_str!("data/openai/openai_tool_calls.sse");
const OLLAMA: &str = include_str!("data/openai/ollama_whole_call.sse");
const VLLM: &str = include_str!("data/openai/vllm_parallel.sse");
const LLAMACPP: &str = include_str!("data/openai/llamacpp_no_done.sse");

#[derive(Default)]
struct Collect {
    deltas: Vec<String>,
    retries: Vec<RetryNotice>,
}

impl StreamSink for Collect {
    fn text_delta(&mut self, text: &str) {
        self.deltas.push(text.to_string());
    }

    fn retry(&mut self, notice: &RetryNotice) {
        self.retries.push(notice.clone());
    }
}

fn config(base_url: &str, key: Option<&str>) -> HttpConfig {
    let mut config = HttpConfig::new(base_url, key.map(String::from));
    config.backoff_base = Duration::from_millis(5);
    config.connect_timeout = Duration::from_secs(2);
    config.idle_timeout = Duration::from_secs(10);
    config
}

fn model_for(server: &StreamServer) -> OpenAiModel {
    OpenAiModel::new(config(&format!("{}/v1", server.base_url()), None)).unwrap()
}

fn request() -> ModelRequest<'static> {
    ModelRequest {
        agent: AgentId::Main,
        model: "gpt-test".into(),
        system: "You are terse.".into(),
        messages: vec![Message::user_text("find héllo")].into(),
        tools: vec![ToolSpec {
            name: "grep".into(),
            description: "Search files".into(),
            input_schema: json!({"type": "object", "properties": {"pattern": {"type": "string"}}}),
        }]
        .into(),
        max_tokens: 1024,
    }
}

async fn complete(model: &OpenAiModel) -> (Result<ModelResponse, ModelError>, Collect) {
    let mut sink = Collect::default();
    let result = model
        .complete(&request(), &mut sink, &CancellationToken::new())
        .await;
    (result, sink)
}

fn calls(response: &ModelResponse) -> Vec<(String, String, Value)> {
    let calls = response.message.tool_calls().into_iter();
    calls.map(|c| (c.id, c.name, c.input)).collect()
}

fn close_delimited(body: &str) -> Reply {
    Reply::Stream {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body: body.as_bytes().to_vec(),
        cuts: char_boundary_cuts(body.as_bytes()),
        delay: Duration::ZERO,
        encoding: StreamEncoding::CloseDelimited,
    }
}

fn text_chunk(text: &str) -> String {
    sse_data(&json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}))
}

fn stop_chunk(reason: &str) -> String {
    sse_data(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}))
}

fn err<T: std::fmt::Debug>(result: Result<T, ModelError>) -> ModelError {
    result.expect_err("the call should fail")
}

#[tokio::test]
async fn openai_style_text_and_indexed_calls_survive_every_split() {
    // Cut inside every multi-byte character and field name, then byte by byte.
    let server = StreamServer::start(|_, i| match i {
        0 => Reply::sse_cut_at(
            OPENAI,
            char_boundary_cuts(OPENAI.as_bytes()),
            Duration::ZERO,
        ),
        _ => Reply::sse_cut_at(OPENAI, (1..OPENAI.len()).collect(), Duration::ZERO),
    });
    let model = model_for(&server);
    for _ in 0..2 {
        let (response, sink) = complete(&model).await;
        let response = response.unwrap();
        assert_eq!(sink.deltas, ["Searching for ", "héllo ✓ 世界", " now."]);
        assert_eq!(response.message.role, Role::Assistant);
        assert_eq!(response.message.text(), "Searching for héllo ✓ 世界 now.");
        assert_eq!(response.stop_reason, StopReason::ToolUse);
        assert_eq!(
            calls(&response),
            [
                (
                    "call_Ab12".into(),
                    "grep".into(),
                    json!({"pattern": "héllo ✓ 世界"})
                ),
                (
                    "call_Cd34".into(),
                    "read_file".into(),
                    json!({"path": "src/main.rs"})
                ),
            ]
        );
        let usage = response.usage;
        assert_eq!(
            (usage.input_tokens, usage.cache_read_tokens),
            (1200 - 1024, 1024)
        );
        assert_eq!(usage.output_tokens, 42);
        assert!(!usage.estimated);
    }
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn ollama_style_whole_call_with_finish_stop_is_a_tool_use() {
    let server = StreamServer::start(|_, _| Reply::sse(OLLAMA));
    let (response, sink) = complete(&model_for(&server)).await;
    let response = response.unwrap();
    assert!(sink.deltas.is_empty(), "{:?}", sink.deltas);
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        calls(&response),
        [(
            "call_x7k2p9".into(),
            "grep".into(),
            json!({"pattern": "héllo ✓ 世界", "path": "src"})
        )]
    );
    assert_eq!(response.usage.input_tokens, 310);
    assert_eq!(response.usage.output_tokens, 25);
}

#[tokio::test]
async fn vllm_style_parallel_calls_all_at_index_zero_stay_separate() {
    let server = StreamServer::start(|_, _| Reply::sse(VLLM));
    let (response, _) = complete(&model_for(&server)).await;
    let response = response.unwrap();
    assert_eq!(
        calls(&response),
        [
            (
                "chatcmpl-tool-1a2b".into(),
                "grep".into(),
                json!({"pattern": "TODO"})
            ),
            (
                "chatcmpl-tool-3c4d".into(),
                "glob".into(),
                json!({"pattern": "**/*.rs"})
            ),
        ]
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
}

#[tokio::test]
async fn llama_cpp_style_stream_without_usage_or_done_is_accepted_and_estimated() {
    let server = StreamServer::start(|_, _| close_delimited(LLAMACPP));
    let (response, sink) = complete(&model_for(&server)).await;
    let response = response.unwrap();
    assert_eq!(sink.deltas.concat(), "The answer is héllo ✓ 世界.");
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let usage = response.usage;
    assert!(usage.estimated, "no usage was sent, so it must be flagged");
    assert_eq!(usage.input_tokens, request().estimate_input_tokens());
    assert!(usage.output_tokens > 0);
}

#[tokio::test]
async fn a_stream_that_closes_before_any_finish_reason_is_a_stream_error() {
    let body = text_chunk("half an ans");
    let server = StreamServer::start(move |_, _| close_delimited(&body));
    let (result, sink) = complete(&model_for(&server)).await;
    assert_eq!(sink.deltas, ["half an ans"]);
    match err(result) {
        ModelError::Stream(message) => assert!(message.contains("finish_reason"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(server.request_count(), 1, "output had started; no retry");
}

#[tokio::test]
async fn a_cut_off_answer_is_max_tokens_with_the_partial_arguments_as_a_string() {
    let body = [
        sse_data(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
            "id": "call_1", "type": "function",
            "function": {"name": "write_file", "arguments": "{\"path\": \"a.txt\", \"content\": \"héllo ✓"}}]}}]})),
        stop_chunk("length"),
        SSE_DONE.to_string(),
    ]
    .concat();
    let server = StreamServer::start(move |_, _| Reply::sse(body.clone()));
    let (response, _) = complete(&model_for(&server)).await;
    let response = response.unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    assert_eq!(
        response.message.content,
        [ContentBlock::ToolUse {
            id: "call_1".into(),
            name: "write_file".into(),
            input: json!("{\"path\": \"a.txt\", \"content\": \"héllo ✓"),
        }]
    );
}

#[tokio::test]
async fn an_error_object_before_output_is_retried_then_succeeds() {
    let server = StreamServer::start(|_, i| match i {
        0 => Reply::sse(sse_data(
            &json!({"error": {"message": "The server is overloaded, try later",
            "type": "server_error", "code": null}}),
        )),
        _ => Reply::sse([text_chunk("ok"), stop_chunk("stop"), SSE_DONE.into()].concat()),
    });
    let (response, sink) = complete(&model_for(&server)).await;
    assert_eq!(response.unwrap().message.text(), "ok");
    assert_eq!(sink.retries.len(), 1);
    assert!(
        sink.retries[0].reason.contains("overloaded"),
        "{:?}",
        sink.retries
    );
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn an_error_object_after_output_fails_clearly_without_a_retry() {
    let body = [
        text_chunk("Partial "),
        sse_data(&json!({"error": {"message": "overloaded", "type": "server_error"}})),
    ]
    .concat();
    let server = StreamServer::start(move |_, _| Reply::sse(body.clone()));
    let (result, sink) = complete(&model_for(&server)).await;
    let message = err(result).to_string();
    assert!(message.contains("after output had started"), "{message}");
    assert!(message.contains("overloaded"), "{message}");
    assert_eq!(sink.deltas, ["Partial "]);
    assert!(sink.retries.is_empty());
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn malformed_json_in_a_data_line_is_a_stream_error() {
    let server = StreamServer::start(|_, _| Reply::sse("data: {\"choices\": [{\"delta\"\n\n"));
    match err(complete(&model_for(&server)).await.0) {
        ModelError::Stream(message) => assert!(message.contains("not valid JSON"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_429_with_retry_after_zero_is_retried_then_succeeds() {
    let server = StreamServer::start(|_, i| match i {
        0 => Reply::json(
            429,
            json!({"error": {"message": "Rate limit reached", "type": "requests"}}),
        )
        .with_header("retry-after", "0"),
        _ => Reply::sse([text_chunk("fine"), stop_chunk("stop"), SSE_DONE.into()].concat()),
    });
    let (response, sink) = complete(&model_for(&server)).await;
    assert_eq!(response.unwrap().message.text(), "fine");
    assert_eq!(sink.retries.len(), 1);
    assert_eq!(sink.retries[0].wait_ms, 0);
    assert!(sink.retries[0].reason.contains("Rate limit reached"));
}

#[tokio::test]
async fn persistent_503s_give_up_after_all_attempts() {
    let server = StreamServer::start(|_, _| {
        Reply::json(503, json!({"error": {"message": "Service Unavailable"}}))
    });
    let (result, sink) = complete(&model_for(&server)).await;
    let error = err(result);
    assert!(
        matches!(&error, ModelError::RetriesExhausted { attempts: 5, last }
            if matches!(**last, ModelError::Api { status: 503, .. })),
        "{error:?}"
    );
    assert!(error.to_string().contains("5 attempts"), "{error}");
    assert_eq!(sink.retries.len(), 4);
    assert_eq!(server.request_count(), 5);
}

#[tokio::test]
async fn a_401_is_an_auth_error_naming_the_key_variable_and_not_retried() {
    let server = StreamServer::start(|_, _| {
        Reply::json(
            401,
            json!({"error": {"message": "Incorrect API key provided: sk-bad",
            "type": "invalid_request_error", "code": "invalid_api_key"}}),
        )
    });
    let base = format!("{}/v1", server.base_url());
    let model = OpenAiModel::new(config(&base, Some("sk-bad"))).unwrap();
    let error = err(complete(&model).await.0);
    assert!(
        matches!(error, ModelError::Auth { status: 401, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("OPENAI_API_KEY"), "{error}");
    assert!(error.to_string().contains("Incorrect API key"), "{error}");
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn client_errors_report_the_api_message_in_openai_and_ollama_shapes() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let mock = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/openai/chat/completions"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": "Invalid schema for function 'grep'", "type": "invalid_request_error",
            "param": "tools[0]", "code": null}})))
        .expect(1)
        .mount(&mock)
        .await;
    Mock::given(method("POST"))
        .and(path("/ollama/chat/completions"))
        .respond_with(
            ResponseTemplate::new(404).set_body_json(
                json!({"error": "model \"llama9\" not found, try pulling it first"}),
            ),
        )
        .expect(1)
        .mount(&mock)
        .await;
    for (prefix, status, text) in [
        ("openai", 400, "Invalid schema for function 'grep'"),
        ("ollama", 404, "model \"llama9\" not found"),
    ] {
        let model = OpenAiModel::new(config(&format!("{}/{prefix}", mock.uri()), None)).unwrap();
        let error = err(complete(&model).await.0);
        assert!(
            matches!(&error, ModelError::Api { status: s, message } if *s == status && message.contains(text)),
            "{error:?}"
        );
    }
}

#[tokio::test]
async fn connection_refused_is_retried_then_a_connect_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = config(&format!("http://127.0.0.1:{port}/v1"), None);
    config.max_retries = 2;
    let model = OpenAiModel::new(config).unwrap();
    let (result, sink) = complete(&model).await;
    let error = err(result);
    assert!(
        matches!(&error, ModelError::RetriesExhausted { attempts: 3, last }
            if matches!(**last, ModelError::Connect { .. })),
        "{error:?}"
    );
    assert!(
        error.to_string().contains(&format!("127.0.0.1:{port}")),
        "{error}"
    );
    assert_eq!(sink.retries.len(), 2);
}

#[tokio::test]
async fn a_silent_server_hits_the_idle_timeout() {
    let body = text_chunk("thinking");
    let server = StreamServer::start(move |_, i| match i {
        0 => Reply::StreamThenHang {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.clone().into_bytes(),
            cuts: vec![],
            delay: Duration::ZERO,
            encoding: StreamEncoding::Chunked,
        },
        _ => Reply::Hang,
    });
    let base = format!("{}/v1", server.base_url());
    let mut config = config(&base, None);
    config.idle_timeout = Duration::from_millis(300);
    config.header_timeout = Duration::from_millis(300);
    let model = OpenAiModel::new(config).unwrap();
    // Silent mid-stream: the idle timeout.
    let (result, sink) = complete(&model).await;
    assert!(matches!(err(result), ModelError::IdleTimeout { .. }));
    assert_eq!(sink.deltas, ["thinking"]);
    // Silent before the status line: no response, said as such, not retried.
    let started = Instant::now();
    let (result, sink) = complete(&model).await;
    let error = err(result);
    assert!(matches!(error, ModelError::NoResponse { .. }), "{error:?}");
    assert!(
        error.to_string().contains("sent no response within 1 s"),
        "{error}"
    );
    assert!(sink.deltas.is_empty());
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        server.request_count(),
        2,
        "no retry of a server that never answers"
    );
}

// Multi-threaded: the connection is torn down by a runtime task, which must keep
// running while this test blocks waiting for the server to notice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_mid_stream_returns_promptly_and_drops_the_connection() {
    let body = text_chunk("first words");
    let server = StreamServer::start(move |_, _| Reply::StreamThenHang {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body: body.clone().into_bytes(),
        cuts: vec![],
        delay: Duration::ZERO,
        encoding: StreamEncoding::Chunked,
    });
    let model = model_for(&server);
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    let cancelled_at = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        canceller.cancel();
        Instant::now()
    });
    let mut sink = Collect::default();
    let result = model.complete(&request(), &mut sink, &cancel).await;
    let returned_at = Instant::now();
    assert!(matches!(result, Err(ModelError::Cancelled)), "{result:?}");
    assert!(returned_at - cancelled_at.await.unwrap() < Duration::from_secs(2));
    assert_eq!(sink.deltas, ["first words"]);
    assert_eq!(server.wait_for_disconnects(1, Duration::from_secs(5)), 1);
}

#[tokio::test]
async fn the_request_carries_the_documented_body_and_auth_only_with_a_key() {
    let reply = [text_chunk("ok"), stop_chunk("stop"), SSE_DONE.into()].concat();
    let server = StreamServer::start(move |_, _| Reply::sse(reply.clone()));
    let base = format!("{}/v1", server.base_url());
    let mut request = request();
    request.messages.to_mut().extend([
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text {
                    text: "Looking.".into(),
                },
                ContentBlock::ToolUse {
                    id: "call_9".into(),
                    name: "grep".into(),
                    input: json!({"pattern": "héllo"}),
                },
                ContentBlock::ToolUse {
                    id: "call_10".into(),
                    name: "grep".into(),
                    input: json!("{\"pattern\": oops"),
                },
            ],
        },
        Message {
            role: Role::User,
            content: vec![
                ContentBlock::ToolResult {
                    tool_use_id: "call_9".into(),
                    content: "src/a.rs:3: héllo".into(),
                    is_error: false,
                },
                ContentBlock::ToolResult {
                    tool_use_id: "call_10".into(),
                    content: "arguments are not JSON".into(),
                    is_error: true,
                },
            ],
        },
    ]);
    for key in [Some("sk-test"), None] {
        let model = OpenAiModel::new(config(&base, key)).unwrap();
        let mut sink = Collect::default();
        let cancel = CancellationToken::new();
        model.complete(&request, &mut sink, &cancel).await.unwrap();
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(requests[1].header("authorization"), None);
    for recorded in &requests {
        assert_eq!(recorded.method, "POST");
        assert_eq!(recorded.path, "/v1/chat/completions");
        let body = recorded.json();
        assert_eq!(body["model"], "gpt-test");
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["max_tokens"], 1024);
        assert_eq!(
            body["tools"],
            json!([{"type": "function", "function": {"name": "grep", "description": "Search files",
                "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}}}}])
        );
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "find héllo"},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    {"id": "call_9", "type": "function",
                     "function": {"name": "grep", "arguments": "{\"pattern\":\"héllo\"}"}},
                    {"id": "call_10", "type": "function",
                     "function": {"name": "grep", "arguments": "{\"pattern\": oops"}},
                ]},
                {"role": "tool", "tool_call_id": "call_9", "content": "src/a.rs:3: héllo"},
                {"role": "tool", "tool_call_id": "call_10", "content": "Error: arguments are not JSON"},
            ])
        );
    }
}

#[test]
fn the_provider_is_called_openai() {
    let model = OpenAiModel::new(config("http://127.0.0.1:9/v1", None)).unwrap();
    assert_eq!(model.provider(), "openai");
}

/// Keep-alive chunks with an empty delta are not the reply: the idle timer
/// runs on through them.
#[tokio::test]
async fn empty_keep_alive_chunks_do_not_restart_the_idle_timer() {
    let mut body = text_chunk("thinking");
    let keep_alive =
        sse_data(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": null}]}));
    for _ in 0..200 {
        body.push_str(&keep_alive);
        body.push_str(": comment\n\n");
    }
    let server =
        StreamServer::start(move |_, _| Reply::sse_per_event(&body, Duration::from_millis(25)));
    let base = format!("{}/v1", server.base_url());
    let mut config = config(&base, None);
    config.idle_timeout = Duration::from_millis(400);
    let model = OpenAiModel::new(config).unwrap();
    let started = Instant::now();
    let (result, sink) = complete(&model).await;
    assert!(matches!(err(result), ModelError::IdleTimeout { .. }));
    assert_eq!(sink.deltas, ["thinking"]);
    // The keep-alives alone would have lasted 10 s.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
