//! Importers that turn foreign transcripts into brood [`Event`]s, so `brood replay`
//! shows a Claude Code session, a Codex CLI rollout or a MyCodeAgent trace in the
//! same screen as a brood trace: the parent conversation, one lane per subagent,
//! gauges and all.
//!
//! The format is detected from the file's content, never from its name: people
//! rename and copy these files, and Claude Code's own names (`<uuid>.jsonl`,
//! `agent-<id>.jsonl`) say nothing a MyCodeAgent `trace-*.jsonl` could not.
//!
//! Every importer streams its files line by line and keeps only the events it
//! makes. A truncated last line (a session killed mid-write) is accepted; any
//! other bad line is reported with its file and number and skipped; fields of the
//! wrong type degrade to "absent". Line or event types an importer does not use
//! are counted in [`Imported::skipped`], so a person can see what was left out.
//!
//! What each importer maps, and how children are linked to the calls that
//! started them, is documented on [`claude`], [`codex`] and [`mycodeagent`].

pub mod claude;
pub mod codex;
mod detect;
mod lax;
mod lines;
mod live;
mod lookalike;
pub mod mycodeagent;
mod timeline;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use detect::detect;
pub use live::{Ending, Grew, Live, Signature, Start, live};
pub use lookalike::{Lookalike, lookalike};
pub use timeline::SharedEvent;

use crate::event::Event;
use crate::trace::TraceHeader;

/// A transcript format brood can replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// brood's own trace: read it with [`crate::trace::TraceReader`].
    Brood,
    /// A Claude Code session file (`~/.claude/projects/<project>/<session>.jsonl`).
    ClaudeCode,
    /// A MyCodeAgent trace (`trace-<session>.jsonl`) or transcript
    /// (`memory/transcripts/transcript-<session>.jsonl`).
    MyCodeAgent,
    /// A Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
}

impl Format {
    /// The provider name written in an imported trace's header.
    pub fn provider(&self) -> &'static str {
        match self {
            Format::Brood => "brood",
            Format::ClaudeCode => "claude-code",
            Format::MyCodeAgent => "mycodeagent",
            Format::Codex => "codex",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Brood => "brood trace",
            Format::ClaudeCode => "Claude Code session",
            Format::MyCodeAgent => "MyCodeAgent trace",
            Format::Codex => "Codex CLI rollout",
        })
    }
}

/// The formats brood reads, for messages that must say so.
pub const KNOWN_FORMATS: &str = "brood traces, Claude Code session files (~/.claude/projects/<project>/<session>.jsonl), \
     Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) \
     and MyCodeAgent traces (trace-<session>.jsonl) and transcripts (transcript-<session>.jsonl)";

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is empty")]
    Empty { path: PathBuf },
    #[error("{path} is not a transcript brood can read; it reads {KNOWN_FORMATS}")]
    UnknownFormat { path: PathBuf },
    /// The file is brood's own trace: there is nothing to import.
    #[error("{path} is a brood trace: open it with trace::TraceReader, it needs no import")]
    NativeTrace { path: PathBuf },
}

/// A line that could not be read, in whichever file of the import it was.
#[derive(Debug, Clone, PartialEq)]
pub struct BadLine {
    /// The file: the session itself or one of its children's transcripts.
    pub path: PathBuf,
    /// 1-based.
    pub line: usize,
    pub error: String,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.error)
    }
}

/// A foreign transcript turned into brood events: owned [`Event`]s from a
/// whole import, [`SharedEvent`]s from a live one's snapshot.
#[derive(Debug, Clone)]
pub struct Imported<E = Event> {
    pub format: Format,
    /// A header as a brood trace of this session would have had.
    pub header: TraceHeader,
    /// `seq` from 1, strictly increasing; `t_ms` from the earliest timestamp.
    pub events: Vec<E>,
    /// Lines that could not be read, skipped (a truncated last line is not one).
    pub bad_lines: Vec<BadLine>,
    /// Line, event or content-block types the importer does not map, with counts.
    pub skipped: BTreeMap<String, usize>,
    /// Child transcripts (files or inline sidechains) found and turned into lanes.
    pub children_loaded: usize,
    /// Things a person should know: children without a transcript, transcripts
    /// that matched no call, cycles.
    pub notes: Vec<String>,
    /// Files whose last line was cut off mid-write and dropped.
    pub truncated: Vec<PathBuf>,
}

