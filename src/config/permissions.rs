//! Permission rules from `brood.toml`'s `[permissions]` and Claude Code's
//! settings files (`~/.claude/settings.json`, the workspace's
//! `.claude/settings.json` and `.claude/settings.local.json`), gathered into
//! the policy's [`UserRules`].
//!
//! A settings file that cannot be read stops brood with its name: skipping it
//! would drop its `deny` rules, and a policy fails closed. A workspace's
//! `allow` rules are used, since commands still run in the sandbox, but said
//! at start: a repository can bring its own.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ConfigError;
use crate::policy::{RuleList, UserRules};

/// A settings file bigger than this is not one a person wrote.
const MAX_SETTINGS_BYTES: u64 = 4 << 20;

/// `[permissions]` of `brood.toml`, and `permissions` of a settings file.
#[derive(Debug, Default, Clone, Deserialize)]
pub(super) struct PermissionLists {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// The part of a Claude Code settings file brood reads.
#[derive(Debug, Default, Deserialize)]
struct SettingsFile {
    #[serde(default)]
    permissions: PermissionLists,
    #[serde(default)]
    hooks: Option<serde_json::Value>,
}

/// The rules of a session, and what to say about them at start.
#[derive(Debug, Clone, Default)]
pub struct LoadedRules {
    pub rules: UserRules,
    pub notes: Vec<String>,
}

impl LoadedRules {
    /// What the sandbox hides from commands in `workspace`
    /// ([`UserRules::unreadable_paths`]).
    pub fn unreadable(&self, workspace: &Path) -> Vec<PathBuf> {
        let root = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
        let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
        self.rules.unreadable_paths(&root, home.as_deref())
    }
}

/// The Claude Code settings files that apply to `workspace`, the user's
/// first, each with whether the workspace brought it.
pub fn settings_files(workspace: &Path) -> Vec<(PathBuf, bool)> {
    let mut files = Vec::new();
    if let Some(dir) = super::tool_dir("CLAUDE_CONFIG_DIR", ".claude") {
        files.push((dir.join("settings.json"), false));
    }
    for name in ["settings.json", "settings.local.json"] {
        files.push((workspace.join(".claude").join(name), true));
    }
    files.retain(|(p, _)| p.is_file());
    files
}

/// Adds one file's lists to `loaded`; `shown` names the file in reasons.
pub(super) fn add_lists(
    loaded: &mut LoadedRules,
    lists: &PermissionLists,
    shown: &str,
    from_workspace: bool,
    root: &Path,
) -> Result<(), String> {
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let mut lacking = Vec::new();
    for (list, texts) in [
        (RuleList::Deny, &lists.deny),
        (RuleList::Ask, &lists.ask),
        (RuleList::Allow, &lists.allow),
    ] {
        for text in texts {
            let kept = loaded.rules.add(list, text, shown, root, home.as_deref())?;
            if !kept {
                lacking.push(text.as_str());
            }
        }
    }
    if !lacking.is_empty() {
        loaded.notes.push(format!(
            "{shown}: rules for tools brood does not have, not used: {}",
            lacking.join(", ")
        ));
    }
    let allows: Vec<&str> = lists.allow.iter().map(String::as_str).collect();
    if from_workspace && !allows.is_empty() {
        loaded.notes.push(format!(
            "{shown} (the workspace's) allows without asking: {}",
            allows.join(", ")
        ));
    }
    Ok(())
}

/// Reads the settings `files`: their rules into `loaded`, their hooks into
/// `hooks`.
pub(super) fn read_settings(
    loaded: &mut LoadedRules,
    hooks: &mut super::hooks::LoadedHooks,
    files: &[(PathBuf, bool)],
    root: &Path,
) -> Result<(), ConfigError> {
    for (path, from_workspace) in files {
        if std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_SETTINGS_BYTES) {
            return Err(ConfigError::Parse {
                path: path.clone(),
                message: format!(
                    "over {} MB, too big for a settings file (its permission rules cannot be left out)",
                    MAX_SETTINGS_BYTES >> 20
                ),
            });
        }
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let settings: SettingsFile =
            serde_json::from_str(&text).map_err(|e| ConfigError::Parse {
                path: path.clone(),
                message: format!("{e} (its permission rules cannot be left out)"),
            })?;
        let shown = super::shown_path(path, root);
        let error = |message| ConfigError::Parse {
            path: path.clone(),
            message,
        };
        add_lists(loaded, &settings.permissions, &shown, *from_workspace, root).map_err(error)?;
        if let Some(value) = &settings.hooks {
            hooks
                .add_settings(value, &shown, *from_workspace)
                .map_err(error)?;
        }
    }
    Ok(())
}
