//! A model that replays replies from a JSON script, for tests and reproducible
//! demos. It goes through exactly the same loop, tools, policy and trace as a real
//! provider; only the words come from a file.
//!
//! ```json
//! {
//!   "agents": {
//!     "main": [
//!       {"text": "Let me look.", "tool_calls": [{"name": "glob", "input": {"pattern": "*.rs"}}]},
//!       {"text": "There is one Rust file."}
//!     ]
//!   }
//! }
//! ```
//!
//! A bare array is shorthand for the replies of `main`. Each reply may also set
//! `usage` (`input_tokens`, `output_tokens`), `stop_reason` (`end_turn`,
//! `tool_use`, `max_tokens`), `error` (the call fails with this message) and
//! `chunk_delay_ms` (pause between streamed words, for demos).

use crate::protocol::estimate_tokens;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{
    ContentBlock, Message, Model, ModelError, ModelRequest, ModelResponse, Role, StopReason,
    StreamSink,
};
use crate::event::{AgentId, Usage};

/// Where a script's format is described, for the errors about one.
const SCRIPT_HELP: &str = "The README's \"Scripted model\" section shows the format.";

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("script {path}: no such file")]
    Missing { path: String },
    #[error("cannot read script {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("script {path} is not valid: {source}\n{SCRIPT_HELP}")]
    Parse {
        path: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("script {path}: {message}\n{SCRIPT_HELP}")]
    Invalid { path: String, message: String },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default = "empty_object")]
    input: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedUsage {
    input_tokens: u64,
    output_tokens: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedReply {
    #[serde(default)]
    text: String,
    #[serde(default)]
    tool_calls: Vec<ScriptedCall>,
    #[serde(default)]
    usage: Option<ScriptedUsage>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    chunk_delay_ms: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    #[serde(default)]
    #[allow(dead_code)]
    description: String,
    agents: HashMap<String, Vec<ScriptedReply>>,
}

/// Replies per agent, consumed in order.
pub struct ScriptedModel {
    replies: HashMap<AgentId, Vec<ScriptedReply>>,
    cursor: Mutex<HashMap<AgentId, usize>>,
}

impl ScriptedModel {
    pub fn from_file(path: &Path) -> Result<Self, ScriptError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => ScriptError::Missing {
                path: shown.clone(),
            },
            _ => ScriptError::Read {
                path: shown.clone(),
                source,
            },
        })?;
        Self::from_json(&text).map_err(|e| match e {
            ScriptError::Parse { source, .. } => ScriptError::Parse {
                path: shown,
                source,
            },
            ScriptError::Invalid { message, .. } => ScriptError::Invalid {
                path: shown,
                message,
            },
            other @ (ScriptError::Read { .. } | ScriptError::Missing { .. }) => other,
        })
    }

    pub fn from_json(text: &str) -> Result<Self, ScriptError> {
        let parse_error = |source| ScriptError::Parse {
            path: "<inline>".into(),
            source,
        };
        // Parsed in two steps so that a typo names the field instead of "did not
        // match any variant".
        let value: Value = serde_json::from_str(text).map_err(parse_error)?;
        let agents = if value.is_array() {
            let replies = serde_json::from_value(value).map_err(parse_error)?;
            HashMap::from([("main".to_string(), replies)])
        } else {
            serde_json::from_value::<ScriptFile>(value)
                .map_err(parse_error)?
                .agents
        };
        let mut replies = HashMap::new();
        for (name, list) in agents {
            let id: AgentId =
                name.parse()
                    .map_err(|e: crate::event::AgentIdError| ScriptError::Invalid {
                        path: "<inline>".into(),
                        message: e.to_string(),
                    })?;
            replies.insert(id, list);
        }
        Ok(ScriptedModel {
            replies,
            cursor: Mutex::new(HashMap::new()),
        })
    }

    /// Takes the next reply for `agent`, or says why there is none.
    fn next_reply(&self, agent: AgentId) -> Result<(usize, ScriptedReply), ModelError> {
        let mut cursor = self.cursor.lock().unwrap_or_else(|e| e.into_inner());
        let index = cursor.entry(agent).or_insert(0);
        let list = self.replies.get(&agent).map(Vec::as_slice).unwrap_or(&[]);
        let reply = list.get(*index).cloned().ok_or_else(|| {
            ModelError::Script(format!(
                "the script has no reply left for {agent} (it has {})",
                list.len()
            ))
        })?;
        *index += 1;
        Ok((*index, reply))
    }
}

