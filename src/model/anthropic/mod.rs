//! The Anthropic Messages API: `POST {base}/v1/messages` with `stream: true`.
//! [`request`] turns brood's history into the body, [`stream`] folds the SSE
//! events into a response, and this module does the HTTP: headers, retries
//! (through [`Retrier`]), the idle timeout and cancellation.

mod request;
pub mod stream;

use async_trait::async_trait;
use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderValue};
use tokio_util::sync::CancellationToken;

pub use self::stream::StreamParser;
use super::drive::{EventParser, drive_sse};
use super::http::{AttemptFailure, BodyStream, HttpConfig, Retrier, check_status, send};
use super::{Model, ModelError, ModelRequest, ModelResponse, StreamSink};

/// The API version brood speaks; newer versions may change the stream.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Where the key comes from, named in authentication errors.
const KEY_VARIABLE: &str = "ANTHROPIC_API_KEY";

/// A client of the Messages API.
pub struct AnthropicModel {
    config: HttpConfig,
    client: reqwest::Client,
    /// The key as a header value checked once, marked sensitive so it never
    /// shows in debug output.
    key: Option<HeaderValue>,
}

impl AnthropicModel {
    /// A client for `config.base_url` (e.g. `https://api.anthropic.com`). A
    /// missing key is not an error here: whether one is needed (a local proxy
    /// may not) is the configuration's call; without one no `x-api-key` is sent.
    pub fn new(config: HttpConfig) -> Result<Self, ModelError> {
        let key = match &config.api_key {
            None => None,
            Some(key) => {
                let mut value =
                    HeaderValue::from_str(key.trim()).map_err(|_| ModelError::Connect {
                        url: config.base_url.clone(),
                        message: format!(
                            "{KEY_VARIABLE} holds characters that cannot go in an HTTP header"
                        ),
                    })?;
                value.set_sensitive(true);
                Some(value)
            }
        };
        let client = config.client()?;
        Ok(AnthropicModel {
            config,
            client,
            key,
        })
    }

    fn url(&self) -> String {
        format!("{}/v1/messages", self.config.base_url)
    }

    /// One request and its stream, start to `message_stop`.
    async fn attempt(
        &self,
        url: &str,
        body: Bytes,
        estimated_input: u64,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, AttemptFailure> {
        let mut builder = self
            .client
            .post(url)
            .header("anthropic-version", ANTHROPIC_VERSION)
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(key) = &self.key {
            builder = builder.header("x-api-key", key.clone());
        }
        let response = send(builder, url, self.config.header_timeout, cancel).await?;
        // The error body of a bad status is read here, so an interrupt must
        // be able to end that wait too.
        let response = tokio::select! {
            _ = cancel.cancelled() => return Err(AttemptFailure::fatal(ModelError::Cancelled)),
            checked = check_status(response, KEY_VARIABLE) => checked?,
        };
        let body = BodyStream::new(response, &self.config);
        let mut parser = StreamParser::new();
        drive_sse(body, &mut parser, sink, cancel).await?;
        let output_started = parser.output_started();
        parser
            .finish(estimated_input)
            .map_err(|error| retry_if_nothing_shown(error, output_started))
    }
}

/// A stream that broke or ended early is like a failed connection when no
/// output reached the user, so it is retried; after output it ends the turn.
fn retry_if_nothing_shown(error: ModelError, output_started: bool) -> AttemptFailure {
    if output_started {
        AttemptFailure::fatal(error)
    } else {
        AttemptFailure::retryable(error, None)
    }
}

#[async_trait]
impl Model for AnthropicModel {
    fn provider(&self) -> &str {
        "anthropic"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ModelError> {
        let body = serde_json::to_vec(&request::wire_request(
            request,
            self.config.prompt_cache,
            self.config.thinking_budget,
        ))
        .map_err(|e| ModelError::Stream(format!("cannot encode the request: {e}")))?;
        let body = Bytes::from(body);
        let url = self.url();
        let estimated_input = request.estimate_input_tokens();
        let mut retrier = Retrier::new(&self.config);
        loop {
            match self
                .attempt(&url, body.clone(), estimated_input, sink, cancel)
                .await
            {
                Ok(response) => return Ok(response),
                Err(failure) => retrier.after_failure(failure, sink, cancel).await?,
            }
        }
    }
}
