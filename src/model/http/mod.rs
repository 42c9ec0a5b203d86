//! What the HTTP providers share: the client with its connect timeout, the retry
//! policy (which statuses, how long to wait, `retry-after-ms`/`retry-after`), the
//! reading of error bodies, and a byte stream with an idle timeout that an
//! interrupt can drop at once.
//!
//! This file holds the client and sending a request; `retry.rs` the retry
//! policy, `errors.rs` the reading of error responses, and `body.rs` the
//! bounded body stream.

mod body;
mod errors;
mod retry;

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::ModelError;
pub use body::BodyStream;
use errors::error_chain;
pub use errors::{api_message, check_status};
pub use retry::{AttemptFailure, Retrier, RetryHint, backoff, retryable_status, server_wait};

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
    /// Whether requests mark their stable prefix for the provider's cache
    /// (Anthropic's `cache_control`; OpenAI-compatible servers cache on
    /// their own).
    pub prompt_cache: PromptCache,
    /// Tokens the model may think before it answers (Anthropic's extended
    /// thinking); `None`: no thinking asked for.
    pub thinking_budget: Option<u32>,
}

/// Prompt caching, where the provider needs to be asked for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptCache {
    On,
    Off,
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
            prompt_cache: PromptCache::On,
            thinking_budget: None,
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

#[cfg(test)]
mod tests;
