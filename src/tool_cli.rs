//! `brood tool NAME 'JSON'`: one tool call, made exactly as a model's call would
//! be (schema check, policy, approval, the tool), printing the result the model
//! would read. It answers "what would the agent see?" and is how the tools are
//! timed against ripgrep and fd from outside.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::agent::{
    Agent, AutoApprove, DEFAULT_MAX_TOKENS, Hooks, PolicyHook, Profile, ToolOutcome,
};
use crate::event::{AgentId, EventBus};
use crate::model::{Model, ModelError, ModelRequest, ModelResponse, StreamSink, ToolCall};
use crate::policy::{PermissionMode, Policy};
use crate::sandbox::{Sandbox, SandboxError, SandboxSettings};
use crate::tools::ToolRegistry;
use crate::workspace::{Workspace, WorkspaceError};

/// The model of an agent that only ever runs one tool call: it is never asked.
struct NoModel;

#[async_trait]
impl Model for NoModel {
    fn provider(&self) -> &str {
        "none"
    }

    async fn complete(
        &self,
        _request: &ModelRequest,
        _sink: &mut dyn StreamSink,
        _cancel: &CancellationToken,
    ) -> Result<ModelResponse, ModelError> {
        Err(ModelError::Script(
            "`brood tool` runs tools without a model".into(),
        ))
    }
}

/// One call's result, and what the command should say before it (the
/// sandbox's state), as a session's setup does.
pub struct ToolRun {
    pub outcome: ToolOutcome,
    pub warnings: Vec<String>,
}

/// Why a tool could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum ToolCliError {
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

/// Runs `name` with `input` (JSON text) in `workspace`. Input that is not JSON
/// reaches the tool path as the raw text, as a provider hands it over, so the
/// answer is the one a model would get.
pub async fn run_tool(
    workspace: &Path,
    name: &str,
    input: &str,
    approve: AutoApprove,
    sandbox: SandboxSettings,
    rules: crate::policy::UserRules,
) -> Result<ToolRun, ToolCliError> {
    let workspace = Arc::new(Workspace::new(workspace)?);
    let sandbox = Arc::new(Sandbox::prepare(sandbox, workspace.root())?);
    let warnings = sandbox.warning().into_iter().collect();
    let profile = Profile::parent(None);
    let policy = Arc::new(Policy::new(workspace.clone(), PermissionMode::Normal).with_rules(rules));
    let agent = Agent {
        id: AgentId::Main,
        tools: Agent::tools_for(&profile, &ToolRegistry::base()),
        profile,
        model: Arc::new(NoModel),
        model_name: "none".into(),
        hooks: Hooks::new(vec![Arc::new(PolicyHook(policy))]),
        approver: Arc::new(approve),
        bus: EventBus::new(),
        workspace,
        sandbox,
        max_tokens: DEFAULT_MAX_TOKENS,
        approval_ids: Arc::new(AtomicU64::new(0)),
        prices: Default::default(),
        history: Default::default(),
        inbox: None,
    };
    let input = serde_json::from_str(input)
        .unwrap_or_else(|_| serde_json::Value::String(input.to_string()));
    let call = ToolCall {
        id: "cli".into(),
        name: name.to_string(),
        input,
    };
    let cancel = CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    let watcher = tokio::spawn(async move {
        crate::signals::stop_requested(crate::signals::Listen::WithCtrlC).await;
        on_ctrl_c.cancel();
    });
    let outcome = agent.call_tool(&call, &cancel).await;
    watcher.abort();
    Ok(ToolRun { outcome, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_call_runs_as_the_model_would_make_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn main() {}\n").unwrap();
        let ok = run_tool(
            dir.path(),
            "grep",
            r#"{"pattern": "fn main"}"#,
            AutoApprove::DenyAll,
            SandboxSettings::default(),
            Default::default(),
        )
        .await
        .unwrap()
        .outcome;
        assert!(!ok.is_error);
        assert_eq!(ok.content.trim(), "a.rs:1:fn main() {}");
        let schema = run_tool(
            dir.path(),
            "grep",
            r#"{"path": "."}"#,
            AutoApprove::DenyAll,
            SandboxSettings::default(),
            Default::default(),
        )
        .await
        .unwrap()
        .outcome;
        assert!(
            schema.is_error && schema.content.contains("\"pattern\""),
            "{}",
            schema.content
        );
        let garbled = run_tool(
            dir.path(),
            "grep",
            "{pattern:",
            AutoApprove::DenyAll,
            SandboxSettings::default(),
            Default::default(),
        )
        .await
        .unwrap()
        .outcome;
        assert!(garbled.is_error && garbled.content.contains("not valid JSON"));
        let asked = run_tool(
            dir.path(),
            "bash",
            r#"{"command": "rm a.rs"}"#,
            AutoApprove::DenyAll,
            SandboxSettings::default(),
            Default::default(),
        )
        .await
        .unwrap()
        .outcome;
        assert_eq!(
            asked.content,
            crate::agent::unattended_refusal("`rm a.rs` deletes files")
        );
        assert!(dir.path().join("a.rs").exists());
        let allowed = run_tool(
            dir.path(),
            "bash",
            r#"{"command": "rm a.rs"}"#,
            AutoApprove::AllowAll,
            SandboxSettings::default(),
            Default::default(),
        )
        .await
        .unwrap()
        .outcome;
        assert!(!allowed.is_error, "{}", allowed.content);
        assert!(!dir.path().join("a.rs").exists());
        let unknown = run_tool(
            dir.path(),
            "teleport",
            "{}",
            AutoApprove::DenyAll,
            SandboxSettings::default(),
            Default::default(),
        )
        .await
        .unwrap()
        .outcome;
        assert!(unknown.is_error && unknown.content.contains("available"));
    }
}
