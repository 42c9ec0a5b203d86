//! The agent loop. One implementation serves every agent; a [`Profile`] says what
//! differs (prompt, tools, limits, permissions).
//!
//! A run: ask the model; stream its text; if it called tools, run each through the
//! hooks (the policy is one) and the tool, append all results in one user message
//! in call order, and ask again; stop when the model calls no tool (unless a Stop
//! hook continues) or a limit ends it. Every step is an event on the bus.

mod call;
mod hooks;
mod profile;

pub use hooks::{ApprovalRequest, Approver, AutoApprove, Hook, Hooks, PolicyHook, ToolOutcome};
pub use profile::Profile;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;

use crate::event::{AgentId, EventBus, EventKind, TerminalReason, Usage};
use crate::model::{ContentBlock, Message, Model, ModelError, ModelRequest, Role, StreamSink};
use crate::policy::Workspace;
use crate::tools::ToolRegistry;

/// Default cap on one response's output tokens.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// Everything an agent needs to run, shared by its runs.
pub struct Agent {
    pub id: AgentId,
    pub profile: Profile,
    pub model: Arc<dyn Model>,
    /// The model name sent to the provider.
    pub model_name: String,
    /// Already filtered to the profile's tools.
    pub tools: ToolRegistry,
    pub hooks: Hooks,
    pub approver: Arc<dyn Approver>,
    pub bus: EventBus,
    pub workspace: Arc<Workspace>,
    pub max_tokens: u32,
    /// Numbers approval requests across the session.
    pub approval_ids: Arc<AtomicU64>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub reason: TerminalReason,
    /// The text of the last assistant message.
    pub final_text: String,
    /// Model calls made.
    pub steps: u32,
    pub usage: Usage,
    /// What went wrong, when the reason is not `completed`.
    pub error: Option<String>,
}

/// Publishes streamed text as `text_delta` events.
struct BusSink<'a> {
    bus: &'a EventBus,
    agent: AgentId,
}

impl StreamSink for BusSink<'_> {
    fn text_delta(&mut self, text: &str) {
        self.bus
            .publish(self.agent, EventKind::TextDelta { text: text.into() });
    }
}

impl Agent {
    /// A registry holding only the tools `profile` names, from `all`.
    pub fn tools_for(profile: &Profile, all: &ToolRegistry) -> ToolRegistry {
        let mut tools = all.clone();
        tools.retain(|name| profile.tools.iter().any(|t| t == name));
        tools
    }

    /// Runs until the model stops calling tools or a limit ends the run. New
    /// messages are appended to `messages`, which must end with a user message.
    pub async fn run(&self, messages: &mut Vec<Message>, cancel: &CancellationToken) -> RunOutcome {
        let mut steps = 0u32;
        let mut usage = Usage::default();
        let mut final_text = String::new();
        let (reason, error) = loop {
            if cancel.is_cancelled() {
                break (TerminalReason::Interrupted, None);
            }
            if let Some(limit) = self.profile.max_steps
                && steps >= limit
            {
                let message = format!("stopped after {limit} steps without a final answer");
                break (TerminalReason::MaxSteps, Some(message));
            }
            steps += 1;
            let request = ModelRequest {
                agent: self.id,
                model: self.model_name.clone(),
                system: self.profile.system_prompt.clone(),
                messages: messages.clone(),
                tools: self.tools.specs(),
                max_tokens: self.max_tokens,
            };
            self.publish(EventKind::ModelRequest {
                step: steps,
                model: self.model_name.clone(),
                messages: request.messages.len(),
                tools: request.tools.len(),
            });
            let mut sink = BusSink {
                bus: &self.bus,
                agent: self.id,
            };
            let response = tokio::select! {
                biased;
                _ = cancel.cancelled() => Err(ModelError::Cancelled),
                r = self.model.complete(&request, &mut sink, cancel) => r,
            };
            let response = match response {
                Ok(r) => r,
                Err(ModelError::Cancelled) => break (TerminalReason::Interrupted, None),
                Err(e) => {
                    let message = format!("model error: {e}");
                    self.publish(EventKind::Error {
                        message: message.clone(),
                    });
                    break (TerminalReason::ModelError, Some(message));
                }
            };
            usage.add(&response.usage);
            let calls = response.message.tool_calls();
            final_text = response.message.text();
            self.publish(EventKind::AssistantMessage {
                text: final_text.clone(),
                tool_calls: calls.len(),
                usage: response.usage,
                stop_reason: response.stop_reason.as_str().to_string(),
            });
            messages.push(response.message);

            if calls.is_empty() {
                match self.hooks.stop(self.id, &final_text).await {
                    Some(text) => {
                        self.publish(EventKind::HookContinue { text: text.clone() });
                        messages.push(Message::user_text(text));
                        continue;
                    }
                    None => break (TerminalReason::Completed, None),
                }
            }

            let mut results = Vec::with_capacity(calls.len());
            for call in &calls {
                let outcome = self.execute(call, cancel).await;
                results.push(ContentBlock::ToolResult {
                    tool_use_id: call.id.clone(),
                    content: outcome.content,
                    is_error: outcome.is_error,
                });
            }
            messages.push(Message {
                role: Role::User,
                content: results,
            });
        };
        self.publish(EventKind::TurnEnd {
            reason,
            steps,
            usage,
        });
        RunOutcome {
            reason,
            final_text,
            steps,
            usage,
            error,
        }
    }

    fn publish(&self, kind: EventKind) {
        self.bus.publish(self.id, kind);
    }

    fn next_approval_id(&self) -> u64 {
        self.approval_ids.fetch_add(1, Ordering::Relaxed) + 1
    }
}

#[cfg(test)]
mod tests;