impl Imported<SharedEvent> {
    /// The import with events of its own, moved out of the lanes that made
    /// them when nothing else holds them.
    pub fn into_owned(self) -> Imported {
        self.map_events(|events| events.into_iter().map(SharedEvent::into_event).collect())
    }
}

impl Imported {
    /// The import with its events shared.
    pub fn into_shared(self) -> Imported<SharedEvent> {
        self.map_events(|events| {
            events
                .into_iter()
                .map(|e| SharedEvent {
                    seq: e.seq,
                    t_ms: e.t_ms,
                    agent: e.agent,
                    kind: std::sync::Arc::new(e.kind),
                })
                .collect()
        })
    }
}

impl<E> Imported<E> {
    fn map_events<F>(self, map: impl FnOnce(Vec<E>) -> Vec<F>) -> Imported<F> {
        Imported {
            format: self.format,
            header: self.header,
            events: map(self.events),
            bad_lines: self.bad_lines,
            skipped: self.skipped,
            children_loaded: self.children_loaded,
            notes: self.notes,
            truncated: self.truncated,
        }
    }
}

/// Imports a Claude Code session, a Codex rollout or a MyCodeAgent trace, with
/// its children.
///
/// A brood trace is refused with [`ImportError::NativeTrace`]: it is read with
/// [`crate::trace::TraceReader`], which keeps its original events untouched.
pub fn import(path: &Path) -> Result<Imported, ImportError> {
    match detect(path)? {
        Format::Brood => Err(ImportError::NativeTrace {
            path: path.to_path_buf(),
        }),
        Format::ClaudeCode => claude::import(path),
        Format::MyCodeAgent => mycodeagent::import(path),
        Format::Codex => codex::import(path),
    }
}

/// What the reading of all files of one import collects besides events.
#[derive(Debug, Clone, Default)]
pub(crate) struct Report {
    pub bad_lines: Vec<BadLine>,
    pub skipped: BTreeMap<String, usize>,
    pub notes: Vec<String>,
    pub truncated: Vec<PathBuf>,
    pub children_loaded: usize,
}

impl Report {
    /// Adds what reading another file found.
    pub fn absorb(&mut self, other: &Report) {
        self.bad_lines.extend(other.bad_lines.iter().cloned());
        for (what, n) in &other.skipped {
            *self.skipped.entry(what.clone()).or_default() += n;
        }
        self.notes.extend(other.notes.iter().cloned());
        self.truncated.extend(other.truncated.iter().cloned());
        self.children_loaded += other.children_loaded;
    }

    pub fn skip(&mut self, what: impl Into<String>) {
        *self.skipped.entry(what.into()).or_default() += 1;
    }

    /// The import: these events, and what the reading collected.
    pub fn into_imported<E>(
        self,
        format: Format,
        header: TraceHeader,
        events: Vec<E>,
    ) -> Imported<E> {
        Imported {
            format,
            header,
            events,
            bad_lines: self.bad_lines,
            skipped: self.skipped,
            children_loaded: self.children_loaded,
            notes: self.notes,
            truncated: self.truncated,
        }
    }
}

/// The header every import shares; `started_at` falls back to the file's time
/// when no line had a timestamp.
fn header(
    format: Format,
    path: &Path,
    session: String,
    started_ms: Option<i64>,
    cwd: String,
    model: String,
) -> TraceHeader {
    let mut header = TraceHeader::new(&session, &cwd, format.provider(), &model);
    let started = started_ms
        .and_then(chrono::DateTime::from_timestamp_millis)
        .or_else(|| {
            let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
            Some(chrono::DateTime::<chrono::Utc>::from(modified))
        });
    if let Some(started) = started {
        header.started_at = started.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    }
    header.note = Some(format!("imported from {format} {}", path.display()));
    header
}

#[cfg(test)]
mod tests;
