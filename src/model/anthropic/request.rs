//! brood's provider-neutral history turned into a Messages API request body.
//! The API is strict about shapes that brood's history can legitimately hold,
//! so this is where they are made valid: empty text blocks are dropped (the API
//! rejects them), a message left with no blocks is dropped and same-role
//! neighbours are merged, and a tool input that is not a JSON object (brood keeps
//! unparsable arguments as a raw string) is sent as `{}`.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::model::{ContentBlock, ModelRequest, Role};

#[derive(Debug, Serialize)]
pub(super) struct WireRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    system: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    stream: bool,
}

#[derive(Debug, Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: Vec<WireBlock<'a>>,
}

#[derive(Debug, Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlock<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Cow<'a, Value>,
    },
    ToolResult {
        tool_use_id: &'a str,
        /// Left out when empty: an empty result is valid without it, and some
        /// versions of the API reject empty text.
        #[serde(skip_serializing_if = "str::is_empty")]
        content: &'a str,
        #[serde(skip_serializing_if = "is_false")]
        is_error: bool,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The streaming request for `request`.
pub(super) fn wire_request(request: &ModelRequest) -> WireRequest<'_> {
    let mut messages: Vec<WireMessage> = Vec::with_capacity(request.messages.len());
    for message in &request.messages {
        let content: Vec<WireBlock> = message.content.iter().filter_map(wire_block).collect();
        if content.is_empty() {
            continue;
        }
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        // Dropping an empty message can leave two turns of one role side by
        // side; one turn with both contents is what the API means by that.
        match messages.last_mut() {
            Some(last) if last.role == role => last.content.extend(content),
            Some(_) | None => messages.push(WireMessage { role, content }),
        }
    }
    WireRequest {
        model: &request.model,
        max_tokens: request.max_tokens,
        system: &request.system,
        messages,
        tools: request
            .tools
            .iter()
            .map(|t| WireTool {
                name: &t.name,
                description: &t.description,
                input_schema: &t.input_schema,
            })
            .collect(),
        stream: true,
    }
}

fn wire_block(block: &ContentBlock) -> Option<WireBlock<'_>> {
    match block {
        ContentBlock::Text { text } if text.trim().is_empty() => None,
        ContentBlock::Text { text } => Some(WireBlock::Text { text }),
        ContentBlock::ToolUse { id, name, input } => Some(WireBlock::ToolUse {
            id,
            name,
            input: match input {
                Value::Object(_) => Cow::Borrowed(input),
                _ => Cow::Owned(Value::Object(Default::default())),
            },
        }),
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => Some(WireBlock::ToolResult {
            tool_use_id,
            content,
            is_error: *is_error,
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::event::AgentId;
    use crate::model::{Message, ToolSpec};

    fn request(messages: Vec<Message>, tools: Vec<ToolSpec>, system: &str) -> ModelRequest {
        ModelRequest {
            agent: AgentId::Main,
            model: "claude-test".into(),
            system: system.into(),
            messages,
            tools,
            max_tokens: 1024,
        }
    }

    fn body(request: &ModelRequest) -> Value {
        serde_json::to_value(wire_request(request)).unwrap()
    }

    #[test]
    fn a_plain_request_has_the_documented_shape() {
        let r = request(vec![Message::user_text("hi")], vec![], "be brief");
        assert_eq!(
            body(&r),
            json!({
                "model": "claude-test",
                "max_tokens": 1024,
                "system": "be brief",
                "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                "stream": true,
            })
        );
    }

    #[test]
    fn empty_system_and_tools_are_left_out_and_tools_carry_their_schema() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
        let tool = ToolSpec {
            name: "read_file".into(),
            description: "Reads a file.".into(),
            input_schema: schema.clone(),
        };
        let b = body(&request(vec![Message::user_text("hi")], vec![tool], ""));
        assert!(b.get("system").is_none());
        assert_eq!(
            b["tools"],
            json!([{"name": "read_file", "description": "Reads a file.", "input_schema": schema}])
        );
        let b = body(&request(vec![Message::user_text("hi")], vec![], ""));
        assert!(b.get("tools").is_none());
    }

    #[test]
    fn tool_uses_and_results_map_and_is_error_only_when_true() {
        let messages = vec![
            Message::user_text("look"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Text { text: "".into() },
                    ContentBlock::ToolUse {
                        id: "toolu_1".into(),
                        name: "glob".into(),
                        input: json!({"pattern": "*.rs"}),
                    },
                    ContentBlock::ToolUse {
                        id: "toolu_2".into(),
                        name: "grep".into(),
                        input: Value::String("{\"pattern\": \"cut".into()),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "toolu_1".into(),
                        content: "a.rs".into(),
                        is_error: false,
                    },
                    ContentBlock::ToolResult {
                        tool_use_id: "toolu_2".into(),
                        content: "bad arguments".into(),
                        is_error: true,
                    },
                    ContentBlock::ToolResult {
                        tool_use_id: "toolu_3".into(),
                        content: "".into(),
                        is_error: false,
                    },
                ],
            },
        ];
        let b = body(&request(messages, vec![], ""));
        assert_eq!(
            b["messages"][1],
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "glob", "input": {"pattern": "*.rs"}},
                {"type": "tool_use", "id": "toolu_2", "name": "grep", "input": {}},
            ]})
        );
        assert_eq!(
            b["messages"][2],
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.rs"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "bad arguments",
                    "is_error": true},
                {"type": "tool_result", "tool_use_id": "toolu_3"},
            ]})
        );
    }

    #[test]
    fn empty_messages_are_dropped_and_their_neighbours_merged() {
        let messages = vec![
            Message::user_text("first"),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::Text { text: " \n".into() }],
            },
            Message::user_text("second"),
            Message {
                role: Role::Assistant,
                content: vec![],
            },
        ];
        let b = body(&request(messages, vec![], ""));
        assert_eq!(
            b["messages"],
            json!([{"role": "user", "content": [
                {"type": "text", "text": "first"},
                {"type": "text", "text": "second"},
            ]}])
        );
    }
}
