//! A `Profile` is everything that makes one agent differ from another: its system
//! prompt, the tools it may call, its limits, its model, the shape of its answer
//! and its permission mode. The loop itself is the same for all of them.
//!
//! The hard rules of delegation are checked here, when a profile is built, not by
//! prompting: only the parent may hold `task` (one level of delegation), and a
//! read-only profile may hold no tool that writes or executes.

use crate::policy::PermissionMode;
use crate::protocol::TASK_TOOL;
use crate::protocol::ToolKind;

/// The system prompt of the parent agent.
const PARENT_PROMPT: &str = "You are brood, a coding agent working in the user's workspace. \
Use the tools to read, search and change files and to run commands. Prefer reading before \
changing. For read-heavy investigations, delegate to subagents with the task tool: several \
task calls in one turn run in parallel, and only their answers come back to you. Keep answers \
short and concrete, and cite files as path:line.";

const GENERAL_PROMPT: &str = "You are a subagent of brood, working on one task for a parent \
agent in the user's workspace. You start with no history beyond the task. Use the tools to \
do the work, then reply with a final answer the parent can use as it is: what you found or \
did, with path:line references. The parent sees only that final answer.";

const EXPLORE_PROMPT: &str = "You are an explore subagent of brood: you investigate the \
user's workspace with read-only tools (glob, grep, read_file) to answer one question for a \
parent agent. Search before you read; read only what you need.";

/// What an explore child's answer must be, told to every profile with the
/// explore contract (an agent file's own prompt gets it appended).
pub const EXPLORE_ANSWER: &str = "When you are done, reply with exactly one JSON object and \
nothing else (no markdown fences): {\"status\": \"completed\" or \"partial\", \"summary\": \
non-empty string, \"findings\": [strings], \"evidence\": [\"path:line\" strings], \
\"unresolved_questions\": [strings]}.";

/// A tool a profile may name: its name and what it does, which decides
/// whether a read-only profile may hold it (the same question the run-time
/// barrier asks).
pub type AvailableTool<'a> = (&'a str, ToolKind);

/// Which model an agent runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelRole {
    Main,
    /// The light model when one is configured, else the main one.
    Light,
}

impl ModelRole {
    pub fn as_str(&self) -> &'static str {
        match self {
            ModelRole::Main => "main",
            ModelRole::Light => "light",
        }
    }
}

/// What the agent's final answer must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultContract {
    /// Any text.
    Text,
    /// Exactly one `ExploreResult` JSON object.
    Explore,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    /// One line shown to the parent model in the `task` tool's schema.
    pub description: String,
    pub system_prompt: String,
    /// Names of the tools this agent may call; the registry is filtered to these.
    pub tools: Vec<String>,
    /// Model calls allowed in one run; `None` means no limit.
    pub max_steps: Option<u32>,
    /// Tokens (input + output, summed over the run's requests) the run may use.
    pub token_budget: Option<u64>,
    /// The largest request, in input tokens, the run may send.
    pub context_budget: Option<u64>,
    /// US dollars the run may spend, at its model's price; binds only a
    /// model with a price.
    pub cost_budget_usd: Option<f64>,
    /// Input tokens past which the history is compacted before the next
    /// request (the parent's; children end at their context budget).
    pub compact_at: Option<u64>,
    pub model: ModelRole,
    pub contract: ResultContract,
    pub permission_mode: PermissionMode,
    /// Whether the project instructions (`AGENTS.md`…) go into its system
    /// prompt: yes but for explore children, whose context budget is small.
    pub instructions: bool,
    /// The color of its id on screen (an agent file's `color`).
    pub color: Option<String>,
    /// The MCP servers whose tools it gets, by name (the parent gets all).
    pub mcp_servers: Vec<String>,
}

/// A profile that breaks a hard rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error(
        "profile {profile}: only the parent agent may hold the task tool (one level of delegation)"
    )]
    Delegation { profile: String },
    #[error("profile {profile}: a read-only profile may not hold {tool}")]
    ReadOnlyWrites { profile: String, tool: String },
    #[error("profile {profile}: unknown tool {tool:?} (available: {available})")]
    UnknownTool {
        profile: String,
        tool: String,
        available: String,
    },
    #[error("profile {profile}: {message}")]
    Invalid { profile: String, message: String },
}

/// The six base tools every normal agent starts from.
fn base_tools() -> Vec<String> {
    crate::tools::ToolRegistry::base().names()
}

fn names(tools: &[&str]) -> Vec<String> {
    tools.iter().map(|t| t.to_string()).collect()
}

impl Profile {
    /// The agent the user talks to: every base tool plus `task`, no step limit
    /// unless asked.
    pub fn parent(max_steps: Option<u32>) -> Profile {
        let mut tools = base_tools();
        tools.push(TASK_TOOL.into());
        Profile {
            name: "main".into(),
            description: "the parent agent".into(),
            system_prompt: PARENT_PROMPT.into(),
            tools,
            max_steps,
            token_budget: None,
            context_budget: None,
            cost_budget_usd: None,
            compact_at: None,
            model: ModelRole::Main,
            contract: ResultContract::Text,
            permission_mode: PermissionMode::Normal,
            instructions: true,
            color: None,
            mcp_servers: Vec::new(),
        }
    }

