//! The `brood` command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use tokio_util::sync::CancellationToken;

use std::io::{BufWriter, IsTerminal, Write};

use brood::agent::{Approver, AutoApprove, DEFAULT_MAX_PARALLEL, Hooks};
use brood::config::SandboxFileSettings;
use brood::config::settings::{self, ModelFlags, ProviderKind, Settings};
use brood::config::{config_files, load_config};
use brood::headless::{self, OutputFormat, RunExit};
use brood::model::Model;
use brood::model::anthropic::AnthropicModel;
use brood::model::offline::OfflineModel;
use brood::model::openai::OpenAiModel;
use brood::model::scripted::ScriptedModel;
use brood::policy::classify_command;
use brood::protocol::SessionInfo;
use brood::replay::PrintFormat;
use brood::sandbox::{Network, Sandbox, SandboxMode, SandboxSettings};
use brood::session::{ChannelApprover, Ending, drive};
use brood::session::{Session, SessionOptions, TraceTarget};
use brood::tools::ToolRegistry;
use brood::tui::replay::ReplayExit;
use brood::tui::{self, app};

#[derive(Parser)]
#[command(
    name = "brood",
    version,
    about = "A terminal workbench for LLM coding agents that delegate to subagents",
    long_about = "A terminal workbench for LLM coding agents that delegate to subagents.\n\n\
        With no command, brood opens the full-screen workbench on the configured model.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Verb>,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    session: SessionArgs,
}

#[derive(Subcommand)]
enum Verb {
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
    /// (`--print`, `--json`). Reads brood traces, Claude Code session files and
    /// MyCodeAgent traces.
    Replay(ReplayArgs),
    /// List saved sessions, newest first: date, duration, first prompt,
    /// children, tokens, how each ended and its file.
    Traces(TracesArgs),
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Provider {
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
struct ModelArgs {
    /// Which model provider to use (default: BROOD_PROVIDER, brood.toml, or the
    /// provider whose API key is set).
    #[arg(long, value_enum)]
    provider: Option<Provider>,
    /// The model name sent to the provider.
    #[arg(long)]
    model: Option<String>,
    /// The light model for explore subagents (default: the main model).
    #[arg(long)]
    light_model: Option<String>,
    /// The script the scripted provider replays.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Pace of the offline driver's streaming (2 = twice as fast).
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR", value_parser = speed)]
    speed: f64,
    /// Retries of a failed model request (default 4).
    #[arg(long, value_name = "N")]
    max_retries: Option<u32>,
    /// Seconds a model stream may stay silent before the turn fails (default 90).
    #[arg(long, value_name = "SECS")]
    idle_timeout: Option<u64>,
}

impl ModelArgs {
    fn flags(&self) -> ModelFlags {
        ModelFlags {
            provider: self.provider.map(Provider::kind),
            model: self.model.clone(),
            light_model: self.light_model.clone(),
            max_retries: self.max_retries,
            idle_timeout_secs: self.idle_timeout,
        }
    }
}

#[derive(Args)]
struct SessionArgs {
    /// The workspace folder (default: the current folder).
    #[arg(long, value_name = "DIR", value_parser = folder)]
    cwd: Option<PathBuf>,
    /// Write the trace here instead of the data folder.
    #[arg(long, value_name = "FILE", conflicts_with = "no_trace")]
    trace: Option<PathBuf>,
    /// Do not write a trace.
    #[arg(long)]
    no_trace: bool,
    /// Allow every tool call the policy would ask about.
    #[arg(long, short = 'y')]
    yes: bool,
    /// Print events as JSON lines instead of text.
    #[arg(long)]
    json: bool,
    /// Stop the parent agent after this many model calls.
    #[arg(long, value_name = "N")]
    max_steps: Option<u32>,
    /// Subagents that may run at once.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PARALLEL)]
    max_parallel: usize,
    #[command(flatten)]
    sandbox: SandboxArgs,
}

/// The sandbox every `bash` command runs in (see the README's Security section).
#[derive(Args)]
struct SandboxArgs {
    /// How commands are confined: workspace-write (the default: writes only in
    /// the workspace, its temporary folder and --add-dir folders), read-only,
    /// or off.
    #[arg(long, value_name = "MODE", value_parser = sandbox_mode)]
    sandbox: Option<SandboxMode>,
    /// Let commands reach the network (off by default).
    #[arg(long)]
    sandbox_network: bool,
    /// Another folder commands may write; repeat for more.
    #[arg(long = "add-dir", value_name = "DIR", value_parser = folder)]
    add_dir: Vec<PathBuf>,
}

impl SandboxArgs {
    /// The flags over the config files: a flag wins, folders add up.
    fn settings(&self, file: &SandboxFileSettings) -> SandboxSettings {
        let network = match self.sandbox_network || file.network == Some(true) {
            true => Network::On,
            false => Network::Off,
        };
        let mut writable = file.writable.clone();
        writable.extend(self.add_dir.iter().cloned());
        SandboxSettings {
            mode: self.sandbox.or(file.mode).unwrap_or_default(),
            network,
            writable,
        }
    }
}

/// `--sandbox`: one of the modes, by name.
fn sandbox_mode(text: &str) -> Result<SandboxMode, String> {
    SandboxMode::parse(text).ok_or_else(|| "use workspace-write, read-only or off".into())
}

/// Says once, before anything runs, what the sandbox could not be and which
/// settings a workspace's file was refused.
fn sandbox_warnings(sandbox: &Sandbox, file: &SandboxFileSettings) {
    for ignored in &file.ignored {
        eprintln!("brood: ignored {}", brood::text::visible(ignored));
    }
    if let Some(warning) = sandbox.warning() {
        eprintln!("brood: {}", brood::text::visible(&warning));
    }
}

/// `--speed`: a pace factor above zero.
fn speed(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        _ => Err("use a number above 0".into()),
    }
}

/// `--cwd`: a folder that exists.
fn folder(text: &str) -> Result<PathBuf, String> {
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
struct UsageError(Box<dyn std::error::Error + Send + Sync>);

/// The question `brood demo` asks about the current folder.
const DEMO_QUESTION: &str = "Where is the entry point of this project, how is configuration loaded, and how are errors handled?";

#[derive(Args)]
struct DemoArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// Pace of the streaming (2 = twice as fast).
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR", value_parser = speed)]
    speed: f64,
    /// Print the run like `brood run` instead of opening the workbench (also what
    /// happens when stdout is not a terminal).
    #[arg(long)]
    headless: bool,
    /// Ask this instead of the built-in question.
    prompt: Vec<String>,
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    session: SessionArgs,
    /// What to ask.
    #[arg(required = true, num_args = 1..)]
    prompt: Vec<String>,
}

#[derive(Args)]
struct ReplayArgs {
    /// The session file: a brood trace, a Claude Code session file or a
    /// MyCodeAgent trace.
    #[arg(
        value_name = "FILE",
        required_unless_present = "last",
        conflicts_with = "last"
    )]
    file: Option<PathBuf>,
    /// Replay the newest session saved in brood's data folder.
    #[arg(long)]
    last: bool,
    /// Write the session to stdout as `brood run` printed it, instead of
    /// opening the workbench.
    #[arg(long)]
    print: bool,
    /// Write the session as brood events, one JSON object a line (implies
    /// `--print`).
    #[arg(long)]
    json: bool,
    /// Quit right after the first frame and print the time to it (benchmarks).
    #[arg(long, hide = true)]
    exit_after_first_frame: bool,
}

