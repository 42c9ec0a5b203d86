//! Where brood keeps things, how sessions are named, which environment values are
//! secrets, and the config file (`brood.toml`) with its custom subagent profiles.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use directories::ProjectDirs;
use serde::Deserialize;

use crate::agent::{AvailableTool, Profile, ProfileError};

pub mod agent_files;
pub mod hooks;
pub mod instructions;
mod listing;
pub mod mcp;
pub mod permissions;
mod profiles;
mod sandbox;
pub mod settings;
pub mod workbench;

pub use listing::{profile_json, profile_rows, render_profiles};
pub use sandbox::SandboxFileSettings;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot find a home folder for brood's data; pass --trace FILE or --no-trace")]
    NoDataDir,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Profile {
        path: PathBuf,
        #[source]
        source: ProfileError,
    },
}

/// Environment variables whose values are credentials. Also every variable ending
/// in `_API_KEY`.
const SECRET_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/// Whether an environment variable holds a credential.
/// Case does not matter: `my_service_api_key` is one too.
pub fn is_secret_var(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    SECRET_VARS.contains(&name.as_str())
        || name.ends_with("_API_KEY")
        || name.ends_with("_AUTH_TOKEN")
}

/// The values of all credential variables set now, to be kept out of traces.
pub fn secrets_from_env() -> Vec<String> {
    std::env::vars()
        .filter(|(name, value)| is_secret_var(name) && !value.is_empty())
        .map(|(_, value)| value)
        .collect()
}

fn project_dirs() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "brood")
}

/// The platform data folder, e.g. `~/.local/share/brood`.
pub fn data_dir() -> Result<PathBuf, ConfigError> {
    project_dirs()
        .map(|d| d.data_dir().to_path_buf())
        .ok_or(ConfigError::NoDataDir)
}

/// Where a session's trace goes when no `--trace` is given.
pub fn default_trace_path(session: &str) -> Result<PathBuf, ConfigError> {
    Ok(data_dir()?.join("traces").join(format!("{session}.jsonl")))
}

/// A session id that sorts by start time and is unique enough on one machine:
/// `20261130-053402-1a2b3c`.
pub fn new_session_id() -> String {
    let now = chrono::Utc::now();
    let nanos = now.timestamp_subsec_nanos() as u64;
    let salt = (nanos ^ ((std::process::id() as u64) << 20)) & 0xff_ffff;
    format!("{}-{salt:06x}", now.format("%Y%m%d-%H%M%S"))
}

/// Another tool's folder: `$var` when it is set, else `~/under_home`
/// (`CLAUDE_CONFIG_DIR` or `~/.claude`, `CODEX_HOME` or `~/.codex`,
/// `XDG_CONFIG_HOME` or `~/.config`).
pub fn tool_dir(var: &str, under_home: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().join(under_home)))
}

/// A file as reasons, notes and the title name it: from the workspace
/// `root` when under it, else from `~`.
pub(crate) fn shown_path(path: &Path, root: &Path) -> String {
    if let Ok(rel) = path.strip_prefix(root) {
        return rel.display().to_string();
    }
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rel) => format!("~/{}", rel.display()),
        None => path.display().to_string(),
    }
}

/// brood's folder in the platform config folder (`~/.config/brood`).
pub fn config_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.config_dir().to_path_buf())
}

/// The name of the config file, in the workspace or the platform config folder.
pub const CONFIG_FILE: &str = "brood.toml";

/// One `brood.toml`: model settings at the top, profiles in `[profiles.NAME]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    provider: Option<String>,
    model: Option<String>,
    light_model: Option<String>,
    max_retries: Option<u32>,
    idle_timeout_secs: Option<u64>,
    connect_timeout_secs: Option<u64>,
    header_timeout_secs: Option<u64>,
    max_response_secs: Option<u64>,
    max_response_mb: Option<u64>,
    prompt_cache: Option<bool>,
    compact_at: Option<f64>,
    context_window: Option<u64>,
    thinking_budget: Option<u32>,
    #[serde(default)]
    prices: BTreeMap<String, crate::protocol::Price>,
    #[serde(default)]
    sandbox: sandbox::SandboxTable,
    #[serde(default)]
    permissions: permissions::PermissionLists,
    #[serde(default)]
    hooks: BTreeMap<String, Vec<hooks::TomlHook>>,
    #[serde(default)]
    profiles: BTreeMap<String, profiles::RawProfile>,
    #[serde(default)]
    mcp_servers: BTreeMap<String, mcp::CodexServer>,
    telemetry: Option<crate::telemetry::TelemetryTable>,
}