#[async_trait]
impl Model for ScriptedModel {
    fn provider(&self) -> &str {
        "scripted"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ModelError> {
        let (number, reply) = self.next_reply(request.agent)?;
        if let Some(message) = reply.error {
            return Err(ModelError::Script(message));
        }
        for word in reply.text.split_inclusive(' ') {
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            if reply.chunk_delay_ms > 0 {
                tokio::select! {
                    _ = cancel.cancelled() => return Err(ModelError::Cancelled),
                    _ = tokio::time::sleep(Duration::from_millis(reply.chunk_delay_ms)) => {}
                }
            }
            sink.text_delta(word);
        }
        let mut content = Vec::new();
        if !reply.text.is_empty() {
            content.push(ContentBlock::Text {
                text: reply.text.clone(),
            });
        }
        for (i, call) in reply.tool_calls.iter().enumerate() {
            content.push(ContentBlock::ToolUse {
                id: call
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{}_{number}_{i}", request.agent)),
                name: call.name.clone(),
                input: call.input.clone(),
            });
        }
        let usage = match reply.usage {
            Some(u) => Usage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                ..Usage::default()
            },
            None => Usage {
                input_tokens: request.estimate_input_tokens(),
                output_tokens: estimate_tokens(&reply.text)
                    + reply
                        .tool_calls
                        .iter()
                        .map(|c| estimate_tokens(&c.input.to_string()))
                        .sum::<u64>(),
                estimated: true,
                ..Usage::default()
            },
        };
        let stop_reason = match reply.stop_reason.as_deref() {
            Some("max_tokens") => StopReason::MaxTokens,
            Some("end_turn") => StopReason::EndTurn,
            Some("tool_use") => StopReason::ToolUse,
            Some(other) => StopReason::Other(other.to_string()),
            None if reply.tool_calls.is_empty() => StopReason::EndTurn,
            None => StopReason::ToolUse,
        };
        Ok(ModelResponse {
            message: Message {
                role: Role::Assistant,
                content,
            },
            usage,
            stop_reason,
        })
    }
}

/// A scripted model that keeps every request it was sent, for tests that
/// look at what an agent asked.
#[cfg(test)]
pub(crate) struct Recording {
    pub inner: ScriptedModel,
    pub requests: Mutex<Vec<ModelRequest<'static>>>,
}

#[cfg(test)]
impl Recording {
    pub fn new(script: &Value) -> Recording {
        Recording {
            inner: ScriptedModel::from_json(&script.to_string()).expect("a valid script"),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// The messages of each request `agent` sent, in order.
    pub fn messages_of(&self, agent: AgentId) -> Vec<Vec<Message>> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|r| r.agent == agent)
            .map(|r| r.messages.to_vec())
            .collect()
    }
}

#[cfg(test)]
#[async_trait]
impl Model for Recording {
    fn provider(&self) -> &str {
        "scripted"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        sink: &mut dyn StreamSink,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ModelError> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.to_owned_request());
        self.inner.complete(request, sink, cancel).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Collect(String);
    impl StreamSink for Collect {
        fn text_delta(&mut self, text: &str) {
            self.0.push_str(text);
        }
    }

    fn request(agent: AgentId) -> ModelRequest<'static> {
        ModelRequest {
            agent,
            model: "scripted".into(),
            system: "".into(),
            messages: vec![Message::user_text("hi")].into(),
            tools: vec![].into(),
            max_tokens: 1000,
        }
    }

    #[tokio::test]
    async fn replies_are_consumed_per_agent_in_order() {
        let model = ScriptedModel::from_json(
            r#"{"agents": {"main": [{"text": "one two", "tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}, {"text": "done"}],
                           "sub-1": [{"text": "child", "usage": {"input_tokens": 7, "output_tokens": 3}}]}}"#,
        )
        .unwrap();
        let cancel = CancellationToken::new();
        let mut sink = Collect(String::new());
        let first = model
            .complete(&request(AgentId::Main), &mut sink, &cancel)
            .await
            .unwrap();
        assert_eq!(sink.0, "one two");
        assert_eq!(first.stop_reason, StopReason::ToolUse);
        assert_eq!(first.message.tool_calls()[0].name, "glob");
        assert!(first.usage.estimated);
        let child = model
            .complete(&request(AgentId::Sub(1)), &mut sink, &cancel)
            .await
            .unwrap();
        assert_eq!(child.usage.input_tokens, 7);
        assert!(!child.usage.estimated);
        let second = model
            .complete(&request(AgentId::Main), &mut sink, &cancel)
            .await
            .unwrap();
        assert_eq!(second.message.text(), "done");
        let err = model
            .complete(&request(AgentId::Main), &mut sink, &cancel)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("no reply left for main"), "{err}");
    }

    #[test]
    fn bad_scripts_are_reported() {
        assert!(ScriptedModel::from_json("{").is_err());
        assert!(ScriptedModel::from_json(r#"{"agents": {"boss": []}}"#).is_err());
        let err = ScriptedModel::from_json(r#"[{"txt": "typo"}]"#)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("unknown field `txt`"), "{err}");
    }
}
