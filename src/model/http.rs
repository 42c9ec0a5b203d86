//! What the HTTP providers share: the client with its connect timeout, the retry
//! policy (which statuses, how long to wait, `retry-after-ms`/`retry-after`), the
//! reading of error bodies, and a byte stream with an idle timeout that an
//! interrupt can drop at once.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use rand::RngExt;
use tokio_util::sync::CancellationToken;

use super::{ModelError, RetryNotice, StreamSink};

/// How a provider talks HTTP. Its `Debug` never shows the key.
#[derive(Clone)]
pub struct HttpConfig {
    /// Without a trailing slash, e.g. `https://api.anthropic.com`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub connect_timeout: Duration,
    /// The response headers must arrive this soon after the request is sent.
    pub header_timeout: Duration,
    /// One response may take this long in all, and hold this many bytes.
    pub max_response_time: Duration,
    pub max_response_bytes: u64,
    /// A stream that sends nothing for this long fails the turn.
    pub idle_timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first backoff; each retry doubles it (before jitter).
    pub backoff_base: Duration,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("connect_timeout", &self.connect_timeout)
            .field("header_timeout", &self.header_timeout)
            .field("max_response_time", &self.max_response_time)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff_base", &self.backoff_base)
            .finish()
    }
}

impl HttpConfig {
    pub fn new(base_url: &str, api_key: Option<String>) -> Self {
        HttpConfig {
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            connect_timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(60),
            max_response_time: Duration::from_secs(600),
            max_response_bytes: 16 * 1024 * 1024,
            idle_timeout: Duration::from_secs(90),
            max_retries: 4,
            backoff_base: Duration::from_secs(1),
        }
    }

    pub fn client(&self) -> Result<reqwest::Client, ModelError> {
        client_builder()
            .connect_timeout(self.connect_timeout)
            .user_agent(concat!("brood/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ModelError::Connect {
                url: self.base_url.clone(),
                message: e.to_string(),
            })
    }
}

/// The one way to start building an HTTP client in brood (tests included):
/// reqwest is built without a TLS crypto provider (its default, aws-lc-rs,
/// costs a two-minute C build) and panics when a client is built before one
/// is installed, so this installs ring first.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
}

/// Makes ring the process's TLS crypto provider, once. Another provider
/// installed first is kept.
fn install_crypto_provider() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        // Err only means a provider is already installed, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The longest wait brood accepts from a `retry-after` header.
const MAX_SERVER_WAIT: Duration = Duration::from_secs(120);
/// The longest backoff brood computes itself.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Whether an HTTP status is worth another try: timeouts, conflicts, rate
/// limits, server errors and Anthropic's 529 "overloaded".
pub fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// Why one attempt failed, and whether another may succeed.
#[derive(Debug)]
pub struct AttemptFailure {
    pub error: ModelError,
    pub retry: RetryHint,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryHint {
    Never,
    /// Try again, after the server's wait when it named one.
    Retry(Option<Duration>),
}

impl AttemptFailure {
    pub fn fatal(error: ModelError) -> Self {
        AttemptFailure {
            error,
            retry: RetryHint::Never,
        }
    }

    pub fn retryable(error: ModelError, wait: Option<Duration>) -> Self {
        AttemptFailure {
            error,
            retry: RetryHint::Retry(wait),
        }
    }
}

impl From<ModelError> for AttemptFailure {
    fn from(error: ModelError) -> Self {
        AttemptFailure::fatal(error)
    }
}

/// The wait before retry number `attempt` (1-based): the server's word when it
/// gave one, else `base · 2^(attempt-1)` with full jitter in its upper half, so
/// many clients hit by the same outage do not come back in step.
pub fn backoff(config: &HttpConfig, attempt: u32, server_wait: Option<Duration>) -> Duration {
    if let Some(wait) = server_wait {
        return wait.min(MAX_SERVER_WAIT);
    }
    let exp = config
        .backoff_base
        .saturating_mul(1u32 << attempt.saturating_sub(1).min(16))
        .min(MAX_BACKOFF);
    let factor = rand::rng().random_range(0.5..=1.0);
    exp.mul_f64(factor)
}

/// Counts retries of one model call. Providers loop:
///
/// ```ignore
/// let mut retrier = Retrier::new(&self.config);
/// loop {
///     match self.attempt(request, sink, cancel).await {
///         Ok(response) => return Ok(response),
///         Err(failure) => retrier.after_failure(failure, sink, cancel).await?,
///     }
/// }
/// ```
///
/// (A loop in the provider rather than a higher-order helper, because an async
/// closure borrowing the sink cannot be proven `Send` inside `async_trait`.)
pub struct Retrier<'a> {
    config: &'a HttpConfig,
    retries: u32,
}

