//! `[profiles.NAME]` tables of `brood.toml`: custom subagent profiles.

use super::{ConfigError, ConfigFile};
use crate::agent::AvailableTool;
use crate::agent::{ModelRole, Profile, ProfileError, ResultContract};
use crate::policy::PermissionMode;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

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
pub(super) struct RawProfile {
    description: Option<String>,
    tools: Option<Vec<String>>,
    max_steps: Option<u32>,
    token_budget: Option<u64>,
    context_budget: Option<u64>,
    cost_budget_usd: Option<f64>,
    model: Option<RawRole>,
    system_prompt: Option<String>,
    contract: Option<RawContract>,
    read_only: Option<bool>,
    /// Whether the project instructions go into its prompt (default: yes
    /// but for an explore profile).
    instructions: Option<bool>,
    /// The MCP servers whose tools it gets.
    mcp_servers: Option<Vec<String>>,
}

impl RawProfile {
    pub(super) fn build(self, name: &str) -> Profile {
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
        profile.cost_budget_usd = self.cost_budget_usd.or(profile.cost_budget_usd);
        if let Some(model) = self.model {
            profile.model = match model {
                RawRole::Light => ModelRole::Light,
                RawRole::Main => ModelRole::Main,
            };
        }
        if let Some(prompt) = self.system_prompt {
            profile.system_prompt = prompt;
        }
        if let Some(servers) = self.mcp_servers {
            profile.mcp_servers = servers;
        }
        profile.contract = match contract {
            RawContract::Text => ResultContract::Text,
            RawContract::Explore => ResultContract::Explore,
        };
        if let Some(instructions) = self.instructions {
            profile.instructions = instructions;
        }
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

/// Adds the profiles of one parsed file to `profiles`, checking each against the
/// hard rules with `tools` available.
pub(super) fn add_profiles(
    profiles: &mut BTreeMap<String, Profile>,
    file: &ConfigFile,
    path: &Path,
    tools: &[AvailableTool],
) -> Result<(), ConfigError> {
    for (name, raw) in &file.profiles {
        if name == "main" {
            return Err(ConfigError::Profile {
                path: path.to_path_buf(),
                source: ProfileError::Invalid {
                    profile: name.clone(),
                    message: "\"main\" is the parent agent and cannot be a subagent profile".into(),
                },
            });
        }
        let profile = raw.clone().build(name);
        profile
            .validate_child(tools)
            .map_err(|source| ConfigError::Profile {
                path: path.to_path_buf(),
                source,
            })?;
        profiles.insert(name.clone(), profile);
    }
    Ok(())
}