/// Model settings read from config files; later files override earlier ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileSettings {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub light_model: Option<String>,
    pub max_retries: Option<u32>,
    pub idle_timeout_secs: Option<u64>,
    pub connect_timeout_secs: Option<u64>,
    /// Response headers due within; one response's time and size at most.
    pub header_timeout_secs: Option<u64>,
    pub max_response_secs: Option<u64>,
    pub max_response_mb: Option<u64>,
    /// Anthropic prompt caching (on unless `false`).
    pub prompt_cache: Option<bool>,
    /// The share of the window (percent) past which the parent's history is
    /// compacted (85 when unset; 100 never).
    pub compact_at: Option<f64>,
    /// The main model's window in tokens, where brood does not know it.
    pub context_window: Option<u64>,
    /// Tokens Anthropic models may think before answering.
    pub thinking_budget: Option<u32>,
    /// `[prices."MODEL"]`: prices the built-in table lacks or that differ.
    pub prices: Vec<(String, crate::protocol::Price)>,
    pub sandbox: SandboxFileSettings,
    /// `[telemetry]`, from the user's own `brood.toml` only: a workspace's
    /// file could otherwise send the session to a server of its choosing.
    pub telemetry: Option<crate::telemetry::TelemetryTable>,
}

/// Everything the config files say.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub settings: FileSettings,
    /// `general`, `explore` and the files' custom profiles, by name.
    pub profiles: Vec<Profile>,
    /// Where each profile came from, by name (the one that won).
    pub sources: BTreeMap<String, ProfileSource>,
    /// Agent files left out, each with why; said at start.
    pub skipped_agents: Vec<String>,
    /// The user's permission rules, and what to say about them at start.
    pub rules: permissions::LoadedRules,
    /// The user's command hooks.
    pub hooks: hooks::LoadedHooks,
    /// The MCP servers configured, and what to say about them at start.
    pub mcp: mcp::LoadedMcp,
    /// Each `brood.toml`'s `[mcp_servers]`, read again with the Claude Code
    /// files once the workspace is known.
    mcp_tables: Vec<(PathBuf, BTreeMap<String, mcp::CodexServer>)>,
}

/// Where a profile was defined, and what its definition lost on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileSource {
    /// `None` for a built-in profile.
    pub file: Option<PathBuf>,
    /// `built in`, `brood.toml`, `Claude Code`, `opencode` or `Codex`.
    pub kind: &'static str,
    pub warnings: Vec<String>,
}

/// `[telemetry]` of the user's own `brood.toml` (the only one read for it),
/// for commands that start no session (`brood export`).
pub fn user_telemetry() -> Result<Option<crate::telemetry::TelemetryTable>, ConfigError> {
    let Some(path) = config_dir().map(|dir| dir.join(CONFIG_FILE)) else {
        return Ok(None);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    let file: ConfigFile = toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(file.telemetry)
}

/// The config files that apply to `workspace`, global first: a setting or profile
/// in the workspace's file replaces the global one.
pub fn config_files(workspace: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dirs) = project_dirs() {
        files.push(dirs.config_dir().join(CONFIG_FILE));
    }
    files.push(workspace.join(CONFIG_FILE));
    files.into_iter().filter(|p| p.is_file()).collect()
}

