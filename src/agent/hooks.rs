//! Hook points around tool calls and the end of a run. The permission policy is
//! one PreToolUse hook among possibly several; the most restrictive verdict wins.

use std::sync::Arc;

use async_trait::async_trait;

use crate::event::{AgentId, Decision};
use crate::model::ToolCall;
use crate::policy::{Policy, Verdict};
use crate::protocol::ToolKind;

/// The result text of a call a person declined in the approval dialog.
pub const DENIED_BY_USER: &str = "Permission denied by user";

/// What a tool call produced, as PostToolUse hooks see it.
#[derive(Debug, Clone)]
pub struct ToolOutcome {
    pub content: String,
    pub is_error: bool,
}

#[async_trait]
pub trait Hook: Send + Sync {
    /// May allow, ask about or deny a call before it runs; `None` has no opinion.
    async fn pre_tool_use(
        &self,
        _agent: AgentId,
        _call: &ToolCall,
        _kind: ToolKind,
    ) -> Option<Verdict> {
        None
    }

    /// Sees every result before the model does; text returned here is added
    /// to the result the model reads.
    async fn post_tool_use(
        &self,
        _agent: AgentId,
        _call: &ToolCall,
        _outcome: &ToolOutcome,
    ) -> Option<String> {
        None
    }

    /// Called when the model would stop; a message returned here is sent to the
    /// model as a user message and the run goes on (it costs a step).
    async fn stop(&self, _agent: AgentId, _final_text: &str) -> Option<String> {
        None
    }

    /// Sees a prompt before the parent does: an error blocks it (the reason
    /// is said), text returned goes with it as context.
    async fn user_prompt_submit(&self, _prompt: &str) -> Result<Option<String>, String> {
        Ok(None)
    }

    /// A child was started.
    async fn subagent_start(&self, _agent: AgentId, _profile: &str, _prompt: &str) {}
}

/// The permission policy as a PreToolUse hook.
pub struct PolicyHook(pub Arc<Policy>);

#[async_trait]
impl Hook for PolicyHook {
    async fn pre_tool_use(
        &self,
        _agent: AgentId,
        call: &ToolCall,
        kind: ToolKind,
    ) -> Option<Verdict> {
        Some(self.0.check(&call.name, kind, &call.input))
    }
}

/// Ordered hooks of one agent.
#[derive(Clone, Default)]
pub struct Hooks(Vec<Arc<dyn Hook>>);

impl Hooks {
    pub fn new(hooks: Vec<Arc<dyn Hook>>) -> Self {
        Hooks(hooks)
    }

    /// Appends `other`'s hooks after these.
    pub fn extend(&mut self, other: Hooks) {
        self.0.extend(other.0);
    }

    /// The most restrictive verdict of all hooks (deny > ask > allow); allow when
    /// no hook has an opinion.
    pub async fn pre_tool_use(&self, agent: AgentId, call: &ToolCall, kind: ToolKind) -> Verdict {
        let mut verdict = Verdict {
            decision: Decision::Allow,
            reason: "no hook objected".into(),
        };
        for hook in &self.0 {
            if let Some(v) = hook.pre_tool_use(agent, call, kind).await
                && severity(v.decision) >= severity(verdict.decision)
            {
                verdict = v;
            }
        }
        verdict
    }

    /// What every PostToolUse hook adds for the model, in order.
    pub async fn post_tool_use(
        &self,
        agent: AgentId,
        call: &ToolCall,
        outcome: &ToolOutcome,
    ) -> Vec<String> {
        let mut said = Vec::new();
        for hook in &self.0 {
            said.extend(hook.post_tool_use(agent, call, outcome).await);
        }
        said
    }

    /// The first block, or every hook's context joined.
    pub async fn user_prompt_submit(&self, prompt: &str) -> Result<Option<String>, String> {
        let mut context = Vec::new();
        for hook in &self.0 {
            context.extend(hook.user_prompt_submit(prompt).await?);
        }
        Ok((!context.is_empty()).then(|| context.join("\n")))
    }

    pub async fn subagent_start(&self, agent: AgentId, profile: &str, prompt: &str) {
        for hook in &self.0 {
            hook.subagent_start(agent, profile, prompt).await;
        }
    }

    /// The first continuation message any Stop hook returns.
    pub async fn stop(&self, agent: AgentId, final_text: &str) -> Option<String> {
        for hook in &self.0 {
            if let Some(message) = hook.stop(agent, final_text).await {
                return Some(message);
            }
        }
        None
    }
}

fn severity(decision: Decision) -> u8 {
    match decision {
        Decision::Allow => 0,
        Decision::Ask => 1,
        Decision::Deny => 2,
    }
}

/// A question put to the user when the policy says `ask`.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    pub id: u64,
    pub agent: AgentId,
    pub call: ToolCall,
    pub summary: String,
    pub reason: String,
    /// What "allow for the session" would approve (see the event's field).
    pub session_rule: String,
}

/// Answers approval requests: the TUI asks the person, headless mode answers at once.
#[async_trait]
pub trait Approver: Send + Sync {
    /// Called before the request is published, so an answer given the moment
    /// the question shows (or a session rule given meanwhile) finds it.
    fn expect(&self, _request: &ApprovalRequest) {}

    async fn approve(&self, request: &ApprovalRequest) -> bool;

    /// What the model reads when `approve` said no: a person declined.
    fn refusal(&self, _request: &ApprovalRequest) -> String {
        DENIED_BY_USER.to_string()
    }
}

/// Headless answers: deny every `ask`, or allow them all with `--yes`. A
/// denial names the rule that asked, since no person saw the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoApprove {
    DenyAll,
    AllowAll,
}

#[async_trait]
impl Approver for AutoApprove {
    async fn approve(&self, _request: &ApprovalRequest) -> bool {
        match self {
            AutoApprove::DenyAll => false,
            AutoApprove::AllowAll => true,
        }
    }

    fn refusal(&self, request: &ApprovalRequest) -> String {
        unattended_refusal(&request.reason)
    }
}

/// The result of a call the policy asks about when no one can be asked
/// (`brood run`, `brood tool` without `--yes`).
pub fn unattended_refusal(reason: &str) -> String {
    format!(
        "Permission denied: {reason}.\n\
         The policy asks about this, and no one could answer; --yes allows it."
    )
}
