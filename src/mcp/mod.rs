//! Tools from Model Context Protocol servers.
//!
//! A session starts every configured server once ([`McpHub::start`], all at
//! once, each within its startup timeout) and shares them among its agents:
//! each server's tools are offered as `mcp__<server>__<tool>` ([`McpTool`]).
//! A server that fails to start is kept with its error, for the title bar and
//! `brood mcp`; one that stops later fails the calls in flight and those after
//! with an error result, and the session goes on. The `rmcp` SDK is behind
//! `client.rs` alone.

mod client;
mod listing;
mod tool;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::config::mcp::{McpServerConfig, McpTransport};
use client::Connection;
pub use client::ServerTool;
pub use listing::{render_status, status_json};
pub use tool::{McpTool, schema_reduced};

/// What went wrong with a server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    #[error("{0}")]
    Config(String),
    #[error("cannot start it: {0}")]
    Spawn(String),
    #[error("it did not answer the MCP handshake: {0}")]
    Handshake(String),
    #[error("it did not start within {} s", .0.as_secs_f64())]
    StartTimeout(Duration),
    #[error("{0}")]
    Call(String),
    #[error("no answer within {} s", .0.as_secs_f64())]
    CallTimeout(Duration),
    #[error("the server has stopped")]
    Gone,
}

/// Where a server is.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerState {
    /// Shared: every registry look hands them out again.
    Ready {
        tools: Vec<Arc<ServerTool>>,
    },
    Failed {
        error: String,
    },
}

/// One server as `brood mcp` and the title bar show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    pub name: String,
    /// The file that configured it.
    pub source: String,
    /// `stdio` or `http`.
    pub transport: &'static str,
    pub state: ServerState,
}

struct Server {
    config: McpServerConfig,
    connection: Option<Connection>,
    state: Mutex<ServerState>,
}

/// The session's MCP servers.
pub struct McpHub {
    servers: Vec<Server>,
    /// Where a server that stops is told (`mcp_server_down`), for the screen.
    bus: Option<crate::event::EventBus>,
}

impl McpHub {
    /// No servers.
    pub fn empty() -> Arc<McpHub> {
        Arc::new(McpHub {
            servers: Vec::new(),
            bus: None,
        })
    }

    /// Starts every server in `configs` at once and lists its tools.
    /// A server that stops later is told on `bus`, when given.
    pub async fn start(
        configs: Vec<McpServerConfig>,
        bus: Option<crate::event::EventBus>,
    ) -> Arc<McpHub> {
        let started = futures::future::join_all(configs.into_iter().map(|config| async move {
            let connected = async {
                let connection = client::connect(&config).await?;
                let tools = tokio::time::timeout(config.startup_timeout, connection.tools())
                    .await
                    .map_err(|_| McpError::StartTimeout(config.startup_timeout))??;
                Ok::<_, McpError>((connection, tools))
            }
            .await;
            match connected {
                Ok((connection, tools)) => {
                    let tools = offered(&config, tools);
                    Server {
                        config,
                        connection: Some(connection),
                        state: Mutex::new(ServerState::Ready { tools }),
                    }
                }
                Err(e) => {
                    tracing::warn!(server = %config.name, "MCP server did not start: {e}");
                    Server {
                        config,
                        connection: None,
                        state: Mutex::new(ServerState::Failed {
                            error: e.to_string(),
                        }),
                    }
                }
            }
        }))
        .await;
        let hub = Arc::new(McpHub {
            servers: started,
            bus,
        });
        // `tools/list_changed`: the list is read again; every registry that
        // has the hub as a source sees the new one at its next look.
        for (index, server) in hub.servers.iter().enumerate() {
            let Some(connection) = &server.connection else {
                continue;
            };
            let changed = connection.changed();
            let hub = Arc::downgrade(&hub);
            tokio::spawn(async move {
                loop {
                    changed.notified().await;
                    let Some(hub) = hub.upgrade() else {
                        return;
                    };
                    hub.refresh(index).await;
                }
            });
        }
        hub
    }

    /// Reads server `index`'s tools again.
    async fn refresh(&self, index: usize) {
        let Some(server) = self.servers.get(index) else {
            return;
        };
        let Some(connection) = &server.connection else {
            return;
        };
        match connection.tools().await {
            Ok(tools) => {
                let tools = offered(&server.config, tools);
                tracing::info!(server = %server.config.name, "MCP tool list changed");
                let mut state = server.state.lock().unwrap_or_else(|e| e.into_inner());
                if let ServerState::Ready { .. } = *state {
                    *state = ServerState::Ready { tools };
                }
            }
            Err(e) => tracing::warn!(server = %server.config.name, "MCP tool list: {e}"),
        }
    }

