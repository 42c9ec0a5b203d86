use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::{TraceError, TraceHeader};
use crate::event::{Event, Recorder};

/// Appends events to a trace file, one flushed line each.
pub struct TraceWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl TraceWriter {
    /// Creates (or truncates) `path` with mode 0600, making its folder if needed,
    /// and writes the header line. Secrets are kept out by the bus, which redacts
    /// events before any recorder sees them.
    pub fn create(path: &Path, header: &TraceHeader) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        let mut writer = TraceWriter {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        };
        let line = serde_json::to_string(header).map_err(|e| io(e.into()))?;
        writer.write_line(line).map_err(io)?;
        Ok(writer)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write_line(&mut self, mut line: String) -> std::io::Result<()> {
        line.push('\n');
        self.out.write_all(line.as_bytes())?;
        self.out.flush()
    }
}

impl Recorder for TraceWriter {
    fn record(&mut self, event: &Event) -> Result<(), String> {
        let line = serde_json::to_string(event).map_err(|e| e.to_string())?;
        self.write_line(line)
            .map_err(|e| format!("cannot write trace {}: {e}", self.path.display()))
    }

    fn sync(&mut self) -> Result<(), String> {
        self.out
            .flush()
            .and_then(|()| self.out.get_ref().sync_data())
            .map_err(|e| format!("cannot sync trace {}: {e}", self.path.display()))
    }
}
