//! Importing a session while it is still written (`brood watch`), and in
//! steps (a replay's first frame before the whole session is read).
//!
//! A [`Live`] import reads what a session's files gained since it last looked
//! and gives the session as read so far. A format with an incremental reader
//! keeps its converters between reads, so each read costs what was added;
//! any other format falls back to [`Whole`], imported again when its files
//! change.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::{Format, ImportError, Imported, SharedEvent, detect};
use crate::event::EventKind;

/// Whether a session's files may still grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The session is over: a turn or child still open where the files end
    /// ended there (interrupted, or with no result).
    Closed,
    /// The session may go on: nothing is ended because the files end.
    Open,
}

/// Whether a read found anything new.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grew {
    No,
    Yes,
}

/// How much of a session a live import reads when it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// All there is.
    All,
    /// At most this many lines of the session file, for a first look that
    /// comes fast; [`Live::read_more`] reads the rest.
    Lines(usize),
}

/// A session imported as it is written.
pub trait Live: Send {
    /// Reads what the session's files gained since the last call.
    fn read_more(&mut self) -> Result<Grew, ImportError>;
    /// The session as read so far, ended or left open. Its events share
    /// their content with the import's own lanes: a look at a big session
    /// copies pointers, and what two looks agree on is the same event.
    fn snapshot(&mut self, ending: Ending) -> Result<Imported<SharedEvent>, ImportError>;
}

/// A live import of the session at `path`, whatever its foreign format. A
/// brood trace is refused with [`ImportError::NativeTrace`]: it is read as
/// it grows, event by event, with no import.
pub fn live(path: &Path, start: Start) -> Result<Box<dyn Live>, ImportError> {
    match detect(path)? {
        Format::Brood => Err(ImportError::NativeTrace {
            path: path.to_path_buf(),
        }),
        Format::Codex => Ok(Box::new(super::codex::CodexLive::new(path))),
        Format::ClaudeCode => Ok(Box::new(super::claude::ClaudeLive::new(path, start)?)),
        Format::MyCodeAgent => Ok(Box::new(Whole::new(path)?)),
    }
}

/// Any format, imported whole again whenever its files change.
pub struct Whole {
    path: PathBuf,
    signature: Signature,
    last: Imported<SharedEvent>,
}

impl Whole {
    /// Imports the session as it is now.
    pub fn new(path: &Path) -> Result<Whole, ImportError> {
        let signature = Signature::of(path);
        Ok(Whole {
            path: path.to_path_buf(),
            signature,
            last: super::import(path)?.into_shared(),
        })
    }
}

impl Live for Whole {
    fn read_more(&mut self) -> Result<Grew, ImportError> {
        let now = Signature::of(&self.path);
        if self.signature == now {
            return Ok(Grew::No);
        }
        self.signature = now;
        self.last = super::import(&self.path)?.into_shared();
        Ok(Grew::Yes)
    }

    fn snapshot(&mut self, ending: Ending) -> Result<Imported<SharedEvent>, ImportError> {
        let mut imported = self.last.clone();
        if let Ending::Open = ending {
            imported.events.truncate(settled(&imported.events));
        }
        Ok(imported)
    }
}

/// How many of a whole import's events hold while the session goes on: all
/// but the ends at its tail, which the import added because the files end
/// there (a turn's end, a child's end, an interruption or error).
fn settled(events: &[SharedEvent]) -> usize {
    let provisional = events
        .iter()
        .rev()
        .take_while(|e| {
            matches!(
                *e.kind,
                EventKind::TurnEnd { .. }
                    | EventKind::SubagentEnd { .. }
                    | EventKind::Interrupted {}
                    | EventKind::Error { .. }
            )
        })
        .count();
    events.len() - provisional
}

/// What the files of a session look like now: when it changes, something was
/// written. Sizes and modification times of the session file, of the files
/// beside it that may be children's (Claude Code's older flat `agent-*.jsonl`,
/// Codex's `rollout-*`, MyCodeAgent's `trace-*`) and of the files under the
/// folder named like it (`<session>/subagents/…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Signature {
    files: u64,
    bytes: u64,
    newest_ns: i128,
}

/// Names the files of children beside their parent's have.
const CHILD_PREFIXES: [&str; 3] = ["agent-", "rollout-", "trace-"];

impl Signature {
    pub fn of(path: &Path) -> Signature {
        let mut sig = Signature::default();
        if let Ok(meta) = std::fs::metadata(path) {
            sig.add(&meta);
        }
        if let Some(dir) = path.parent() {
            sig.siblings(dir, path);
        }
        if let Some(stem) = path.file_stem() {
            sig.tree(&path.with_file_name(stem), 2);
        }
        sig
    }

    /// Adds files (and the folders they are in, whose times change when a
    /// file is created there) a format knows belong to the session.
    pub fn with_files<'a>(mut self, paths: impl IntoIterator<Item = &'a Path>) -> Signature {
        for path in paths {
            if let Ok(meta) = std::fs::metadata(path) {
                self.add(&meta);
            }
            if let Some(meta) = path.parent().and_then(|d| std::fs::metadata(d).ok()) {
                self.add(&meta);
            }
        }
        self
    }

    fn add(&mut self, meta: &std::fs::Metadata) {
        self.files += 1;
        self.bytes = self.bytes.wrapping_add(meta.len());
        let ns = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
        self.newest_ns = self.newest_ns.max(ns);
    }

    /// The files beside `path` that may be children's; the other sessions of
    /// a project folder are not looked at.
    fn siblings(&mut self, dir: &Path, path: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if CHILD_PREFIXES.iter().any(|p| name.starts_with(p))
                && entry.path() != path
                && let Ok(meta) = entry.metadata()
                && meta.is_file()
            {
                self.add(&meta);
            }
        }
    }

    /// The files under `dir`, `depth` levels down.
    fn tree(&mut self, dir: &Path, depth: u8) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_file() {
                if let Ok(meta) = entry.metadata() {
                    self.add(&meta);
                }
            } else if kind.is_dir() && depth > 0 {
                self.tree(&entry.path(), depth - 1);
            }
        }
    }
}
