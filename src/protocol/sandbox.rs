//! What a session's commands run under, in the words the trace header, the
//! flags and the status line share.

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

/// What the session's commands run under, as the trace header and the status
/// line tell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSummary {
    pub mode: SandboxMode,
    pub network: Network,
    /// What enforces the sandbox (`bubblewrap`); absent when nothing does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_by: Option<String>,
    /// Why the sandbox that was asked for is not in force on this machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

impl SandboxSummary {
    /// Whether commands are confined: a sandbox mode was asked for and is
    /// enforced. Anything else is shown as a warning.
    pub fn confined(&self) -> bool {
        self.mode != SandboxMode::Off && self.enforced_by.is_some()
    }

    /// A word or two for the status line, where room is short: `sandboxed`,
    /// `read-only`, `+net` when the network is on; `SANDBOX OFF` and
    /// `NO SANDBOX` when commands are not confined.
    pub fn label(&self) -> String {
        let base = match (self.mode, self.enforced_by.is_some()) {
            (SandboxMode::Off, _) => return "SANDBOX OFF".to_string(),
            (_, false) => return "NO SANDBOX".to_string(),
            (SandboxMode::WorkspaceWrite, true) => "sandboxed",
            (SandboxMode::ReadOnly, true) => "read-only",
        };
        match self.network {
            Network::On => format!("{base} +net"),
            Network::Off => base.to_string(),
        }
    }
}