    /// Every server and its state.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|s| ServerStatus {
                name: s.config.name.clone(),
                source: s.config.source.clone(),
                transport: match s.config.transport {
                    McpTransport::Stdio { .. } => "stdio",
                    McpTransport::Http { .. } => "http",
                },
                state: s.state(),
            })
            .collect()
    }

    /// The tools of the servers `keep` accepts (by server name), ready to
    /// register.
    pub fn tools(self: &Arc<Self>, keep: impl Fn(&str) -> bool) -> Vec<McpTool> {
        let mut out = Vec::new();
        for (index, server) in self.servers.iter().enumerate() {
            if !keep(&server.config.name) {
                continue;
            }
            if let ServerState::Ready { tools } = server.state() {
                out.extend(
                    tools
                        .into_iter()
                        .map(|tool| McpTool::new(self.clone(), index, &server.config.name, tool)),
                );
            }
        }
        out
    }

    /// Calls `tool` of server `index`. A server found stopped is marked so,
    /// and every later call fails at once.
    async fn call(
        &self,
        index: usize,
        tool: &str,
        arguments: serde_json::Value,
    ) -> Result<serde_json::Value, McpError> {
        let server = self.servers.get(index).ok_or(McpError::Gone)?;
        let connection = match (&server.connection, server.state()) {
            (Some(connection), ServerState::Ready { .. }) if !connection.is_closed() => connection,
            _ => {
                self.down(server, "the server has stopped");
                return Err(McpError::Gone);
            }
        };
        let result = connection
            .call(tool, arguments, server.config.tool_timeout)
            .await;
        if matches!(result, Err(McpError::Gone)) || (result.is_err() && connection.is_closed()) {
            self.down(server, "the server stopped during a call");
            return Err(McpError::Gone);
        }
        result
    }

    /// Marks `server` stopped; the first time, says so on the bus.
    fn down(&self, server: &Server, error: &str) {
        if server.fail(error)
            && let Some(bus) = &self.bus
        {
            bus.publish(
                crate::event::AgentId::Main,
                crate::event::EventKind::McpServerDown {
                    server: server.config.name.clone(),
                    error: error.to_string(),
                },
            );
        }
    }

    fn server_name(&self, index: usize) -> &str {
        self.servers
            .get(index)
            .map_or("?", |s| s.config.name.as_str())
    }
}

/// The tools of a server its config lets through (`enabled_tools`,
/// `disabled_tools`).
fn offered(config: &McpServerConfig, tools: Vec<ServerTool>) -> Vec<Arc<ServerTool>> {
    tools
        .into_iter()
        .filter(|t| config.offers(&t.name))
        .map(Arc::new)
        .collect()
}

impl Server {
    fn state(&self) -> ServerState {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Marks it failed; whether it was running until now.
    fn fail(&self, error: &str) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let was_ready = matches!(*state, ServerState::Ready { .. });
        if was_ready {
            tracing::warn!(server = %self.config.name, "MCP server stopped: {error}");
            *state = ServerState::Failed {
                error: error.to_string(),
            };
        }
        was_ready
    }
}

/// The hub's tools as a registry sees them, read at every look so a changed
/// list is offered at once: every server's (the parent), or those of the
/// servers a profile lists, and for a read-only agent only those their server
/// marks read-only.
pub struct McpSource {
    hub: Arc<McpHub>,
    servers: Option<Vec<String>>,
    read_only: bool,
}

impl McpSource {
    /// Every server's tools.
    pub fn all(hub: Arc<McpHub>) -> McpSource {
        McpSource {
            hub,
            servers: None,
            read_only: false,
        }
    }

    /// The tools of `servers`; with `read_only`, only the read-only ones.
    pub fn of(hub: Arc<McpHub>, servers: Vec<String>, read_only: bool) -> McpSource {
        McpSource {
            hub,
            servers: Some(servers),
            read_only,
        }
    }
}

impl crate::tools::ToolSource for McpSource {
    fn tools(&self) -> Vec<Arc<dyn crate::tools::Tool>> {
        let listed = |server: &str| {
            self.servers
                .as_ref()
                .is_none_or(|servers| servers.iter().any(|s| s == server))
        };
        self.hub
            .tools(listed)
            .into_iter()
            .filter(|tool| !self.read_only || tool.is_read_only())
            .map(|tool| Arc::new(tool) as Arc<dyn crate::tools::Tool>)
            .collect()
    }
}
