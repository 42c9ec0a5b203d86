//! The workbench's edge: one live session after another in the same
//! terminal, as `/clear` and `/resume` ask, each prepared from the same
//! setup, until the user quits.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use brood::protocol::Remembered;
use brood::session::resume::ResumeFrom;
use brood::session::setup::{self, Prepared};
use brood::session::{ChannelApprover, Ending, drive};
use brood::tui::app;

use crate::cli::{self, ModelArgs, SessionArgs};
use crate::{prepare, resume_cli};

pub(crate) fn workbench(
    model_args: &ModelArgs,
    args: &SessionArgs,
    first_prompt: Option<String>,
) -> anyhow::Result<ExitCode> {
    let mut setup = cli::setup(model_args, args);
    if args.resume.as_deref() == Some("") {
        match resume_cli::pick_session(setup.workspace.clone())? {
            Some(path) => setup.resume = Some(ResumeFrom::Named(path.display().to_string())),
            None => return Ok(ExitCode::SUCCESS),
        }
    }
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let mut first_prompt = first_prompt;
    let mut note = None;
    let before = crate::remembered();
    let mut layout = before;
    loop {
        let (id, traced, next, after) =
            workbench_session(&setup, &runtime, first_prompt.take(), note, layout)?;
        layout = after;
        let left = traced.then(|| format!("{id} stays resumable: /resume {id}"));
        match next {
            app::Next::Quit => {
                crate::remember(before, layout);
                if traced {
                    println!("brood: to continue this session: brood --resume {id}");
                }
                return Ok(ExitCode::SUCCESS);
            }
            app::Next::NewSession => {
                setup.resume = None;
                note = left;
            }
            app::Next::Resume(Some(id)) => {
                setup.resume = Some(ResumeFrom::Named(id));
                note = left;
            }
            app::Next::Resume(None) => match resume_cli::pick_session(setup.workspace.clone())? {
                Some(path) => {
                    setup.resume = Some(ResumeFrom::Named(path.display().to_string()));
                    note = left;
                }
                // Nothing picked: back to the session that was there (a new
                // one when it kept no trace to come back to).
                None => {
                    setup.resume = traced.then_some(ResumeFrom::Named(id));
                    note = None;
                }
            },
        }
    }
}

/// One session in the workbench, until the user quits or asks for another:
/// its id, whether it has a trace, what comes next and the layout to keep.
fn workbench_session(
    setup: &setup::Setup,
    runtime: &tokio::runtime::Runtime,
    first_prompt: Option<String>,
    note: Option<String>,
    layout: Remembered,
) -> anyhow::Result<(String, bool, app::Next, Remembered)> {
    let approver = Arc::new(ChannelApprover::new());
    let Prepared {
        mut session,
        mut info,
        ..
    } = prepare(setup, approver.clone())?;
    tracing::info!(session = session.id(), "workbench");
    let id = session.id().to_string();
    let traced = session.trace_path().is_some();
    let (next, layout) = runtime.block_on(async move {
        // Before the screen is the terminal's: what did not start is said here.
        for warning in session.start_mcp().await {
            eprintln!("brood: {}", brood::text::visible(&warning));
        }
        info.mcp = session.mcp_summary();
        let events = resume_cli::with_earlier(session.take_earlier(), session.bus().subscribe());
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
        app::run(link, info, first_prompt, note, layout).await
    })?;
    Ok((id, traced, next, layout))
}
