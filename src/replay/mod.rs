//! Saved sessions, read back: `brood replay` plays a trace in the workbench or
//! prints it, and `brood traces` lists the ones in the data folder.
//!
//! Everything here streams. A brood trace is read one line at a time and each
//! event goes straight to its consumer (the printer, or the workbench's loader
//! channel), so a 100 MB trace starts playing or printing at once and is never
//! held whole by this module. Foreign transcripts (Claude Code, MyCodeAgent) are
//! converted into the same events by `trace::import` first; they are small and
//! need their whole file (and their children's files) to be converted.
//!
//! Bad input follows one rule everywhere: a truncated last line (a session
//! killed mid-write) is accepted silently; any other line that is not an event
//! is skipped and reported with its line number.

mod follow;
mod list;
mod load;
mod print;
pub mod sessions;
mod source;
mod table;

pub use follow::tail::Stop;
pub use list::{
    EndState, Listing, TraceSummary, check_folder, list_traces, newest_trace, summarize,
};
pub use load::{Loader, session_info, spawn_loader};
pub use print::{PrintFormat, PrintReport, print};
pub use source::{
    Following, Item, Rewound, SkippedLine, Source, SourceFormat, follow, open, open_staged,
};
pub use table::{json_line, render_sessions, render_table, session_json_line};

use crate::trace::import::Lookalike;
use std::path::PathBuf;

use crate::trace::TraceError;

/// What `brood replay` and `brood watch` read, for the errors that must say
/// so: lines of at most 80 columns, under the line that says what went wrong.
pub const READS: &str = "brood reads (replay and watch alike):
  brood traces (`brood traces` lists the saved ones)
  Claude Code session files (~/.claude/projects/<project>/<session>.jsonl)
  Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)
  MyCodeAgent traces and transcripts (memory/{traces,transcripts}/*.jsonl)";

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{path}: no such file\n{READS}")]
    NotFound { path: PathBuf },
    #[error("{path} is a folder, not a session file\n{READS}")]
    IsDirectory { path: PathBuf },
    #[error(
        "{path} is not a regular file (a FIFO, socket or device), so brood does not read it\n{READS}"
    )]
    NotAFile { path: PathBuf },
    #[error("{path} is empty: there is no session in it\n{READS}")]
    Empty { path: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `looks` says what the file is closest to, in words a person can act
    /// on; `detail` is the header parser's complaint, kept for the log.
    #[error("{path} is not in a format brood reads{}\n{READS}", looks_line(*.looks))]
    UnknownFormat {
        path: PathBuf,
        looks: Option<Lookalike>,
        detail: String,
    },
    #[error("{path}: line 1 names the brood trace format but is not a valid header: {detail}")]
    BadHeader { path: PathBuf, detail: String },
    #[error(
        "no saved sessions in {dir} yet\n\
         Run `brood demo` (no key needed) to record one, then `brood replay --last`."
    )]
    NoTraces { dir: PathBuf },
    #[error(
        "no session to follow in {dir}\n\
         `brood watch --list` shows the sessions brood can follow."
    )]
    NoSessions { dir: PathBuf },
    #[error("{dir}: no such folder\n`brood traces` with no folder lists the saved sessions.")]
    NoFolder { dir: PathBuf },
    #[error("{dir} is not a folder\n`brood replay --print FILE` prints one session.")]
    NotAFolder { dir: PathBuf },
    #[error(transparent)]
    DataDir(#[from] crate::config::ConfigError),
    #[error("cannot write the output: {0}")]
    Output(#[source] std::io::Error),
}

impl From<TraceError> for ReplayError {
    fn from(e: TraceError) -> Self {
        match e {
            TraceError::Io { path, source } => ReplayError::Io { path, source },
            TraceError::Empty { path } => ReplayError::Empty { path },
            // Only writing refuses a file; a reader never gets this.
            TraceError::Refused { path, why } => ReplayError::Io {
                path,
                source: std::io::Error::other(why),
            },
            TraceError::BadHeader { path, message } => ReplayError::BadHeader {
                path,
                detail: format!("line 1: {message}"),
            },
        }
    }
}

impl ReplayError {
    /// A failed `stat`: `NotFound` for a missing path, `Io` otherwise.
    pub(crate) fn stat(path: &std::path::Path, source: std::io::Error) -> ReplayError {
        match source.kind() {
            std::io::ErrorKind::NotFound => ReplayError::NotFound {
                path: path.to_path_buf(),
            },
            _ => ReplayError::Io {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    pub(crate) fn io(path: &std::path::Path) -> impl Fn(std::io::Error) -> ReplayError + '_ {
        move |source| ReplayError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Where sessions are saved when no `--trace` is given: `<data dir>/traces`.
pub fn traces_dir() -> Result<PathBuf, ReplayError> {
    Ok(crate::config::data_dir()?.join("traces"))
}

#[cfg(test)]
mod tests;

/// `.\nIt looks like …` under the first line of an unknown format's message.
fn looks_line(looks: Option<Lookalike>) -> String {
    match looks {
        Some(looks) => format!(".\nIt looks like {}.", looks.describe()),
        None => String::new(),
    }
}
