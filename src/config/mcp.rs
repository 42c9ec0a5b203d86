//! MCP servers, configured the way users already write them:
//!
//! - Claude Code's JSON (`mcpServers`: `command`, `args`, `env`, or `type:
//!   "http"` with `url` and `headers`) in `~/.claude.json` (the user's, and the
//!   workspace's entry under `projects`), `~/.claude/settings.json` and the
//!   workspace's `.mcp.json`;
//! - Codex's field names in `[mcp_servers.NAME]` of `brood.toml` (`command`,
//!   `args`, `env`, `env_vars`, `cwd`, `url`, `http_headers`,
//!   `env_http_headers`, `bearer_token_env_var`, `startup_timeout_sec`,
//!   `tool_timeout_sec`, `enabled`, `enabled_tools`, `disabled_tools`).
//!
//! A later source replaces an earlier server of the same name, in that order,
//! brood.toml last. `${VAR}` and `${VAR:-default}` in any value are expanded
//! from the environment. Values of `env` and headers are [`Secret`]s: their
//! `Debug` hides them, and [`LoadedMcp::secrets`] lists them so the session
//! redacts them from every event, trace and log line.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// How long a server may take to start, and one call to answer, unless the
/// server's config says otherwise.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// A value that must not be shown: an `env` value or a header.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[hidden]")
    }
}

/// How brood reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on its stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, Secret)>,
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP (responses as JSON or as an SSE stream).
    Http {
        url: String,
        headers: Vec<(String, Secret)>,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    pub name: String,
    pub transport: McpTransport,
    pub startup_timeout: Duration,
    pub tool_timeout: Duration,
    /// Only these of its tools, when given.
    pub enabled_tools: Option<Vec<String>>,
    pub disabled_tools: Vec<String>,
    /// The file it came from, as shown to people.
    pub source: String,
}

impl McpServerConfig {
    /// Whether the server's tool `tool` is offered.
    pub fn offers(&self, tool: &str) -> bool {
        self.enabled_tools
            .as_ref()
            .is_none_or(|only| only.iter().any(|t| t == tool))
            && !self.disabled_tools.iter().any(|t| t == tool)
    }
}

/// Every server the config files name, and what to say about them at start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedMcp {
    pub servers: Vec<McpServerConfig>,
    /// Servers left out (a missing variable, no command or URL), each with why.
    pub notes: Vec<String>,
}

impl LoadedMcp {
    /// The values no screen, trace or log may show.
    pub fn secrets(&self) -> Vec<String> {
        let mut out = Vec::new();
        for server in &self.servers {
            let pairs = match &server.transport {
                McpTransport::Stdio { env, .. } => env,
                McpTransport::Http { headers, .. } => headers,
            };
            out.extend(
                pairs
                    .iter()
                    .map(|(_, v)| v.expose().to_string())
                    .filter(|v| v.len() >= 4),
            );
        }
        out
    }

    /// Adds `server`, replacing one of the same name.
    fn put(&mut self, server: McpServerConfig) {
        self.servers.retain(|s| s.name != server.name);
        self.servers.push(server);
    }
}

/// Where the user's Claude Code files are.
#[derive(Debug, Clone, Default)]
pub(super) struct Places {
    /// `~/.claude.json`: user state, with servers of the user and per project.
    pub claude_json: Option<PathBuf>,
    /// `~/.claude`, for its `settings.json`.
    pub claude_dir: Option<PathBuf>,
}

impl Places {
    /// As Claude Code finds them, honouring `CLAUDE_CONFIG_DIR`.
    pub fn from_env() -> Places {
        let claude_dir = super::tool_dir("CLAUDE_CONFIG_DIR", ".claude");
        let claude_json = match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => Some(PathBuf::from(dir).join(".claude.json")),
            None => directories::BaseDirs::new().map(|b| b.home_dir().join(".claude.json")),
        };
        Places {
            claude_json,
            claude_dir,
        }
    }
}

