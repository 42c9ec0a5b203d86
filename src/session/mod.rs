//! A session: one workspace, one bus, one trace, and the parent agent's history.
//! The headless command and (later) the TUI both drive a `Session`; they differ
//! only in how they show its events and answer its approvals.

mod approver;
pub mod resume;
pub mod setup;
mod task;

pub use approver::ChannelApprover;
pub use task::{Driven, Ending, OpSender, drive};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio_util::sync::CancellationToken;

use crate::agent::{
    Agent, Approver, CommandHooks, DEFAULT_MAX_TOKENS, Hooks, Launcher, LauncherParts, Models,
    PolicyHook, Profile, RunOutcome, TaskTool,
};
use crate::config::hooks::HookSpec;
use crate::config::instructions::Instructions;
use crate::config::{self, ConfigError};
use crate::event::{AgentId, EventBus, EventKind, TerminalReason};
use crate::model::{Message, Model};
use crate::policy::{PermissionMode, Policy, UserRules};
use crate::sandbox::{Sandbox, SandboxError, SandboxSettings};
use crate::tools::ToolRegistry;
use crate::trace::{TraceError, TraceHeader, TraceWriter};
use crate::workspace::{Workspace, WorkspaceError};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Telemetry(#[from] crate::telemetry::TelemetryError),
}

/// Where the session's trace goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceTarget {
    /// `<data dir>/traces/<session>.jsonl`.
    Default,
    File(PathBuf),
    Off,
}

pub struct SessionOptions {
    pub workspace: PathBuf,
    pub model: Arc<dyn Model>,
    pub model_name: String,
    /// The light model's name for `explore` children; `None` runs them on the main one.
    pub light_model: Option<String>,
    /// Subagent profiles `task` may start (see `config::load_profiles`).
    pub profiles: Vec<Profile>,
    /// Children that may run at once.
    pub max_parallel: usize,
    /// A word for the trace header about how the session is driven.
    pub note: Option<String>,
    pub trace: TraceTarget,
    pub approver: Arc<dyn Approver>,
    /// Step limit of the parent agent; `None` for none.
    pub max_steps: Option<u32>,
    /// Extra PreToolUse/PostToolUse/Stop hooks, after the policy.
    pub hooks: Hooks,
    /// The sandbox every command runs in.
    pub sandbox: SandboxSettings,
    /// Project instructions for the parent and the profiles that take them.
    pub instructions: Instructions,
    /// The user's permission rules, for every agent's policy.
    pub rules: UserRules,
    /// The user's command hooks (`PreToolUse`, `Stop`, …).
    pub command_hooks: Vec<HookSpec>,
    /// The MCP servers to start ([`Session::start_mcp`]).
    pub mcp: Vec<crate::config::mcp::McpServerConfig>,
    /// Values besides the credential variables that no event may show (MCP
    /// servers' `env` values and headers).
    pub secrets: Vec<String>,
    /// A saved session to go on with: its id, history and trace (appended
    /// to unless the trace is `Off`).
    pub resume: Option<resume::Resume>,
    /// What each model's tokens cost, for cost budgets.
    pub prices: crate::protocol::PriceTable,
    /// Input tokens past which the parent compacts its history.
    pub compact_at: Option<u64>,
    /// Where the session's spans go (OpenTelemetry), if anywhere.
    pub telemetry: Option<crate::telemetry::Settings>,
}

pub struct Session {
    id: String,
    bus: EventBus,
    parent: Agent,
    messages: Vec<Message>,
    trace_path: Option<PathBuf>,
    policy: Arc<Policy>,
    mcp_configs: Vec<crate::config::mcp::McpServerConfig>,
    mcp: Arc<crate::mcp::McpHub>,
    launcher: Arc<Launcher>,
    /// A resumed session's events so far, its `resumed` event last, until
    /// the screen takes them ([`Session::take_earlier`]).
    earlier: Vec<crate::event::Event>,
    /// The OpenTelemetry export, flushed when the session ends.
    telemetry: Option<crate::telemetry::LiveExport>,
    /// What the export has to say while it cannot send, for the status line.
    side_warning: crate::protocol::SideWarning,
}

impl Drop for Session {
    /// A session dropped without [`Session::finish_telemetry`] still sends
    /// what it has; what could not be sent goes to the log.
    fn drop(&mut self) {
        if let Some(warning) = self.finish_telemetry() {
            tracing::warn!("{warning}");
        }
    }
}

