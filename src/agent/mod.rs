//! The agent loop. One implementation serves every agent; a [`Profile`] says what
//! differs (prompt, tools, limits, permissions).
//!
//! A run: ask the model; stream its text; if it called tools, run each through the
//! hooks (the policy is one) and the tool, append all results in one user message
//! in call order, and ask again; stop when the model calls no tool (unless a Stop
//! hook continues) or a limit ends it. Every step is an event on the bus.

mod call;
mod command_hooks;
pub mod compact;
mod contract;
mod history;
mod hooks;
mod inbox;
mod launcher;
mod profile;
mod task;

pub use command_hooks::CommandHooks;
pub use contract::{ContractError, ExploreResult, ExploreStatus, parse_explore_result};
pub use hooks::{
    ApprovalRequest, Approver, AutoApprove, DENIED_BY_USER, Hook, Hooks, PolicyHook, ToolOutcome,
    unattended_refusal,
};
pub use inbox::{Inbox, append_steer};
pub use launcher::{
    DEFAULT_MAX_PARALLEL, LaunchError, Launcher, LauncherParts, Models, TaskReport, TaskRequest,
};
pub use profile::{
    AvailableTool, EXPLORE_ANSWER, ModelRole, Profile, ProfileError, ResultContract,
};
pub use task::TaskTool;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;

use crate::event::{AgentId, EventBus, EventKind, TerminalReason, Usage};
use crate::model::{
    ContentBlock, Message, Model, ModelError, ModelRequest, RetryNotice, Role, StopReason,
    StreamSink, ToolCall,
};
use crate::protocol::{PriceTable, TASK_TOOL};
use crate::text::count;
use crate::tools::ToolRegistry;
use crate::workspace::Workspace;

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
    /// The session's sandbox, shared by every agent.
    pub sandbox: Arc<crate::sandbox::Sandbox>,
    pub max_tokens: u32,
    /// Numbers approval requests across the session.
    pub approval_ids: Arc<AtomicU64>,
    /// What its model's tokens cost, for a cost budget.
    pub prices: PriceTable,
    /// What it counted of its history so far.
    pub history: history::HistoryCache,
    /// What the user tells it while it runs; `None` for an agent no one can
    /// reach that way.
    pub inbox: Option<Arc<Inbox>>,
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
    /// The validated answer of an agent under the explore contract.
    pub result: Option<ExploreResult>,
    /// How many times each tool was called.
    pub tool_counts: BTreeMap<String, u32>,
}

/// Why a run stops before its next model call, if it must.
enum Stop {
    Now(TerminalReason, Option<String>),
}

/// What a run has done so far.
#[derive(Default)]
struct RunState {
    steps: u32,
    usage: Usage,
    /// Input tokens of the last request, as the provider counted them.
    context: u64,
    /// US dollars spent, at the model's price (0 without one).
    cost: f64,
    final_text: String,
    /// Whether the one correction of the result contract was spent.
    corrected: bool,
    result: Option<ExploreResult>,
    tool_counts: BTreeMap<String, u32>,
}

impl RunState {
    /// What one request used: its tokens, its cost (when the model has a
    /// price) and how full its context was.
    fn spend(&mut self, usage: &Usage, cost: Option<f64>) {
        self.usage.add(usage);
        self.cost += cost.unwrap_or(0.0);
        self.context = usage.input_total();
    }
}

enum ContractCheck {
    Accepted,
    Retry,
    Violated(String),
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

    fn thinking_delta(&mut self, text: &str) {
        self.bus
            .publish(self.agent, EventKind::ThinkingDelta { text: text.into() });
    }

