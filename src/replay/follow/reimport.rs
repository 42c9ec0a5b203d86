//! Following a foreign session (Claude Code, Codex, MyCodeAgent) while it is
//! written. Those formats keep a session in several files (the session, its
//! subagents' transcripts) and their events can only be made with context (a
//! message split over lines, a child linked to its call by its result), so a
//! [`Live`] import reads what the files gained and gives the session as read
//! so far, and only what that adds to what was handed on goes out.
//!
//! Two snapshots usually agree on everything the first one had: files only
//! grow. When they do not (a message got another block, a child was linked
//! late), the first event that differs is where an [`Item::Rewind`] goes back
//! to, and the rest follows again, so what was handed on always equals the
//! files. Snapshots are taken open ([`Ending::Open`]): a session that stops
//! growing is not over.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::tail::{POLL, Stop};
use crate::event::{AgentId, EventKind};
use crate::replay::ReplayError;
use crate::replay::source::{Item, Rewound, SkippedLine};
use crate::trace::import::{BadLine, Ending, Grew, ImportError, Live, SharedEvent};

/// How long a [`Reimport`] goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// Until stopped: the session is followed (`brood watch`).
    Follow,
    /// Once the rest of the session is read: a replay that showed its first
    /// lines while the whole file was still being read.
    Rest,
}

/// A foreign session, read again as it grows.
pub struct Reimport {
    path: PathBuf,
    run: Run,
    /// A [`Run::Rest`] that read the rest.
    done: bool,
    stop: Stop,
    live: Box<dyn Live>,
    /// What was handed on so far, to compare the next snapshot with: who had
    /// each event and its content, shared with the live import's lanes, so
    /// keeping them costs two words an event (half a [`SharedEvent`]), and an
    /// event two looks share compares by pointer.
    sent: Vec<(AgentId, Arc<EventKind>)>,
    /// What is still to be handed on. Events wait shared and are copied out
    /// one at a time as they go: a catch-up of a big session queues them all.
    queue: VecDeque<Queued>,
    /// Bad lines already reported, so each is told once.
    bad_seen: usize,
}

impl Reimport {
    /// Starts following `path` with `live`, whose first snapshot found
    /// `bad_lines` and `events`: they are the first items handed on.
    pub fn new(
        path: &Path,
        run: Run,
        stop: Stop,
        live: Box<dyn Live>,
        bad_lines: &[BadLine],
        events: Vec<SharedEvent>,
    ) -> Reimport {
        let mut follow = Reimport {
            path: path.to_path_buf(),
            run,
            done: false,
            stop,
            live,
            sent: Vec::new(),
            queue: VecDeque::new(),
            bad_seen: 0,
        };
        follow.take(bad_lines, events);
        follow
    }

    /// The next item; waits for the files to change. `None` once stopped.
    pub fn next_item(&mut self) -> Result<Option<Item>, ReplayError> {
        loop {
            if let Some(queued) = self.queue.pop_front() {
                return Ok(Some(match queued {
                    Queued::Event(event) => Item::Event(event.to_event()),
                    Queued::Other(item) => *item,
                }));
            }
            if self.stop.stopped() || self.done {
                return Ok(None);
            }
            if let Run::Rest = self.run {
                self.done = true;
                self.live.read_more().map_err(|e| self.error(e))?;
                let whole = self
                    .live
                    .snapshot(Ending::Closed)
                    .map_err(|e| self.error(e))?;
                self.take(&whole.bad_lines, whole.events);
                continue;
            }
            // A look costs a few `stat`s when nothing grew.
            std::thread::sleep(POLL);
            let read = self.live.read_more().and_then(|grew| match grew {
                Grew::Yes => self.live.snapshot(Ending::Open).map(Some),
                Grew::No => Ok(None),
            });
            match read {
                Ok(Some(snapshot)) => self.take(&snapshot.bad_lines, snapshot.events),
                Ok(None) => {}
                // Between a rotation's rename and create, or a file emptied to
                // be rewritten: look again at the next change.
                Err(ImportError::Empty { .. }) => {}
                Err(ImportError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(self.error(e)),
            }
        }
    }

    fn error(&self, e: ImportError) -> ReplayError {
        ReplayError::Io {
            path: self.path.clone(),
            source: std::io::Error::other(e.to_string()),
        }
    }

    /// Hands on what a snapshot's `bad_lines` and `events` add to what was sent.
    fn take(&mut self, bad_lines: &[BadLine], events: Vec<SharedEvent>) {
        for bad in bad_lines.iter().skip(self.bad_seen) {
            self.queue
                .push_back(Queued::Other(Box::new(Item::Skipped(SkippedLine {
                    file: (bad.path != self.path).then(|| bad.path.clone()),
                    line: bad.line,
                    error: bad.error.clone(),
                }))));
        }
        self.bad_seen = self.bad_seen.max(bad_lines.len());
        let same = self
            .sent
            .iter()
            .zip(&events)
            .take_while(|((agent, kind), event)| event.is(*agent, kind))
            .count();
        if same < self.sent.len() {
            self.sent.truncate(same);
            self.queue.push_back(Queued::Other(Box::new(Item::Rewind {
                keep: same,
                why: Rewound::Revised,
            })));
        }
        for event in events.into_iter().skip(same) {
            self.sent.push((event.agent, Arc::clone(&event.kind)));
            self.queue.push_back(Queued::Event(event));
        }
    }
}

/// An item waiting to be handed on: an event stays shared (a pointer), the
/// rare others are boxed, so a queued item costs a few words, not an event.
enum Queued {
    Event(SharedEvent),
    Other(Box<Item>),
}
