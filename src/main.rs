//! The `brood` command line: `main` parses the flags (`cli.rs`) and runs the
//! mode they name.

mod cli;
mod heap;
mod resume_cli;
mod setup_lists;
mod workbench_cli;

use cli::{
    Cli, DEMO_QUESTION, ModelArgs, Provider, ReplayArgs, SandboxArgs, SessionArgs, TracesArgs,
    UsageError, Verb, WatchArgs, setup,
};

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use tokio_util::sync::CancellationToken;

use std::io::{BufWriter, IsTerminal, Write};

use brood::agent::{Approver, AutoApprove};
use brood::headless::{self, OutputFormat, RunExit};
use brood::policy::classify_command_with;
use brood::protocol::Remembered;
use brood::replay::PrintFormat;
use brood::session::setup::{self, Prepared, SetupError};
use brood::tools::ToolRegistry;
use brood::tui::app::{self, Pace, Recording, ReplayExit};

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    heap::back(heap::HugePages::for_command(cli.command.as_ref()));
    let result = match cli.command {
        None => workbench_cli::workbench(&cli.model, &cli.session, None),
        Some(Verb::CheckCommand { command }) => check_command(&command.join(" ")),
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
        Some(Verb::Export(args)) => export(&args),
        Some(Verb::Watch(args)) => watch(&args),
        Some(Verb::Agents { cwd, json }) => setup_lists::agents(cwd, json),
        Some(Verb::Mcp { cwd, json }) => setup_lists::mcp(cwd, json),
        Some(Verb::Demo(args)) => {
            let model = ModelArgs {
                provider: Some(Provider::Offline),
                model: None,
                light_model: None,
                script: None,
                speed: args.speed,
                max_retries: None,
                idle_timeout: None,
                thinking_budget: None,
            };
            let prompt = match args.prompt.is_empty() {
                true => DEMO_QUESTION.to_string(),
                false => args.prompt.join(" "),
            };
            if args.headless || !std::io::stdout().is_terminal() {
                headless(&model, &args.session, &prompt)
            } else {
                workbench_cli::workbench(&model, &args.session, Some(prompt))
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

/// Starts the session the flags describe and says its warnings once.
fn prepare(setup: &setup::Setup, approver: Arc<dyn Approver>) -> anyhow::Result<Prepared> {
    let prepared = setup::prepare(setup, approver).map_err(|e| match e {
        SetupError::Usage(message) => anyhow::Error::from(UsageError(message.into())),
        other => other.into(),
    })?;
    for warning in &prepared.warnings {
        eprintln!("brood: {}", brood::text::visible(warning));
    }
    Ok(prepared)
}

fn headless(model_args: &ModelArgs, args: &SessionArgs, prompt: &str) -> anyhow::Result<ExitCode> {
    let approver = if args.yes {
        AutoApprove::AllowAll
    } else {
        AutoApprove::DenyAll
    };
    if args.resume.as_deref() == Some("") {
        return Err(UsageError(
            "brood run --resume needs the session's id or trace file; `brood traces` lists them"
                .into(),
        )
        .into());
    }
    let Prepared {
        mut session, info, ..
    } = prepare(&setup(model_args, args), Arc::new(approver))?;
    tracing::info!(session = session.id(), "headless run");
    if let Some(history) = resume_cli::resumed_history(&session.take_earlier()) {
        eprintln!(
            "brood: continuing session {} ({history} of history)",
            session.id()
        );
    }
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
        for warning in session.start_mcp().await {
            eprintln!("brood: {}", brood::text::visible(&warning));
        }
        headless::run(session, &prompt, format, info.prices, cancel).await
    });
    if let RunExit::Failed(reason) = &exit {
        eprintln!("brood: {}", brood::text::visible(reason));
    }
    Ok(ExitCode::from(exit.code()))
}

/// What the workbench remembers from earlier sessions (`workbench.toml`).
pub(crate) fn remembered() -> Remembered {
    brood::config::workbench::default_path()
        .map(|path| brood::config::workbench::load(&path))
        .unwrap_or_default()
}

/// Writes what the workbench remembers when it changed, once the terminal
/// is given back; a failure is said, and costs nothing else.
pub(crate) fn remember(before: Remembered, after: Remembered) {
    if before == after {
        return;
    }
    let Some(path) = brood::config::workbench::default_path() else {
        return;
    };
    if let Err(e) = brood::config::workbench::save(&path, &after) {
        eprintln!("brood: the workbench's layout is not remembered: {e}");
    }
}

/// `brood replay`: the workbench plays the file while a thread reads it, or
/// `--print`/`--json` stream it to stdout. Exit 2 when the workbench is wanted
/// but stdout is not a terminal (a usage error, as from clap).
fn replay(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let path = args.session.path()?;
    if args.print || args.json {
        let mut source = brood::replay::open(&path)?;
        let format = match args.json {
            true => PrintFormat::Json,
            false => PrintFormat::Text,
        };
        let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let report = brood::replay::print(&mut source, format, &mut out, &mut std::io::stderr())?;
        tracing::info!(path = %path.display(), events = report.events, skipped = report.skipped, "replay printed");
        return Ok(ExitCode::SUCCESS);
    }
    let exit = match args.exit_after_first_frame {
        true => ReplayExit::AfterFirstFrame,
        false => ReplayExit::OnQuit,
    };
    // The screen starts on the session's first lines while the rest is read.
    let source = brood::replay::open_staged(&path)?;
    play(source, &path, Pace::Recorded, exit)
}

/// `brood export`: a saved session's spans to the OTLP endpoint, or to an
/// OTLP/JSON file. Exit 1 when they did not get there.
fn export(args: &cli::ExportArgs) -> anyhow::Result<ExitCode> {
    let path = args.session.path()?;
    let table = brood::config::user_telemetry()?;
    let settings = brood::telemetry::Settings::from_env(table.as_ref())?;
    let destination = match &args.otlp_file {
        Some(out) => brood::telemetry::Destination::File(out.clone()),
        None => brood::telemetry::Destination::Endpoint,
    };
    if destination == brood::telemetry::Destination::Endpoint && !settings.live() {
        eprintln!(
            "brood: no OTLP endpoint: set OTEL_EXPORTER_OTLP_ENDPOINT (or [telemetry] endpoint in brood.toml), or write a file with --otlp-file OUT.json"
        );
        return Ok(ExitCode::from(2));
    }
    match brood::telemetry::export_saved(&path, &destination, &settings) {
        Ok(spans) => {
            let to = match &destination {
                brood::telemetry::Destination::File(out) => format!("written to {}", out.display()),
                brood::telemetry::Destination::Endpoint => "sent to the OTLP endpoint".into(),
            };
            eprintln!("brood: {spans} spans of {} {to}", path.display());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("brood: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// The workbench on a session read by a loader thread: a replay, or a watch.
/// Exit 2 when stdout is not a terminal (a usage error, as from clap).
fn play(
    source: brood::replay::Source,
    path: &std::path::Path,
    pace: Pace,
    exit: ReplayExit,
) -> anyhow::Result<ExitCode> {
    let verb = match pace {
        Pace::Recorded => "replay",
        Pace::Live => "watch",
    };
    if !std::io::stdout().is_terminal() {
        eprintln!(
            "brood: the {verb} workbench needs a terminal, and stdout is not one\n\
             `brood {verb} --print {0}` prints it as text, `--json` as events.",
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
    tracing::info!(path = %path.display(), verb, "workbench on a session file");
    let loader = brood::replay::spawn_loader(source);
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let recording = Recording {
        source: loader.receiver,
        label,
        exit,
        pace,
    };
    let before = remembered();
    let after = runtime.block_on(app::replay(info, recording, before))?;
    remember(before, after);
    // A read that failed part-way is told after the screen is given back.
    if loader.handle.is_finished()
        && let Ok(Err(e)) = loader.handle.join()
    {
        return Err(e.into());
    }
    Ok(ExitCode::SUCCESS)
}

/// `brood watch`: a session followed as it is written, in the workbench or
/// printed line by line; `--list` shows what can be followed.
fn watch(args: &WatchArgs) -> anyhow::Result<ExitCode> {
    use brood::replay::sessions;
    let roots = sessions::roots();
    if args.list {
        return watch_list(&roots);
    }
    let path = match &args.path {
        Some(path) => sessions::resolve(path, &roots)?,
        None => sessions::find(&roots)
            .into_iter()
            .find(|f| !sessions::is_child(f))
            .map(|f| f.path)
            .ok_or_else(|| no_session_anywhere(&roots))?,
    };
    let stop = brood::replay::Stop::default();
    let mut source = brood::replay::follow(&path, stop)?;
    if args.print || args.json {
        let format = match args.json {
            true => PrintFormat::Json,
            false => PrintFormat::Text,
        };
        let mut out = std::io::stdout().lock();
        brood::replay::print(&mut source, format, &mut out, &mut std::io::stderr())?;
        return Ok(ExitCode::SUCCESS);
    }
    play(source, &path, Pace::Live, ReplayExit::OnQuit)
}

/// How many sessions `--list` shows.
const LISTED: usize = 30;

fn watch_list(roots: &[brood::replay::sessions::Root]) -> anyhow::Result<ExitCode> {
    use brood::replay::sessions;
    let found: Vec<_> = sessions::find(roots)
        .into_iter()
        .filter(|f| !sessions::is_child(f))
        .collect();
    if found.is_empty() {
        return Err(no_session_anywhere(roots));
    }
    let listed: Vec<_> = found
        .iter()
        .take(LISTED)
        .map(|f| (f.clone(), sessions::describe(f)))
        .collect();
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let mut text =
        brood::replay::render_sessions(&listed, std::time::SystemTime::now(), home.as_deref());
    if found.len() > LISTED {
        text.push_str(&format!("… and {} older\n", found.len() - LISTED));
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e).context("cannot write the listing"),
    }
}

/// No session under any root: say where brood looked.
fn no_session_anywhere(roots: &[brood::replay::sessions::Root]) -> anyhow::Error {
    let mut message = String::from("no session to follow; brood looked in:");
    for root in roots {
        message.push_str(&format!(
            "\n  {} ({})",
            root.dir.display(),
            root.tool.name()
        ));
    }
    anyhow::anyhow!(message)
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

/// `brood check-command`: the policy's word on one command, the user's
/// permission rules for the current folder included.
fn check_command(command: &str) -> anyhow::Result<ExitCode> {
    let workspace = std::env::current_dir().context("cannot read the current folder")?;
    let config = brood::config::load_for_calls(&workspace, &ToolRegistry::base().available())?;
    let verdict = classify_command_with(command, &config.rules.rules);
    println!("{}: {}", verdict.decision, verdict.reason);
    Ok(ExitCode::SUCCESS)
}

/// `brood agents`: every profile a session in the workspace would offer.
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
    let config = brood::config::load_for_calls(&workspace, &ToolRegistry::base().available())?;
    for ignored in &config.settings.sandbox.ignored {
        eprintln!("brood: ignored {}", brood::text::visible(ignored));
    }
    let mut sandbox = sandbox.request().settings(&config.settings.sandbox);
    sandbox.unreadable = config.rules.unreadable(&workspace);
    let approve = if yes {
        AutoApprove::AllowAll
    } else {
        AutoApprove::DenyAll
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    for note in &config.rules.notes {
        eprintln!("brood: {}", brood::text::visible(note));
    }
    let run = runtime.block_on(brood::tool_cli::run_tool(
        &workspace,
        name,
        input,
        approve,
        sandbox,
        config.rules.rules.clone(),
    ))?;
    for warning in &run.warnings {
        eprintln!("brood: {}", brood::text::visible(warning));
    }
    let outcome = run.outcome;
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
