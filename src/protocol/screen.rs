//! What the screen is given besides events: the facts of the session for its
//! title and status lines, and, in a replay, the items a reader sends while it
//! reads a file.

use crate::event::Event;
use crate::protocol::SandboxSummary;

/// Facts about the session shown in the title and status lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionInfo {
    pub provider: String,
    pub model: String,
    pub light_model: Option<String>,
    pub session: String,
    pub trace_path: Option<String>,
    pub cwd: String,
    /// The main model's context window, for the parent's context gauge.
    pub context_window: u64,
    /// What commands run under; unknown for traces of other tools.
    pub sandbox: Option<SandboxSummary>,
    /// The project instruction files in the parent's prompt, as shown.
    pub instructions: Vec<String>,
    /// The session's MCP servers, once started.
    pub mcp: Vec<McpServerSummary>,
    /// What each model's tokens cost, for the cost shown beside them.
    pub prices: super::PriceTable,
    /// The subagent profiles a `task` call may name, for `/agents`.
    pub agents: Vec<AgentSummary>,
    /// What work beside the turns (the telemetry export) has to say.
    pub side_warning: SideWarning,
}

/// A warning from work the session does beside its turns (the OpenTelemetry
/// export, on a thread of its own), which the status line shows while it
/// holds. Shared: that work sets and clears it, the screen reads it each
/// frame; no event is published for it, so the trace stays the session's.
#[derive(Debug, Clone, Default)]
pub struct SideWarning(std::sync::Arc<std::sync::Mutex<Option<String>>>);

impl SideWarning {
    pub fn set(&self, text: String) {
        if let Ok(mut held) = self.0.lock() {
            *held = Some(text);
        }
    }

    pub fn clear(&self) {
        if let Ok(mut held) = self.0.lock() {
            *held = None;
        }
    }

    pub fn get(&self) -> Option<String> {
        self.0.lock().ok().and_then(|held| held.clone())
    }
}

/// Two infos are equal whatever their warnings say: it is not a fact of
/// the session's.
impl PartialEq for SideWarning {
    fn eq(&self, _: &SideWarning) -> bool {
        true
    }
}

/// One subagent profile as `/agents` lists it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentSummary {
    pub name: String,
    /// Built in, or the file it was read from (`claude ~/.claude/agents/x.md`).
    pub from: String,
    pub tools: String,
    /// `main` or `light`.
    pub model: String,
    pub limits: String,
    /// What its file lost on the way (a tool brood does not have, …).
    pub warnings: Vec<String>,
}

/// What the workbench remembers from one session to the next (brood keeps
/// it in `workbench.toml` in its config folder): handed to the screen at
/// start, handed back when it quits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Remembered {
    /// The conversation's share of a wide screen's width, in percent, beside
    /// the subagents; `None` leaves it to the layout.
    pub split: Option<u16>,
}

/// One MCP server as the title line shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpServerSummary {
    pub name: String,
    /// Why it is not there; `None` when it is ready.
    pub failed: Option<String>,
    /// Its tools as the model calls them (`mcp__docs__search`).
    pub tools: Vec<String>,
}

/// What a replay's reader sends while it reads a file.
#[derive(Debug)]
pub enum Loaded {
    Event(Box<Event>),
    /// A line that could not be read, skipped.
    Skipped {
        line: usize,
        error: String,
    },
    /// Only while following: the events after the first `keep` no longer
    /// hold; changed ones come next. `why` is for the screen to say, when the
    /// file itself was truncated or replaced (a revision is routine: a line
    /// that completes an earlier message).
    Rewind {
        keep: usize,
        why: Option<String>,
    },
    /// The end of the file; `truncated_tail` when the last line was cut off.
    Done {
        truncated_tail: bool,
    },
}

#[cfg(test)]
impl SessionInfo {
    /// A scripted session's description, for the screen's tests.
    pub fn scripted(session: &str, cwd: &str) -> SessionInfo {
        SessionInfo {
            provider: "scripted".into(),
            model: "scripted".into(),
            light_model: None,
            session: session.into(),
            trace_path: None,
            cwd: cwd.into(),
            context_window: 200_000,
            instructions: Vec::new(),
            mcp: Vec::new(),
            prices: Default::default(),
            sandbox: None,
            agents: Vec::new(),
            side_warning: Default::default(),
        }
    }
}