impl Session {
    pub fn start(mut options: SessionOptions) -> Result<Session, SessionError> {
        let resumed = options.resume.take();
        let id = match &resumed {
            Some(r) => r.header.session.clone(),
            None => config::new_session_id(),
        };
        let workspace = Arc::new(Workspace::new(&options.workspace)?);
        let bus = match &resumed {
            // Numbers and the clock go on: one file, one story.
            Some(r) => EventBus::continuing(r.next_seq(), r.clock_ms() + 1),
            None => EventBus::new(),
        };
        let mut secrets = config::secrets_from_env();
        secrets.extend(options.secrets);
        bus.set_secrets(secrets);
        let trace_path = match (&resumed, options.trace) {
            (_, TraceTarget::Off) => None,
            (Some(r), _) => Some(r.path.clone()),
            (None, TraceTarget::Default) => {
                let path = config::default_trace_path(&id)?;
                // brood's own traces folder is brood's alone, however it was made.
                if let Some(dir) = path.parent() {
                    TraceWriter::make_private_dir(dir)?;
                }
                Some(path)
            }
            (None, TraceTarget::File(path)) => Some(path),
        };
        // After the traces folder exists, so the sandbox finds it to hide.
        let sandbox = Arc::new(Sandbox::prepare(options.sandbox, workspace.root())?);
        if let (Some(path), Some(_)) = (&trace_path, &resumed) {
            bus.add_recorder(Box::new(TraceWriter::append(path)?));
        } else if let Some(path) = &trace_path {
            let mut header = TraceHeader::new(
                &id,
                &workspace.root().display().to_string(),
                options.model.provider(),
                &options.model_name,
            );
            header.light_model = options.light_model.clone();
            header.note = options.note.clone();
            header.sandbox = Some(sandbox.summary().clone());
            header.instructions = options.instructions.files.clone();
            let writer = TraceWriter::create(path, &header)?;
            bus.add_recorder(Box::new(writer));
        }
        let side_warning = crate::protocol::SideWarning::default();
        let telemetry = match options.telemetry.as_ref().filter(|t| t.live()) {
            Some(settings) => {
                let mut header = TraceHeader::new(
                    &id,
                    &workspace.root().display().to_string(),
                    options.model.provider(),
                    &options.model_name,
                );
                if let Some(r) = &resumed {
                    header.started_at = r.header.started_at.clone();
                }
                let live =
                    crate::telemetry::LiveExport::start(&header, settings, side_warning.clone())?;
                if let Some(live) = &live {
                    bus.add_recorder(live.recorder());
                }
                live
            }
            None => None,
        };
        let approval_ids = Arc::new(AtomicU64::new(0));
        // The user's command hooks run for the parent and every child, after
        // the policy and the session's own hooks.
        let mut extra_hooks = options.hooks;
        if !options.command_hooks.is_empty() {
            extra_hooks.extend(Hooks::new(vec![Arc::new(CommandHooks::new(
                options.command_hooks,
                id.clone(),
                workspace.root().to_path_buf(),
                trace_path.clone(),
                sandbox.clone(),
                bus.clone(),
            ))]));
        }
        let policy = Arc::new(
            Policy::new(workspace.clone(), PermissionMode::Normal).with_rules(options.rules),
        );
        let mut profiles = options.profiles;
        for child in profiles.iter_mut().filter(|p| p.instructions) {
            with_instructions(child, &options.instructions);
        }
        let launcher = Arc::new(Launcher::new(LauncherParts {
            profiles,
            models: Models {
                model: options.model.clone(),
                main_name: options.model_name.clone(),
                light_name: options.light_model,
            },
            tools: ToolRegistry::base(),
            workspace: workspace.clone(),
            sandbox: sandbox.clone(),
            policy: policy.clone(),
            bus: bus.clone(),
            approver: options.approver.clone(),
            hooks: extra_hooks.clone(),
            approval_ids: approval_ids.clone(),
            max_tokens: DEFAULT_MAX_TOKENS,
            max_parallel: options.max_parallel,
            prices: options.prices.clone(),
        }));
        let mut messages = Vec::new();
        let mut earlier = Vec::new();
        if let Some(resumed) = resumed {
            launcher.number_after(resumed.last_child());
            let seam = bus.publish(
                AgentId::Main,
                EventKind::Resumed {
                    at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                    messages: resumed.messages.len(),
                },
            );
            messages = resumed.messages;
            earlier = resumed.events;
            earlier.push(seam);
        }
        let mut tools = ToolRegistry::base();
        tools.register(Arc::new(TaskTool::new(launcher.clone())));
        let mut profile = Profile::parent(options.max_steps);
        profile.compact_at = options.compact_at;
        with_instructions(&mut profile, &options.instructions);
        let mut hooks = Hooks::new(vec![Arc::new(PolicyHook(policy.clone()))]);
        hooks.extend(extra_hooks);
        let parent = Agent {
            id: AgentId::Main,
            tools: Agent::tools_for(&profile, &tools),
            profile,
            model: options.model,
            model_name: options.model_name,
            hooks,
            approver: options.approver,
            bus: bus.clone(),
            workspace,
            sandbox,
            max_tokens: DEFAULT_MAX_TOKENS,
            approval_ids,
            prices: options.prices.clone(),
            history: Default::default(),
            inbox: None,
        };
        Ok(Session {
            id,
            bus,
            parent,
            messages,
            trace_path,
            policy,
            mcp_configs: options.mcp,
            mcp: crate::mcp::McpHub::empty(),
            launcher,
            earlier,
            telemetry,
            side_warning,
        })
    }

