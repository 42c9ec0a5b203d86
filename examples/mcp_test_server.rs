//! An MCP server for brood's tests, on rmcp's server side, over stdio: tools
//! with nested schemas, a slow one, one that fails, one that crashes the
//! server, a read-only one, and one that tells an environment variable (to
//! show that secrets are cut from what brood keeps).
//!
//! `MCP_TEST_HANG=1` makes it never answer the handshake; `MCP_TEST_LOG=FILE`
//! appends each call's name and arguments to FILE.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// `extra`: whether `add_tool` was called, adding the tool `extra`.
struct TestServer {
    extra: std::sync::atomic::AtomicBool,
}

fn tool(value: Value) -> Tool {
    serde_json::from_value(value).expect("a tool")
}

fn result(value: Value) -> CallToolResult {
    serde_json::from_value(value).expect("a result")
}

fn tools(extra: bool) -> Vec<Tool> {
    let mut tools = vec![
        tool(json!({"name": "echo", "description": "Says the text back.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}})),
        tool(
            json!({"name": "search", "description": "Searches with nested filters.",
            "inputSchema": {"type": "object", "properties": {
                "query": {"type": "object", "properties": {
                    "terms": {"type": "array", "items": {"type": "string"}},
                    "filters": {"type": "object", "properties": {"since": {"type": "string"}, "limit": {"type": "integer"}}}
                }, "required": ["terms"]}
            }, "required": ["query"]}}),
        ),
        tool(
            json!({"name": "docs", "description": "Reads the documentation.",
            "annotations": {"readOnlyHint": true},
            "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}}}}),
        ),
        tool(
            json!({"name": "slow", "description": "Waits a number of seconds.",
            "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}}),
        ),
        tool(json!({"name": "fail", "description": "Always fails.",
            "inputSchema": {"type": "object", "properties": {}}})),
        tool(json!({"name": "crash", "description": "Ends the server.",
            "inputSchema": {"type": "object", "properties": {}}})),
        tool(json!({"name": "token", "description": "Tells TEST_TOKEN.",
            "inputSchema": {"type": "object", "properties": {}}})),
        tool(
            json!({"name": "odd", "description": "Has a schema that is not an object schema.",
            "inputSchema": {"type": "string"}}),
        ),
        tool(
            json!({"name": "add_tool", "description": "Adds the tool `extra` and says the list changed.",
            "inputSchema": {"type": "object", "properties": {}}}),
        ),
    ];
    if extra {
        tools.push(tool(
            json!({"name": "extra", "description": "Exists once add_tool ran.",
            "inputSchema": {"type": "object", "properties": {}}}),
        ));
    }
    tools
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> InitializeResult {
        let capabilities: ServerCapabilities =
            serde_json::from_value(json!({"tools": {"listChanged": true}})).expect("capabilities");
        InitializeResult::new(capabilities)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let extra = self.extra.load(std::sync::atomic::Ordering::SeqCst);
        Ok(ListToolsResult::with_all_items(tools(extra)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        if let Ok(log) = std::env::var("MCP_TEST_LOG") {
            use std::io::Write;
            if let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
            {
                let _ = writeln!(file, "{} {args}", request.name);
            }
        }
        let text = |t: String| result(json!({"content": [{"type": "text", "text": t}]}));
        let done = match request.name.as_ref() {
            "echo" => text(format!(
                "echo: {}",
                args["text"].as_str().unwrap_or_default()
            )),
            "search" => text(format!("searched {}", args["query"])),
            "docs" => text(format!(
                "docs about {}",
                args["topic"].as_str().unwrap_or("everything")
            )),
            "slow" => {
                let seconds = args["seconds"].as_f64().unwrap_or(1.0);
                tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)).await;
                text(format!("slept {seconds} s"))
            }
            "fail" => result(
                json!({"content": [{"type": "text", "text": "it failed on purpose"}], "isError": true}),
            ),
            "crash" => std::process::exit(3),
            "token" => text(format!(
                "token is {}",
                std::env::var("TEST_TOKEN").unwrap_or_default()
            )),
            "add_tool" => {
                self.extra.store(true, std::sync::atomic::Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                text("added extra".into())
            }
            "extra" => text("extra works".into()),
            _ => return Err(ErrorData::invalid_params("no such tool", None)),
        };
        Ok(CallToolResponse::Complete(done))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // A server that prints its secrets: brood's log must not keep them.
    eprintln!(
        "mcp test server starting, token {}",
        std::env::var("TEST_TOKEN").unwrap_or_default()
    );
    if std::env::var_os("MCP_TEST_HANG").is_some() {
        std::future::pending::<()>().await;
    }
    let server = TestServer {
        extra: std::sync::atomic::AtomicBool::new(false),
    };
    let Ok(service) = server.serve(rmcp::transport::stdio()).await else {
        std::process::exit(1);
    };
    let _ = service.waiting().await;
}
