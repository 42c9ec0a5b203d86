//! Opening a file to replay, whatever its format, as one stream of events.

use std::fmt;
use std::path::{Path, PathBuf};

use super::ReplayError;
use super::follow::tail::Stop;
use super::follow::{FollowTrace, Reimport, Run, wait_for_first_line};
use crate::event::Event;
use crate::trace::TraceHeader;
use crate::trace::import::{self, Format, ImportError, Imported, Start};
use crate::trace::{Step, TraceError, TraceReader};

/// The formats replay reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    Brood,
    ClaudeCode,
    MyCodeAgent,
    Codex,
}

impl fmt::Display for SourceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SourceFormat::Brood => "brood trace",
            SourceFormat::ClaudeCode => "Claude Code session",
            SourceFormat::MyCodeAgent => "MyCodeAgent trace",
            SourceFormat::Codex => "Codex CLI rollout",
        })
    }
}

/// A line that could not be read, skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedLine {
    /// The file it is in, when not the one opened (a child's transcript).
    pub file: Option<PathBuf>,
    /// 1-based.
    pub line: usize,
    pub error: String,
}

impl fmt::Display for SkippedLine {
    /// `line 12: …`, or `line 3 of agent-a1b2.jsonl: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}", self.line)?;
        if let Some(file) = &self.file {
            let name = file.file_name().unwrap_or(file.as_os_str());
            write!(f, " of {}", name.to_string_lossy())?;
        }
        write!(f, ": {}", self.error)
    }
}

/// One thing read from a source, in file order.
#[derive(Debug)]
pub enum Item {
    Event(Event),
    Skipped(SkippedLine),
    /// Only while following: the events after the first `keep` no longer hold
    /// and come again, changed (`why` says what happened to the file).
    Rewind {
        keep: usize,
        why: Rewound,
    },
}

/// Why a followed session's events come again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rewound {
    /// The file was truncated: it is read from its start.
    Truncated,
    /// The path names a new file (rotated or replaced): read from its start.
    Replaced,
    /// A later line changed what earlier ones meant (a message got another
    /// block, a child was linked to its call).
    Revised,
}

impl fmt::Display for Rewound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rewound::Truncated => "the file was truncated; reading it again from its start",
            Rewound::Replaced => "the file was replaced; reading the new one from its start",
            Rewound::Revised => "later lines changed earlier events; they follow again",
        })
    }
}

enum Inner {
    /// Streamed line by line (boxed: the reader is large, and there is one).
    Brood(Box<TraceReader>),
    /// Converted whole by the importer; its bad lines come first.
    Imported {
        bad_lines: std::vec::IntoIter<SkippedLine>,
        events: std::vec::IntoIter<Event>,
        truncated: bool,
    },
    /// A brood trace followed as it grows (`brood watch`).
    FollowTrace(Box<FollowTrace>),
    /// A foreign session imported again as it grows (`brood watch`).
    FollowImport(Box<Reimport>),
}

/// An open session file: its header, then its events one at a time.
pub struct Source {
    path: PathBuf,
    format: SourceFormat,
    header: TraceHeader,
    /// What a person should know about an import (children without a
    /// transcript, what was left out); empty for brood traces.
    notes: Vec<String>,
    inner: Inner,
}

impl Source {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn format(&self) -> SourceFormat {
        self.format
    }

    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The next event or skipped line; `None` at the end.
    pub fn next_item(&mut self) -> Result<Option<Item>, ReplayError> {
        match &mut self.inner {
            Inner::Brood(reader) => Ok(reader.next_step()?.map(|step| match step {
                Step::Event(event) => Item::Event(event),
                Step::Bad(bad) => Item::Skipped(SkippedLine {
                    file: None,
                    line: bad.line,
                    error: bad.error,
                }),
            })),
            Inner::Imported {
                bad_lines, events, ..
            } => Ok(bad_lines
                .next()
                .map(Item::Skipped)
                .or_else(|| events.next().map(Item::Event))),
            Inner::FollowTrace(follow) => follow.next_item(),
            Inner::FollowImport(follow) => follow.next_item(),
        }
    }