    /// The warning the screen shows while the telemetry export cannot send.
    pub fn side_warning(&self) -> crate::protocol::SideWarning {
        self.side_warning.clone()
    }

    /// Ends the OpenTelemetry export: open spans end, queued ones are sent
    /// (waiting a few seconds at most). Returns what could not be sent, for
    /// the user; later calls do nothing.
    pub fn finish_telemetry(&mut self) -> Option<String> {
        let live = self.telemetry.take()?;
        live.finish(std::time::Duration::from_secs(5))
    }

    /// Starts the session's MCP servers and offers their tools to the parent;
    /// what to say of servers that did not start.
    pub async fn start_mcp(&mut self) -> Vec<String> {
        if self.mcp_configs.is_empty() {
            return Vec::new();
        }
        let configs = std::mem::take(&mut self.mcp_configs);
        self.mcp = crate::mcp::McpHub::start(configs, Some(self.bus.clone())).await;
        self.parent
            .tools
            .add_source(Arc::new(crate::mcp::McpSource::all(self.mcp.clone())));
        self.launcher.set_mcp(self.mcp.clone());
        let mut warnings = Vec::new();
        for s in self.mcp.status() {
            match s.state {
                crate::mcp::ServerState::Ready { tools } => {
                    warnings.extend(tools.iter().filter_map(|t| {
                        crate::mcp::schema_reduced(&t.input_schema)
                            .map(|why| format!("MCP tool mcp__{}__{}: {why}", s.name, t.name))
                    }))
                }
                crate::mcp::ServerState::Failed { error } => {
                    warnings.push(format!("MCP server `{}` ({}): {error}", s.name, s.source))
                }
            }
        }
        warnings
    }

    /// The servers as the title line shows them.
    pub fn mcp_summary(&self) -> Vec<crate::protocol::McpServerSummary> {
        self.mcp
            .status()
            .into_iter()
            .map(|s| {
                let (failed, tools) = match s.state {
                    crate::mcp::ServerState::Ready { tools } => (
                        None,
                        tools
                            .iter()
                            .map(|t| format!("mcp__{}__{}", s.name, t.name))
                            .collect(),
                    ),
                    crate::mcp::ServerState::Failed { error } => (Some(error), Vec::new()),
                };
                crate::protocol::McpServerSummary {
                    name: s.name,
                    failed,
                    tools,
                }
            })
            .collect()
    }

