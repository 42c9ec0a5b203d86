//! The command line's words: every verb and flag, parsed by clap, and how the
//! flags become a session's [`Setup`]. `main.rs` dispatches on them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use brood::agent::DEFAULT_MAX_PARALLEL;
use brood::config::settings::{ModelFlags, ProviderKind};
use brood::sandbox::SandboxMode;
use brood::session::TraceTarget;
use brood::session::resume::ResumeFrom;
use brood::session::setup::{SandboxRequest, Setup};

#[derive(Parser)]
#[command(
    name = "brood",
    version,
    about = "A terminal workbench for LLM coding agents that delegate to subagents",
    long_about = "A terminal workbench for LLM coding agents that delegate to subagents.\n\n\
        With no command, brood opens the full-screen workbench on the configured model.",
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Verb>,
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    pub(crate) session: SessionArgs,
}

#[derive(Subcommand)]
pub(crate) enum Verb {
    /// Run one prompt without the screen, printing the agent's work as it goes.
    Run(RunArgs),
    /// Watch brood delegate with no key and no network: the offline driver explores
    /// the current folder with a built-in question.
    Demo(DemoArgs),
    /// Run one tool exactly as a model's call would (schema check and policy
    /// included) and print the result the model would see. Exit 0 when the tool
    /// succeeded, 1 when it returned an error.
    Tool {
        /// The tool: bash, read_file, write_file, edit_file, glob or grep.
        name: String,
        /// Its input as JSON, e.g. '{"pattern": "fn main"}'.
        input: String,
        /// The workspace (default: the current folder).
        #[arg(long, value_name = "DIR", value_parser = folder)]
        cwd: Option<PathBuf>,
        /// Allow the call if the policy would ask about it.
        #[arg(long, short = 'y')]
        yes: bool,
        #[command(flatten)]
        sandbox: SandboxArgs,
    },
    /// Print the policy's decision for one shell command: `allow|ask|deny: reason`.
    CheckCommand {
        /// The command, as words after `--`.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// Replay a saved session in the workbench at its recorded pace, or print it
    /// (`--print`, `--json`). Reads brood traces, Claude Code session files,
    /// Codex rollouts and MyCodeAgent traces.
    Replay(ReplayArgs),
    /// Send a saved session to an OpenTelemetry backend as GenAI spans with
    /// its recorded times (`--otlp`: OTEL_EXPORTER_OTLP_ENDPOINT or
    /// `[telemetry]`), or write them as OTLP/JSON (`--otlp-file OUT.json`).
    /// Reads brood traces, Claude Code sessions with their subagents, Codex
    /// rollouts and MyCodeAgent traces.
    Export(ExportArgs),
    /// List saved sessions, newest first: date, duration, first prompt,
    /// children, tokens, how each ended and its file.
    Traces(TracesArgs),
    /// Follow a session while it is written, like `tail -f`: a Claude Code
    /// session, a Codex rollout or a brood trace, with its subagents live.
    /// With no PATH, the most recently written session on this machine.
    Watch(WatchArgs),
    /// List the subagent profiles the task tool offers: built in, from agent
    /// files (Claude Code, opencode, Codex) and brood.toml, with where each
    /// came from, its tools, model and limits, and what was left out.
    Agents {
        /// The workspace (default: the current folder).
        #[arg(long, value_name = "DIR", value_parser = folder)]
        cwd: Option<PathBuf>,
        /// One JSON object per profile, one per line.
        #[arg(long)]
        json: bool,
    },
    /// The MCP servers this workspace configures: each is started, its state
    /// and tools listed, and stopped.
    Mcp {
        /// The workspace (default: the current folder).
        #[arg(long, value_name = "DIR", value_parser = folder)]
        cwd: Option<PathBuf>,
        /// One JSON object per server, one per line.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Provider {
    /// Anthropic's Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL).
    Anthropic,
    /// OpenAI's Chat Completions API, and servers that speak it: Ollama, vLLM,
    /// llama.cpp (OPENAI_API_KEY, OPENAI_BASE_URL).
    Openai,
    /// Replies read from a JSON script (`--script FILE`); for tests and demos.
    Scripted,
    /// A deterministic no-LLM driver that explores the workspace for real.
    Offline,
}

impl Provider {
    fn kind(self) -> ProviderKind {
        match self {
            Provider::Anthropic => ProviderKind::Anthropic,
            Provider::Openai => ProviderKind::OpenAi,
            Provider::Scripted => ProviderKind::Scripted,
            Provider::Offline => ProviderKind::Offline,
        }
    }
}

/// Model flags. Unset ones fall back to the environment (BROOD_PROVIDER,
/// BROOD_MODEL, BROOD_LIGHT_MODEL, the providers' variables), then brood.toml.
#[derive(Args)]
pub(crate) struct ModelArgs {
    /// Which model provider to use (default: BROOD_PROVIDER, brood.toml, or the
    /// provider whose API key is set).
    #[arg(long, value_enum)]
    pub(crate) provider: Option<Provider>,
    /// The model name sent to the provider.
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// The light model for explore subagents (default: the main model).
    #[arg(long)]
    pub(crate) light_model: Option<String>,
    /// The script the scripted provider replays.
    #[arg(long, value_name = "FILE")]
    pub(crate) script: Option<PathBuf>,
    /// Pace of the offline driver's streaming (2 = twice as fast).
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR", value_parser = speed)]
    pub(crate) speed: f64,
    /// Retries of a failed model request (default 4).
    #[arg(long, value_name = "N")]
    pub(crate) max_retries: Option<u32>,
    /// Seconds a model stream may stay silent before the turn fails (default 90).
    #[arg(long, value_name = "SECS")]
    pub(crate) idle_timeout: Option<u64>,
    /// Let Anthropic models think before answering, up to N tokens (at
    /// least 1024; extended thinking).
    #[arg(long, value_name = "N")]
    pub(crate) thinking_budget: Option<u32>,
}

impl ModelArgs {
    fn flags(&self) -> ModelFlags {
        ModelFlags {
            provider: self.provider.map(Provider::kind),
            model: self.model.clone(),
            light_model: self.light_model.clone(),
            max_retries: self.max_retries,
            idle_timeout_secs: self.idle_timeout,
            thinking_budget: self.thinking_budget,
        }
    }
}

#[derive(Args)]
pub(crate) struct SessionArgs {
    /// The workspace folder (default: the current folder).
    #[arg(long, value_name = "DIR", value_parser = folder)]
    pub(crate) cwd: Option<PathBuf>,
    /// Write the trace here instead of the data folder.
    #[arg(long, value_name = "FILE", conflicts_with = "no_trace")]
    pub(crate) trace: Option<PathBuf>,
    /// Do not write a trace.
    #[arg(long)]
    pub(crate) no_trace: bool,
    /// Allow every tool call the policy would ask about.
    #[arg(long, short = 'y')]
    pub(crate) yes: bool,
    /// Print events as JSON lines instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Stop the parent agent after this many model calls.
    #[arg(long, value_name = "N")]
    pub(crate) max_steps: Option<u32>,
    /// Subagents that may run at once.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PARALLEL)]
    pub(crate) max_parallel: usize,
    /// Continue the session of this workspace written last, appending to its
    /// trace.
    #[arg(long = "continue", short = 'c', conflicts_with_all = ["resume", "trace"])]
    pub(crate) continue_last: bool,
    /// Continue a saved session: its id (or the start or end of it) or its
    /// trace file. With no value, the workbench offers this workspace's
    /// sessions to pick from.
    #[arg(
        long,
        short = 'r',
        value_name = "ID|FILE",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with = "trace"
    )]
    pub(crate) resume: Option<String>,
    /// Compact the parent's history when its next request would pass this
    /// share of the model's window, in percent (default 85; 100: never).
    #[arg(long, value_name = "PCT", value_parser = percent)]
    pub(crate) compact_at: Option<f64>,
    #[command(flatten)]
    pub(crate) sandbox: SandboxArgs,
}

