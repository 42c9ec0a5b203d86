//! `brood run`: one prompt, no screen, through the same session task as the
//! workbench. The assistant's text streams to stdout as [`crate::printer`]
//! writes it, or `--json` prints the raw events instead.

use std::io::Write;

use tokio::sync::mpsc::{self, UnboundedReceiver};
use tokio_util::sync::CancellationToken;

use crate::event::{Event, Op, TerminalReason};
use crate::printer::TextPrinter;
use crate::session::{Driven, Ending, Session, drive};

/// How `brood run` shows the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    /// One event a line, exactly as in the trace.
    Json,
}

/// What `brood run` ends with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunExit {
    Done,
    /// The one-line reason goes to stderr.
    Failed(String),
    Interrupted,
}

impl RunExit {
    pub fn code(&self) -> u8 {
        match self {
            RunExit::Done => 0,
            RunExit::Failed(_) => 1,
            RunExit::Interrupted => 130,
        }
    }
}

/// Runs one prompt to the end, printing as it goes. `cancel` is fired by Ctrl-C.
pub async fn run(
    session: Session,
    prompt: &str,
    format: OutputFormat,
    prices: crate::protocol::PriceTable,
    cancel: CancellationToken,
) -> RunExit {
    let mut events = session.bus().subscribe();
    let mut printer = TextPrinter::with_prices(prices);
    // The same session task as the workbench's, given one message and no one
    // to answer approvals (the agents' approver does, at once).
    let (ops, op_rx) = mpsc::unbounded_channel();
    let _ = ops.send(Op::UserMessage(prompt.to_string()));
    drop(ops);
    let Driven { mut session, last } = {
        let task = drive(session, op_rx, None, cancel, Ending::WhenIdle);
        tokio::pin!(task);
        loop {
            tokio::select! {
                driven = &mut task => break driven,
                Some(event) = events.recv() => print_event(&mut printer, format, &event),
            }
        }
    };
    drain(&mut events, &mut printer, format);
    let _ = std::io::stdout().flush();
    if let Some(e) = session.trace_error() {
        return RunExit::Failed(format!("the trace could not be written: {e}"));
    }
    // Spans that did not reach the backend cost the run nothing but a line.
    if let Some(warning) = session.finish_telemetry() {
        eprintln!("brood: {warning}");
    }
    let Some(outcome) = last else {
        return RunExit::Failed("the prompt never ran".into());
    };
    match outcome.reason {
        TerminalReason::Completed => RunExit::Done,
        // Interrupted with a reason: something stopped the turn on purpose
        // (a UserPromptSubmit hook), not the person.
        TerminalReason::Interrupted => match outcome.error {
            Some(why) => RunExit::Failed(why),
            None => RunExit::Interrupted,
        },
        reason @ (TerminalReason::MaxSteps
        | TerminalReason::TokenBudget
        | TerminalReason::CostBudget
        | TerminalReason::ContextBudget
        | TerminalReason::ContractViolation
        | TerminalReason::ModelError) => RunExit::Failed(
            outcome
                .error
                .unwrap_or_else(|| format!("the run ended with {reason}")),
        ),
    }
}

/// Prints what is already queued; everything published so far is in the channel.
fn drain(events: &mut UnboundedReceiver<Event>, printer: &mut TextPrinter, format: OutputFormat) {
    while let Ok(event) = events.try_recv() {
        print_event(printer, format, &event);
    }
}

fn print_event(printer: &mut TextPrinter, format: OutputFormat, event: &Event) {
    let text = match format {
        OutputFormat::Text => printer.format(event),
        OutputFormat::Json => match serde_json::to_vec(event) {
            Ok(line) => {
                let mut safe = Vec::with_capacity(line.len() + 1);
                crate::text::push_terminal_safe_json(&line, &mut safe);
                safe.push(b'\n');
                String::from_utf8_lossy(&safe).into_owned()
            }
            Err(e) => format!("{{\"type\":\"error\",\"message\":\"unprintable event: {e}\"}}\n"),
        },
    };
    if text.is_empty() {
        return;
    }
    // A closed stdout (`brood run … | head`) must not panic; the trace still
    // records everything.
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
