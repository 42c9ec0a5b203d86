//! The subagent launcher: builds a child agent from a profile, runs it as its own
//! task with a fresh message list (exactly one user message, the prompt), and
//! reports how it ended. Children never get the `task` tool, so delegation is one
//! level deep, and each child gets its own policy in its profile's permission mode
//! (the second barrier behind the profile's tool list).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::{
    Agent, Approver, Hooks, Inbox, ModelRole, PolicyHook, Profile, ResultContract, RunOutcome,
};
use crate::event::{AgentId, EventBus, EventKind, TerminalReason, Usage};
use crate::model::{Message, Model};
use crate::policy::{PermissionMode, Policy};
use crate::protocol::TASK_TOOL;
use crate::text::count;
use crate::tools::ToolRegistry;
use crate::workspace::Workspace;

/// Children that may run at once unless configured otherwise.
pub const DEFAULT_MAX_PARALLEL: usize = 4;

/// The models a session can hand to its agents.
#[derive(Clone)]
pub struct Models {
    pub model: Arc<dyn Model>,
    pub main_name: String,
    /// The light model's name, when one is configured.
    pub light_name: Option<String>,
}

impl Models {
    /// The role and name that actually run for a requested role: `light` falls
    /// back to the main model when no light model is configured.
    pub fn resolve(&self, role: ModelRole) -> (ModelRole, String) {
        match (role, &self.light_name) {
            (ModelRole::Light, Some(light)) => (ModelRole::Light, light.clone()),
            (ModelRole::Light, None) | (ModelRole::Main, _) => {
                (ModelRole::Main, self.main_name.clone())
            }
        }
    }
}

/// One `task` call, checked.
#[derive(Debug, Clone)]
pub struct TaskRequest {
    pub prompt: String,
    pub description: String,
    pub profile: String,
    /// `None` uses the profile's model.
    pub model: Option<ModelRole>,
}

/// How a child ended, as the parent will see it.
#[derive(Debug, Clone)]
pub struct TaskReport {
    pub child: AgentId,
    pub profile: String,
    pub model: ModelRole,
    pub model_name: String,
    pub outcome: RunOutcome,
    pub elapsed_ms: u64,
    /// The answer's summary, or why there is no answer.
    pub summary: String,
}

impl TaskReport {
    pub fn succeeded(&self) -> bool {
        self.outcome.reason == TerminalReason::Completed
    }

    /// The tool result the parent reads: status, profile, child id, result, tool
    /// usage, tokens, model, elapsed time and terminal reason; `text` is the summary.
    pub fn envelope(&self) -> Value {
        let usage = &self.outcome.usage;
        let result = match (&self.outcome.result, self.succeeded()) {
            (Some(result), true) => json!(result),
            (None, true) => json!(self.outcome.final_text),
            (_, false) => Value::Null,
        };
        let mut envelope = json!({
            "status": if self.succeeded() { "completed" } else { "failed" },
            "child_id": self.child.to_string(),
            "profile": self.profile,
            "terminal_reason": self.outcome.reason.as_str(),
            "text": self.summary,
            "result": result,
            "tool_usage": self.outcome.tool_counts,
            "tokens": {
                "input": usage.input_tokens,
                "output": usage.output_tokens,
                "total": usage.total(),
                "estimated": usage.estimated,
            },
            "steps": self.outcome.steps,
            "model": self.model.as_str(),
            "model_name": self.model_name,
            "elapsed_ms": self.elapsed_ms,
        });
        if let (Some(error), Some(map)) = (&self.outcome.error, envelope.as_object_mut()) {
            map.insert("error".into(), json!(error));
        }
        envelope
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("unknown subagent_type {name:?}; available: {available}")]
    UnknownProfile { name: String, available: String },
    #[error("interrupted before the subagent started")]
    Interrupted,
}

/// Everything a child shares with its session.
pub struct LauncherParts {
    pub profiles: Vec<Profile>,
    pub models: Models,
    /// The base tools; children get the subset their profile names.
    pub tools: ToolRegistry,
    pub workspace: Arc<Workspace>,
    pub sandbox: Arc<crate::sandbox::Sandbox>,
    /// The parent's policy: children get one in their own mode that shares its
    /// session approvals.
    pub policy: Arc<Policy>,
    pub bus: EventBus,
    pub approver: Arc<dyn Approver>,
    /// Hooks every child runs besides its policy (the same as the parent's).
    pub hooks: Hooks,
    pub approval_ids: Arc<AtomicU64>,
    pub max_tokens: u32,
    pub max_parallel: usize,
    pub prices: crate::protocol::PriceTable,
}