#[derive(Args)]
struct TracesArgs {
    /// One JSON object per session and line, newest first.
    #[arg(long)]
    json: bool,
    /// The folder to list (default: the traces folder in brood's data folder).
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let result = match cli.command {
        None => workbench(&cli.model, &cli.session, None),
        Some(Verb::CheckCommand { command }) => {
            let verdict = classify_command(&command.join(" "));
            println!("{}: {}", verdict.decision, verdict.reason);
            Ok(ExitCode::SUCCESS)
        }
        Some(Verb::Tool {
            name,
            input,
            cwd,
            yes,
            sandbox,
        }) => tool(&name, &input, cwd, yes, &sandbox),
        Some(Verb::Run(args)) => headless(&args.model, &args.session, &args.prompt.join(" ")),
        Some(Verb::Replay(args)) => replay(&args),
        Some(Verb::Traces(args)) => traces(&args),
        Some(Verb::Demo(args)) => {
            let model = ModelArgs {
                provider: Some(Provider::Offline),
                model: None,
                light_model: None,
                script: None,
                speed: args.speed,
                max_retries: None,
                idle_timeout: None,
            };
            let prompt = match args.prompt.is_empty() {
                true => DEMO_QUESTION.to_string(),
                false => args.prompt.join(" "),
            };
            if args.headless || !std::io::stdout().is_terminal() {
                headless(&model, &args.session, &prompt)
            } else {
                workbench(&model, &args.session, Some(prompt))
            }
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let message = brood::text::describe(e.as_ref());
            eprintln!("brood: {}", brood::text::visible(&message));
            ExitCode::from(if e.is::<UsageError>() { 2 } else { 1 })
        }
    }
}