    /// Whether reads wait for the session to grow (`brood watch`).
    pub fn following(&self) -> Following {
        match &self.inner {
            Inner::Brood(_) | Inner::Imported { .. } => Following::No,
            Inner::FollowTrace(_) | Inner::FollowImport(_) => Following::Yes,
        }
    }

    /// Whether the last line was cut off and dropped (known at the end).
    pub fn truncated_tail(&self) -> bool {
        match &self.inner {
            Inner::Brood(reader) => reader.truncated_tail(),
            Inner::Imported { truncated, .. } => *truncated,
            Inner::FollowTrace(_) | Inner::FollowImport(_) => false,
        }
    }

    /// The line the last event was read from, when it came verbatim from a
    /// brood trace (so it can be written out again without serializing).
    pub fn raw_line(&self) -> Option<&[u8]> {
        match &self.inner {
            Inner::Brood(reader) => Some(reader.raw_line()),
            Inner::FollowTrace(follow) => Some(follow.reader().raw_line()),
            Inner::Imported { .. } | Inner::FollowImport(_) => None,
        }
    }
}

/// Opens `path` for replay: a brood trace streams; a foreign transcript is
/// converted first. Missing files, folders, empty files and unknown formats are
/// refused with a message that says which.
pub fn open(path: &Path) -> Result<Source, ReplayError> {
    check_file(path)?;
    match TraceReader::open(path) {
        Ok(reader) => {
            let header = reader.header().clone();
            Ok(brood(path, &header, Inner::Brood(Box::new(reader))))
        }
        Err(TraceError::BadHeader { message, .. }) => foreign(path, format!("line 1: {message}")),
        Err(e) => Err(e.into()),
    }
}

/// A brood trace's source: its header as read, nothing to note.
fn brood(path: &Path, header: &TraceHeader, inner: Inner) -> Source {
    Source {
        path: path.to_path_buf(),
        format: SourceFormat::Brood,
        header: header.clone(),
        notes: Vec::new(),
        inner,
    }
}

