//! Reading a file that is still being written, like `tail -f`: at its end a
//! read waits for more instead of returning, so a reader of lines above it sees
//! one endless file and a half-written last line simply waits for its newline.
//!
//! Waiting is polling: one `fstat` of the open file and one `stat` of its path
//! every [`POLL`]. That finds growth, truncation (the file got shorter than what
//! was read) and replacement (the path now names another file, as log rotation
//! or an editor's save-by-rename does) on every filesystem, network ones
//! included, at the cost of a few system calls a poll.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often a waiting read looks again. Well under the 250 ms within which a
/// written line must be on screen, and a handful of system calls each time.
pub const POLL: Duration = Duration::from_millis(40);

/// Why a followed file cannot be read on from where the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// The file is shorter than what was read: it was truncated and rewritten.
    Truncated,
    /// The path names another file now (rotated, or replaced by a rename).
    Replaced,
}

impl std::fmt::Display for Restart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Restart::Truncated => "the file was truncated",
            Restart::Replaced => "the file was replaced by a new one",
        })
    }
}

impl std::error::Error for Restart {}

/// Tells a waiting [`Tail`] to give up: its read returns end of file.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A file read as it grows. [`Read::read`] blocks at the end until more is
/// written; it fails with a [`Restart`] (inside an `io::Error`) when the file
/// was truncated or replaced, and returns 0 only once [`Stop`] is set.
pub struct Tail {
    path: PathBuf,
    file: File,
    /// Bytes read so far.
    offset: u64,
    identity: (u64, u64),
    stop: Stop,
}

impl Tail {
    pub fn open(path: &Path, stop: Stop) -> io::Result<Tail> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        Ok(Tail {
            path: path.to_path_buf(),
            file,
            offset: 0,
            identity: (meta.dev(), meta.ino()),
            stop,
        })
    }

    /// Whether the file is still the one opened, and not shorter than what was read.
    pub fn check(&self) -> Result<(), Restart> {
        match std::fs::metadata(&self.path) {
            Ok(meta) if (meta.dev(), meta.ino()) != self.identity => Err(Restart::Replaced),
            // Gone for now (between a rotation's rename and create): keep
            // reading the open file, which may still grow.
            Ok(_) | Err(_) => match self.file.metadata() {
                Ok(meta) if meta.len() < self.offset => Err(Restart::Truncated),
                Ok(_) | Err(_) => Ok(()),
            },
        }
    }
}

impl Read for Tail {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let read = self.file.read(buf)?;
            if read > 0 {
                self.offset += read as u64;
                return Ok(read);
            }
            if self.stop.stopped() {
                return Ok(0);
            }
            self.check().map_err(io::Error::other)?;
            std::thread::sleep(POLL);
        }
    }
}

/// The [`Restart`] inside an error from [`Tail::read`], if that is what it is.
pub fn restart_of(error: &io::Error) -> Option<Restart> {
    error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<Restart>())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::super::tests::append;
    use super::*;
    use std::io::{BufRead, BufReader};

    #[test]
    fn a_half_written_line_waits_for_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        append(&path, "one\ntw");
        let mut reader = BufReader::new(Tail::open(&path, Stop::default()).unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert_eq!(line, "one\n");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(150));
                append(&path, "o\n");
            })
        };
        line.clear();
        reader.read_line(&mut line).unwrap();
        assert_eq!(line, "two\n", "the line is read whole, once written");
        writer.join().unwrap();
    }

    #[test]
    fn truncation_and_replacement_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        append(&path, "one\ntwo\n");
        let mut tail = Tail::open(&path, Stop::default()).unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(tail.read(&mut buf).unwrap(), 8);
        std::fs::write(&path, "x\n").unwrap();
        let error = tail.read(&mut buf).unwrap_err();
        assert_eq!(restart_of(&error), Some(Restart::Truncated));

        let mut tail = Tail::open(&path, Stop::default()).unwrap();
        assert_eq!(tail.read(&mut buf).unwrap(), 2);
        let new = dir.path().join("new");
        std::fs::write(&new, "fresh\n").unwrap();
        std::fs::rename(&new, &path).unwrap();
        let error = tail.read(&mut buf).unwrap_err();
        assert_eq!(restart_of(&error), Some(Restart::Replaced));
    }

    #[test]
    fn a_stopped_tail_ends_its_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        append(&path, "");
        let stop = Stop::default();
        let mut tail = Tail::open(&path, stop.clone()).unwrap();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            stop.stop();
        });
        let mut buf = [0u8; 8];
        assert_eq!(tail.read(&mut buf).unwrap(), 0);
        stopper.join().unwrap();
    }
}