/// The model of a session from its resolved settings.
fn build_model(settings: &Settings, args: &ModelArgs) -> anyhow::Result<Arc<dyn Model>> {
    let http = || {
        settings
            .http
            .clone()
            .context("the provider's HTTP settings are missing")
    };
    Ok(match settings.provider {
        ProviderKind::Scripted => {
            let Some(script) = &args.script else {
                let missing = "--provider scripted needs --script FILE (see the README)";
                return Err(UsageError(missing.into()).into());
            };
            Arc::new(ScriptedModel::from_file(script).map_err(|e| UsageError(e.into()))?)
        }
        ProviderKind::Offline => Arc::new(OfflineModel::new(args.speed)),
        ProviderKind::Anthropic => Arc::new(AnthropicModel::new(http()?)?),
        ProviderKind::OpenAi => Arc::new(OpenAiModel::new(http()?)?),
    })
}

/// A session ready to run, and what the screen shows about it.
struct Prepared {
    session: Session,
    info: SessionInfo,
}

/// Resolves settings and profiles and starts the session.
fn prepare(
    model_args: &ModelArgs,
    args: &SessionArgs,
    approver: Arc<dyn Approver>,
) -> anyhow::Result<Prepared> {
    let workspace = match &args.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let tools = ToolRegistry::base();
    let config = load_config(&config_files(&workspace), &tools.available())?;
    let env = |name: &str| std::env::var(name).ok();
    let settings = settings::resolve(&model_args.flags(), &env, &config.settings)?;
    let model = build_model(&settings, model_args)?;
    let trace = match (&args.trace, args.no_trace) {
        (_, true) => TraceTarget::Off,
        (Some(path), false) => TraceTarget::File(path.clone()),
        (None, false) => TraceTarget::Default,
    };
    let note = (settings.provider == ProviderKind::Offline).then(|| {
        "offline demo driver: no LLM is called; answers are assembled from real tool results"
            .to_string()
    });
    let session = Session::start(SessionOptions {
        workspace,
        model,
        model_name: settings.model.clone(),
        light_model: settings.light_model.clone(),
        profiles: config.profiles,
        max_parallel: args.max_parallel,
        note,
        trace,
        approver,
        max_steps: args.max_steps,
        hooks: Hooks::default(),
        sandbox: args.sandbox.settings(&config.settings.sandbox),
    })?;
    sandbox_warnings(session.sandbox(), &config.settings.sandbox);
    let info = SessionInfo {
        provider: settings.provider.as_str().to_string(),
        model: settings.model.clone(),
        light_model: settings.light_model.clone(),
        session: session.id().to_string(),
        trace_path: session.trace_path().map(|p| p.display().to_string()),
        cwd: session.workspace().root().display().to_string(),
        context_window: context_window(&settings),
        sandbox: Some(session.sandbox().summary().clone()),
    };
    Ok(Prepared { session, info })
}

/// The main model's context window, for the parent's gauge. Providers do not
/// report it, so it is a known size per family.
fn context_window(settings: &Settings) -> u64 {
    let model = settings.model.to_ascii_lowercase();
    match settings.provider {
        ProviderKind::Anthropic | ProviderKind::Scripted | ProviderKind::Offline => 200_000,
        ProviderKind::OpenAi if model.starts_with("gpt-4.1") => 1_000_000,
        ProviderKind::OpenAi if model.starts_with("gpt-") || model.starts_with('o') => 128_000,
        ProviderKind::OpenAi => 32_768,
    }
}

fn headless(model_args: &ModelArgs, args: &SessionArgs, prompt: &str) -> anyhow::Result<ExitCode> {
    let approver = if args.yes {
        AutoApprove::AllowAll
    } else {
        AutoApprove::DenyAll
    };
    let Prepared { session, .. } = prepare(model_args, args, Arc::new(approver))?;
    tracing::info!(session = session.id(), "headless run");
    let format = if args.json {
        OutputFormat::Json
    } else {
        OutputFormat::Text
    };
    let prompt = prompt.to_string();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let exit = runtime.block_on(async move {
        let cancel = CancellationToken::new();
        let on_ctrl_c = cancel.clone();
        tokio::spawn(async move {
            brood::signals::stop_requested(brood::signals::Listen::WithCtrlC).await;
            on_ctrl_c.cancel();
        });
        headless::run(session, &prompt, format, cancel).await
    });
    if let RunExit::Failed(reason) = &exit {
        eprintln!("brood: {}", brood::text::visible(reason));
    }
    Ok(ExitCode::from(exit.code()))
}

