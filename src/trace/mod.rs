//! Traces: a session's event stream as JSONL. Line 1 is a [`TraceHeader`]; every
//! other line is one [`crate::event::Event`]. The writer records synchronously on
//! the bus, so an event that was published is on disk even if the process is
//! killed right after; the reader accepts a truncated last line (the usual result
//! of such a kill) and reports any other bad line by number.

mod header;
pub mod import;
pub mod line;
mod reader;
mod writer;

pub use header::{TRACE_FORMAT, TRACE_VERSION, TraceHeader};
pub use reader::{BadLine, Step, Trace, TraceReader, json_error, read_trace};
pub use writer::TraceWriter;

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("trace {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the trace to {path}: {why}")]
    Refused { path: PathBuf, why: String },
    #[error("trace {path} is empty")]
    Empty { path: PathBuf },
    #[error("trace {path}: line 1 is not a brood trace header: {message}")]
    BadHeader { path: PathBuf, message: String },
}

#[cfg(test)]
mod tests;
