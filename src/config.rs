//! Where brood keeps things, how sessions are named, which environment values are
//! secrets, and the config file (`brood.toml`) with its custom subagent profiles.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use directories::ProjectDirs;
use serde::Deserialize;

use crate::agent::{ModelRole, Profile, ProfileError, ResultContract};
use crate::policy::PermissionMode;

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
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Profile {
        path: PathBuf,
        #[source]
        source: ProfileError,
    },
}

/// The name of the config file, in the workspace or the platform config folder.
pub const CONFIG_FILE: &str = "brood.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    profiles: BTreeMap<String, RawProfile>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RawRole {
    Light,
    Main,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RawContract {
    Text,
    Explore,
}

/// `[profiles.NAME]`: a custom subagent profile. It starts from `general` (or
/// from `explore` when `contract = "explore"`) and overrides what it sets.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    description: Option<String>,
    tools: Option<Vec<String>>,
    max_steps: Option<u32>,
    token_budget: Option<u64>,
    context_budget: Option<u64>,
    model: Option<RawRole>,
    system_prompt: Option<String>,
    contract: Option<RawContract>,
    read_only: Option<bool>,
}

impl RawProfile {
    fn build(self, name: &str) -> Profile {
        let contract = self.contract.unwrap_or(RawContract::Text);
        let mut profile = match contract {
            RawContract::Text => Profile::general(),
            RawContract::Explore => Profile::explore(),
        };
        profile.name = name.to_string();
        if let Some(d) = self.description {
            profile.description = d;
        }
        if let Some(tools) = self.tools {
            profile.tools = tools;
        }
        profile.max_steps = self.max_steps.or(profile.max_steps);
        profile.token_budget = self.token_budget.or(profile.token_budget);
        profile.context_budget = self.context_budget.or(profile.context_budget);
        if let Some(model) = self.model {
            profile.model = match model {
                RawRole::Light => ModelRole::Light,
                RawRole::Main => ModelRole::Main,
            };
        }
        if let Some(prompt) = self.system_prompt {
            profile.system_prompt = prompt;
        }
        profile.contract = match contract {
            RawContract::Text => ResultContract::Text,
            RawContract::Explore => ResultContract::Explore,
        };
        if let Some(read_only) = self.read_only {
            profile.permission_mode = if read_only {
                PermissionMode::ReadOnly
            } else {
                PermissionMode::Normal
            };
        }
        profile
    }
}

/// The config files that apply to `workspace`, global first: a profile in the
/// workspace's file replaces one of the same name from the global file.
pub fn config_files(workspace: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dirs) = project_dirs() {
        files.push(dirs.config_dir().join(CONFIG_FILE));
    }
    files.push(workspace.join(CONFIG_FILE));
    files.into_iter().filter(|p| p.is_file()).collect()
}

/// The subagent profiles of a session: `general`, `explore`, and those of the
/// config files, each checked against the hard rules with `tools` available.
pub fn load_profiles(files: &[PathBuf], tools: &[&str]) -> Result<Vec<Profile>, ConfigError> {
    let mut profiles: BTreeMap<String, Profile> = [Profile::general(), Profile::explore()]
        .into_iter()
        .map(|p| (p.name.clone(), p))
        .collect();
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let file: ConfigFile = toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.clone(),
            message: e.to_string(),
        })?;
        for (name, raw) in file.profiles {
            if name == "main" {
                return Err(ConfigError::Profile {
                    path: path.clone(),
                    source: ProfileError::Invalid {
                        profile: name,
                        message: "\"main\" is the parent agent and cannot be a subagent profile"
                            .into(),
                    },
                });
            }
            let profile = raw.build(&name);
            profile
                .validate_child(tools)
                .map_err(|source| ConfigError::Profile {
                    path: path.clone(),
                    source,
                })?;
            profiles.insert(name, profile);
        }
    }
    Ok(profiles.into_values().collect())
}

/// Environment variables whose values are credentials. Also every variable ending
/// in `_API_KEY`.
const SECRET_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/// Whether an environment variable holds a credential.
pub fn is_secret_var(name: &str) -> bool {
    SECRET_VARS.contains(&name) || name.ends_with("_API_KEY") || name.ends_with("_AUTH_TOKEN")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_variables_are_recognised() {
        assert!(is_secret_var("ANTHROPIC_API_KEY"));
        assert!(is_secret_var("OPENAI_API_KEY"));
        assert!(is_secret_var("GROQ_API_KEY"));
        assert!(!is_secret_var("PATH"));
        assert!(!is_secret_var("BROOD_MODEL"));
    }

    const TOOLS: &[&str] = &[
        "bash",
        "read_file",
        "write_file",
        "edit_file",
        "glob",
        "grep",
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
"#,
        );
        assert_eq!(config_files(dir.path()), vec![path.clone()]);
        let profiles = load_profiles(&[path], TOOLS).unwrap();
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
            let err = load_profiles(&[path], TOOLS).unwrap_err().to_string();
            assert!(err.contains(CONFIG_FILE), "{err}");
            assert!(err.contains(name) && err.contains(rule), "{text} → {err}");
        }
    }

    #[test]
    fn session_ids_sort_by_time() {
        let id = new_session_id();
        assert_eq!(id.len(), "20261130-053402-1a2b3c".len(), "{id}");
        assert!(id.starts_with("20"));
    }
}