/// The sandbox every `bash` command runs in (see the README's Security section).
#[derive(Args)]
pub(crate) struct SandboxArgs {
    /// How commands are confined: workspace-write (the default: writes only in
    /// the workspace, its temporary folder and --add-dir folders), read-only,
    /// or off.
    #[arg(long, value_name = "MODE", value_parser = sandbox_mode)]
    pub(crate) sandbox: Option<SandboxMode>,
    /// Let commands reach the network (off by default).
    #[arg(long)]
    pub(crate) sandbox_network: bool,
    /// Another folder commands may write; repeat for more.
    #[arg(long = "add-dir", value_name = "DIR", value_parser = folder)]
    pub(crate) add_dir: Vec<PathBuf>,
}

/// `--sandbox`: one of the modes, by name.
pub(crate) fn sandbox_mode(text: &str) -> Result<SandboxMode, String> {
    SandboxMode::parse(text).ok_or_else(|| "use workspace-write, read-only or off".into())
}

/// `--compact-at`: a share of the window, above 0 and at most 100.
pub(crate) fn percent(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err("use a percentage above 0 and at most 100 (100: never compact)".into()),
    }
}

/// `--speed`: a pace factor above zero.
pub(crate) fn speed(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        _ => Err("use a number above 0".into()),
    }
}

/// `--cwd`: a folder that exists.
pub(crate) fn folder(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => Ok(path),
        Ok(_) => Err("it is a file".into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("no such folder".into()),
        Err(e) => Err(format!("cannot open it: {e}")),
    }
}

/// A mistake in how brood was called (a flag's value, a script that cannot be
/// read): said like any other error, but exits 2, as clap's own do.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub(crate) struct UsageError(pub(crate) Box<dyn std::error::Error + Send + Sync>);

/// The question `brood demo` asks about the current folder.
pub(crate) const DEMO_QUESTION: &str = "Where is the entry point of this project, how is configuration loaded, and how are errors handled?";

