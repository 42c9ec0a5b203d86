//! One MCP server tool as one of brood's tools: `mcp__<server>__<tool>`.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::{McpError, McpHub, ServerTool};
use crate::protocol::ToolKind;
use crate::tools::{Tool, ToolContext, ToolError};

/// A tool result longer than this many characters is cut, like other tools'.
const MAX_RESULT_CHARS: usize = 50_000;

pub struct McpTool {
    hub: Arc<McpHub>,
    server: usize,
    /// `mcp__<server>__<tool>`, what the model calls.
    name: String,
    tool: Arc<ServerTool>,
}

impl McpTool {
    /// Whether its server marks it read-only.
    pub fn is_read_only(&self) -> bool {
        self.tool.read_only
    }

    pub(super) fn new(
        hub: Arc<McpHub>,
        server: usize,
        server_name: &str,
        tool: Arc<ServerTool>,
    ) -> McpTool {
        McpTool {
            hub,
            server,
            name: format!("mcp__{server_name}__{}", tool.name),
            tool,
        }
    }
}

/// What [`model_schema`] had to do to `schema`, for people; `None` when it
/// took it as it was.
pub fn schema_reduced(schema: &Value) -> Option<&'static str> {
    match schema {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => None,
        Value::Object(map) if !map.contains_key("type") && map.contains_key("properties") => {
            Some("its input schema has no `type`; offered as an object schema")
        }
        _ => Some("its input schema is not an object schema; offered without parameters"),
    }
}

/// The server's schema as the providers take it: an object schema at the
/// top. Anything else is wrapped, so the tool is offered, not dropped.
fn model_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => {
            schema.clone()
        }
        Value::Object(map) if !map.contains_key("type") && map.contains_key("properties") => {
            let mut map = map.clone();
            map.insert("type".into(), "object".into());
            Value::Object(map)
        }
        _ => serde_json::json!({"type": "object", "properties": {}}),
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.tool.description
    }

    fn input_schema(&self) -> Value {
        model_schema(&self.tool.input_schema)
    }

    fn kind(&self) -> ToolKind {
        ToolKind::External {
            read_only: self.tool.read_only,
        }
    }

    /// The arguments, on one line: the name already says server and tool.
    fn summarize(&self, input: &Value) -> String {
        let args = input.to_string();
        match args.chars().count() > 100 {
            true => format!("{}…", args.chars().take(99).collect::<String>()),
            false => args,
        }
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let call = self.hub.call(self.server, &self.tool.name, input);
        let result = tokio::select! {
            result = call => result,
            () = ctx.cancel.cancelled() => return Err(ToolError::Interrupted),
        };
        let server = self.hub.server_name(self.server);
        match result {
            Ok(result) => {
                let text = result_text(&result);
                match result.get("isError").and_then(Value::as_bool) {
                    Some(true) => Err(ToolError::Failed(text)),
                    _ => Ok(text),
                }
            }
            Err(e @ McpError::Gone) => Err(ToolError::Failed(format!(
                "MCP server {server}: {e}; its tools are withdrawn"
            ))),
            Err(e) => Err(ToolError::Failed(format!("MCP server {server}: {e}"))),
        }
    }
}

/// A call's result as text for the model: text blocks as they are, other
/// blocks as a placeholder saying what they were.
fn result_text(result: &Value) -> String {
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut parts: Vec<String> = blocks.iter().map(block_text).collect();
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null())
    {
        parts.push(structured.to_string());
    }
    let text = parts.join("\n");
    let total = text.chars().count();
    if total <= MAX_RESULT_CHARS {
        return text;
    }
    let kept: String = text.chars().take(MAX_RESULT_CHARS).collect();
    format!("{kept}\n[cut: {MAX_RESULT_CHARS} of {total} characters shown]")
}

fn block_text(block: &Value) -> String {
    let str_at = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
    match str_at("type") {
        "text" => str_at("text").to_string(),
        "image" | "audio" => {
            // base64: four characters carry three bytes.
            let bytes = str_at("data").len() / 4 * 3;
            format!(
                "[{}: {}, {bytes} bytes]",
                str_at("type"),
                str_at("mimeType")
            )
        }
        "resource_link" => format!("[resource link: {} {}]", str_at("name"), str_at("uri")),
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => text.to_string(),
                None => format!(
                    "[resource: {}]",
                    resource
                        .get("uri")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                ),
            }
        }
        other => format!("[{other} content]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_read_as_text_with_placeholders_for_the_rest() {
        let result = json!({"content": [
            {"type": "text", "text": "two issues"},
            {"type": "image", "mimeType": "image/png", "data": "AAAAAAAA"},
            {"type": "resource_link", "name": "spec", "uri": "file:///spec.md"},
            {"type": "resource", "resource": {"uri": "mem://a", "text": "inline"}},
            {"type": "resource", "resource": {"uri": "mem://b", "blob": "AA=="}}
        ]});
        assert_eq!(
            result_text(&result),
            "two issues\n[image: image/png, 6 bytes]\n[resource link: spec file:///spec.md]\ninline\n[resource: mem://b]"
        );
        assert_eq!(
            result_text(&json!({"content": [], "structuredContent": {"n": 2}})),
            "{\"n\":2}"
        );
        let long = result_text(&json!({"content": [{"type": "text", "text": "x".repeat(60_000)}]}));
        assert!(long.ends_with("[cut: 50000 of 60000 characters shown]"));
    }

    #[test]
    fn schemas_the_providers_reject_are_reduced_not_dropped() {
        let ok = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        assert_eq!(model_schema(&ok), ok);
        assert_eq!(
            model_schema(&json!({"properties": {"q": {"type": "string"}}})),
            json!({"properties": {"q": {"type": "string"}}, "type": "object"})
        );
        assert_eq!(
            model_schema(&json!({"type": "string"})),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            model_schema(&Value::Null),
            json!({"type": "object", "properties": {}})
        );
    }
}
