//! What the user asks of the sandbox: a mode, the network, extra writable
//! folders. Flags (`--sandbox`, `--sandbox-network`, `--add-dir`) and the
//! `[sandbox]` table of `brood.toml` both end up here.

use std::path::PathBuf;

use crate::protocol::{Network, SandboxMode};

/// The sandbox a session asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    pub mode: SandboxMode,
    pub network: Network,
    /// Folders a command may write besides the workspace and its temporary one.
    pub writable: Vec<PathBuf>,
    /// Files and folders a command may not read at all (the user's `Read`
    /// deny rules): a folder is replaced by an empty one, a file by an empty
    /// file.
    pub unreadable: Vec<PathBuf>,
}
