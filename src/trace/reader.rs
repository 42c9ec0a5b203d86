use std::fs::File;
use std::io::{BufRead, BufReader};
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

/// Streams the events of a trace file one at a time.
pub struct TraceReader {
    path: PathBuf,
    lines: BufReader<File>,
    line_no: usize,
    buf: String,
    pub header: TraceHeader,
    pub bad_lines: Vec<BadLine>,
    pub truncated_tail: bool,
}

impl TraceReader {
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut lines = BufReader::new(File::open(path).map_err(io)?);
        let mut first = String::new();
        if lines.read_line(&mut first).map_err(io)? == 0 {
            return Err(TraceError::Empty {
                path: path.to_path_buf(),
            });
        }
        let header: TraceHeader =
            serde_json::from_str(first.trim_end()).map_err(|e| TraceError::BadHeader {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        if header.format != TRACE_FORMAT {
            return Err(TraceError::BadHeader {
                path: path.to_path_buf(),
                message: format!("format is {:?}, expected {TRACE_FORMAT:?}", header.format),
            });
        }
        Ok(TraceReader {
            path: path.to_path_buf(),
            lines,
            line_no: 1,
            buf: String::new(),
            header,
            bad_lines: Vec::new(),
            truncated_tail: false,
        })
    }

    /// The next event, skipping (and recording) bad lines; `None` at the end.
    pub fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        loop {
            self.buf.clear();
            let read = self
                .lines
                .read_line(&mut self.buf)
                .map_err(|source| TraceError::Io {
                    path: self.path.clone(),
                    source,
                })?;
            if read == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            let complete = self.buf.ends_with('\n');
            let text = self.buf.trim_end();
            if text.is_empty() {
                continue;
            }
            match serde_json::from_str::<Event>(text) {
                Ok(event) => return Ok(Some(event)),
                Err(_) if !complete => {
                    // A line without its newline is the last one, cut off mid-write.
                    self.truncated_tail = true;
                    return Ok(None);
                }
                Err(e) => self.bad_lines.push(BadLine {
                    line: self.line_no,
                    error: e.to_string(),
                }),
            }
        }
    }
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
