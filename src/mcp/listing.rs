//! `brood mcp`: the servers, their state and tools, as a table or JSON lines.

use serde_json::json;

use super::{ServerState, ServerStatus};

/// One JSON object for a server.
pub fn status_json(server: &ServerStatus) -> serde_json::Value {
    let (state, error, tools) = match &server.state {
        ServerState::Ready { tools } => ("ready", None, tools.as_slice()),
        ServerState::Failed { error } => ("failed", Some(error.as_str()), &[][..]),
    };
    json!({
        "name": server.name,
        "transport": server.transport,
        "source": server.source,
        "state": state,
        "error": error,
        "tools": tools.iter().map(|t| json!({
            "name": format!("mcp__{}__{}", server.name, t.name),
            "description": t.description,
            "read_only": t.read_only,
            "schema_reduced": super::schema_reduced(&t.input_schema),
        })).collect::<Vec<_>>(),
    })
}

/// The servers as people read them: a line each, then its tools.
pub fn render_status(servers: &[ServerStatus]) -> String {
    if servers.is_empty() {
        return "no MCP servers configured (.mcp.json, ~/.claude.json, [mcp_servers] in brood.toml)\n".into();
    }
    let mut out = String::new();
    for server in servers {
        let state = match &server.state {
            ServerState::Ready { tools } => {
                format!("ready · {}", crate::text::count(tools.len() as u64, "tool"))
            }
            ServerState::Failed { error } => format!("failed: {}", crate::text::visible(error)),
        };
        out.push_str(&format!(
            "{}  {}  {}  ({})\n",
            server.name, server.transport, state, server.source
        ));
        if let ServerState::Ready { tools } = &server.state {
            for tool in tools {
                let read_only = if tool.read_only { "  [read-only]" } else { "" };
                let reduced = match super::schema_reduced(&tool.input_schema) {
                    Some(_) => "  [schema reduced]",
                    None => "",
                };
                let description =
                    crate::text::visible(tool.description.lines().next().unwrap_or(""));
                out.push_str(&format!(
                    "  mcp__{}__{}{read_only}{reduced}  {description}\n",
                    server.name, tool.name
                ));
            }
        }
    }
    out
}
