//! brood's provider-neutral request as a Chat Completions body. The formats differ
//! in where tool results live: brood keeps them as blocks of a user message, Chat
//! Completions wants one `tool` message per result, placed right after the
//! assistant message that asked for them.

use serde_json::{Value, json};

use crate::model::{ContentBlock, Message, ModelRequest, Role};

/// How the output limit is named. OpenAI deprecated `max_tokens`, and its
/// reasoning models (o-series, gpt-5) refuse it; the servers that copy the format
/// (Ollama, vLLM, llama.cpp) know `max_tokens` for sure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenLimit {
    MaxTokens,
    MaxCompletionTokens,
}

impl TokenLimit {
    /// `max_completion_tokens` for OpenAI's own API, `max_tokens` elsewhere.
    pub fn for_base_url(base_url: &str) -> Self {
        let host = base_url
            .split("://")
            .nth(1)
            .unwrap_or(base_url)
            .split(['/', ':'])
            .next()
            .unwrap_or("");
        match host.eq_ignore_ascii_case("api.openai.com") {
            true => TokenLimit::MaxCompletionTokens,
            false => TokenLimit::MaxTokens,
        }
    }

    fn field(self) -> &'static str {
        match self {
            TokenLimit::MaxTokens => "max_tokens",
            TokenLimit::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// The JSON body of `POST /chat/completions`, streaming with usage.
pub fn body(request: &ModelRequest, limit: TokenLimit) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    for message in request.messages.iter() {
        match message.role {
            Role::User => user_messages(message, &mut messages),
            Role::Assistant => messages.push(assistant_message(message)),
        }
    }
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    body[limit.field()] = json!(request.max_tokens);
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.input_schema,
                    }
                })
            })
            .collect();
    }
    body
}

/// A user turn: its tool results first (each its own `tool` message, since they
/// must directly follow the assistant's calls), then its text, if any.
fn user_messages(message: &Message, out: &mut Vec<Value>) {
    let mut text = String::new();
    let mut results = 0;
    for block in &message.content {
        match block {
            ContentBlock::Text { text: t } => text.push_str(t),
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                results += 1;
                // The format has no error flag, so the model is told in words.
                let content = match is_error {
                    true => format!("Error: {content}"),
                    false => content.clone(),
                };
                out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}));
            }
            // A user message never holds calls or reasoning; nothing to send.
            ContentBlock::ToolUse { .. }
            | ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. } => {}
        }
    }
    if !text.is_empty() || results == 0 {
        out.push(json!({"role": "user", "content": text}));
    }
}

/// An assistant turn: its text (or `null` when it only called tools) and its
/// calls, with arguments as the JSON string the format requires.
fn assistant_message(message: &Message) -> Value {
    let calls: Vec<Value> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolUse { id, name, input } => Some(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments(input)},
            })),
            // Reasoning is not sent back: these servers refuse it or ignore it.
            ContentBlock::Text { .. }
            | ContentBlock::ToolResult { .. }
            | ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. } => None,
        })
        .collect();
    let text = message.text();
    let mut out = json!({"role": "assistant"});
    out["content"] = match (text.is_empty(), calls.is_empty()) {
        (true, false) => Value::Null,
        _ => Value::String(text),
    };
    if !calls.is_empty() {
        out["tool_calls"] = Value::Array(calls);
    }
    out
}

/// Arguments the model sent as unparsable text are kept by brood as a JSON
/// string; they go back verbatim so the model sees what it wrote.
fn arguments(input: &Value) -> String {
    match input {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::AgentId;
    use crate::model::ToolSpec;

    fn request(messages: Vec<Message>) -> ModelRequest<'static> {
        ModelRequest {
            agent: AgentId::Main,
            model: "gpt-test".into(),
            system: "be brief".into(),
            messages: messages.into(),
            tools: vec![ToolSpec {
                name: "grep".into(),
                description: "search".into(),
                input_schema: json!({"type": "object"}),
            }]
            .into(),
            max_tokens: 512,
        }
    }

    #[test]
    fn a_tool_round_trip_becomes_assistant_calls_then_tool_messages() {
        let body = body(
            &request(vec![
                Message::user_text("find it"),
                Message {
                    role: Role::Assistant,
                    content: vec![
                        ContentBlock::ToolUse {
                            id: "c1".into(),
                            name: "grep".into(),
                            input: json!({"pattern": "x"}),
                        },
                        ContentBlock::ToolUse {
                            id: "c2".into(),
                            name: "grep".into(),
                            input: Value::String("{\"pattern\": ".into()),
                        },
                    ],
                },
                Message {
                    role: Role::User,
                    content: vec![
                        ContentBlock::Text {
                            text: "also this".into(),
                        },
                        ContentBlock::ToolResult {
                            tool_use_id: "c1".into(),
                            content: "a.rs:1".into(),
                            is_error: false,
                        },
                        ContentBlock::ToolResult {
                            tool_use_id: "c2".into(),
                            content: "bad arguments".into(),
                            is_error: true,
                        },
                    ],
                },
            ]),
            TokenLimit::MaxTokens,
        );
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "find it"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\":\"x\"}"}},
                    {"id": "c2", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\": "}},
                ]},
                {"role": "tool", "tool_call_id": "c1", "content": "a.rs:1"},
                {"role": "tool", "tool_call_id": "c2", "content": "Error: bad arguments"},
                {"role": "user", "content": "also this"},
            ])
        );
        assert_eq!(body["stream"], json!(true));
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
        assert_eq!(body["max_tokens"], json!(512));
        assert_eq!(
            body["tools"][0]["function"]["parameters"],
            json!({"type": "object"})
        );
    }

    #[test]
    fn no_tools_and_no_system_leave_both_out() {
        let mut req = request(vec![Message {
            role: Role::Assistant,
            content: vec![ContentBlock::Text { text: "hi".into() }],
        }]);
        req.tools = Vec::new().into();
        req.system = "".into();
        let body = body(&req, TokenLimit::MaxCompletionTokens);
        assert!(body.get("tools").is_none());
        assert!(body.get("max_tokens").is_none());
        assert_eq!(body["max_completion_tokens"], json!(512));
        assert_eq!(
            body["messages"],
            json!([{"role": "assistant", "content": "hi"}])
        );
    }

    #[test]
    fn only_openai_itself_gets_max_completion_tokens() {
        for (url, limit) in [
            ("https://api.openai.com/v1", TokenLimit::MaxCompletionTokens),
            (
                "https://API.openai.com:443/v1/",
                TokenLimit::MaxCompletionTokens,
            ),
            ("http://localhost:11434/v1", TokenLimit::MaxTokens),
            (
                "https://api.openai.com.example.net/v1",
                TokenLimit::MaxTokens,
            ),
            ("http://127.0.0.1:8000/v1", TokenLimit::MaxTokens),
        ] {
            assert_eq!(TokenLimit::for_base_url(url), limit, "{url}");
        }
    }
}