    /// What a resumed session showed before, to show again before what it
    /// does now (empty for a new session, and once taken).
    pub fn take_earlier(&mut self) -> Vec<crate::event::Event> {
        std::mem::take(&mut self.earlier)
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn bus(&self) -> &EventBus {
        &self.bus
    }

    pub fn trace_path(&self) -> Option<&Path> {
        self.trace_path.as_deref()
    }

    /// The launcher of the session's children, which reaches each running
    /// child on its own (`Op::StopChild`, `Op::MessageChild`) while the turn
    /// that started it holds the session.
    pub fn children(&self) -> Arc<Launcher> {
        self.launcher.clone()
    }

    /// The session's policy (the parent's; children share its approvals).
    pub fn policy(&self) -> &Arc<Policy> {
        &self.policy
    }

    pub fn workspace(&self) -> &Workspace {
        &self.parent.workspace
    }

    /// What the session's commands run under.
    pub fn sandbox(&self) -> &Sandbox {
        &self.parent.sandbox
    }

    /// Sends one user message to the parent and runs it to the end of its turn.
    pub async fn send(&mut self, text: &str, cancel: &CancellationToken) -> RunOutcome {
        let context = match self.parent.hooks.user_prompt_submit(text).await {
            Ok(context) => context,
            Err(reason) => return self.blocked_prompt(&reason),
        };
        self.bus.publish(
            AgentId::Main,
            EventKind::UserMessage {
                text: text.to_string(),
            },
        );
        // What a UserPromptSubmit hook printed goes with the prompt, and
        // in the trace, so a resumed session sends it again.
        let sent = match context {
            Some(context) => {
                let sent = with_context(text, &context);
                self.bus
                    .publish(AgentId::Main, EventKind::PromptContext { text: context });
                sent
            }
            None => text.to_string(),
        };
        self.messages.push(Message::user_text(&sent));
        let outcome = self.parent.run(&mut self.messages, cancel).await;
        // The trace is made durable at every turn's end; a failure is kept and
        // reported by `trace_error`.
        let _ = self.bus.sync();
        outcome
    }

    /// Uses `name` for the next turns: the parent's model, or the light one
    /// the children take.
    pub fn set_model(&mut self, slot: crate::event::ModelSlot, name: String) {
        match slot {
            crate::event::ModelSlot::Main => self.parent.model_name = name.clone(),
            crate::event::ModelSlot::Light => self.launcher.set_light_model(name.clone()),
        }
        self.bus
            .publish(AgentId::Main, EventKind::ModelChanged { slot, model: name });
    }

    /// Compacts the parent's history now (`/compact`); a failure is said
    /// as an error event, and the history stays as it was.
    pub async fn compact(&mut self, cancel: &CancellationToken) {
        let asked = crate::agent::compact::Trigger::Asked;
        if let Err(e) = self.parent.compact(&mut self.messages, asked, cancel).await {
            self.bus.publish(
                AgentId::Main,
                EventKind::Error {
                    message: format!("compaction failed: {e}"),
                },
            );
        }
        let _ = self.bus.sync();
    }

    /// A prompt a UserPromptSubmit hook blocked: it never reaches the model,
    /// and the turn ends at once, saying why.
    fn blocked_prompt(&self, reason: &str) -> RunOutcome {
        let message = match reason.trim() {
            "" => "a UserPromptSubmit hook blocked the prompt".to_string(),
            why => format!("a UserPromptSubmit hook blocked the prompt: {why}"),
        };
        self.bus.publish(
            AgentId::Main,
            EventKind::Error {
                message: message.clone(),
            },
        );
        self.bus.publish(
            AgentId::Main,
            EventKind::TurnEnd {
                reason: TerminalReason::Interrupted,
                steps: 0,
                usage: Default::default(),
            },
        );
        let _ = self.bus.sync();
        RunOutcome {
            reason: TerminalReason::Interrupted,
            final_text: String::new(),
            steps: 0,
            usage: Default::default(),
            error: Some(message),
            result: None,
            tool_counts: Default::default(),
        }
    }

    /// Records that the user interrupted the session; the last event of its trace.
    pub fn mark_interrupted(&self) {
        self.bus.publish(AgentId::Main, EventKind::Interrupted {});
        let _ = self.bus.sync();
    }

    /// The first trace write failure, if any: the session must say so.
    pub fn trace_error(&self) -> Option<String> {
        self.bus.recorder_error()
    }
}

/// A prompt with what UserPromptSubmit hooks added to it, as the model reads
/// it (and a resumed session rebuilds it).
pub(crate) fn with_context(prompt: &str, context: &str) -> String {
    format!("{prompt}\n\n{context}")
}

/// Adds the project instructions to a profile's system prompt.
fn with_instructions(profile: &mut Profile, instructions: &Instructions) {
    if !instructions.text.is_empty() {
        profile.system_prompt = format!("{}\n\n{}", profile.system_prompt, instructions.text);
    }
}