    fn retry(&mut self, notice: &RetryNotice) {
        self.bus.publish(
            self.agent,
            EventKind::Retry {
                attempt: notice.attempt,
                max_attempts: notice.max_attempts,
                wait_ms: notice.wait_ms,
                reason: notice.reason.clone(),
            },
        );
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
        let mut state = RunState::default();
        let (reason, error) = loop {
            // Only the parent compacts: a child's request is not made twice.
            let estimate = match self.profile.compact_at {
                Some(_) => self.estimate(&self.request(messages)),
                None => 0,
            };
            if !cancel.is_cancelled() && self.needs_compaction(messages, estimate, state.context) {
                match self.compact(messages, compact::Trigger::Auto, cancel).await {
                    Ok(usage) => {
                        state.spend(&usage, self.prices.cost(&self.model_name, &usage));
                        // The summary replaced what the last request held.
                        state.context = 0;
                    }
                    Err(ModelError::Cancelled) => break (TerminalReason::Interrupted, None),
                    // The request goes as it is; the provider may still take it.
                    Err(e) => self.publish(EventKind::Error {
                        message: format!("compaction failed: {e}"),
                    }),
                }
            }
            self.read_inbox(messages);
            let request = self.request(messages);
            if let Err(Stop::Now(reason, error)) = self.check_limits(&state, &request, cancel) {
                break (reason, error);
            }
            state.steps += 1;
            self.publish(EventKind::ModelRequest {
                step: state.steps,
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
            let usage = &response.usage;
            state.spend(usage, self.prices.cost(&self.model_name, usage));
            let response_cut = response.stop_reason == StopReason::MaxTokens;
            let mut message = response.message.canonical_assistant();
            self.history.make_ids_unique(&mut message, messages);
            let calls = message.tool_calls();
            state.final_text = message.text();
            for block in &message.content {
                self.publish_thinking(block);
            }
            self.publish(EventKind::AssistantMessage {
                text: state.final_text.clone(),
                tool_calls: calls.len(),
                usage: response.usage,
                stop_reason: response.stop_reason.as_str().to_string(),
            });
            messages.push(message);

            if calls.is_empty() {
                if let Some(text) = self.hooks.stop(self.id, &state.final_text).await {
                    self.publish(EventKind::HookContinue { text: text.clone() });
                    messages.push(Message::user_text(text));
                    continue;
                }
                match self.check_contract(&mut state, messages) {
                    ContractCheck::Accepted => break (TerminalReason::Completed, None),
                    ContractCheck::Retry => continue,
                    ContractCheck::Violated(error) => {
                        break (TerminalReason::ContractViolation, Some(error));
                    }
                }
            }

            for call in &calls {
                *state.tool_counts.entry(call.name.clone()).or_default() += 1;
            }
            // Output cut by max_tokens ends in the middle of the last tool call:
            // its input is incomplete, so it is not run and the model is told why.
            let cut = (response_cut && !calls.is_empty()).then(|| calls.len() - 1);
            let runnable = &calls[..cut.unwrap_or(calls.len())];
            let mut results = self.execute_all(runnable, cancel).await;
            if let Some(index) = cut {
                results.push(self.refuse_cut_call(&calls[index]));
            }
            messages.push(Message {
                role: Role::User,
                content: calls
                    .iter()
                    .zip(results)
                    .map(|(call, outcome)| ContentBlock::ToolResult {
                        tool_use_id: call.id.clone(),
                        content: outcome.content,
                        is_error: outcome.is_error,
                    })
                    .collect(),
            });
        };
        self.publish(EventKind::TurnEnd {
            reason,
            steps: state.steps,
            usage: state.usage,
        });
        RunOutcome {
            reason,
            final_text: state.final_text,
            steps: state.steps,
            usage: state.usage,
            error,
            result: state.result,
            tool_counts: state.tool_counts,
        }
    }

    /// What the user sent while the agent worked goes into its history, each
    /// message an event, before the request that will read it.
    fn read_inbox(&self, messages: &mut Vec<Message>) {
        let Some(inbox) = &self.inbox else {
            return;
        };
        for text in inbox.take() {
            let before = messages.len();
            append_steer(messages, &text);
            if messages.len() == before {
                self.history.block_appended(messages);
            }
            self.publish(EventKind::Steer { text });
        }
    }

    /// The next request: the history and the system prompt borrowed, the
    /// tool specs made (the registry's MCP tools can change between two).
    fn request<'a>(&'a self, messages: &'a [Message]) -> ModelRequest<'a> {
        ModelRequest {
            agent: self.id,
            model: Cow::Borrowed(&self.model_name),
            system: Cow::Borrowed(&self.profile.system_prompt),
            messages: Cow::Borrowed(messages),
            tools: Cow::Owned(self.tools.specs()),
            max_tokens: self.max_tokens,
        }
    }

    /// The request's estimated input tokens, its history counted once per
    /// message ([`history::HistoryCache`]).
    fn estimate(&self, request: &ModelRequest<'_>) -> u64 {
        request.estimate_fixed_tokens() + self.history.tokens(&request.messages)
    }

    /// The limits checked before every model call: interrupt, steps, the token
    /// budget already spent, and the size of the request about to be sent.
    fn check_limits(
        &self,
        state: &RunState,
        request: &ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<(), Stop> {
        if cancel.is_cancelled() {
            return Err(Stop::Now(TerminalReason::Interrupted, None));
        }
        if let Some(limit) = self.profile.max_steps
            && state.steps >= limit
        {
            let message = format!(
                "stopped after {} without a final answer",
                count(limit, "step")
            );
            return Err(Stop::Now(TerminalReason::MaxSteps, Some(message)));
        }
        if let Some(budget) = self.profile.token_budget
            && state.usage.total() >= budget
        {
            let message = format!(
                "token budget used up: {} of {budget} tokens",
                state.usage.total()
            );
            return Err(Stop::Now(TerminalReason::TokenBudget, Some(message)));
        }
        // A model without a price cannot spend a cost budget: tokens only.
        if let Some(budget) = self.profile.cost_budget_usd
            && self.prices.price(&self.model_name).is_some()
            && state.cost >= budget
        {
            let message = format!(
                "cost budget used up: {} of {}",
                crate::protocol::price::usd(state.cost),
                crate::protocol::price::usd(budget)
            );
            return Err(Stop::Now(TerminalReason::CostBudget, Some(message)));
        }
        if let Some(budget) = self.profile.context_budget {
            let size = self.estimate(request);
            if size > budget {
                let message = format!(
                    "the next request would hold about {size} tokens, over the context budget of {budget}; it was not sent"
                );
                return Err(Stop::Now(TerminalReason::ContextBudget, Some(message)));
            }
        }
        Ok(())
    }

    /// Checks a final answer against the profile's result contract.
    fn check_contract(&self, state: &mut RunState, messages: &mut Vec<Message>) -> ContractCheck {
        match self.profile.contract {
            ResultContract::Text => ContractCheck::Accepted,
            ResultContract::Explore => match parse_explore_result(&state.final_text) {
                Ok(result) => {
                    state.result = Some(result);
                    ContractCheck::Accepted
                }
                Err(e) if !state.corrected => {
                    state.corrected = true;
                    let text = contract::correction_message(&e);
                    self.publish(EventKind::UserMessage { text: text.clone() });
                    messages.push(Message::user_text(text));
                    ContractCheck::Retry
                }
                Err(e) => ContractCheck::Violated(format!(
                    "the answer broke the result contract twice: {e}"
                )),
            },
        }
    }

    /// The result of a tool call that `max_tokens` cut off: published like any
    /// result, never run.
    fn refuse_cut_call(&self, call: &ToolCall) -> ToolOutcome {
        self.publish(EventKind::ToolCall {
            call_id: call.id.clone(),
            name: call.name.clone(),
            input: call.input.clone().into(),
            summary: self.tools.summarize(&call.name, &call.input).into(),
        });
        let content = format!(
            "Your output was cut off by the max_tokens limit ({}) while writing this {} call, so it was not run. Make the input smaller (for example several edit_file calls instead of one large write_file) and call it again.",
            self.max_tokens, call.name
        );
        self.publish(EventKind::ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            is_error: true,
            content: content.as_str().into(),
            duration_ms: 0,
        });
        ToolOutcome {
            content,
            is_error: true,
        }
    }

    /// Runs the calls of one assistant turn, results in call order. Consecutive
    /// `task` calls run concurrently (each child in its own lane); other tools run
    /// one after another, so writes and commands keep the order the model chose.
    async fn execute_all(
        &self,
        calls: &[ToolCall],
        cancel: &CancellationToken,
    ) -> Vec<ToolOutcome> {
        let mut results = Vec::with_capacity(calls.len());
        let mut i = 0;
        while i < calls.len() {
            let batch = calls[i..]
                .iter()
                .take_while(|c| c.name == TASK_TOOL)
                .count();
            if batch > 1 {
                let runs = calls[i..i + batch].iter().map(|c| self.execute(c, cancel));
                results.extend(futures::future::join_all(runs).await);
                i += batch;
            } else {
                results.push(self.execute(&calls[i], cancel).await);
                i += 1;
            }
        }
        results
    }

    /// A reasoning block as its `thinking` event (nothing for other blocks).
    fn publish_thinking(&self, block: &ContentBlock) {
        let kind = match block {
            ContentBlock::Thinking {
                thinking,
                signature,
            } => EventKind::Thinking {
                text: thinking.clone(),
                signature: signature.clone(),
                redacted: None,
            },
            ContentBlock::RedactedThinking { data } => EventKind::Thinking {
                text: String::new(),
                signature: String::new(),
                redacted: Some(data.clone()),
            },
            ContentBlock::Text { .. }
            | ContentBlock::ToolUse { .. }
            | ContentBlock::ToolResult { .. } => return,
        };
        self.publish(kind);
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
