//! A `Profile` is everything that makes one agent differ from another: its system
//! prompt, the tools it may call, its limits and its permission mode. The loop
//! itself is the same for all of them.

use crate::policy::PermissionMode;

/// The system prompt of the parent agent.
const PARENT_PROMPT: &str = "You are brood, a coding agent working in the user's workspace. \
Use the tools to read, search and change files and to run commands. Prefer reading before \
changing. Keep answers short and concrete, and cite files as path:line.";

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    pub system_prompt: String,
    /// Names of the tools this agent may call; the registry is filtered to these.
    pub tools: Vec<String>,
    /// Model calls allowed in one run; `None` means no limit.
    pub max_steps: Option<u32>,
    pub permission_mode: PermissionMode,
}

impl Profile {
    /// The agent the user talks to: every base tool, no step limit unless asked.
    pub fn parent(max_steps: Option<u32>) -> Profile {
        Profile {
            name: "main".into(),
            system_prompt: PARENT_PROMPT.into(),
            tools: crate::tools::ToolRegistry::base()
                .names()
                .into_iter()
                .map(String::from)
                .collect(),
            max_steps,
            permission_mode: PermissionMode::Normal,
        }
    }
}