    /// A child with the parent's base tools (no `task`), at most 30 turns, its
    /// final text returned.
    pub fn general() -> Profile {
        Profile {
            name: "general".into(),
            description: "a general-purpose subagent with the base tools; returns its final text"
                .into(),
            system_prompt: GENERAL_PROMPT.into(),
            tools: base_tools(),
            max_steps: Some(30),
            token_budget: None,
            context_budget: None,
            cost_budget_usd: None,
            compact_at: None,
            model: ModelRole::Main,
            contract: ResultContract::Text,
            permission_mode: PermissionMode::Normal,
            instructions: true,
            color: None,
            mcp_servers: Vec::new(),
        }
    }

    /// A read-only investigator on the light model with tight budgets and a JSON
    /// answer.
    pub fn explore() -> Profile {
        Profile {
            name: "explore".into(),
            description: "a read-only investigator (glob, grep, read_file) on the light model; returns a JSON summary with path:line evidence".into(),
            system_prompt: format!("{EXPLORE_PROMPT} {EXPLORE_ANSWER}"),
            tools: names(&["read_file", "glob", "grep"]),
            max_steps: Some(12),
            token_budget: Some(32_000),
            context_budget: Some(16_000),
            cost_budget_usd: None,
            compact_at: None,
            model: ModelRole::Light,
            contract: ResultContract::Explore,
            permission_mode: PermissionMode::ReadOnly,
            instructions: false,
            color: None,
            mcp_servers: Vec::new(),
        }
    }

    /// Checks the hard rules for a child profile against the tools that exist.
    pub fn validate_child(&self, available: &[AvailableTool]) -> Result<(), ProfileError> {
        for tool in &self.tools {
            if tool == TASK_TOOL {
                return Err(ProfileError::Delegation {
                    profile: self.name.clone(),
                });
            }
            let kind = available
                .iter()
                .find(|(name, _)| name == tool)
                .map(|(_, kind)| *kind);
            let writes = match kind {
                Some(ToolKind::Read | ToolKind::External { read_only: true }) | None => false,
                Some(
                    ToolKind::Write
                    | ToolKind::Exec
                    | ToolKind::Delegate
                    | ToolKind::External { read_only: false },
                ) => true,
            };
            if self.permission_mode == PermissionMode::ReadOnly && writes {
                return Err(ProfileError::ReadOnlyWrites {
                    profile: self.name.clone(),
                    tool: tool.clone(),
                });
            }
            if kind.is_none() {
                let names: Vec<&str> = available.iter().map(|(name, _)| *name).collect();
                return Err(ProfileError::UnknownTool {
                    profile: self.name.clone(),
                    tool: tool.clone(),
                    available: names.join(", "),
                });
            }
        }
        if self.tools.is_empty() {
            return Err(ProfileError::Invalid {
                profile: self.name.clone(),
                message: "it holds no tools".into(),
            });
        }
        if self.max_steps == Some(0) {
            return Err(ProfileError::Invalid {
                profile: self.name.clone(),
                message: "max_steps must be at least 1".into(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &[AvailableTool] = &[
        ("bash", ToolKind::Exec),
        ("read_file", ToolKind::Read),
        ("write_file", ToolKind::Write),
        ("edit_file", ToolKind::Write),
        ("glob", ToolKind::Read),
        ("grep", ToolKind::Read),
    ];

    #[test]
    fn built_in_children_keep_the_hard_rules() {
        Profile::general().validate_child(BASE).unwrap();
        Profile::explore().validate_child(BASE).unwrap();
        assert!(!Profile::general().tools.iter().any(|t| t == TASK_TOOL));
        assert!(Profile::parent(None).tools.iter().any(|t| t == TASK_TOOL));
    }

    #[test]
    fn broken_profiles_name_the_profile_and_the_rule() {
        let mut nested = Profile::general();
        nested.name = "nested".into();
        nested.tools.push(TASK_TOOL.into());
        let err = nested.validate_child(BASE).unwrap_err().to_string();
        assert!(
            err.contains("nested") && err.contains("one level of delegation"),
            "{err}"
        );

        let mut sneaky = Profile::explore();
        sneaky.name = "sneaky".into();
        sneaky.tools.push("bash".into());
        let err = sneaky.validate_child(BASE).unwrap_err().to_string();
        assert!(
            err.contains("sneaky") && err.contains("read-only") && err.contains("bash"),
            "{err}"
        );

        let mut typo = Profile::general();
        typo.tools = vec!["grepp".into()];
        let err = typo.validate_child(BASE).unwrap_err().to_string();
        assert!(err.contains("grepp") && err.contains("available"), "{err}");
    }
}
