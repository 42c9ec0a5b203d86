//! Assembling a session from what the user asked for: the config files, the
//! resolved model settings, the model client, the sandbox, the trace target.
//! The command line parses flags into a [`Setup`]; everything after that is
//! here, so `main.rs` stays the command line.

use std::path::PathBuf;
use std::sync::Arc;

use super::resume::{Resume, ResumeError, ResumeFrom};
use super::{Session, SessionError, SessionOptions, TraceTarget};
use crate::agent::{Approver, Hooks};
use crate::config::settings::{self, ModelFlags, ProviderKind, Settings, SettingsError};
use crate::config::{ConfigError, SandboxFileSettings, load_setup};
use crate::model::Model;
use crate::model::anthropic::AnthropicModel;
use crate::model::offline::OfflineModel;
use crate::model::openai::OpenAiModel;
use crate::model::scripted::ScriptedModel;
use crate::model::{ModelError, context_window};
use crate::protocol::AgentSummary;
use crate::protocol::{Network, SandboxMode, SessionInfo};
use crate::sandbox::SandboxSettings;
use crate::tools::ToolRegistry;

/// Why a session could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A mistake in how brood was called (exit 2, like clap's own).
    #[error("{0}")]
    Usage(String),
    #[error("cannot read the current folder: {0}")]
    CurrentFolder(#[source] std::io::Error),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Resume(#[from] ResumeError),
    #[error(transparent)]
    Telemetry(#[from] crate::telemetry::TelemetryError),
}

/// What the user asked for the sandbox, before the config files have a say.
#[derive(Debug, Clone, Default)]
pub struct SandboxRequest {
    pub mode: Option<SandboxMode>,
    pub network: bool,
    pub add_dirs: Vec<PathBuf>,
}

impl SandboxRequest {
    /// The request over the config files: a flag wins, folders add up.
    pub fn settings(&self, file: &SandboxFileSettings) -> SandboxSettings {
        let network = match self.network || file.network == Some(true) {
            true => Network::On,
            false => Network::Off,
        };
        let mut writable = file.writable.clone();
        writable.extend(self.add_dirs.iter().cloned());
        SandboxSettings {
            mode: self.mode.or(file.mode).unwrap_or_default(),
            network,
            writable,
            unreadable: Vec::new(),
        }
    }
}

/// Everything the command line says about one session.
pub struct Setup {
    /// The workspace; the current folder when `None`.
    pub workspace: Option<PathBuf>,
    pub flags: ModelFlags,
    /// The scripted provider's script.
    pub script: Option<PathBuf>,
    /// The offline driver's pace.
    pub speed: f64,
    pub trace: TraceTarget,
    pub max_parallel: usize,
    pub max_steps: Option<u32>,
    pub sandbox: SandboxRequest,
    /// A saved session to continue instead of starting one.
    pub resume: Option<ResumeFrom>,
    /// `--compact-at PCT`: over `compact_at` in `brood.toml`.
    pub compact_at: Option<f64>,
}

/// A session ready to run, what the screen shows about it, and what to tell
/// the user before it starts.
pub struct Prepared {
    pub session: Session,
    pub info: SessionInfo,
    /// Said once at start (the sandbox's state, settings a workspace's file
    /// was refused).
    pub warnings: Vec<String>,
}

/// The share of the window (percent) past which the parent compacts.
pub const DEFAULT_COMPACT_AT: f64 = 85.0;

/// Resolves settings and profiles and starts the session.
pub fn prepare(setup: &Setup, approver: Arc<dyn Approver>) -> Result<Prepared, SetupError> {
    let mut workspace = match &setup.workspace {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(SetupError::CurrentFolder)?,
    };
    let resume = match &setup.resume {
        Some(from) => {
            let dir = crate::config::data_dir()?.join("traces");
            let resume = Resume::load(&super::resume::locate(from, &workspace, &dir)?)?;
            // A session goes on in its own workspace, wherever it is resumed
            // from, unless `--cwd` says otherwise.
            let own = std::path::PathBuf::from(&resume.header.cwd);
            if setup.workspace.is_none() && own.is_dir() {
                workspace = own;
            }
            Some(resume)
        }
        None => None,
    };
    let tools = ToolRegistry::base();
    let config = load_setup(&workspace, &tools.available())?;
    let agent_warnings = crate::config::agent_warnings(&config);
    let instructions =
        crate::config::instructions::load(&workspace, &crate::config::instructions::user_dirs());
    let env = |name: &str| std::env::var(name).ok();
    let settings = settings::resolve(&setup.flags, &env, &config.settings)?;
    let model = build_model(&settings, setup)?;
    let note = (settings.provider == ProviderKind::Offline).then(|| {
        "offline demo driver: no LLM is called; answers are assembled from real tool results"
            .to_string()
    });
    let window = config
        .settings
        .context_window
        .unwrap_or_else(|| context_window(settings.provider.as_str(), &settings.model));
    let share = setup
        .compact_at
        .or(config.settings.compact_at)
        .unwrap_or(DEFAULT_COMPACT_AT);
    let compact_at = (share > 0.0 && share < 100.0).then(|| (window as f64 * share / 100.0) as u64);
    let mut sandbox_settings = setup.sandbox.settings(&config.settings.sandbox);
    sandbox_settings.unreadable = config.rules.unreadable(&workspace);
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let agents = crate::config::profile_rows(&config, home.as_deref())
        .into_iter()
        .zip(&config.profiles)
        .map(
            |([name, from, tools, model, limits], profile)| AgentSummary {
                name,
                from,
                tools,
                model,
                limits,
                warnings: config
                    .sources
                    .get(&profile.name)
                    .map(|s| s.warnings.clone())
                    .unwrap_or_default(),
            },
        )
        .collect();
    let session = Session::start(SessionOptions {
        workspace,
        model,
        model_name: settings.model.clone(),
        light_model: settings.light_model.clone(),
        profiles: config.profiles,
        max_parallel: setup.max_parallel,
        note,
        trace: setup.trace.clone(),
        approver,
        max_steps: setup.max_steps,
        hooks: Hooks::default(),
        sandbox: sandbox_settings,
        instructions: instructions.clone(),
        rules: config.rules.rules.clone(),
        command_hooks: config.hooks.hooks.clone(),
        mcp: config.mcp.servers.clone(),
        secrets: config.mcp.secrets(),
        resume,
        prices: crate::protocol::PriceTable::with(config.settings.prices.clone()),
        compact_at,
        telemetry: Some(crate::telemetry::Settings::from_env(
            config.settings.telemetry.as_ref(),
        )?),
    })?;
    let mut warnings: Vec<String> = config
        .settings
        .sandbox
        .ignored
        .iter()
        .map(|ignored| format!("ignored {ignored}"))
        .collect();
    warnings.extend(agent_warnings);
    warnings.extend(instructions.notes.iter().cloned());
    warnings.extend(config.rules.notes.iter().cloned());
    warnings.extend(config.hooks.notes.iter().cloned());
    warnings.extend(config.mcp.notes.iter().cloned());
    warnings.extend(session.sandbox().warning());
    let info = SessionInfo {
        provider: settings.provider.as_str().to_string(),
        model: settings.model.clone(),
        light_model: settings.light_model.clone(),
        session: session.id().to_string(),
        trace_path: session.trace_path().map(|p| p.display().to_string()),
        cwd: session.workspace().root().display().to_string(),
        context_window: window,
        sandbox: Some(session.sandbox().summary().clone()),
        instructions: instructions.files,
        mcp: Vec::new(),
        prices: crate::protocol::PriceTable::with(config.settings.prices.clone()),
        agents,
        side_warning: session.side_warning(),
    };
    Ok(Prepared {
        session,
        info,
        warnings,
    })
}

/// The model client of a session from its resolved settings.
fn build_model(settings: &Settings, setup: &Setup) -> Result<Arc<dyn Model>, SetupError> {
    let http = || {
        settings
            .http
            .clone()
            .ok_or_else(|| SetupError::Usage("the provider's HTTP settings are missing".into()))
    };
    Ok(match settings.provider {
        ProviderKind::Scripted => {
            let Some(script) = &setup.script else {
                return Err(SetupError::Usage(
                    "--provider scripted needs --script FILE (see the README)".into(),
                ));
            };
            let model = ScriptedModel::from_file(script)
                .map_err(|e| SetupError::Usage(crate::text::describe(&e)))?;
            Arc::new(model)
        }
        ProviderKind::Offline => Arc::new(OfflineModel::new(setup.speed)),
        ProviderKind::Anthropic => Arc::new(AnthropicModel::new(http()?)?),
        ProviderKind::OpenAi => Arc::new(OpenAiModel::new(http()?)?),
    })
}