/// Reads the servers of the Claude Code files that apply to `workspace`
/// (`root` is its real path), then of the `brood.toml` tables given in order.
pub(super) fn load(
    places: &Places,
    workspace: &Path,
    root: &Path,
    tables: &[(PathBuf, BTreeMap<String, CodexServer>)],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<LoadedMcp, super::ConfigError> {
    let mut loaded = LoadedMcp::default();
    let mut consent = Consent::default();
    let mut workspace_servers = Vec::new();
    if let Some(path) = places.claude_json.clone().filter(|p| p.is_file()) {
        let doc = read_json(&path)?;
        let shown = super::shown_path(&path, root);
        add_claude(&mut loaded, doc.get("mcpServers"), &shown, env);
        let project = doc
            .get("projects")
            .and_then(|p| p.get(root.to_string_lossy().as_ref()));
        if let Some(project) = project {
            add_claude(&mut loaded, project.get("mcpServers"), &shown, env);
            consent.read(project);
        }
    }
    if let Some(dir) = &places.claude_dir {
        let path = dir.join("settings.json");
        if path.is_file() {
            let doc = read_json(&path)?;
            add_claude(
                &mut loaded,
                doc.get("mcpServers"),
                &super::shown_path(&path, root),
                env,
            );
            consent.read(&doc);
        }
    }
    // The user's own file in the workspace (Claude Code keeps it out of git).
    let local = workspace.join(".claude").join("settings.local.json");
    if local.is_file() {
        consent.read(&read_json(&local)?);
    }
    let project = workspace.join(".mcp.json");
    if project.is_file() {
        let doc = read_json(&project)?;
        let shown = super::shown_path(&project, root);
        workspace_servers.extend(add_claude(&mut loaded, doc.get("mcpServers"), &shown, env));
    }
    for (path, servers) in tables {
        let shown = super::shown_path(path, root);
        let from_workspace = path.starts_with(workspace) || path.starts_with(root);
        for (name, server) in servers {
            match codex_server(name, server, &shown, env) {
                Ok(Some(server)) => {
                    loaded.put(server);
                    workspace_servers.retain(|n| n != name);
                    if from_workspace {
                        workspace_servers.push(name.clone());
                    }
                }
                Ok(None) => loaded.servers.retain(|s| &s.name != name),
                Err(why) => loaded
                    .notes
                    .push(format!("{shown}: MCP server `{name}` left out: {why}")),
            }
        }
    }
    // A repository's servers are commands it chose: they start only once the
    // user has said yes, with Claude Code's own settings.
    let (kept, held): (Vec<_>, Vec<_>) = loaded
        .servers
        .into_iter()
        .partition(|s| !workspace_servers.contains(&s.name) || consent.allows(&s.name));
    loaded.servers = kept;
    for server in held {
        loaded.notes.push(format!(
            "{}: MCP server `{}` is the workspace's and starts once you allow it: \
             \"enabledMcpjsonServers\": [\"{}\"] in ~/.claude/settings.json or .claude/settings.local.json",
            server.source, server.name, server.name
        ));
    }
    Ok(loaded)
}

/// What the user said about a workspace's servers, in Claude Code's keys.
#[derive(Debug, Default)]
struct Consent {
    all: bool,
    enabled: Vec<String>,
    disabled: Vec<String>,
}

impl Consent {
    fn read(&mut self, doc: &Value) {
        self.all |= doc
            .get("enableAllProjectMcpServers")
            .and_then(Value::as_bool)
            == Some(true);
        let names = |key: &str| -> Vec<String> {
            doc.get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default()
        };
        self.enabled.extend(names("enabledMcpjsonServers"));
        self.disabled.extend(names("disabledMcpjsonServers"));
    }

    fn allows(&self, name: &str) -> bool {
        !self.disabled.iter().any(|n| n == name)
            && (self.all || self.enabled.iter().any(|n| n == name))
    }
}

/// Settings files are small; a bigger one is not a settings file.
const MAX_JSON_BYTES: u64 = 16 << 20;

fn read_json(path: &Path) -> Result<Value, super::ConfigError> {
    let error = |message: String| super::ConfigError::Parse {
        path: path.to_path_buf(),
        message,
    };
    if std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_JSON_BYTES) {
        return Err(error(format!("over {} MB", MAX_JSON_BYTES >> 20)));
    }
    let text = std::fs::read_to_string(path).map_err(|source| super::ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| error(e.to_string()))
}

/// Adds the servers of one Claude Code `mcpServers` object; their names.
fn add_claude(
    loaded: &mut LoadedMcp,
    servers: Option<&Value>,
    shown: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let Some(servers) = servers.and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut added = Vec::new();
    for (name, server) in servers {
        match claude_server(name, server, shown, env) {
            Ok(server) => {
                added.push(server.name.clone());
                loaded.put(server);
            }
            Err(why) => loaded
                .notes
                .push(format!("{shown}: MCP server `{name}` left out: {why}")),
        }
    }
    added
}

fn claude_server(
    name: &str,
    server: &Value,
    shown: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpServerConfig, String> {
    check_name(name)?;
    let text = |key: &str| -> Result<Option<String>, String> {
        match server.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => expand(s, env).map(Some),
            Some(_) => Err(format!("`{key}` is not text")),
        }
    };
    let pairs = |key: &str| -> Result<Vec<(String, Secret)>, String> {
        match server.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), Secret(expand(s, env)?))),
                    _ => Err(format!("`{key}.{k}` is not text")),
                })
                .collect(),
            Some(_) => Err(format!("`{key}` is not an object")),
        }
    };
    let kind = text("type")?;
    let transport = match kind.as_deref() {
        None | Some("stdio") => McpTransport::Stdio {
            command: text("command")?.ok_or("no `command` (nor `type: \"http\"` and a `url`)")?,
            args: match server.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|a| match a {
                        Value::String(s) => expand(s, env),
                        _ => Err("an `args` item is not text".to_string()),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("`args` is not a list".into()),
            },
            env: pairs("env")?,
            cwd: text("cwd")?.map(PathBuf::from),
        },
        Some("http" | "streamable-http" | "streamableHttp") => McpTransport::Http {
            url: text("url")?.ok_or("`type: \"http\"` without a `url`")?,
            headers: pairs("headers")?,
        },
        Some("sse") => return Err("the old SSE transport is not supported; the server's streamable HTTP address (`type: \"http\"`) works".into()),
        Some(other) => return Err(format!("unknown `type` \"{other}\" (stdio or http)")),
    };
    Ok(McpServerConfig {
        name: name.to_string(),
        transport,
        startup_timeout: DEFAULT_STARTUP_TIMEOUT,
        tool_timeout: DEFAULT_TOOL_TIMEOUT,
        enabled_tools: None,
        disabled_tools: Vec::new(),
        source: shown.to_string(),
    })
}

