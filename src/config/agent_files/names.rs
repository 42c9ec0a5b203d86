//! Other tools' names for tools, models and permission modes, in brood's
//! words. The table in the README ("Bring your setup") says the same.

use crate::agent::ModelRole;
use crate::protocol::TASK_TOOL;

/// What an agent file's tool name is in brood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ToolName {
    /// One of brood's tools.
    Tool(&'static str),
    /// A subagent tool: a child may not hold one (one level of delegation).
    Delegation,
    /// A tool brood does not have.
    Missing(String),
}

/// Maps a tool name of Claude Code (`Read`, `MultiEdit`, `Bash(git:*)`),
/// opencode (`read`, `list`, `patch`) or brood itself (`read_file`).
pub(super) fn tool(name: &str) -> ToolName {
    let name = name.trim();
    // `Bash(git diff:*)` names the tool with a rule; the rule is the
    // permission rules' business.
    let base = name.split_once('(').map_or(name, |(base, _)| base).trim();
    let brood = match base.to_ascii_lowercase().as_str() {
        "read" | "read_file" => "read_file",
        "grep" => "grep",
        "glob" | "ls" | "list" => "glob",
        "bash" | "shell" => "bash",
        "edit" | "multiedit" | "edit_file" | "patch" => "edit_file",
        "write" | "write_file" => "write_file",
        "task" | "agent" => return ToolName::Delegation,
        _ if base == TASK_TOOL => return ToolName::Delegation,
        _ => return ToolName::Missing(name.to_string()),
    };
    ToolName::Tool(brood)
}

/// Which of brood's models an agent file's `model` means, and what to say
/// about it.
pub(super) fn model(value: &str, light_model: Option<&str>) -> (ModelRole, Option<String>) {
    let value = value.trim();
    let lower = value.to_ascii_lowercase();
    match lower.as_str() {
        "" | "inherit" => (ModelRole::Main, None),
        "haiku" => (ModelRole::Light, None),
        "sonnet" | "opus" => (ModelRole::Main, None),
        _ if light_model.is_some_and(|m| m == value || value.ends_with(&format!("/{m}"))) => {
            (ModelRole::Light, None)
        }
        _ if lower.contains("haiku") => (ModelRole::Light, None),
        _ if lower.contains("sonnet") || lower.contains("opus") => (ModelRole::Main, None),
        _ if lower.contains("mini") || lower.contains("flash") => (
            ModelRole::Light,
            Some(format!("model {value:?} runs on the light model")),
        ),
        _ => (
            ModelRole::Main,
            Some(format!("model {value:?} runs on the main model")),
        ),
    }
}

/// Whether a permission mode (Claude Code's `permissionMode`, Codex's
/// `sandbox_mode`) makes the agent read-only, and what to say about it.
pub(super) fn read_only_mode(value: &str) -> (bool, Option<String>) {
    match value.trim() {
        "plan" | "read-only" | "readOnly" | "read_only" => (true, None),
        "" | "default" | "workspace-write" => (false, None),
        other @ ("acceptEdits" | "bypassPermissions" | "dontAsk" | "danger-full-access") => (
            false,
            Some(format!(
                "{other}: brood's permission policy still asks before what it would ask about"
            )),
        ),
        other => (false, Some(format!("unknown permission mode {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_of_each_tool_map_to_brood_s() {
        for (name, want) in [
            ("Read", "read_file"),
            ("MultiEdit", "edit_file"),
            ("Edit", "edit_file"),
            ("Write", "write_file"),
            ("Bash(git diff:*)", "bash"),
            ("LS", "glob"),
            ("list", "glob"),
            ("patch", "edit_file"),
            ("read_file", "read_file"),
        ] {
            assert_eq!(tool(name), ToolName::Tool(want), "{name}");
        }
        assert_eq!(tool("Task"), ToolName::Delegation);
        assert_eq!(tool("Agent"), ToolName::Delegation);
        assert_eq!(tool("WebFetch"), ToolName::Missing("WebFetch".into()));
        assert_eq!(
            tool("mcp__github__create_issue"),
            ToolName::Missing("mcp__github__create_issue".into())
        );
    }

    #[test]
    fn model_families_map_to_the_configured_models() {
        assert_eq!(model("haiku", None).0, ModelRole::Light);
        assert_eq!(model("inherit", None), (ModelRole::Main, None));
        assert_eq!(model("opus", None).0, ModelRole::Main);
        assert_eq!(model("claude-haiku-4-5", None), (ModelRole::Light, None));
        assert_eq!(
            model("anthropic/claude-sonnet-4-5", None),
            (ModelRole::Main, None)
        );
        assert_eq!(
            model("gpt-5-mini", None),
            (
                ModelRole::Light,
                Some("model \"gpt-5-mini\" runs on the light model".into())
            )
        );
        assert_eq!(
            model("anthropic/qwen3:4b", Some("qwen3:4b")),
            (ModelRole::Light, None)
        );
        assert_eq!(model("gpt-5", None).0, ModelRole::Main);
    }
}
