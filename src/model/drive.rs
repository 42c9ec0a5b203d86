//! The one loop that reads a provider's server-sent events: bytes from the body
//! (with its idle, size and time limits), decoded into events, handed to the
//! provider's parser, until the parser says the reply is complete or the body
//! ends. Both providers use it; only their parsers differ.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::http::{AttemptFailure, BodyStream};
use super::sse::{SseDecoder, SseEvent};
use super::{ModelError, StreamSink};

/// How long the rest of a complete reply's body is read (so the connection can
/// be reused) before it is dropped: what a server sends after the end is not
/// ours to wait for.
const DRAIN_AFTER_END: Duration = Duration::from_millis(250);

/// What the driver should do after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Keep reading.
    Continue,
    /// The reply is complete: stop reading and finish it.
    Done,
}

/// A provider's stream parser, as the driver sees it.
pub trait EventParser {
    /// Handles one event; text deltas go to `sink` at once. A failure says
    /// whether the request is worth repeating.
    fn handle(
        &mut self,
        event: &SseEvent,
        sink: &mut dyn StreamSink,
    ) -> Result<Step, AttemptFailure>;

    /// How many pieces of the reply have arrived: the idle timer restarts only
    /// when this grows, never on pings, comments or empty chunks.
    fn progress(&self) -> u64;

    /// Whether the user may have seen part of the reply, after which a broken
    /// stream is not retried.
    fn output_started(&self) -> bool;
}

/// Reads `body` through `parser` until the reply is complete or the body ends;
/// the caller then asks the parser for the response.
pub async fn drive_sse(
    mut body: BodyStream,
    parser: &mut impl EventParser,
    sink: &mut dyn StreamSink,
    cancel: &CancellationToken,
) -> Result<(), AttemptFailure> {
    let mut decoder = SseDecoder::new();
    loop {
        let chunk = match body.next(cancel).await {
            Ok(chunk) => chunk,
            Err(error) => return Err(stream_failure(error, parser.output_started())),
        };
        let Some(chunk) = chunk else {
            if let Some(event) = decoder.finish() {
                parser.handle(&event, sink)?;
            }
            return Ok(());
        };
        let before = parser.progress();
        for event in decoder.push(&chunk) {
            if parser.handle(&event, sink)? == Step::Done {
                let _ = tokio::time::timeout(DRAIN_AFTER_END, drain(&mut body, cancel)).await;
                return Ok(());
            }
        }
        if parser.progress() != before {
            body.progressed();
        }
    }
}

/// Reads the rest of a body whose reply is complete.
async fn drain(body: &mut BodyStream, cancel: &CancellationToken) {
    while let Ok(Some(_)) = body.next(cancel).await {}
}

/// A failure while reading the body. A broken connection before any output is
/// worth another try; a silent server (the idle timeout already waited long),
/// an interrupt, or a break after output had started are final.
fn stream_failure(error: ModelError, output_started: bool) -> AttemptFailure {
    match error {
        ModelError::Stream(_) if !output_started => AttemptFailure::retryable(error, None),
        ModelError::Stream(message) => AttemptFailure::fatal(ModelError::Stream(format!(
            "{message} (after output had started)"
        ))),
        ModelError::Script(_)
        | ModelError::Cancelled
        | ModelError::Auth { .. }
        | ModelError::Api { .. }
        | ModelError::Connect { .. }
        | ModelError::IdleTimeout { .. }
        | ModelError::NoResponse { .. }
        | ModelError::RetriesExhausted { .. } => AttemptFailure::fatal(error),
    }
}
