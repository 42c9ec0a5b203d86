//! Tests of the HTTP layer: TLS with ring, the key kept out of `Debug`,
//! retryable statuses, server waits, backoff, the retrier and error messages.

use super::retry::MAX_SERVER_WAIT;
use super::*;
use crate::model::{RetryNotice, StreamSink};
use reqwest::header::{HeaderMap, HeaderValue};

/// The client speaks TLS with the ring provider: an `https` request to a
/// local listener opens with a TLS ClientHello instead of panicking for
/// want of a crypto provider.
#[tokio::test]
async fn https_requests_start_a_tls_handshake() {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = HttpConfig::new(&format!("https://127.0.0.1:{port}"), None);
    let client = config.client().unwrap();
    let request = tokio::spawn(async move {
        client
            .get(format!("https://127.0.0.1:{port}/"))
            .timeout(Duration::from_secs(5))
            .send()
            .await
    });
    let (mut socket, _) = listener.accept().await.unwrap();
    let mut hello = [0u8; 6];
    socket.read_exact(&mut hello).await.unwrap();
    // A TLS handshake record (0x16), version 3.x, then a ClientHello (1).
    assert_eq!(
        (hello[0], hello[1], hello[5]),
        (0x16, 0x03, 0x01),
        "{hello:?}"
    );
    drop(socket);
    let result = request.await.unwrap();
    assert!(result.is_err(), "no TLS server answered: {result:?}");
}

#[test]
fn debug_output_never_shows_the_key() {
    let config = HttpConfig::new(
        "https://api.anthropic.com",
        Some("sk-ant-secret-value".into()),
    );
    let shown = format!("{config:?}");
    assert!(!shown.contains("secret"), "{shown}");
    assert!(shown.contains("[redacted]"));
}

#[test]
fn retryable_statuses_are_exactly_the_listed_ones() {
    for s in [408, 409, 429, 500, 502, 503, 504, 529] {
        assert!(retryable_status(s), "{s}");
    }
    for s in [200, 400, 401, 403, 404, 413, 422, 501] {
        assert!(!retryable_status(s), "{s}");
    }
}

#[test]
fn server_waits_are_read_from_either_header() {
    let mut h = HeaderMap::new();
    h.insert("retry-after", HeaderValue::from_static("3"));
    assert_eq!(server_wait(&h), Some(Duration::from_secs(3)));
    h.insert("retry-after-ms", HeaderValue::from_static("1500"));
    assert_eq!(server_wait(&h), Some(Duration::from_millis(1500)));
    let mut h = HeaderMap::new();
    h.insert(
        "retry-after",
        HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
    );
    assert_eq!(
        server_wait(&h),
        Some(Duration::ZERO),
        "a past date means now"
    );
    h.insert("retry-after", HeaderValue::from_static("soon"));
    assert_eq!(server_wait(&h), None);
}

#[test]
fn backoff_doubles_with_jitter_and_obeys_the_server() {
    let config = HttpConfig::new("http://x", None);
    for attempt in 1..=4 {
        let full = Duration::from_secs(1 << (attempt - 1));
        let wait = backoff(&config, attempt, None);
        assert!(
            wait >= full / 2 && wait <= full,
            "attempt {attempt}: {wait:?}"
        );
    }
    assert_eq!(
        backoff(&config, 1, Some(Duration::from_millis(250))),
        Duration::from_millis(250)
    );
    assert_eq!(
        backoff(&config, 1, Some(Duration::from_secs(3600))),
        MAX_SERVER_WAIT
    );
}

struct Notices(Vec<RetryNotice>);
impl StreamSink for Notices {
    fn text_delta(&mut self, _: &str) {}
    fn retry(&mut self, notice: &RetryNotice) {
        self.0.push(notice.clone());
    }
}

#[tokio::test]
async fn the_retrier_announces_each_retry_and_gives_up_after_the_limit() {
    let mut config = HttpConfig::new("http://x", None);
    config.max_retries = 2;
    config.backoff_base = Duration::from_millis(1);
    let mut retrier = Retrier::new(&config);
    let mut sink = Notices(Vec::new());
    let cancel = CancellationToken::new();
    let busy = || {
        AttemptFailure::retryable(
            ModelError::Api {
                status: 529,
                message: "Overloaded".into(),
            },
            None,
        )
    };
    retrier
        .after_failure(busy(), &mut sink, &cancel)
        .await
        .unwrap();
    retrier
        .after_failure(busy(), &mut sink, &cancel)
        .await
        .unwrap();
    let err = retrier
        .after_failure(busy(), &mut sink, &cancel)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("gave up after 3 attempts"),
        "{err}"
    );
    let attempts: Vec<(u32, u32)> = sink.0.iter().map(|n| (n.attempt, n.max_attempts)).collect();
    assert_eq!(attempts, [(1, 2), (2, 2)]);
    assert!(sink.0[0].reason.contains("529"));
    // A fatal failure is returned as it is, with no retry.
    let mut retrier = Retrier::new(&config);
    let err = retrier
        .after_failure(
            AttemptFailure::fatal(ModelError::Cancelled),
            &mut sink,
            &cancel,
        )
        .await
        .unwrap_err();
    assert_eq!(err, ModelError::Cancelled);
    assert_eq!(sink.0.len(), 2);
}

#[test]
fn api_messages_are_found_in_every_shape() {
    let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too big"}}"#;
    assert_eq!(api_message(anthropic).unwrap(), "max_tokens: too big");
    assert_eq!(
        api_message(r#"{"error":"model 'x' not found"}"#).unwrap(),
        "model 'x' not found"
    );
    assert_eq!(api_message(r#"{"message":"nope"}"#).unwrap(), "nope");
    assert_eq!(api_message("<html>"), None);
}