pub struct Launcher {
    parts: LauncherParts,
    profiles: BTreeMap<String, Profile>,
    next_child: AtomicU32,
    slots: Semaphore,
    /// The session's MCP servers, once started: a child gets the tools of
    /// the servers its profile lists.
    mcp: std::sync::OnceLock<Arc<crate::mcp::McpHub>>,
    /// The light model `/model light NAME` chose, over the configured one.
    light_choice: std::sync::Mutex<Option<String>>,
    /// The children running now, each reachable on its own: the user can stop
    /// one, or tell it something, while its siblings and the parent go on.
    running: std::sync::Mutex<HashMap<AgentId, Reach>>,
}

/// How one running child is reached from outside its task.
struct Reach {
    /// Its own token, under the turn's: cancelling it stops this child only.
    stop: CancellationToken,
    inbox: Arc<Inbox>,
}

impl Launcher {
    /// Numbers the next child after `sub-{last}`: a resumed session's new
    /// children must not take the ids of those in its trace.
    pub fn number_after(&self, last: u32) {
        self.next_child.fetch_max(last, Ordering::Relaxed);
    }

    /// The light model for the children started from now on.
    pub fn set_light_model(&self, name: String) {
        *self.light_choice.lock().unwrap_or_else(|e| e.into_inner()) = Some(name);
    }

    /// The session's started MCP servers, for the children from now on.
    pub fn set_mcp(&self, hub: Arc<crate::mcp::McpHub>) {
        let _ = self.mcp.set(hub);
    }

    pub fn new(parts: LauncherParts) -> Launcher {
        let profiles = parts
            .profiles
            .iter()
            .map(|p| (p.name.clone(), p.clone()))
            .collect();
        let slots = Semaphore::new(parts.max_parallel.max(1));
        Launcher {
            parts,
            profiles,
            next_child: AtomicU32::new(0),
            slots,
            mcp: std::sync::OnceLock::new(),
            light_choice: std::sync::Mutex::new(None),
            running: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// Stops the running child `child` (it ends `interrupted`; the parent
    /// reads that it was stopped). False when no such child runs.
    pub fn stop(&self, child: AgentId) -> bool {
        match self.reach().get(&child) {
            Some(reach) => {
                reach.stop.cancel();
                true
            }
            None => false,
        }
    }

    /// Leaves `text` for the running child `child`, read before its next model
    /// call. False when no such child runs.
    pub fn tell(&self, child: AgentId, text: String) -> bool {
        match self.reach().get(&child) {
            Some(reach) => {
                reach.inbox.push(text);
                true
            }
            None => false,
        }
    }

    fn reach(&self) -> std::sync::MutexGuard<'_, HashMap<AgentId, Reach>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Profile names a `task` call may ask for, sorted.
    pub fn profile_names(&self) -> Vec<String> {
        self.profiles.keys().cloned().collect()
    }

    pub fn profile(&self, name: &str) -> Option<&Profile> {
        self.profiles.get(name)
    }

    /// Runs one child to its end. Waits for a free slot first when the parallel
    /// limit is reached.
    pub async fn launch(
        &self,
        request: TaskRequest,
        parent: AgentId,
        parent_call_id: &str,
        cancel: &CancellationToken,
    ) -> Result<TaskReport, LaunchError> {
        let profile = self
            .profiles
            .get(&request.profile)
            .cloned()
            .ok_or_else(|| LaunchError::UnknownProfile {
                name: request.profile.clone(),
                available: self.profile_names().join(", "),
            })?;
        // Ids are taken in call order, before waiting for a slot, so `sub-N`
        // follows the order of the parent's calls.
        let child = AgentId::Sub(self.next_child.fetch_add(1, Ordering::Relaxed) + 1);
        let _slot = tokio::select! {
            _ = cancel.cancelled() => return Err(LaunchError::Interrupted),
            slot = self.slots.acquire() => slot.map_err(|_| LaunchError::Interrupted)?,
        };
        let mut models = self.parts.models.clone();
        if let Some(light) = self
            .light_choice
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            models.light_name = Some(light);
        }
        let (model, model_name) = models.resolve(request.model.unwrap_or(profile.model));
        let stop = cancel.child_token();
        let inbox = Arc::new(Inbox::default());
        // Reachable from its first event on: the screen offers to stop a
        // child as soon as it shows it.
        self.reach().insert(
            child,
            Reach {
                stop: stop.clone(),
                inbox: inbox.clone(),
            },
        );
        let bus = &self.parts.bus;
        bus.publish(
            child,
            EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
                parent,
                parent_call_id: parent_call_id.to_string(),
                profile: profile.name.clone(),
                model: model.as_str().into(),
                model_name: model_name.clone(),
                description: request.description.clone(),
                prompt: request.prompt.clone(),
                max_steps: profile.max_steps,
                token_budget: profile.token_budget,
                context_budget: profile.context_budget,
                color: profile.color.clone(),
            })),
        );
        bus.publish(
            child,
            EventKind::UserMessage {
                text: request.prompt.clone(),
            },
        );
        self.parts
            .hooks
            .subagent_start(child, &profile.name, &request.prompt)
            .await;
        let mut agent = self.child_agent(child, &profile, model_name.clone());
        agent.inbox = Some(inbox);
        let started = Instant::now();
        let child_cancel = stop.clone();
        let prompt = request.prompt;
        let handle = tokio::spawn(async move {
            let mut messages = vec![Message::user_text(prompt)];
            agent.run(&mut messages, &child_cancel).await
        });
        let mut outcome = match handle.await {
            Ok(outcome) => outcome,
            Err(e) => crashed(child, bus, e.to_string()),
        };
        self.reach().remove(&child);
        let stopped_by_user = outcome.reason == TerminalReason::Interrupted
            && stop.is_cancelled()
            && !cancel.is_cancelled();
        if stopped_by_user {
            outcome.error = Some(STOPPED_BY_USER.into());
        }
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let summary = summarize(&profile, &outcome);
        bus.publish(
            child,
            EventKind::SubagentEnd {
                reason: outcome.reason,
                summary: summary.clone(),
                steps: outcome.steps,
                tool_usage: Box::new(outcome.tool_counts.clone()),
                usage: outcome.usage,
                elapsed_ms,
            },
        );
        Ok(TaskReport {
            child,
            profile: profile.name,
            model,
            model_name,
            outcome,
            elapsed_ms,
            summary,
        })
    }

    fn child_agent(&self, id: AgentId, profile: &Profile, model_name: String) -> Agent {
        let parts = &self.parts;
        let mut tools = Agent::tools_for(profile, &parts.tools);
        // The profile was validated, but the registry is the last word: a child
        // never holds `task`, whatever it was built from.
        tools.retain(|name| name != TASK_TOOL);
        if let Some(hub) = self.mcp.get()
            && !profile.mcp_servers.is_empty()
        {
            // A read-only child is offered only what its server marks
            // read-only; its policy refuses the rest anyway.
            let read_only = profile.permission_mode == PermissionMode::ReadOnly;
            tools.add_source(Arc::new(crate::mcp::McpSource::of(
                hub.clone(),
                profile.mcp_servers.clone(),
                read_only,
            )));
        }
        let policy = parts.policy.with_mode(profile.permission_mode);
        let mut hooks = Hooks::new(vec![Arc::new(PolicyHook(Arc::new(policy)))]);
        hooks.extend(parts.hooks.clone());
        Agent {
            id,
            profile: profile.clone(),
            model: parts.models.model.clone(),
            model_name,
            tools,
            hooks,
            approver: parts.approver.clone(),
            bus: parts.bus.clone(),
            workspace: parts.workspace.clone(),
            sandbox: parts.sandbox.clone(),
            max_tokens: parts.max_tokens,
            approval_ids: parts.approval_ids.clone(),
            prices: parts.prices.clone(),
            history: Default::default(),
            inbox: None,
        }
    }
}

