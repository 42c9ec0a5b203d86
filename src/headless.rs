//! `brood run`: one prompt, no screen. The assistant's text streams to stdout,
//! each tool call is one `> NAME: summary` line with the head of its result, and
//! `--json` prints the raw events instead. The text format is a pure function of
//! the event stream so a replay can print the same thing.

use std::io::Write;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use crate::event::{AgentId, DecidedBy, Decision, Event, EventKind, TerminalReason};
use crate::session::Session;
use crate::tools::ToolRegistry;

/// How `brood run` shows the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    /// One event a line, exactly as in the trace.
    Json,
}

/// Result lines shown under each tool call.
const RESULT_HEAD_LINES: usize = 4;
/// Characters kept of each of those lines.
const RESULT_LINE_CHARS: usize = 160;

/// Turns events into the text `brood run` prints.
pub struct TextPrinter {
    tools: ToolRegistry,
    /// Whether the last thing printed ended a line.
    at_line_start: bool,
}

impl Default for TextPrinter {
    fn default() -> Self {
        Self::new()
    }
}

impl TextPrinter {
    pub fn new() -> Self {
        TextPrinter {
            tools: ToolRegistry::base(),
            at_line_start: true,
        }
    }

    /// The text one event adds to the output (often nothing).
    pub fn format(&mut self, event: &Event) -> String {
        let mut out = String::new();
        if event.agent != AgentId::Main {
            // Children's lanes are printed by the subagent launcher's own format.
            return out;
        }
        match &event.kind {
            EventKind::TextDelta { text } => out.push_str(text),
            EventKind::AssistantMessage { .. } => {}
            EventKind::ToolCall { name, input, .. } => {
                self.line(
                    &mut out,
                    &format!("> {name}: {}", self.tools.summarize(name, input)),
                );
            }
            EventKind::PermissionDecision {
                decision,
                reason,
                by: DecidedBy::User,
                ..
            } => {
                let answer = match decision {
                    Decision::Allow => "allowed",
                    Decision::Ask | Decision::Deny => "denied",
                };
                self.line(&mut out, &format!("  ask: {reason} → {answer}"));
            }
            EventKind::ToolResult {
                content, is_error, ..
            } => {
                let mut lines = content.lines();
                for (i, text) in lines.by_ref().take(RESULT_HEAD_LINES).enumerate() {
                    let text = truncate_chars(text, RESULT_LINE_CHARS);
                    let prefix = if i == 0 && *is_error {
                        "  error: "
                    } else {
                        "  "
                    };
                    self.line(&mut out, &format!("{prefix}{text}"));
                }
                let rest = lines.count();
                if rest > 0 {
                    self.line(&mut out, &format!("  … +{rest} lines"));
                }
            }
            EventKind::HookContinue { text } => {
                self.line(
                    &mut out,
                    &format!("> stop hook: {}", truncate_chars(text, 200)),
                );
            }
            EventKind::Interrupted {} => self.line(&mut out, "interrupted"),
            EventKind::TurnEnd { .. } => {
                if !self.at_line_start {
                    out.push('\n');
                }
            }
            EventKind::UserMessage { .. }
            | EventKind::ModelRequest { .. }
            | EventKind::ApprovalRequested { .. }
            | EventKind::PermissionDecision { .. }
            | EventKind::Error { .. } => {}
        }
        if let Some(last) = out.chars().last() {
            self.at_line_start = last == '\n';
        }
        out
    }

    /// Appends `text` as a line of its own.
    fn line(&self, out: &mut String, text: &str) {
        let continuing = if out.is_empty() {
            self.at_line_start
        } else {
            out.ends_with('\n')
        };
        if !continuing {
            out.push('\n');
        }
        out.push_str(text);
        out.push('\n');
    }
}

fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
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
    mut session: Session,
    prompt: &str,
    format: OutputFormat,
    cancel: CancellationToken,
) -> RunExit {
    let mut events = session.bus().subscribe();
    let mut printer = TextPrinter::new();
    let outcome = {
        let run = session.send(prompt, &cancel);
        tokio::pin!(run);
        loop {
            tokio::select! {
                outcome = &mut run => break outcome,
                Some(event) = events.recv() => print_event(&mut printer, format, &event),
            }
        }
    };
    if outcome.reason == TerminalReason::Interrupted {
        session.mark_interrupted();
    }
    drain(&mut events, &mut printer, format);
    let _ = std::io::stdout().flush();
    if let Some(e) = session.trace_error() {
        return RunExit::Failed(format!("the trace could not be written: {e}"));
    }
    match outcome.reason {
        TerminalReason::Completed => RunExit::Done,
        TerminalReason::Interrupted => RunExit::Interrupted,
        reason @ (TerminalReason::MaxSteps
        | TerminalReason::TokenBudget
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
        OutputFormat::Json => match serde_json::to_string(event) {
            Ok(line) => line + "\n",
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
