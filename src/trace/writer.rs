use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::{TraceError, TraceHeader};
use crate::event::{Event, Recorder};

/// Appends events to a trace file, one flushed line each.
pub struct TraceWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl TraceWriter {
    /// Creates (or truncates) `path` with mode 0600, making its folder (mode
    /// 0700) if needed, and writes the header line. Secrets are kept out by
    /// the bus, which redacts events before any recorder sees them.
    ///
    /// The file must be brood's alone: a symbolic link is refused (it could
    /// point anywhere), so are FIFOs and devices; an existing file is set to
    /// 0600 before anything is written; and a file another session is still
    /// writing (it holds the lock) is refused before it is truncated.
    pub fn create(path: &Path, header: &TraceHeader) -> Result<Self, TraceError> {
        let file = Self::open_own(path)?;
        file.set_len(0).map_err(io_at(path))?;
        let mut writer = TraceWriter {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        };
        let line = serde_json::to_string(header).map_err(|e| io_at(path)(e.into()))?;
        writer.write_line(line).map_err(io_at(path))?;
        Ok(writer)
    }

    /// Opens an existing trace to add a resumed session's events after its
    /// own, with the same checks as [`TraceWriter::create`]. A last line cut
    /// off mid-write (brood was killed) is removed first, so the next event
    /// starts a line of its own.
    pub fn append(path: &Path) -> Result<Self, TraceError> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = Self::open_own(path)?;
        let io = io_at(path);
        let len = file.metadata().map_err(io_at(path))?.len();
        // Back from the end to the last newline, a block at a time.
        let mut end = len;
        let mut block = vec![0u8; 64 * 1024];
        let whole = loop {
            if end == 0 {
                break 0;
            }
            let start = end.saturating_sub(block.len() as u64);
            let part = &mut block[..(end - start) as usize];
            file.seek(SeekFrom::Start(start)).map_err(io_at(path))?;
            file.read_exact(part).map_err(io_at(path))?;
            if let Some(at) = memchr::memrchr(b'\n', part) {
                break start + at as u64 + 1;
            }
            end = start;
        };
        if whole < len {
            file.set_len(whole).map_err(io_at(path))?;
        }
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(TraceWriter {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        })
    }

    /// Opens `path` for writing, made if missing, as brood's alone: mode 0600,
    /// no symbolic link, FIFO or device, and no other session writing it.
    fn open_own(path: &Path) -> Result<File, TraceError> {
        // A folder brood makes is brood's alone; one the user gave is left as it is.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.exists()
        {
            Self::make_private_dir(dir)?;
        }
        let refused = |why: &str| TraceError::Refused {
            path: path.to_path_buf(),
            why: why.to_string(),
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600)
            // O_NOFOLLOW: a symlink fails (ELOOP) instead of being followed;
            // O_NONBLOCK: a FIFO without a reader fails instead of hanging.
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP) => refused("it is a symbolic link; give the file itself"),
                Some(libc::ENXIO) => refused("it is a FIFO, not a file"),
                _ => io_at(path)(e),
            })?;
        if !file.metadata().map_err(io_at(path))?.is_file() {
            return Err(refused("it is not a regular file"));
        }
        // SAFETY: flock only takes an advisory lock on a descriptor we own;
        // the lock goes with the descriptor when the writer is dropped.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if locked != 0 {
            return Err(refused("another brood session is writing it"));
        }
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(io_at(path))?;
        Ok(file)
    }

    /// Creates `dir` (mode 0700) if needed, or sets an existing one to 0700.
    pub fn make_private_dir(dir: &Path) -> Result<(), TraceError> {
        let io = |source| TraceError::Io {
            path: dir.to_path_buf(),
            source,
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(io)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io)
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

fn io_at(path: &Path) -> impl Fn(std::io::Error) -> TraceError + '_ {
    move |source| TraceError::Io {
        path: path.to_path_buf(),
        source,
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