impl<'a> Retrier<'a> {
    pub fn new(config: &'a HttpConfig) -> Self {
        Retrier { config, retries: 0 }
    }

    /// Decides about a failed attempt: waits and returns `Ok` when it is worth
    /// another try (announcing the retry to `sink` first), or returns the error to
    /// give up with. An interrupt during the wait ends it at once.
    pub async fn after_failure(
        &mut self,
        failure: AttemptFailure,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<(), ModelError> {
        let server_wait = match failure.retry {
            RetryHint::Never => return Err(failure.error),
            RetryHint::Retry(_) if self.retries >= self.config.max_retries => {
                return Err(match self.retries {
                    0 => failure.error,
                    n => ModelError::RetriesExhausted {
                        attempts: n + 1,
                        last: Box::new(failure.error),
                    },
                });
            }
            RetryHint::Retry(wait) => wait,
        };
        self.retries += 1;
        let wait = backoff(self.config, self.retries, server_wait);
        sink.retry(&RetryNotice {
            attempt: self.retries,
            max_attempts: self.config.max_retries,
            wait_ms: wait.as_millis() as u64,
            reason: failure.error.to_string(),
        });
        tokio::select! {
            _ = cancel.cancelled() => Err(ModelError::Cancelled),
            _ = tokio::time::sleep(wait) => Ok(()),
        }
    }
}

/// Sends a request; connection failures are worth a retry, an interrupt drops
/// the request.
pub async fn send(
    request: reqwest::RequestBuilder,
    url: &str,
    header_timeout: Duration,
    cancel: &CancellationToken,
) -> Result<reqwest::Response, AttemptFailure> {
    let response = tokio::select! {
        _ = cancel.cancelled() => return Err(AttemptFailure::fatal(ModelError::Cancelled)),
        r = tokio::time::timeout(header_timeout, request.send()) => match r {
            Ok(r) => r,
            // A server that takes requests and never answers is not worth
            // another minute per retry.
            Err(_) => {
                return Err(AttemptFailure::fatal(ModelError::NoResponse {
                    url: url.to_string(),
                    secs: header_timeout.as_secs_f64().ceil() as u64,
                }));
            }
        },
    };
    response.map_err(|e| {
        AttemptFailure::retryable(
            ModelError::Connect {
                url: url.to_string(),
                message: error_chain(&e),
            },
            None,
        )
    })
}

/// Turns a non-success status into the right failure: retryable statuses with
/// the server's wait, 401/403 naming the variable to check, others with the
/// API's own message.
pub async fn check_status(
    response: reqwest::Response,
    key_variable: &'static str,
) -> Result<reqwest::Response, AttemptFailure> {
    let status = response.status().as_u16();
    if response.status().is_success() {
        return Ok(response);
    }
    let wait = server_wait(response.headers());
    let body = error_body(response).await;
    let message = api_message(&body).unwrap_or_else(|| match body.trim() {
        "" => "no error message".to_string(),
        text => text.to_string(),
    });
    let message = cut_message(&message);
    if retryable_status(status) {
        return Err(AttemptFailure::retryable(
            ModelError::Api { status, message },
            wait,
        ));
    }
    Err(AttemptFailure::fatal(match status {
        401 | 403 => ModelError::Auth {
            status,
            message,
            variable: key_variable,
        },
        _ => ModelError::Api { status, message },
    }))
}

/// Bytes of an error body read at most, and how long reading it may take: a
/// server may answer 500 with a gigabyte, or one byte a second.
const MAX_ERROR_BODY: usize = 8 * 1024;
const ERROR_BODY_WAIT: Duration = Duration::from_secs(10);
/// Characters of an API's error message kept.
const MAX_ERROR_MESSAGE: usize = 500;

/// The start of an error response's body, at most [`MAX_ERROR_BODY`] bytes
/// and [`ERROR_BODY_WAIT`]; whatever arrived by then.
async fn error_body(mut response: reqwest::Response) -> String {
    let mut body = Vec::new();
    let deadline = tokio::time::Instant::now() + ERROR_BODY_WAIT;
    while body.len() < MAX_ERROR_BODY {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
            Ok(Ok(None)) | Ok(Err(_)) | Err(_) => break,
        }
    }
    body.truncate(MAX_ERROR_BODY);
    String::from_utf8_lossy(&body).into_owned()
}