/// What to say at start about the agent files: each one left out, each
/// child that lost a delegation tool (a hard rule), and how many lost
/// something else, which `brood agents` tells in full. A shared collection
/// of a hundred agents would otherwise fill the screen at every start.
pub fn agent_warnings(config: &LoadedConfig) -> Vec<String> {
    let mut out: Vec<String> = config
        .skipped_agents
        .iter()
        .map(|s| format!("agent file left out: {s}"))
        .collect();
    let mut others = 0;
    for (name, source) in &config.sources {
        let Some(file) = &source.file else { continue };
        let delegation: Vec<&String> = source
            .warnings
            .iter()
            .filter(|w| w.ends_with(agent_files::DELEGATION_NOTE))
            .collect();
        for warning in &delegation {
            out.push(format!("agent {name} ({}): {warning}", file.display()));
        }
        others += usize::from(source.warnings.len() > delegation.len());
    }
    match others {
        0 => {}
        1 => out.push("1 agent file has notes (tools or fields brood does not have): `brood agents` lists them".into()),
        n => out.push(format!(
            "{n} agent files have notes (tools or fields brood does not have): `brood agents` lists them"
        )),
    }
    out
}

/// Everything that configures a session in `workspace`: the agent files of
/// every tool ([`agent_files::folders`]), then the `brood.toml` files, whose
/// profiles win over an agent file's of the same name.
pub fn load_setup(workspace: &Path, tools: &[AvailableTool]) -> Result<LoadedConfig, ConfigError> {
    load_in(workspace, &agent_files::folders(workspace), tools)
}

/// What one call needs (`brood tool`, `brood check-command`): the settings,
/// the permission rules and the hooks, without reading every agent file.
pub fn load_for_calls(
    workspace: &Path,
    tools: &[AvailableTool],
) -> Result<LoadedConfig, ConfigError> {
    load_in(workspace, &[], tools)
}

fn load_in(
    workspace: &Path,
    agent_folders: &[(agent_files::AgentFormat, PathBuf)],
    tools: &[AvailableTool],
) -> Result<LoadedConfig, ConfigError> {
    let root = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let mut config = load(&config_files(workspace), agent_folders, &root, tools)?;
    let settings = permissions::settings_files(workspace);
    permissions::read_settings(&mut config.rules, &mut config.hooks, &settings, &root)?;
    let env = |name: &str| std::env::var(name).ok();
    config.mcp = mcp::load(
        &mcp::Places::from_env(),
        workspace,
        &root,
        &config.mcp_tables,
        &env,
    )?;
    Ok(config)
}

/// Reads the `brood.toml` `files` in order, no agent files. Profiles are
/// checked against the hard rules with `tools` available; a broken one is an
/// error naming the file, profile and rule.
pub fn load_config(
    files: &[PathBuf],
    tools: &[AvailableTool],
) -> Result<LoadedConfig, ConfigError> {
    load(files, &[], Path::new("."), tools)
}

