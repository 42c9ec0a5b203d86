//! The response body as a bounded stream: an idle timeout that only real
//! progress restarts, caps on one response's time and size, and an interrupt
//! that drops the connection at once. Separate from the request side: the
//! SSE loop (`drive.rs`) is its only reader.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use super::HttpConfig;
use super::errors::error_chain;
use crate::model::ModelError;

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