fn workbench(
    model_args: &ModelArgs,
    args: &SessionArgs,
    first_prompt: Option<String>,
) -> anyhow::Result<ExitCode> {
    let approver = Arc::new(ChannelApprover::new());
    let Prepared { session, info } = prepare(model_args, args, approver.clone())?;
    tracing::info!(session = session.id(), "workbench");
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let events = session.bus().subscribe();
        let (ops, op_rx) = tokio::sync::mpsc::unbounded_channel();
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(drive(
            session,
            op_rx,
            Some(approver),
            shutdown.clone(),
            Ending::OnQuit,
        ));
        let link = app::Link {
            events,
            ops,
            shutdown,
            done: async move {
                let _ = task.await;
            },
        };
        app::run(link, info, first_prompt).await
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `brood replay`: the workbench plays the file while a thread reads it, or
/// `--print`/`--json` stream it to stdout. Exit 2 when the workbench is wanted
/// but stdout is not a terminal (a usage error, as from clap).
fn replay(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let path = match &args.file {
        Some(file) => file.clone(),
        None => brood::replay::newest_trace(&brood::replay::traces_dir()?)?,
    };
    let mut source = brood::replay::open(&path)?;
    if args.print || args.json {
        let format = match args.json {
            true => PrintFormat::Json,
            false => PrintFormat::Text,
        };
        let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let report = brood::replay::print(&mut source, format, &mut out, &mut std::io::stderr())?;
        tracing::info!(path = %path.display(), events = report.events, skipped = report.skipped, "replay printed");
        return Ok(ExitCode::SUCCESS);
    }
    if !std::io::stdout().is_terminal() {
        eprintln!(
            "brood: the replay workbench needs a terminal, and stdout is not one\n\
             `brood replay --print {0}` prints it as text, `--json` as events.",
            path.display()
        );
        return Ok(ExitCode::from(2));
    }
    for note in source.notes() {
        tracing::info!(path = %path.display(), "import: {note}");
    }
    let info = brood::replay::session_info(&source);
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let label = format!("{name} · {}", source.format());
    let exit = match args.exit_after_first_frame {
        true => ReplayExit::AfterFirstFrame,
        false => ReplayExit::OnQuit,
    };
    tracing::info!(path = %path.display(), "replay");
    let loader = brood::replay::spawn_loader(source);
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(tui::replay::run(info, label, loader.receiver, exit))?;
    // A read that failed part-way is told after the screen is given back.
    if loader.handle.is_finished()
        && let Ok(Err(e)) = loader.handle.join()
    {
        return Err(e.into());
    }
    Ok(ExitCode::SUCCESS)
}

/// `brood traces`: the saved sessions, newest first.
fn traces(args: &TracesArgs) -> anyhow::Result<ExitCode> {
    let dir = match &args.dir {
        Some(dir) => {
            brood::replay::check_folder(dir)?;
            dir.clone()
        }
        None => brood::replay::traces_dir()?,
    };
    let listing = brood::replay::list_traces(&dir)?;
    let text = if args.json {
        let mut lines = String::new();
        for session in &listing.sessions {
            lines.push_str(&brood::replay::json_line(session));
            lines.push('\n');
        }
        lines
    } else if listing.sessions.is_empty() {
        let hint = match args.dir {
            None => "`brood demo` records one with no key.\n",
            Some(_) => "",
        };
        format!("No saved sessions in {} yet.\n{hint}", dir.display())
    } else {
        let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
        brood::replay::render_table(&listing.sessions, home.as_deref())
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(e).context("cannot write the listing"),
    }
    if !listing.unreadable.is_empty() {
        eprintln!(
            "brood: left out {} file(s) that are not brood traces:",
            listing.unreadable.len()
        );
        for (path, why) in &listing.unreadable {
            eprintln!("  {}: {why}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn tool(
    name: &str,
    input: &str,
    cwd: Option<PathBuf>,
    yes: bool,
    sandbox: &SandboxArgs,
) -> anyhow::Result<ExitCode> {
    let workspace = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let config = load_config(&config_files(&workspace), &ToolRegistry::base().available())?;
    for ignored in &config.settings.sandbox.ignored {
        eprintln!("brood: ignored {}", brood::text::visible(ignored));
    }
    let sandbox = sandbox.settings(&config.settings.sandbox);
    let approve = if yes {
        AutoApprove::AllowAll
    } else {
        AutoApprove::DenyAll
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let outcome = runtime.block_on(brood::tool_cli::run_tool(
        &workspace, name, input, approve, sandbox,
    ))?;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", outcome.content.trim_end_matches('\n'));
    Ok(ExitCode::from(u8::from(outcome.is_error)))
}

/// Logs go to `<data dir>/brood.log`, never to the terminal, readable by its
/// owner only (mode 0600, like the traces). Level from `BROOD_LOG` (default
/// `info`). Without a writable data folder there is simply no log.
fn init_logging() {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let Ok(dir) = brood::config::data_dir() else {
        return;
    };
    let file = std::fs::create_dir_all(&dir).and_then(|()| {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(dir.join("brood.log"))?;
        // A log made by an older brood keeps its mode until now.
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        Ok(file)
    });
    let Ok(file) = file else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("BROOD_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::sync::Mutex::new(brood::text::VisibleWriter(file)))
        .with_ansi(false)
        .try_init()
        .ok();
}
