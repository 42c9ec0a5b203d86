//! The adapter over `rmcp`, the one file that names it: its API has broken
//! twice in 2026, so what it gives back is read as JSON into our own types.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use tokio::sync::Notify;

use super::McpError;
use crate::config::mcp::{McpServerConfig, McpTransport};

/// A tool as its server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// The server's `readOnlyHint`.
    pub read_only: bool,
}

/// What the client does with what a server tells it: a changed tool list
/// is passed on to whoever waits on `changed`.
struct Listener {
    changed: Arc<Notify>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
}

/// A started server.
pub struct Connection {
    service: RunningService<RoleClient, Listener>,
    changed: Arc<Notify>,
    /// A stdio server's process group, killed with the connection.
    _group: Option<Group>,
}

/// A stdio server's process group, made for it alone: killed when dropped,
/// so a handshake that fails or times out leaves no process behind either.
struct Group(i32);

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: kill(2) with a negative pid signals that process group.
        unsafe {
            libc::kill(-self.0, libc::SIGKILL);
        }
    }
}

/// Says hello over `transport`; `group` goes with the connection, or is
/// killed if there is none.
async fn handshake<T, E, A>(transport: T, group: Option<Group>) -> Result<Connection, McpError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let changed = Arc::new(Notify::new());
    let listener = Listener {
        changed: changed.clone(),
    };
    let service = listener
        .serve(transport)
        .await
        .map_err(|e| McpError::Handshake(e.to_string()))?;
    Ok(Connection {
        service,
        changed,
        _group: group,
    })
}

/// Starts `config`'s server and says hello, within its startup timeout.
pub async fn connect(config: &McpServerConfig) -> Result<Connection, McpError> {
    let started = tokio::time::timeout(config.startup_timeout, start(config)).await;
    match started {
        Ok(result) => result,
        Err(_) => Err(McpError::StartTimeout(config.startup_timeout)),
    }
}

async fn start(config: &McpServerConfig) -> Result<Connection, McpError> {
    match &config.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args);
            // A server gets brood's environment but never its keys, unless
            // its config hands one over by name.
            for (name, _) in std::env::vars_os() {
                if crate::config::is_secret_var(&name.to_string_lossy()) {
                    cmd.env_remove(&name);
                }
            }
            for (name, value) in env {
                cmd.env(name, value.expose());
            }
            if let Some(dir) = cwd {
                cmd.current_dir(dir);
            }
            // Its own group: Ctrl-C in the terminal is brood's to handle, and
            // the whole group goes when the connection does.
            cmd.process_group(0).kill_on_drop(true);
            crate::huge_pages::give_back(cmd.as_std_mut());
            let (process, stderr) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| McpError::Spawn(format!("{command}: {e}")))?;
            let group = process.id().map(|id| Group(id as i32));
            if let Some(stderr) = stderr {
                let name = config.name.clone();
                // What the server prints goes to the log, never its secrets
                // (a server that prints its environment prints them).
                let secrets: Vec<String> = env
                    .iter()
                    .map(|(_, v)| v.expose().to_string())
                    .filter(|v| v.len() >= 4)
                    .collect();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        let line = secrets.iter().fold(line, |line, secret| {
                            line.replace(secret.as_str(), "[redacted]")
                        });
                        tracing::debug!(server = %name, "mcp stderr: {}", crate::text::visible(&line));
                    }
                });
            }
            handshake(process, group).await
        }
        McpTransport::Http { url, headers } => {
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            let mut custom = std::collections::HashMap::new();
            for (name, value) in headers {
                let value = value.expose();
                match (
                    name.eq_ignore_ascii_case("authorization"),
                    value.strip_prefix("Bearer "),
                ) {
                    (true, Some(token)) => config = config.auth_header(token.to_string()),
                    _ => {
                        let header = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                            .map_err(|e| McpError::Config(format!("header {name}: {e}")))?;
                        let value =
                            reqwest::header::HeaderValue::from_str(value).map_err(|_| {
                                McpError::Config(format!("header {name}: not a valid value"))
                            })?;
                        custom.insert(header, value);
                    }
                }
            }
            let client = crate::model::http::client_builder()
                .build()
                .map_err(|e| McpError::Config(e.to_string()))?;
            let transport =
                StreamableHttpClientTransport::with_client(client, config.custom_headers(custom));
            handshake(transport, None).await
        }
    }
}

impl Connection {
    /// The server's tools, every page of them.
    pub async fn tools(&self) -> Result<Vec<ServerTool>, McpError> {
        let tools = self
            .service
            .list_all_tools()
            .await
            .map_err(|e| McpError::Call(e.to_string()))?;
        Ok(tools
            .iter()
            .filter_map(|tool| serde_json::to_value(tool).ok())
            .filter_map(|tool| {
                Some(ServerTool {
                    name: tool.get("name")?.as_str()?.to_string(),
                    description: tool
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    input_schema: tool.get("inputSchema").cloned().unwrap_or(Value::Null),
                    read_only: tool
                        .pointer("/annotations/readOnlyHint")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                })
            })
            .collect())
    }

    /// Calls `tool` with `arguments`, within `timeout`; the result as JSON
    /// (`content`, `structuredContent`, `isError`).
    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        let arguments = match arguments {
            Value::Object(map) => map,
            Value::Null => serde_json::Map::new(),
            other => {
                return Err(McpError::Call(format!(
                    "arguments must be an object, not {other}"
                )));
            }
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        match tokio::time::timeout(timeout, self.service.call_tool(params)).await {
            Ok(Ok(result)) => {
                serde_json::to_value(&result).map_err(|e| McpError::Call(e.to_string()))
            }
            Ok(Err(rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_))) => {
                Err(McpError::Gone)
            }
            Ok(Err(e)) => Err(McpError::Call(e.to_string())),
            Err(_) => Err(McpError::CallTimeout(timeout)),
        }
    }

    /// Woken when the server says its tool list changed.
    pub fn changed(&self) -> Arc<Notify> {
        self.changed.clone()
    }

    /// Whether the server has gone (crashed, closed its end).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed()
    }
}