/// Why a child that the user stopped has no answer.
const STOPPED_BY_USER: &str = "stopped by the user";

/// A child task that panicked still ends with an event and a failure report.
fn crashed(child: AgentId, bus: &EventBus, error: String) -> RunOutcome {
    let message = format!("the subagent crashed: {error}");
    bus.publish(
        child,
        EventKind::Error {
            message: message.clone(),
        },
    );
    RunOutcome {
        reason: TerminalReason::ModelError,
        final_text: String::new(),
        steps: 0,
        usage: Usage::default(),
        error: Some(message),
        result: None,
        tool_counts: BTreeMap::new(),
    }
}

/// What the parent is told: the answer's summary, or exactly why there is none.
fn summarize(profile: &Profile, outcome: &RunOutcome) -> String {
    match outcome.reason {
        TerminalReason::Completed => match (&outcome.result, profile.contract) {
            (Some(result), _) => result.summary.clone(),
            (None, ResultContract::Text | ResultContract::Explore) => outcome.final_text.clone(),
        },
        TerminalReason::MaxSteps => format!(
            "Subagent stopped after {} without a final answer.",
            count(outcome.steps, "turn")
        ),
        TerminalReason::Interrupted => match outcome.error.as_deref() {
            Some(STOPPED_BY_USER) => {
                "Subagent was stopped by the user before it finished; it gave no answer.".into()
            }
            _ => "Subagent was interrupted before it finished.".into(),
        },
        reason @ (TerminalReason::TokenBudget
        | TerminalReason::CostBudget
        | TerminalReason::ContextBudget
        | TerminalReason::ContractViolation
        | TerminalReason::ModelError) => {
            let detail = outcome.error.clone().unwrap_or_else(|| reason.to_string());
            format!("Subagent failed ({reason}): {detail}")
        }
    }
}
