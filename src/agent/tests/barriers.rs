//! A new writing tool is stopped in a read-only profile by both barriers, which
//! ask the same question (its `ToolKind`), not whether its name is on a list.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::tools::{Tool, ToolContext, ToolError};

/// A tool nobody has heard of that changes things, and counts its runs.
struct Deploy(Arc<AtomicUsize>);

#[async_trait]
impl Tool for Deploy {
    fn name(&self) -> &str {
        "deploy"
    }

    fn description(&self) -> &str {
        "Deploys the workspace."
    }

    fn input_schema(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {}})
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn summarize(&self, _input: &serde_json::Value) -> String {
        "deploy".into()
    }

    async fn run(
        &self,
        _input: serde_json::Value,
        _ctx: &ToolContext,
    ) -> Result<String, ToolError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok("deployed".into())
    }
}

#[test]
fn a_read_only_profile_naming_a_new_writing_tool_is_refused() {
    let runs = Arc::new(AtomicUsize::new(0));
    let mut tools = ToolRegistry::base();
    tools.register(Arc::new(Deploy(runs)));
    let mut profile = Profile::explore();
    profile.name = "reviewer".into();
    profile.tools.push("deploy".into());
    let err = profile
        .validate_child(&tools.available())
        .unwrap_err()
        .to_string();
    assert!(err.contains("reviewer") && err.contains("deploy"), "{err}");
    assert!(err.contains("read-only"), "{err}");
    // The same tool in a profile that may write is fine.
    let mut general = Profile::general();
    general.tools.push("deploy".into());
    general.validate_child(&tools.available()).unwrap();
}

#[tokio::test]
async fn a_new_writing_tool_injected_into_a_read_only_agent_never_runs() {
    let f = fixture(
        json!({"agents": {"sub-1": [
            {"tool_calls": [{"name": "deploy", "input": {}}]},
            {"text": "done"}
        ]}}),
        None,
        AutoApprove::AllowAll,
        Hooks::default(),
    );
    let runs = Arc::new(AtomicUsize::new(0));
    let mut tools = ToolRegistry::base();
    tools.register(Arc::new(Deploy(runs.clone())));
    let policy = Policy::new(f.agent.workspace.clone(), PermissionMode::ReadOnly);
    let agent = Agent {
        id: AgentId::Sub(1),
        profile: Profile::explore(),
        tools,
        hooks: Hooks::new(vec![Arc::new(PolicyHook(Arc::new(policy)))]),
        ..f.agent
    };
    let mut messages = vec![Message::user_text("look")];
    agent.run(&mut messages, &CancellationToken::new()).await;
    let results = results(&messages[2]);
    assert_eq!(results.len(), 1);
    let (_, content, is_error) = &results[0];
    assert!(*is_error && content.contains("read-only"), "{content}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "the tool never ran");
}
