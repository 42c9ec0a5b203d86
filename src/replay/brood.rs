//! Streaming reader of brood traces for replay.
//!
//! `trace::TraceReader` serves the engine; replay needs three things more from
//! the same format, which is why it has this reader: the raw bytes of each
//! line (so `--json` can re-emit a valid line without building it again), a line
//! that is not UTF-8 reported as one bad line rather than an I/O error that ends
//! the read, and `seq` checked to be strictly increasing, as the format promises
//! and the workbench's stepping relies on.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::ReplayError;
use crate::event::Event;
use crate::trace::{BadLine, TRACE_FORMAT, TraceHeader};

/// Read buffer: large enough that a 100 MB trace is read in few system calls.
const READ_BUFFER: usize = 256 * 1024;

/// What one step of the reader found.
#[derive(Debug)]
pub enum Step {
    Event(Event),
    Bad(BadLine),
}

/// Why line 1 is not a brood header: the caller decides whether another format
/// may claim the file.
#[derive(Debug)]
pub enum HeaderProblem {
    Empty,
    NotBrood(String),
    Io(std::io::Error),
}

/// A brood trace, one event at a time.
pub struct BroodReader<R = BufReader<File>> {
    path: PathBuf,
    input: R,
    /// 1-based number of the line in `buf`, the header being line 1.
    line_no: usize,
    buf: Vec<u8>,
    last_seq: Option<u64>,
    header: TraceHeader,
    truncated_tail: bool,
}

impl BroodReader {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<Self, HeaderProblem> {
        let file = File::open(path).map_err(HeaderProblem::Io)?;
        BroodReader::new(path, BufReader::with_capacity(READ_BUFFER, file))
    }
}

impl<R: BufRead> BroodReader<R> {
    /// Reads the header from `input`; `path` names the source in messages.
    pub fn new(path: &Path, mut input: R) -> Result<Self, HeaderProblem> {
        let mut buf = Vec::new();
        if input
            .read_until(b'\n', &mut buf)
            .map_err(HeaderProblem::Io)?
            == 0
        {
            return Err(HeaderProblem::Empty);
        }
        if buf.trim_ascii().is_empty() {
            return Err(HeaderProblem::Empty);
        }
        let header: TraceHeader = serde_json::from_slice(buf.trim_ascii_end())
            .map_err(|e| HeaderProblem::NotBrood(format!("line 1: {}", json_error(&e))))?;
        if header.format != TRACE_FORMAT {
            return Err(HeaderProblem::NotBrood(format!(
                "line 1 says format {:?}",
                header.format
            )));
        }
        Ok(BroodReader {
            path: path.to_path_buf(),
            input,
            line_no: 1,
            buf,
            last_seq: None,
            header,
            truncated_tail: false,
        })
    }

    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// Whether the last line was cut off and dropped (known once `next_step`
    /// has returned `None`).
    pub fn truncated_tail(&self) -> bool {
        self.truncated_tail
    }

    /// The line the last [`Step::Event`] was read from, without its newline.
    pub fn raw_line(&self) -> &[u8] {
        self.buf.trim_ascii_end()
    }

    /// The next event or bad line; `None` at the end of the file.
    pub fn next_step(&mut self) -> Result<Option<Step>, ReplayError> {
        loop {
            self.buf.clear();
            let read = self
                .input
                .read_until(b'\n', &mut self.buf)
                .map_err(ReplayError::io(&self.path))?;
            if read == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            let complete = self.buf.ends_with(b"\n");
            let text = self.buf.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let event = match serde_json::from_slice::<Event>(text) {
                Ok(event) => event,
                Err(_) if !complete => {
                    // A line without its newline is the last one, cut off mid-write.
                    self.truncated_tail = true;
                    return Ok(None);
                }
                Err(e) => return Ok(Some(self.bad(json_error(&e)))),
            };
            if let Some(last) = self.last_seq.filter(|last| event.seq <= *last) {
                let error = format!("seq {} does not follow {last}", event.seq);
                return Ok(Some(self.bad(error)));
            }
            self.last_seq = Some(event.seq);
            return Ok(Some(Step::Event(event)));
        }
    }

    fn bad(&self, error: String) -> Step {
        Step::Bad(BadLine {
            line: self.line_no,
            error,
        })
    }
}

/// serde's message without its "at line 1 column N" (each line is its own
/// document, so the line would be wrong); the column stays.
pub(crate) fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    format!("{message} (column {})", e.column())
}
