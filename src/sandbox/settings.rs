//! What the user asks of the sandbox: a mode, the network, extra writable
//! folders. Flags (`--sandbox`, `--sandbox-network`, `--add-dir`) and the
//! `[sandbox]` table of `brood.toml` both end up here.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How much a command may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Writes only inside the workspace, the session's temporary folder and the
    /// added folders; everything else is read-only.
    #[default]
    WorkspaceWrite,
    /// Writes only to the session's temporary folder.
    ReadOnly,
    /// No sandbox: asked for by name, and shown in red.
    Off,
}

impl SandboxMode {
    pub const ALL: [SandboxMode; 3] = [
        SandboxMode::WorkspaceWrite,
        SandboxMode::ReadOnly,
        SandboxMode::Off,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        }
    }

    /// The mode named `text`, as the flag and the config file spell it.
    pub fn parse(text: &str) -> Option<SandboxMode> {
        SandboxMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == text.trim())
    }
}

/// Whether commands reach the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    /// Only a loopback of their own.
    #[default]
    Off,
    On,
}

/// The sandbox a session asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    pub mode: SandboxMode,
    pub network: Network,
    /// Folders a command may write besides the workspace and its temporary one.
    pub writable: Vec<PathBuf>,
}
