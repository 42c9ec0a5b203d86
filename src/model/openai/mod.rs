//! The OpenAI-compatible Chat Completions client: `POST {base}/chat/completions`
//! with a streamed answer. One client serves OpenAI itself and the local servers
//! that copy its format (Ollama, vLLM, llama.cpp), so the stream parser accepts
//! each of their known deviations (see [`stream`]).

mod request;
pub mod stream;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use super::drive::drive_sse;
use super::http::{self, AttemptFailure, BodyStream, HttpConfig, Retrier};
use super::{Model, ModelError, ModelRequest, ModelResponse, StreamSink};
use request::TokenLimit;
use stream::StreamParser;

/// The variable a refused key points the user to.
const KEY_VARIABLE: &str = "OPENAI_API_KEY";

/// A Chat Completions endpoint. Without an API key no `Authorization` header is
/// sent, which is what local servers such as Ollama expect.
pub struct OpenAiModel {
    config: HttpConfig,
    client: reqwest::Client,
    url: String,
    limit: TokenLimit,
}

impl OpenAiModel {
    /// `config.base_url` is the API root including its version, e.g.
    /// `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    pub fn new(config: HttpConfig) -> Result<Self, ModelError> {
        let client = config.client()?;
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        let limit = TokenLimit::for_base_url(&config.base_url);
        Ok(OpenAiModel {
            config,
            client,
            url,
            limit,
        })
    }

    /// One try: send, check the status, read the stream to its end.
    async fn attempt(
        &self,
        body: &serde_json::Value,
        request: &ModelRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, AttemptFailure> {
        let mut builder = self
            .client
            .post(&self.url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(body);
        if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
            builder = builder.bearer_auth(key);
        }
        let response = http::send(builder, &self.url, self.config.header_timeout, cancel).await?;
        let response = http::check_status(response, KEY_VARIABLE).await?;
        let body = BodyStream::new(response, &self.config);
        let mut parser = StreamParser::new();
        drive_sse(body, &mut parser, sink, cancel).await?;
        Ok(parser.finish(request)?)
    }
}

#[async_trait]
impl Model for OpenAiModel {
    fn provider(&self) -> &str {
        "openai"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ModelError> {
        let body = request::body(request, self.limit);
        let mut retrier = Retrier::new(&self.config);
        loop {
            match self.attempt(&body, request, sink, cancel).await {
                Ok(response) => return Ok(response),
                Err(failure) => retrier.after_failure(failure, sink, cancel).await?,
            }
        }
    }
}

#[cfg(test)]
mod tests;
