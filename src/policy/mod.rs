//! The permission policy: every tool call is allowed, asked about or denied before
//! it runs. It knows the workspace boundary (paths are resolved through `..` and
//! symlinks) and classifies shell commands by parsing them into command words.

mod command;
mod workspace;

pub use command::classify_command;
pub use workspace::{ResolvedPath, Workspace, WorkspaceError};

use crate::event::Decision;

/// A decision and the reason a person (and the model) can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub decision: Decision,
    pub reason: String,
}

/// How much an agent may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionMode {
    /// The deny/ask/allow rules.
    Normal,
    /// Only read tools; everything else is denied (the `explore` profile).
    ReadOnly,
}
