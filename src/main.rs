//! The `brood` command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use tokio_util::sync::CancellationToken;

use brood::agent::{AutoApprove, DEFAULT_MAX_PARALLEL, Hooks};
use brood::config::{config_files, load_profiles};
use brood::headless::{self, OutputFormat, RunExit};
use brood::model::Model;
use brood::model::offline::OfflineModel;
use brood::model::scripted::ScriptedModel;
use brood::policy::classify_command;
use brood::session::{Session, SessionOptions, TraceTarget};
use brood::tools::ToolRegistry;

#[derive(Parser)]
#[command(
    name = "brood",
    version,
    about = "A terminal workbench for LLM coding agents that delegate to subagents",
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Verb,
}

#[derive(Subcommand)]
enum Verb {
    /// Run one prompt without the screen, printing the agent's work as it goes.
    Run(RunArgs),
    /// Watch brood delegate with no key and no network: the offline driver explores
    /// the current folder with a built-in question.
    Demo(DemoArgs),
    /// Print the policy's decision for one shell command: `allow|ask|deny: reason`.
    CheckCommand {
        /// The command, as words after `--`.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Provider {
    /// Replies read from a JSON script (`--script FILE`); for tests and demos.
    Scripted,
    /// A deterministic no-LLM driver that explores the workspace for real.
    Offline,
}

#[derive(Args)]
struct ModelArgs {
    /// Which model provider to use.
    #[arg(long, env = "BROOD_PROVIDER", value_enum)]
    provider: Option<Provider>,
    /// The model name sent to the provider.
    #[arg(long, env = "BROOD_MODEL")]
    model: Option<String>,
    /// The light model for explore subagents (default: the main model).
    #[arg(long, env = "BROOD_LIGHT_MODEL")]
    light_model: Option<String>,
    /// The script the scripted provider replays.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Pace of the offline driver's streaming (2 = twice as fast).
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR")]
    speed: f64,
}

#[derive(Args)]
struct SessionArgs {
    /// The workspace folder (default: the current folder).
    #[arg(long, value_name = "DIR")]
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
}

/// The question `brood demo` asks about the current folder.
const DEMO_QUESTION: &str = "Where is the entry point of this project, how is configuration loaded, and how are errors handled?";

#[derive(Args)]
struct DemoArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// Pace of the streaming (2 = twice as fast).
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR")]
    speed: f64,
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let result = match cli.command {
        Verb::CheckCommand { command } => {
            let verdict = classify_command(&command.join(" "));
            println!("{}: {}", verdict.decision, verdict.reason);
            Ok(ExitCode::SUCCESS)
        }
        Verb::Run(args) => {
            let prompt = args.prompt.join(" ");
            run(&args.model, &args.session, &prompt)
        }
        Verb::Demo(args) => {
            let model = ModelArgs {
                provider: Some(Provider::Offline),
                model: None,
                light_model: None,
                script: None,
                speed: args.speed,
            };
            let prompt = match args.prompt.is_empty() {
                true => DEMO_QUESTION.to_string(),
                false => args.prompt.join(" "),
            };
            run(&model, &args.session, &prompt)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("brood: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn build_model(args: &ModelArgs) -> anyhow::Result<(Arc<dyn Model>, String)> {
    let Some(provider) = args.provider else {
        anyhow::bail!(
            "no model provider is configured. Pass --provider scripted --script FILE to replay \
             a script of model replies (assets/ has examples; see the README)."
        );
    };
    match provider {
        Provider::Scripted => {
            let script = args
                .script
                .as_ref()
                .context("--provider scripted needs --script FILE")?;
            let model = ScriptedModel::from_file(script)?;
            let name = args.model.clone().unwrap_or_else(|| "scripted".into());
            Ok((Arc::new(model), name))
        }
        Provider::Offline => {
            let name = args.model.clone().unwrap_or_else(|| "offline".into());
            Ok((Arc::new(OfflineModel::new(args.speed)), name))
        }
    }
}

fn run(model_args: &ModelArgs, args: &SessionArgs, prompt: &str) -> anyhow::Result<ExitCode> {
    let (model, model_name) = build_model(model_args)?;
    let workspace = match &args.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let tools = ToolRegistry::base();
    let profiles = load_profiles(&config_files(&workspace), &tools.names())?;
    let trace = match (&args.trace, args.no_trace) {
        (_, true) => TraceTarget::Off,
        (Some(path), false) => TraceTarget::File(path.clone()),
        (None, false) => TraceTarget::Default,
    };
    let approver = if args.yes {
        AutoApprove::AllowAll
    } else {
        AutoApprove::DenyAll
    };
    let note = (model_args.provider == Some(Provider::Offline)).then(|| {
        "offline demo driver: no LLM is called; answers are assembled from real tool results"
            .to_string()
    });
    let session = Session::start(SessionOptions {
        workspace,
        model,
        model_name,
        light_model: model_args.light_model.clone(),
        profiles,
        max_parallel: args.max_parallel,
        note,
        trace,
        approver: Arc::new(approver),
        max_steps: args.max_steps,
        hooks: Hooks::default(),
    })?;
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
            if tokio::signal::ctrl_c().await.is_ok() {
                on_ctrl_c.cancel();
            }
        });
        headless::run(session, &prompt, format, cancel).await
    });
    if let RunExit::Failed(reason) = &exit {
        eprintln!("brood: {reason}");
    }
    Ok(ExitCode::from(exit.code()))
}

/// Logs go to `<data dir>/brood.log`, never to the terminal. Level from
/// `BROOD_LOG` (default `info`).
/// Without a writable data folder there is simply no log.
fn init_logging() {
    let Ok(dir) = brood::config::data_dir() else {
        return;
    };
    let file = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("brood.log"))
    });
    let Ok(file) = file else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("BROOD_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .try_init()
        .ok();
}