/// `message` cut to [`MAX_ERROR_MESSAGE`] characters, saying so.
fn cut_message(message: &str) -> String {
    match message.chars().count() > MAX_ERROR_MESSAGE {
        true => {
            let kept: String = message.chars().take(MAX_ERROR_MESSAGE).collect();
            format!("{kept}… (cut)")
        }
        false => message.to_string(),
    }
}

/// The `message` of an error body in either provider's shape:
/// `{"error": {"message": …}}` or `{"error": "…"}` (Ollama) or `{"message": …}`.
pub fn api_message(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let error = value.get("error").unwrap_or(&value);
    error
        .get("message")
        .and_then(|m| m.as_str())
        .or_else(|| error.as_str())
        .map(String::from)
}

/// `retry-after-ms` (milliseconds), else `retry-after` (seconds or an HTTP date).
pub fn server_wait(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let after = text("retry-after")?.trim();
    if let Ok(secs) = after.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let date = chrono::DateTime::parse_from_rfc2822(after).ok()?;
    let wait = date.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// A response body read chunk by chunk, failing when the reply stops coming:
/// the idle timer restarts only when the caller says a chunk carried part of
/// the reply ([`BodyStream::progressed`]), never on pings, comments, empty
/// chunks or partial lines; and one response is capped in time and in bytes,
/// so a server streaming without end still ends the turn.
pub struct BodyStream {
    inner: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
    idle: Duration,
    max_time: Duration,
    max_bytes: u64,
    started: tokio::time::Instant,
    last_progress: tokio::time::Instant,
    bytes: u64,
}

impl BodyStream {
    pub fn new(response: reqwest::Response, config: &HttpConfig) -> Self {
        let now = tokio::time::Instant::now();
        BodyStream {
            inner: Box::pin(response.bytes_stream()),
            idle: config.idle_timeout,
            max_time: config.max_response_time,
            max_bytes: config.max_response_bytes,
            started: now,
            last_progress: now,
            bytes: 0,
        }
    }

    /// Part of the reply arrived: the idle timer starts again.
    pub fn progressed(&mut self) {
        self.last_progress = tokio::time::Instant::now();
    }

    /// The next chunk, `None` at a clean end. Dropping the stream (on interrupt)
    /// closes the connection.
    pub async fn next(&mut self, cancel: &CancellationToken) -> Result<Option<Bytes>, ModelError> {
        let idle_at = self.last_progress + self.idle;
        let end_at = self.started + self.max_time;
        let deadline = idle_at.min(end_at);
        let next = tokio::select! {
            _ = cancel.cancelled() => return Err(ModelError::Cancelled),
            n = tokio::time::timeout_at(deadline, self.inner.next()) => n,
        };
        match next {
            Err(_) if deadline == end_at && end_at < idle_at => Err(ModelError::Stream(format!(
                "the response took longer than {} s, the limit for one reply",
                self.max_time.as_secs_f64()
            ))),
            Err(_) => Err(ModelError::IdleTimeout {
                secs: self.idle.as_secs().max(1),
            }),
            Ok(None) => Ok(None),
            Ok(Some(Ok(bytes))) => {
                self.bytes += bytes.len() as u64;
                if self.bytes > self.max_bytes {
                    let limit = match self.max_bytes >= 1 << 20 {
                        true => format!("{} MB", self.max_bytes >> 20),
                        false => format!("{} KB", self.max_bytes >> 10),
                    };
                    return Err(ModelError::Stream(format!(
                        "the response passed {limit}, the limit for one reply"
                    )));
                }
                Ok(Some(bytes))
            }
            Ok(Some(Err(e))) => Err(ModelError::Stream(format!(
                "the connection broke mid-stream: {}",
                error_chain(&e)
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let attempts: Vec<(u32, u32)> =
            sink.0.iter().map(|n| (n.attempt, n.max_attempts)).collect();
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
}
