//! Opening a file to replay, whatever its format, as one stream of events.

use std::fmt;
use std::path::{Path, PathBuf};

use super::ReplayError;
use crate::event::Event;
use crate::trace::TraceHeader;
use crate::trace::import::{self, Format, ImportError, Imported};
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
        }
    }

    /// Whether the last line was cut off and dropped (known at the end).
    pub fn truncated_tail(&self) -> bool {
        match &self.inner {
            Inner::Brood(reader) => reader.truncated_tail(),
            Inner::Imported { truncated, .. } => *truncated,
        }
    }

    /// The line the last event was read from, when it came verbatim from a
    /// brood trace (so it can be written out again without serializing).
    pub fn raw_line(&self) -> Option<&[u8]> {
        match &self.inner {
            Inner::Brood(reader) => Some(reader.raw_line()),
            Inner::Imported { .. } => None,
        }
    }
}

/// Opens `path` for replay: a brood trace streams; a foreign transcript is
/// converted first. Missing files, folders, empty files and unknown formats are
/// refused with a message that says which.
pub fn open(path: &Path) -> Result<Source, ReplayError> {
    let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => ReplayError::NotFound {
            path: path.to_path_buf(),
        },
        _ => ReplayError::Io {
            path: path.to_path_buf(),
            source,
        },
    })?;
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
    match TraceReader::open(path) {
        Ok(reader) => Ok(Source {
            path: path.to_path_buf(),
            format: SourceFormat::Brood,
            header: reader.header().clone(),
            notes: Vec::new(),
            inner: Inner::Brood(Box::new(reader)),
        }),
        Err(TraceError::BadHeader { message, .. }) => foreign(path, format!("line 1: {message}")),
        Err(e) => Err(e.into()),
    }
}

/// A file that is not a brood trace: one of the foreign formats, or refused.
fn foreign(path: &Path, detail: String) -> Result<Source, ReplayError> {
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
    let imported = import::import(path).map_err(|e| import_error(path, e, String::new()))?;
    Ok(from_import(path, format, imported))
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