/// `[mcp_servers.NAME]` in `brood.toml`, with Codex's field names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CodexServer {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Variables passed on from brood's environment, by name.
    #[serde(default)]
    env_vars: Vec<String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    bearer_token_env_var: Option<String>,
    #[serde(default)]
    http_headers: BTreeMap<String, String>,
    /// Header name → the variable holding its value.
    #[serde(default)]
    env_http_headers: BTreeMap<String, String>,
    startup_timeout_sec: Option<f64>,
    startup_timeout_ms: Option<u64>,
    tool_timeout_sec: Option<f64>,
    enabled: Option<bool>,
    enabled_tools: Option<Vec<String>>,
    #[serde(default)]
    disabled_tools: Vec<String>,
}

/// `Ok(None)`: switched off (`enabled = false`).
fn codex_server(
    name: &str,
    server: &CodexServer,
    shown: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<McpServerConfig>, String> {
    if server.enabled == Some(false) {
        return Ok(None);
    }
    check_name(name)?;
    let var = |var: &str| env(var).ok_or_else(|| format!("${var} is not set"));
    let transport = match (&server.command, &server.url) {
        (Some(command), None) => {
            let mut pairs = Vec::new();
            for (k, v) in &server.env {
                pairs.push((k.clone(), Secret(expand(v, env)?)));
            }
            for k in &server.env_vars {
                if let Some(v) = env(k) {
                    pairs.push((k.clone(), Secret(v)));
                }
            }
            McpTransport::Stdio {
                command: expand(command, env)?,
                args: server
                    .args
                    .iter()
                    .map(|a| expand(a, env))
                    .collect::<Result<_, _>>()?,
                env: pairs,
                cwd: server.cwd.clone(),
            }
        }
        (None, Some(url)) => {
            let mut headers = Vec::new();
            for (k, v) in &server.http_headers {
                headers.push((k.clone(), Secret(expand(v, env)?)));
            }
            for (k, v) in &server.env_http_headers {
                headers.push((k.clone(), Secret(var(v)?)));
            }
            if let Some(v) = &server.bearer_token_env_var {
                headers.push((
                    "Authorization".into(),
                    Secret(format!("Bearer {}", var(v)?)),
                ));
            }
            McpTransport::Http {
                url: expand(url, env)?,
                headers,
            }
        }
        (Some(_), Some(_)) => return Err("both `command` and `url`; give one".into()),
        (None, None) => return Err("neither `command` nor `url`".into()),
    };
    let secs = |s: f64| {
        Duration::try_from_secs_f64(s).map_err(|_| format!("{s} is not a number of seconds"))
    };
    let startup_timeout = match (server.startup_timeout_sec, server.startup_timeout_ms) {
        (Some(s), _) => secs(s)?,
        (None, Some(ms)) => Duration::from_millis(ms),
        (None, None) => DEFAULT_STARTUP_TIMEOUT,
    };
    Ok(Some(McpServerConfig {
        name: name.to_string(),
        transport,
        startup_timeout,
        tool_timeout: server
            .tool_timeout_sec
            .map(secs)
            .transpose()?
            .unwrap_or(DEFAULT_TOOL_TIMEOUT),
        enabled_tools: server.enabled_tools.clone(),
        disabled_tools: server.disabled_tools.clone(),
        source: shown.to_string(),
    }))
}

/// A server's name is part of its tools' names (`mcp__NAME__tool`), which the
/// providers limit to letters, digits, `_` and `-`.
fn check_name(name: &str) -> Result<(), String> {
    match !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        true => Ok(()),
        false => {
            Err("a server's name may hold only letters, digits, `_` and `-` (at most 40)".into())
        }
    }
}

/// Expands `${VAR}` and `${VAR:-default}`; a variable that is not set and has
/// no default is an error naming it. Anything else, `$VAR` included, is kept.
pub fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            out.push_str(&rest[at..at + 2 + end + 1]);
        } else {
            // As in a shell: `:-` also stands in for a variable set empty.
            match (env(name), default) {
                (Some(value), Some(default)) if value.is_empty() => out.push_str(default),
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => return Err(format!("${{{name}}} is not set")),
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
