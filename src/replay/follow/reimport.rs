//! Following a foreign session (Claude Code, Codex, MyCodeAgent) while it is
//! written. Those formats keep a session in several files (the session, its
//! subagents' transcripts) and their events can only be made with context
//! (a message split over lines, a child linked to its call by its result), so
//! the session is imported again whenever one of its files changed, and only
//! what the new import adds is handed on.
//!
//! Two imports usually agree on everything the first one had: files only grow.
//! When they do not (a message got another block, a child was linked late),
//! the first event that differs is where a [`Item::Rewind`] goes back to, and
//! the rest follows again, so what was handed on always equals the file.
//!
//! While a session is followed it is not over: the ends an import adds because
//! the file ends (the last turn's `turn_end`, a child "still running when the
//! session ended") are held back, so a session that stops growing stays open.

use std::collections::VecDeque;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::tail::{POLL, Stop};
use crate::event::{Event, EventKind};
use crate::replay::ReplayError;
use crate::replay::source::{Item, Rewound, SkippedLine};
use crate::trace::import::{self, ImportError};

/// At most this often the session is imported again, however often it grows:
/// an import of a big session costs a good part of this.
const MIN_REIMPORT: Duration = Duration::from_millis(100);

/// What the files of a session look like now: when it changes, something was
/// written. Sizes and modification times of the session file, the files beside
/// it (Claude Code's older flat `agent-*.jsonl`, Codex's child rollouts) and the
/// files under the folder named like it (`<session>/subagents/…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Signature {
    files: u64,
    bytes: u64,
    newest_ns: i128,
}

fn signature(path: &Path) -> Signature {
    let mut sig = Signature::default();
    let mut add = |meta: &std::fs::Metadata| {
        sig.files += 1;
        sig.bytes = sig.bytes.wrapping_add(meta.len());
        let ns = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
        sig.newest_ns = sig.newest_ns.max(ns);
    };
    if let Ok(meta) = std::fs::metadata(path) {
        add(&meta);
    }
    if let Some(dir) = path.parent() {
        siblings(dir, path, &mut add);
    }
    if let Some(stem) = path.file_stem() {
        tree(&path.with_file_name(stem), 2, &mut add);
    }
    sig
}

/// Names the files of children beside their parent's have: Claude Code's
/// older `agent-<id>.jsonl`, Codex's `rollout-…`, MyCodeAgent's `trace-…`.
const CHILD_PREFIXES: [&str; 3] = ["agent-", "rollout-", "trace-"];

/// The files beside `path` that may be children's; the other sessions of a
/// project folder are not looked at.
fn siblings(dir: &Path, path: &Path, add: &mut impl FnMut(&std::fs::Metadata)) {
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
            add(&meta);
        }
    }
}

/// The files under `dir`, `depth` levels down (`<session>/subagents/…`).
fn tree(dir: &Path, depth: u8, add: &mut impl FnMut(&std::fs::Metadata)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_file() {
            if let Ok(meta) = entry.metadata() {
                add(&meta);
            }
        } else if kind.is_dir() && depth > 0 {
            tree(&entry.path(), depth - 1, add);
        }
    }
}

/// A foreign session, imported again as it grows.
#[derive(Default)]
pub struct Reimport {
    path: PathBuf,
    stop: Stop,
    /// What was handed on so far, to compare the next import with.
    sent: Vec<Event>,
    queue: VecDeque<Item>,
    signature: Signature,
    last_import: Option<Instant>,
    /// Bad lines already reported, so each is told once.
    bad_seen: usize,
}

impl Reimport {
    /// Starts following `path`, whose first import found `bad_lines` and
    /// `events`: they are the first items handed on.
    pub fn new(
        path: &Path,
        stop: Stop,
        bad_lines: Vec<SkippedLine>,
        events: Vec<Event>,
    ) -> Reimport {
        let mut follow = Reimport {
            path: path.to_path_buf(),
            stop,
            sent: Vec::new(),
            queue: VecDeque::new(),
            signature: signature(path),
            last_import: Some(Instant::now()),
            bad_seen: bad_lines.len(),
        };
        follow
            .queue
            .extend(bad_lines.into_iter().map(Item::Skipped));
        follow.take(events);
        follow
    }

    /// The next item; waits for the files to change. `None` once stopped.
    pub fn next_item(&mut self) -> Result<Option<Item>, ReplayError> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Ok(Some(item));
            }
            if self.stop.stopped() {
                return Ok(None);
            }
            let now = signature(&self.path);
            let due = self.last_import.is_none_or(|t| t.elapsed() >= MIN_REIMPORT);
            if now != self.signature && due {
                self.signature = now;
                self.last_import = Some(Instant::now());
                self.reimport()?;
            } else {
                std::thread::sleep(POLL);
            }
        }
    }

    fn reimport(&mut self) -> Result<(), ReplayError> {
        let imported = match import::import(&self.path) {
            Ok(imported) => imported,
            // Between a rotation's rename and create, or a file emptied to be
            // rewritten: look again at the next change.
            Err(ImportError::Empty { .. }) => return Ok(()),
            Err(ImportError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(());
            }
            Err(e) => {
                return Err(ReplayError::Io {
                    path: self.path.clone(),
                    source: std::io::Error::other(e.to_string()),
                });
            }
        };
        for bad in imported.bad_lines.iter().skip(self.bad_seen) {
            self.queue.push_back(Item::Skipped(SkippedLine {
                file: (bad.path != self.path).then(|| bad.path.clone()),
                line: bad.line,
                error: bad.error.clone(),
            }));
        }
        self.bad_seen = self.bad_seen.max(imported.bad_lines.len());
        self.take(imported.events);
        Ok(())
    }

    /// Hands on what `events`, the latest import, adds to what was sent.
    fn take(&mut self, mut events: Vec<Event>) {
        events.truncate(settled(&events));
        let same = self
            .sent
            .iter()
            .zip(&events)
            .take_while(|(a, b)| a.agent == b.agent && a.kind == b.kind)
            .count();
        if same < self.sent.len() {
            self.sent.truncate(same);
            self.queue.push_back(Item::Rewind {
                keep: same,
                why: Rewound::Revised,
            });
        }
        for event in events.into_iter().skip(same) {
            self.sent.push(event.clone());
            self.queue.push_back(Item::Event(event));
        }
    }
}

/// How many of an import's events are settled: all but the ends it adds
/// because the files end there (a turn's end, a child's end, an interruption
/// or error) while the session may still go on.
fn settled(events: &[Event]) -> usize {
    let provisional = events
        .iter()
        .rev()
        .take_while(|e| {
            matches!(
                e.kind,
                EventKind::TurnEnd { .. }
                    | EventKind::SubagentEnd { .. }
                    | EventKind::Interrupted {}
                    | EventKind::Error { .. }
            )
        })
        .count();
    events.len() - provisional
}
