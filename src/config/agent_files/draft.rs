//! What an agent file says, in brood's terms but not yet checked: the one
//! place where a file of any format becomes a [`Profile`] under the hard
//! rules, each thing left out said in a warning.

use std::collections::BTreeSet;

use super::names::{self, ToolName};
use crate::agent::{AvailableTool, EXPLORE_ANSWER, Profile, ResultContract};
use crate::policy::PermissionMode;
use crate::protocol::ToolKind;

/// Which tools a file gives its agent.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tools {
    /// No list: the parent's tools, without `task`.
    Parent,
    /// Exactly these (the file's own names).
    Only(Vec<String>),
}

/// Why a file's `Task`/`Agent` tool was taken away; a session names every
/// file it was taken from at start (a hard rule), where other notes are
/// only counted.
pub const DELEGATION_NOTE: &str = "a subagent cannot start subagents (one level of delegation)";

/// The longest description the `task` tool offers the parent.
const MAX_DESCRIPTION: usize = 1500;

#[derive(Debug, Clone)]
pub(super) struct Draft {
    pub name: String,
    pub description: Option<String>,
    pub prompt: String,
    pub tools: Tools,
    /// Tools taken away (the file's own names).
    pub disallowed: Vec<String>,
    pub model: Option<String>,
    pub max_steps: Option<u32>,
    pub token_budget: Option<u64>,
    pub context_budget: Option<u64>,
    pub cost_budget_usd: Option<f64>,
    pub explore: bool,
    /// The file asks for read-only work (`permissionMode: plan`, Codex's
    /// `sandbox_mode = "read-only"`).
    pub read_only: bool,
    pub color: Option<String>,
    /// `mcpServers`: the MCP servers whose tools it gets, by name.
    pub mcp_servers: Vec<String>,
    /// `instructions: true|false`: the project instructions in its prompt.
    pub instructions: Option<bool>,
    /// What the reading of the file had to say.
    pub warnings: Vec<String>,
}

impl Draft {
    pub fn new(name: String) -> Draft {
        Draft {
            name,
            description: None,
            prompt: String::new(),
            tools: Tools::Parent,
            disallowed: Vec::new(),
            model: None,
            max_steps: None,
            token_budget: None,
            context_budget: None,
            cost_budget_usd: None,
            explore: false,
            read_only: false,
            color: None,
            mcp_servers: Vec::new(),
            instructions: None,
            warnings: Vec::new(),
        }
    }

    /// The profile, and what was left out or changed on the way; an error
    /// when what is left breaks a hard rule.
    pub fn build(
        mut self,
        available: &[AvailableTool],
        light_model: Option<&str>,
    ) -> Result<(Profile, Vec<String>), String> {
        // An explore child reads and answers; it never writes.
        self.read_only |= self.explore;
        let mut profile = match self.explore {
            true => Profile::explore(),
            false => Profile::general(),
        };
        profile.name = self.name.clone();
        let kind_of = |tool: &str| {
            available
                .iter()
                .find(|(name, _)| *name == tool)
                .map(|(_, kind)| *kind)
        };
        let mut tools: Vec<String> = match self.tools.clone() {
            Tools::Parent => profile.tools.clone(),
            Tools::Only(names) => self.map_tools(&names, "tools"),
        };
        let disallowed = self.map_tools(&self.disallowed.clone(), "disallowedTools");
        tools.retain(|t| !disallowed.contains(t));
        let writes = |t: &String| !matches!(kind_of(t), Some(ToolKind::Read));
        if self.read_only && tools.iter().any(writes) {
            // Only a list the file wrote is worth a word; the parent's tools
            // are narrowed to the read ones as a matter of course.
            if let Tools::Only(_) = self.tools {
                let dropped: Vec<String> = tools.iter().filter(|t| writes(t)).cloned().collect();
                self.warnings
                    .push(format!("read-only: {} left out", dropped.join(", ")));
            }
            tools.retain(|t| !writes(t));
        }
        if tools.is_empty() {
            return Err(match &self.tools {
                Tools::Only(names) if names.is_empty() => {
                    "it lists no tools (`tools: []`), and a subagent needs one".into()
                }
                Tools::Only(names) => {
                    format!("none of its tools is one brood has ({})", names.join(", "))
                }
                Tools::Parent => "every tool it would have is taken away".into(),
            });
        }
        if !tools.iter().any(writes) {
            profile.permission_mode = PermissionMode::ReadOnly;
        }
        profile.tools = tools;
        let description = match self.description.as_deref().map(str::trim) {
            Some(d) if !d.is_empty() => d.to_string(),
            _ => {
                self.warnings
                    .push("no description: the parent sees only its name".into());
                self.prompt.lines().next().unwrap_or_default().to_string()
            }
        };
        // Every request of the parent carries every description, written or
        // taken from the prompt's first line.
        profile.description = match description.chars().count() > MAX_DESCRIPTION {
            true => {
                self.warnings.push(format!(
                    "description cut to {MAX_DESCRIPTION} characters for the task tool"
                ));
                description
                    .chars()
                    .take(MAX_DESCRIPTION)
                    .collect::<String>()
                    + "…"
            }
            false => description,
        };
        let prompt = self.prompt.trim();
        if !prompt.is_empty() {
            profile.system_prompt = match profile.contract {
                ResultContract::Explore => format!("{prompt}\n\n{EXPLORE_ANSWER}"),
                ResultContract::Text => prompt.to_string(),
            };
        }
        if let Some(model) = &self.model {
            let (role, note) = names::model(model, light_model);
            profile.model = role;
            self.warnings.extend(note);
        }
        profile.instructions = self.instructions.unwrap_or(profile.instructions);
        profile.color = self.color.clone();
        profile.mcp_servers = self.mcp_servers.clone();
        profile.max_steps = self.max_steps.or(profile.max_steps);
        profile.token_budget = self.token_budget.or(profile.token_budget);
        profile.context_budget = self.context_budget.or(profile.context_budget);
        profile.cost_budget_usd = self.cost_budget_usd.or(profile.cost_budget_usd);
        profile
            .validate_child(available)
            .map_err(|e| e.to_string())?;
        Ok((profile, self.warnings))
    }

    /// brood's names for `names`, once each; delegation tools and tools
    /// brood lacks are left out with a warning about `field`.
    fn map_tools(&mut self, names: &[String], field: &str) -> Vec<String> {
        let mut tools = Vec::new();
        let mut missing = Vec::new();
        let mut delegation = BTreeSet::new();
        for name in names {
            match names::tool(name) {
                ToolName::Tool(tool) if !tools.iter().any(|t| t == tool) => tools.push(tool.into()),
                ToolName::Tool(_) => {}
                ToolName::Delegation => {
                    delegation.insert(name.trim().to_string());
                }
                ToolName::Missing(name) => missing.push(name),
            }
        }
        if !delegation.is_empty() && field == "tools" {
            let listed: Vec<String> = delegation.into_iter().collect();
            self.warnings
                .push(format!("{} left out: {DELEGATION_NOTE}", listed.join(", ")));
        }
        if !missing.is_empty() {
            self.warnings.push(format!(
                "{field}: brood has no {} (left out)",
                missing.join(", ")
            ));
        }
        tools
    }
}
