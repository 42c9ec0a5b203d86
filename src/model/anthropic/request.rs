//! brood's provider-neutral history turned into a Messages API request body.
//! The API is strict about shapes that brood's history can legitimately hold,
//! so this is where they are made valid: empty text blocks are dropped (the API
//! rejects them), a message left with no blocks is dropped and same-role
//! neighbours are merged, and a tool input that is not a JSON object (brood keeps
//! unparsable arguments as a raw string) is sent as `{}`.
//!
//! With prompt caching on, the request marks its stable prefix with
//! `cache_control` breakpoints, four at most as the API allows: the last tool
//! (the tools are first in the prefix), the system prompt, the end of the
//! previous request's messages (where the cache written last time ends, so
//! it is read back however many blocks this turn added) and the end of this
//! one's (written for the next).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::model::http::PromptCache;
use crate::model::{ContentBlock, ModelRequest, Role};

#[derive(Debug, Serialize)]
pub(super) struct WireRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "System::is_empty")]
    system: System<'a>,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Cached<WireTool<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<ThinkingParam>,
    stream: bool,
}

/// The system prompt: plain text, or one block when it carries a breakpoint.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum System<'a> {
    Text(&'a str),
    Blocks([Cached<WireBlock<'a>>; 1]),
}

impl System<'_> {
    fn is_empty(&self) -> bool {
        match self {
            System::Text(text) => text.is_empty(),
            System::Blocks(_) => false,
        }
    }
}

/// A block or tool, with a cache breakpoint after it when marked.
#[derive(Debug, Serialize)]
struct Cached<T> {
    #[serde(flatten)]
    item: T,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<Ephemeral>,
}

impl<T> Cached<T> {
    fn plain(item: T) -> Self {
        Cached {
            item,
            cache_control: None,
        }
    }
}

/// `{"type": "ephemeral"}`: the API's one kind of breakpoint (five minutes).
#[derive(Debug, Clone, Copy, Serialize)]
struct Ephemeral {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: Ephemeral = Ephemeral { kind: "ephemeral" };

#[derive(Debug, Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: Vec<Cached<WireBlock<'a>>>,
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
    Thinking {
        thinking: &'a str,
        signature: &'a str,
    },
    RedactedThinking {
        data: &'a str,
    },
}

/// `{"type": "enabled", "budget_tokens": N}`: extended thinking.
#[derive(Debug, Serialize)]
struct ThinkingParam {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The streaming request for `request`.
pub(super) fn wire_request<'a>(
    request: &'a ModelRequest<'_>,
    cache: PromptCache,
    thinking: Option<u32>,
) -> WireRequest<'a> {
    let mut messages: Vec<WireMessage> = Vec::with_capacity(request.messages.len());
    for message in request.messages.iter() {
        let content: Vec<Cached<WireBlock>> = message
            .content
            .iter()
            .filter_map(wire_block)
            .map(Cached::plain)
            .collect();
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
    let mut tools: Vec<Cached<WireTool>> = request
        .tools
        .iter()
        .map(|t| {
            Cached::plain(WireTool {
                name: &t.name,
                description: &t.description,
                input_schema: &t.input_schema,
            })
        })
        .collect();
    let mut system = System::Text(&request.system);
    if cache == PromptCache::On {
        if let Some(last) = tools.last_mut() {
            last.cache_control = Some(EPHEMERAL);
        }
        if !request.system.is_empty() {
            system = System::Blocks([Cached {
                item: WireBlock::Text {
                    text: &request.system,
                },
                cache_control: Some(EPHEMERAL),
            }]);
        }
        // This request's end, and the previous one's: each turn adds an
        // answer and a user message.
        let n = messages.len();
        for at in [n.checked_sub(1), n.checked_sub(3)].into_iter().flatten() {
            if let Some(block) = messages[at].content.last_mut() {
                block.cache_control = Some(EPHEMERAL);
            }
        }
    }
    // The budget comes out of `max_tokens`, which must stay above it: the
    // answer keeps its own room.
    let thinking = thinking.map(|budget| ThinkingParam {
        kind: "enabled",
        budget_tokens: budget.max(1024),
    });
    WireRequest {
        model: &request.model,
        max_tokens: request.max_tokens + thinking.as_ref().map_or(0, |t| t.budget_tokens),
        system,
        messages,
        tools,
        thinking,
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
        // Only Anthropic's own, signed reasoning goes back, exactly as it
        // came; another provider's (no signature) would be refused.
        ContentBlock::Thinking { signature, .. } if signature.is_empty() => None,
        ContentBlock::Thinking {
            thinking,
            signature,
        } => Some(WireBlock::Thinking {
            thinking,
            signature,
        }),
        ContentBlock::RedactedThinking { data } => Some(WireBlock::RedactedThinking { data }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::event::AgentId;
    use crate::model::{Message, ToolSpec};

    fn request(
        messages: Vec<Message>,
        tools: Vec<ToolSpec>,
        system: &str,
    ) -> ModelRequest<'static> {
        ModelRequest {
            agent: AgentId::Main,
            model: "claude-test".into(),
            system: system.to_string().into(),
            messages: messages.into(),
            tools: tools.into(),
            max_tokens: 1024,
        }
    }

    fn body(request: &ModelRequest) -> Value {
        serde_json::to_value(wire_request(request, PromptCache::Off, None)).unwrap()
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

    /// Where the breakpoints are in a body: `tools`, `system`, or a
    /// message's index.
    fn breakpoints(b: &Value) -> Vec<String> {
        let mut at = Vec::new();
        let marked = |v: &Value| v.get("cache_control") == Some(&json!({"type": "ephemeral"}));
        if b["tools"].as_array().is_some_and(|t| t.iter().any(marked)) {
            at.push("tools".to_string());
        }
        if b["system"].as_array().is_some_and(|s| s.iter().any(marked)) {
            at.push("system".to_string());
        }
        for (i, m) in b["messages"].as_array().unwrap().iter().enumerate() {
            let blocks = m["content"].as_array().unwrap();
            assert!(
                blocks[..blocks.len() - 1].iter().all(|b| !marked(b)),
                "only a message's last block is marked"
            );
            if blocks.last().is_some_and(marked) {
                at.push(i.to_string());
            }
        }
        at
    }

    #[test]
    fn caching_marks_the_tools_the_system_and_the_ends_of_this_and_the_last_request() {
        let tool = ToolSpec {
            name: "read_file".into(),
            description: "Reads a file.".into(),
            input_schema: json!({"type": "object"}),
        };
        let turn = |n: usize| -> Vec<Message> {
            let mut messages = vec![Message::user_text("start")];
            for i in 0..n {
                messages.push(Message::assistant(format!("step {i}"), Vec::new()));
                messages.push(Message::user_text(format!("more {i}")));
            }
            messages
        };
        let cached = |r: &ModelRequest| {
            serde_json::to_value(wire_request(r, PromptCache::On, None)).unwrap()
        };
        let first = cached(&request(
            turn(0),
            vec![tool.clone(), tool.clone()],
            "be brief",
        ));
        assert_eq!(breakpoints(&first), ["tools", "system", "0"]);
        assert_eq!(first["tools"][0].get("cache_control"), None);
        assert_eq!(
            first["system"],
            json!([{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}])
        );
        let later = cached(&request(turn(5), vec![tool], "be brief"));
        assert_eq!(breakpoints(&later), ["tools", "system", "8", "10"]);
        // Off, the body is as it always was.
        let plain = body(&request(turn(5), vec![], "be brief"));
        assert!(breakpoints(&plain).is_empty());
        assert_eq!(plain["system"], "be brief");
        // No tools and no system: the messages' two breakpoints only.
        let bare = cached(&request(turn(2), vec![], ""));
        assert_eq!(breakpoints(&bare), ["2", "4"]);
        assert!(bare.get("system").is_none());
    }
}
