use std::fs::File;
use std::io::{BufRead, BufReader};

use super::line::{self, LineRead};
use std::path::{Path, PathBuf};

use super::{TRACE_FORMAT, TraceError, TraceHeader};
use crate::event::Event;

/// A line that could not be read as an event.
#[derive(Debug, Clone, PartialEq)]
pub struct BadLine {
    /// 1-based, counting the header as line 1.
    pub line: usize,
    pub error: String,
}

/// A whole trace in memory.
#[derive(Debug, Clone)]
pub struct Trace {
    pub header: TraceHeader,
    pub events: Vec<Event>,
    /// Bad lines other than a truncated last one, skipped.
    pub bad_lines: Vec<BadLine>,
    /// The last line was cut off (no newline, not valid JSON) and was dropped.
    pub truncated_tail: bool,
}

/// Read buffer: large enough that a 100 MB trace is read in few system calls.
const READ_BUFFER: usize = 256 * 1024;

/// What one step of the reader found.
// A bad line is rare and an event is moved on at once; boxing the event to
// even the sizes would cost an allocation per event on the reader's hot path.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Step {
    Event(Event),
    Bad(BadLine),
}

/// Streams the events of a trace one at a time. Besides each event it can give
/// back the raw line it came from (so `replay --json` re-emits it untouched); a
/// line that is not UTF-8 is one bad line, not an error that ends the read; and
/// `seq` must increase strictly, as the format promises and replay's stepping
/// relies on.
pub struct TraceReader<R = BufReader<File>> {
    path: PathBuf,
    input: R,
    /// 1-based number of the line in `buf`, the header being line 1.
    line_no: usize,
    buf: Vec<u8>,
    last_seq: Option<u64>,
    header: TraceHeader,
    bad_lines: Vec<BadLine>,
    truncated_tail: bool,
}

impl TraceReader {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let file = File::open(path).map_err(|source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        TraceReader::new(path, BufReader::with_capacity(READ_BUFFER, file))
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Reads the header from `input`; `path` names the source in messages.
    /// `BadHeader` means line 1 is not a brood header, so another format may
    /// claim the file; `Empty` that there is nothing in it at all.
    pub fn new(path: &Path, mut input: R) -> Result<Self, TraceError> {
        let mut buf = Vec::new();
        let read =
            line::read_line(&mut input, &mut buf, line::MAX_LINE_BYTES).map_err(|source| {
                TraceError::Io {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
        let bad_header = |message| TraceError::BadHeader {
            path: path.to_path_buf(),
            message,
        };
        match read {
            LineRead::End => {
                return Err(TraceError::Empty {
                    path: path.to_path_buf(),
                });
            }
            LineRead::TooLong { bytes } => return Err(bad_header(line::too_long_message(bytes))),
            LineRead::Line { .. } if buf.trim_ascii().is_empty() => {
                return Err(TraceError::Empty {
                    path: path.to_path_buf(),
                });
            }
            LineRead::Line { .. } => {}
        }
        let header: TraceHeader =
            serde_json::from_slice(buf.trim_ascii_end()).map_err(|e| bad_header(json_error(&e)))?;
        if header.format != TRACE_FORMAT {
            return Err(bad_header(format!(
                "format is {:?}, expected {TRACE_FORMAT:?}",
                header.format
            )));
        }
        Ok(TraceReader {
            path: path.to_path_buf(),
            input,
            line_no: 1,
            buf,
            last_seq: None,
            header,
            bad_lines: Vec::new(),
            truncated_tail: false,
        })
    }

    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// Whether the last line was cut off and dropped (known at the end).
    pub fn truncated_tail(&self) -> bool {
        self.truncated_tail
    }

    /// The bad lines `next_event` skipped so far.
    pub fn bad_lines(&self) -> &[BadLine] {
        &self.bad_lines
    }

    /// The line the last [`Step::Event`] was read from, without its newline.
    pub fn raw_line(&self) -> &[u8] {
        self.buf.trim_ascii_end()
    }

    /// The next event or bad line; `None` at the end of the file.
    pub fn next_step(&mut self) -> Result<Option<Step>, TraceError> {
        loop {
            let read = line::read_line(&mut self.input, &mut self.buf, line::MAX_LINE_BYTES)
                .map_err(|source| TraceError::Io {
                    path: self.path.clone(),
                    source,
                })?;
            let complete = match read {
                LineRead::End => return Ok(None),
                LineRead::TooLong { bytes } => {
                    self.line_no += 1;
                    return Ok(Some(self.bad(line::too_long_message(bytes))));
                }
                LineRead::Line { complete } => complete,
            };
            self.line_no += 1;
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

    /// The next event, skipping (and recording) bad lines; `None` at the end.
    pub fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        loop {
            match self.next_step()? {
                Some(Step::Event(event)) => return Ok(Some(event)),
                Some(Step::Bad(bad)) => self.bad_lines.push(bad),
                None => return Ok(None),
            }
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
pub fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    format!("{message} (column {})", e.column())
}

/// Reads a whole trace into memory.
pub fn read_trace(path: &Path) -> Result<Trace, TraceError> {
    let mut reader = TraceReader::open(path)?;
    let mut events = Vec::new();
    while let Some(event) = reader.next_event()? {
        events.push(event);
    }
    Ok(Trace {
        header: reader.header,
        events,
        bad_lines: reader.bad_lines,
        truncated_tail: reader.truncated_tail,
    })
}