/// Refuses what is not a regular file: missing, a folder, a FIFO or device.
fn check_file(path: &Path) -> Result<(), ReplayError> {
    let meta = std::fs::metadata(path).map_err(|e| ReplayError::stat(path, e))?;
    if meta.is_dir() {
        return Err(ReplayError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    // A FIFO, socket or device may block or never end: only files replay.
    if !meta.is_file() {
        return Err(ReplayError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// Whether a source's reads wait for more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Following {
    No,
    Yes,
}

/// Opens `path` to follow as it is written (`brood watch`): reads wait for
/// more instead of ending, until `stop`. A file still empty is waited for.
pub fn follow(path: &Path, stop: Stop) -> Result<Source, ReplayError> {
    check_file(path)?;
    if !wait_for_first_line(path, &stop)? {
        return Err(ReplayError::Empty {
            path: path.to_path_buf(),
        });
    }
    match TraceReader::open(path) {
        Ok(reader) => {
            let follow = FollowTrace::open(path, stop)?;
            Ok(brood(
                path,
                reader.header(),
                Inner::FollowTrace(Box::new(follow)),
            ))
        }
        Err(TraceError::BadHeader { message, .. }) => {
            let format = foreign_format(path, format!("line 1: {message}"))?;
            live_source(path, format, Start::All, Run::Follow, stop)
        }
        Err(e) => Err(e.into()),
    }
}

/// Opens `path` for the replay workbench: as [`open`], but a Claude Code or
/// Codex session is read in two steps, its first lines first, so the first
/// frame does not wait for a big session to be read whole. What the whole
/// read changes comes as an [`Item::Rewind`].
pub fn open_staged(path: &Path) -> Result<Source, ReplayError> {
    check_file(path)?;
    let format = match TraceReader::open(path) {
        Err(TraceError::BadHeader { message, .. }) => {
            foreign_format(path, format!("line 1: {message}"))?
        }
        Ok(_) | Err(_) => return open(path),
    };
    match format {
        SourceFormat::ClaudeCode | SourceFormat::Codex => live_source(
            path,
            format,
            Start::Lines(FIRST_LINES),
            Run::Rest,
            Stop::default(),
        ),
        SourceFormat::Brood | SourceFormat::MyCodeAgent => open(path),
    }
}

/// Lines of a session read for a replay's first frame.
const FIRST_LINES: usize = 2_000;

/// A foreign session read by a live import: its first snapshot now, the rest
/// as `run` says.
fn live_source(
    path: &Path,
    format: SourceFormat,
    start: Start,
    run: Run,
    stop: Stop,
) -> Result<Source, ReplayError> {
    let mut live = import::live(path, start).map_err(|e| import_error(path, e, String::new()))?;
    let mut first = live
        .snapshot(import::Ending::Open)
        .map_err(|e| import_error(path, e, String::new()))?;
    let events = std::mem::take(&mut first.events);
    let bad_lines = std::mem::take(&mut first.bad_lines);
    let mut source = from_import(path, format, first.into_owned());
    let follow = Reimport::new(path, run, stop, live, &bad_lines, events);
    source.inner = Inner::FollowImport(Box::new(follow));
    Ok(source)
}

/// A file that is not a brood trace: one of the foreign formats, or refused.
fn foreign(path: &Path, detail: String) -> Result<Source, ReplayError> {
    let format = foreign_format(path, detail)?;
    let imported = import::import(path).map_err(|e| import_error(path, e, String::new()))?;
    Ok(from_import(path, format, imported))
}

/// Which foreign format `path` is in, or why it is refused.
fn foreign_format(path: &Path, detail: String) -> Result<SourceFormat, ReplayError> {
    let format = match import::detect(path) {
        Ok(format) => format,
        Err(e) => return Err(import_error(path, e, detail)),
    };
    let format = match format {
        // It says it is a brood trace, but its header did not read as one.
        Format::Brood => {
            return Err(ReplayError::BadHeader {
                path: path.to_path_buf(),
                detail,
            });
        }
        Format::ClaudeCode => SourceFormat::ClaudeCode,
        Format::MyCodeAgent => SourceFormat::MyCodeAgent,
        Format::Codex => SourceFormat::Codex,
    };
    Ok(format)
}

fn from_import(path: &Path, format: SourceFormat, imported: Imported) -> Source {
    let Imported {
        format: _,
        header,
        events,
        bad_lines,
        skipped,
        children_loaded: _,
        notes: mut import_notes,
        truncated,
    } = imported;
    let bad_lines: Vec<SkippedLine> = bad_lines
        .into_iter()
        .map(|bad| SkippedLine {
            file: (bad.path != path).then_some(bad.path),
            line: bad.line,
            error: bad.error,
        })
        .collect();
    if !skipped.is_empty() {
        let parts: Vec<String> = skipped
            .iter()
            .map(|(what, count)| format!("{count} {what}"))
            .collect();
        import_notes.push(format!("not shown: {}", parts.join(", ")));
    }
    Source {
        path: path.to_path_buf(),
        format,
        header,
        notes: import_notes,
        inner: Inner::Imported {
            bad_lines: bad_lines.into_iter(),
            events: events.into_iter(),
            truncated: !truncated.is_empty(),
        },
    }
}

fn import_error(path: &Path, e: ImportError, detail: String) -> ReplayError {
    let path = path.to_path_buf();
    match e {
        ImportError::Io { path, source } => ReplayError::Io { path, source },
        ImportError::Empty { path } => ReplayError::Empty { path },
        ImportError::UnknownFormat { .. } | ImportError::NativeTrace { .. } => {
            ReplayError::UnknownFormat {
                looks: crate::trace::import::lookalike(&path),
                path,
                detail,
            }
        }
    }
}