/// Reads the `brood.toml` `files` and the agent files in `agent_folders`;
/// `root` is the workspace, for the paths of permission rules.
fn load(
    files: &[PathBuf],
    agent_folders: &[(agent_files::AgentFormat, PathBuf)],
    root: &Path,
    tools: &[AvailableTool],
) -> Result<LoadedConfig, ConfigError> {
    let mut rules = permissions::LoadedRules::default();
    let mut hooks = hooks::LoadedHooks::default();
    let mut settings = FileSettings::default();
    let mut profiles: BTreeMap<String, Profile> = BTreeMap::new();
    let mut sources: BTreeMap<String, ProfileSource> = BTreeMap::new();
    for profile in [Profile::general(), Profile::explore()] {
        sources.insert(
            profile.name.clone(),
            ProfileSource {
                file: None,
                kind: "built in",
                warnings: Vec::new(),
            },
        );
        profiles.insert(profile.name.clone(), profile);
    }
    // Each file's profiles, checked now and put in after the agent files.
    let mut file_profiles: Vec<(PathBuf, BTreeMap<String, Profile>)> = Vec::new();
    let mut mcp_tables = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let file: ConfigFile = toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let mut own = BTreeMap::new();
        profiles::add_profiles(&mut own, &file, path, tools)?;
        file_profiles.push((path.clone(), own));
        let ConfigFile {
            provider,
            model,
            light_model,
            max_retries,
            idle_timeout_secs,
            connect_timeout_secs,
            header_timeout_secs,
            max_response_secs,
            max_response_mb,
            prompt_cache,
            compact_at,
            context_window,
            thinking_budget,
            prices,
            sandbox,
            permissions: lists,
            hooks: hook_tables,
            profiles: _,
            mcp_servers,
            telemetry,
        } = file;
        mcp_tables.push((path.clone(), mcp_servers));
        let owner = match config_dir().is_some_and(|dir| path.starts_with(dir)) {
            true => sandbox::Owner::User,
            false => sandbox::Owner::Workspace,
        };
        let shown = shown_path(path, root);
        let from_workspace = owner == sandbox::Owner::Workspace;
        hooks.add_toml(&hook_tables, &shown, from_workspace);
        permissions::add_lists(&mut rules, &lists, &shown, from_workspace, root).map_err(
            |message| ConfigError::Parse {
                path: path.clone(),
                message,
            },
        )?;
        settings.sandbox.merge(sandbox, path, owner)?;
        let telemetry = match (owner, telemetry) {
            (sandbox::Owner::User, Some(table)) => Some(table),
            (sandbox::Owner::Workspace, Some(_)) => {
                tracing::warn!(
                    "{shown}: [telemetry] is read only from brood.toml in brood's config folder; ignored here"
                );
                settings.telemetry.take()
            }
            (_, None) => settings.telemetry.take(),
        };
        settings = FileSettings {
            provider: provider.or(settings.provider),
            model: model.or(settings.model),
            light_model: light_model.or(settings.light_model),
            max_retries: max_retries.or(settings.max_retries),
            idle_timeout_secs: idle_timeout_secs.or(settings.idle_timeout_secs),
            connect_timeout_secs: connect_timeout_secs.or(settings.connect_timeout_secs),
            header_timeout_secs: header_timeout_secs.or(settings.header_timeout_secs),
            max_response_secs: max_response_secs.or(settings.max_response_secs),
            max_response_mb: max_response_mb.or(settings.max_response_mb),
            prompt_cache: prompt_cache.or(settings.prompt_cache),
            compact_at: compact_at.or(settings.compact_at),
            context_window: context_window.or(settings.context_window),
            thinking_budget: thinking_budget.or(settings.thinking_budget),
            // A later file's price of a model comes first.
            prices: prices
                .into_iter()
                .chain(std::mem::take(&mut settings.prices))
                .collect(),
            sandbox: settings.sandbox,
            telemetry,
        };
    }
    let agents = agent_files::read(agent_folders, tools, settings.light_model.as_deref());
    for agent in agents.profiles {
        if agent.profile.name == "main" {
            let file = agent.file.display();
            tracing::warn!("{file}: \"main\" is the parent agent and cannot be a subagent");
            continue;
        }
        sources.insert(
            agent.profile.name.clone(),
            ProfileSource {
                file: Some(agent.file),
                kind: agent.format.as_str(),
                warnings: agent.warnings,
            },
        );
        profiles.insert(agent.profile.name.clone(), agent.profile);
    }
    for (path, own) in file_profiles {
        for (name, profile) in own {
            sources.insert(
                name.clone(),
                ProfileSource {
                    file: Some(path.clone()),
                    kind: "brood.toml",
                    warnings: Vec::new(),
                },
            );
            profiles.insert(name, profile);
        }
    }
    Ok(LoadedConfig {
        settings,
        profiles: profiles.into_values().collect(),
        sources,
        skipped_agents: agents.skipped,
        rules,
        hooks,
        mcp: mcp::LoadedMcp::default(),
        mcp_tables,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{ModelRole, ResultContract};
    use crate::policy::PermissionMode;
    use crate::protocol::ToolKind;

    #[test]
    fn credential_variables_are_recognised() {
        assert!(is_secret_var("ANTHROPIC_API_KEY"));
        assert!(is_secret_var("OPENAI_API_KEY"));
        assert!(is_secret_var("GROQ_API_KEY"));
        assert!(is_secret_var("ANTHROPIC_AUTH_TOKEN"));
        assert!(is_secret_var("my_service_api_key"));
        for name in [
            "PATH",
            "HOME",
            "BROOD_MODEL",
            "API_KEYS_DIR",
            "KEYBOARD",
            "ANTHROPIC_BASE_URL",
        ] {
            assert!(!is_secret_var(name), "{name}");
        }
    }

    const TOOLS: &[AvailableTool] = &[
        ("bash", ToolKind::Exec),
        ("read_file", ToolKind::Read),
        ("write_file", ToolKind::Write),
        ("edit_file", ToolKind::Write),
        ("glob", ToolKind::Read),
        ("grep", ToolKind::Read),
    ];

    fn write_config(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn custom_profiles_load_on_top_of_the_built_in_ones() {
        let (dir, path) = write_config(
            r#"
[profiles.reviewer]
description = "reviews a diff"
tools = ["read_file", "grep"]
max_steps = 8
token_budget = 20000
context_budget = 12000
model = "light"
system_prompt = "Review carefully."
read_only = true

[profiles.scout]
contract = "explore"
max_steps = 5
instructions = true
"#,
        );
        assert_eq!(config_files(dir.path()), vec![path.clone()]);
        let profiles = load_config(&[path], TOOLS).unwrap().profiles;
        let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["explore", "general", "reviewer", "scout"]);
        let reviewer = &profiles[2];
        assert_eq!(reviewer.max_steps, Some(8));
        assert_eq!(reviewer.token_budget, Some(20_000));
        assert_eq!(reviewer.context_budget, Some(12_000));
        assert_eq!(reviewer.model, ModelRole::Light);
        assert_eq!(reviewer.permission_mode, PermissionMode::ReadOnly);
        assert_eq!(reviewer.contract, ResultContract::Text);
        let scout = &profiles[3];
        assert_eq!(scout.contract, ResultContract::Explore);
        assert_eq!(scout.permission_mode, PermissionMode::ReadOnly);
        assert_eq!(scout.tools, ["read_file", "glob", "grep"]);
        assert_eq!(scout.max_steps, Some(5));
        // An explore profile gets the project instructions only when it asks.
        assert!(scout.instructions);
        assert!(
            !profiles[0].instructions,
            "the built-in explore does not ask"
        );
        assert!(reviewer.instructions, "a text profile gets them");
    }

    #[test]
    fn a_profile_breaking_a_hard_rule_is_refused_naming_it() {
        let cases = [
            (
                "[profiles.boss]\ntools = [\"task\", \"grep\"]\n",
                "boss",
                "one level of delegation",
            ),
            (
                "[profiles.peek]\ntools = [\"grep\", \"bash\"]\nread_only = true\n",
                "peek",
                "read-only profile may not hold bash",
            ),
            (
                "[profiles.peek]\ncontract = \"explore\"\ntools = [\"edit_file\"]\n",
                "peek",
                "may not hold edit_file",
            ),
            (
                "[profiles.main]\ntools = [\"grep\"]\n",
                "main",
                "parent agent",
            ),
            (
                "[profiles.x]\nmodle = \"light\"\n",
                "modle",
                "unknown field",
            ),
            (
                "[profiles.x]\nmodel = \"huge\"\n",
                "huge",
                "unknown variant",
            ),
        ];
        for (text, name, rule) in cases {
            let (_dir, path) = write_config(text);
            let err = load_config(&[path], TOOLS).unwrap_err().to_string();
            assert!(err.contains(CONFIG_FILE), "{err}");
            assert!(err.contains(name) && err.contains(rule), "{text} → {err}");
        }
    }

    #[test]
    fn top_level_settings_merge_with_the_later_file_winning() {
        let (_g, global) =
            write_config("provider = \"anthropic\"\nmodel = \"big\"\nmax_retries = 2\n");
        let (_w, local) = write_config("model = \"small\"\nidle_timeout_secs = 30\n");
        let settings = load_config(&[global, local], TOOLS).unwrap().settings;
        assert_eq!(settings.provider.as_deref(), Some("anthropic"));
        assert_eq!(settings.model.as_deref(), Some("small"));
        assert_eq!(settings.max_retries, Some(2));
        assert_eq!(settings.idle_timeout_secs, Some(30));
    }

    #[test]
    fn session_ids_sort_by_time() {
        let id = new_session_id();
        assert_eq!(id.len(), "20261130-053402-1a2b3c".len(), "{id}");
        assert!(id.starts_with("20"));
    }
}
