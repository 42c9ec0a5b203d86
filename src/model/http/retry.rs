//! The retry policy: which failures are worth another try, how long to wait
//! (the server's `retry-after-ms`/`retry-after`, else jittered exponential
//! backoff), and the counter providers loop on. Separate from sending, which
//! only classifies each failure.

use std::time::Duration;

use rand::RngExt;
use tokio_util::sync::CancellationToken;

use super::HttpConfig;
use crate::model::{ModelError, RetryNotice, StreamSink};

/// The longest wait brood accepts from a `retry-after` header.
pub(super) const MAX_SERVER_WAIT: Duration = Duration::from_secs(120);
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