#[derive(Args)]
pub(crate) struct DemoArgs {
    #[command(flatten)]
    pub(crate) session: SessionArgs,
    /// Pace of the streaming (2 = twice as fast).
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR", value_parser = speed)]
    pub(crate) speed: f64,
    /// Print the run like `brood run` instead of opening the workbench (also what
    /// happens when stdout is not a terminal).
    #[arg(long)]
    pub(crate) headless: bool,
    /// Ask this instead of the built-in question.
    pub(crate) prompt: Vec<String>,
}

#[derive(Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    pub(crate) session: SessionArgs,
    /// What to ask.
    #[arg(required = true, num_args = 1..)]
    pub(crate) prompt: Vec<String>,
}

#[derive(Args)]
pub(crate) struct ReplayArgs {
    #[command(flatten)]
    pub(crate) session: SavedSession,
    /// Write the session to stdout as `brood run` printed it, instead of
    /// opening the workbench.
    #[arg(long)]
    pub(crate) print: bool,
    /// Write the session as brood events, one JSON object a line (implies
    /// `--print`).
    #[arg(long)]
    pub(crate) json: bool,
    /// Quit right after the first frame and print the time to it (benchmarks).
    #[arg(long, hide = true)]
    pub(crate) exit_after_first_frame: bool,
}

/// A session a command reads whole: a file, or `--last`.
#[derive(Args)]
pub(crate) struct SavedSession {
    /// The session file: a brood trace, a Claude Code session file, a Codex
    /// rollout or a MyCodeAgent trace.
    #[arg(
        value_name = "FILE",
        required_unless_present = "last",
        conflicts_with = "last"
    )]
    pub(crate) file: Option<PathBuf>,
    /// The newest session saved in brood's data folder instead.
    #[arg(long)]
    pub(crate) last: bool,
}

impl SavedSession {
    /// The file named, or the newest saved trace.
    pub(crate) fn path(&self) -> Result<PathBuf, brood::replay::ReplayError> {
        match &self.file {
            Some(file) => Ok(file.clone()),
            None => brood::replay::newest_trace(&brood::replay::traces_dir()?),
        }
    }
}

#[derive(Args)]
#[command(group = clap::ArgGroup::new("to").required(true).args(["otlp", "otlp_file"]))]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    pub(crate) session: SavedSession,
    /// Send the spans to the OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT,
    /// OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_HEADERS…).
    #[arg(long)]
    pub(crate) otlp: bool,
    /// Write the spans to OUT as OTLP/JSON instead.
    #[arg(long, value_name = "OUT")]
    pub(crate) otlp_file: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct WatchArgs {
    /// A session file; a folder of sessions (a Claude Code project, a Codex
    /// sessions folder, a traces folder) to follow its most recently written
    /// one; or a project's working folder (`.`) to follow the newest session
    /// any tool recorded for it.
    #[arg(value_name = "PATH")]
    pub(crate) path: Option<PathBuf>,
    /// List the sessions brood can follow, most recently written first:
    /// tool, project, started, last written, children, first prompt.
    #[arg(long, conflicts_with_all = ["print", "json"])]
    pub(crate) list: bool,
    /// Follow without the workbench, printing as `brood run` prints.
    #[arg(long)]
    pub(crate) print: bool,
    /// Follow without the workbench, one brood event per line (implies
    /// `--print`). When later lines change earlier events, they are sent
    /// again: an event whose `seq` is not above the last one's replaces the
    /// events from that `seq` on.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args)]
pub(crate) struct TracesArgs {
    /// One JSON object per session and line, newest first.
    #[arg(long)]
    pub(crate) json: bool,
    /// The folder to list (default: the traces folder in brood's data folder).
    #[arg(value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

impl SandboxArgs {
    pub(crate) fn request(&self) -> SandboxRequest {
        SandboxRequest {
            mode: self.sandbox,
            network: self.sandbox_network,
            add_dirs: self.add_dir.clone(),
        }
    }
}

impl SessionArgs {
    /// The session the flags ask to continue; `Some("")` (a bare `--resume`)
    /// is a question for a picker, answered before the session is set up.
    pub(crate) fn resume_from(&self) -> Option<ResumeFrom> {
        match (&self.resume, self.continue_last) {
            (_, true) => Some(ResumeFrom::Newest),
            (Some(name), false) => Some(ResumeFrom::Named(name.clone())),
            (None, false) => None,
        }
    }
}

/// What the flags say about a session.
pub(crate) fn setup(model: &ModelArgs, args: &SessionArgs) -> Setup {
    Setup {
        workspace: args.cwd.clone(),
        flags: model.flags(),
        script: model.script.clone(),
        speed: model.speed,
        trace: match (&args.trace, args.no_trace) {
            (_, true) => TraceTarget::Off,
            (Some(path), false) => TraceTarget::File(path.clone()),
            (None, false) => TraceTarget::Default,
        },
        max_parallel: args.max_parallel,
        max_steps: args.max_steps,
        sandbox: args.sandbox.request(),
        resume: args.resume_from(),
        compact_at: args.compact_at,
    }
}
