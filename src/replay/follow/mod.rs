//! `brood watch`: a session followed while it is written, as one endless
//! [`Source`](super::Source) whose reads wait for more. The workbench's loader
//! and `--print`/`--json` read it exactly as they read a saved session; only
//! the end never comes (until the screen quits or the pipe closes).
//!
//! A brood trace is one event a line, so it is read as it grows ([`tail`]). A
//! foreign session is imported again when its files change ([`reimport`]).
//! Either way a file that was truncated or replaced starts over, told by an
//! [`Item::Rewind`](super::Item::Rewind).

mod reimport;
pub mod tail;

use std::io::BufReader;
use std::path::{Path, PathBuf};

use super::ReplayError;
use super::source::{Item, Rewound, SkippedLine};
use crate::trace::{Step, TraceError, TraceReader};
pub use reimport::{Reimport, Run};
use tail::{POLL, Restart, Stop, Tail, restart_of};

/// Read buffer of a followed trace: a catch-up read of a big trace goes in few
/// system calls, and a read at the end returns what is there.
const READ_BUFFER: usize = 256 * 1024;

/// A brood trace read as it grows.
pub struct FollowTrace {
    path: PathBuf,
    stop: Stop,
    reader: TraceReader<BufReader<Tail>>,
}

impl FollowTrace {
    /// Opens `path`, waiting for its header if the file is still empty.
    pub fn open(path: &Path, stop: Stop) -> Result<FollowTrace, ReplayError> {
        let reader = open_reader(path, &stop)?;
        Ok(FollowTrace {
            path: path.to_path_buf(),
            stop,
            reader,
        })
    }

    pub fn reader(&self) -> &TraceReader<BufReader<Tail>> {
        &self.reader
    }

    /// The next event or bad line; waits for more. `None` once stopped.
    pub fn next_item(&mut self) -> Result<Option<Item>, ReplayError> {
        match self.reader.next_step() {
            Ok(Some(Step::Event(event))) => Ok(Some(Item::Event(event))),
            Ok(Some(Step::Bad(bad))) => Ok(Some(Item::Skipped(SkippedLine {
                file: None,
                line: bad.line,
                error: bad.error,
            }))),
            Ok(None) => Ok(None),
            Err(e) => {
                let why = match &e {
                    TraceError::Io { source, .. } => restart_of(source),
                    TraceError::Empty { .. }
                    | TraceError::Refused { .. }
                    | TraceError::BadHeader { .. } => None,
                };
                let why = match why {
                    Some(Restart::Truncated) => Rewound::Truncated,
                    Some(Restart::Replaced) => Rewound::Replaced,
                    None => return Err(e.into()),
                };
                self.reader = open_reader(&self.path, &self.stop)?;
                Ok(Some(Item::Rewind { keep: 0, why }))
            }
        }
    }
}

fn open_reader(path: &Path, stop: &Stop) -> Result<TraceReader<BufReader<Tail>>, ReplayError> {
    let tail = Tail::open(path, stop.clone()).map_err(ReplayError::io(path))?;
    Ok(TraceReader::new(
        path,
        BufReader::with_capacity(READ_BUFFER, tail),
    )?)
}

/// Waits until `path` holds a first complete line, so its format can be told
/// (a session file is created empty and written a moment later). `false` when
/// stopped first.
pub fn wait_for_first_line(path: &Path, stop: &Stop) -> Result<bool, ReplayError> {
    use std::io::Read;
    loop {
        let mut head = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(64 * 1024).read_to_end(&mut head))
            .map_err(ReplayError::io(path))?;
        if head.contains(&b'\n') || head.len() >= 64 * 1024 {
            return Ok(true);
        }
        if stop.stopped() {
            return Ok(false);
        }
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests;
