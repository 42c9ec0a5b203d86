//! Error responses made into failures: a non-success status read with its
//! body (bounded in bytes and time), the API's own message found in either
//! provider's shape and cut to a readable length, and error chains written
//! out. Separate because servers' error bodies are hostile input of their own.

use std::time::Duration;

use super::retry::{AttemptFailure, retryable_status, server_wait};
use crate::model::ModelError;

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

pub(super) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}
