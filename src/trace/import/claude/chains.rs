//! Children's conversations written inside the session file itself: sidechain
//! lines (`isSidechain: true`, older versions) and `agent_progress` lines
//! (`type: progress`, 2.1), and which of the two a session line is.

use std::collections::HashMap;

use super::super::Report;
use super::convert::Converter;
use super::wire::Line;

/// Where one line of a session file goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    /// The session's own conversation (and the lines it counts as skipped).
    Main,
    /// A subagent's line, written into the session file.
    Sidechain,
    /// A `progress` line carrying one message of the child started by the
    /// call its `parentToolUseID` names ([`progress_call`]).
    AgentProgress,
}

/// Tells a session file's lines apart. `standalone` remembers whether the file
/// is a subagent's own (all sidechain), which is then shown as the session.
pub(super) fn route(line: &Line<'_>, standalone: &mut Option<bool>) -> Route {
    let sidechain = line.is_sidechain.0;
    match line.kind.get() {
        Some("user" | "assistant") => {
            let alone = *standalone.get_or_insert(sidechain);
            match sidechain && !alone {
                true => Route::Sidechain,
                false => Route::Main,
            }
        }
        // Compaction inside a child written into the session file.
        Some("system") if sidechain && *standalone == Some(false) => Route::Sidechain,
        Some("progress") if progress_call(line).is_some() => Route::AgentProgress,
        _ => Route::Main,
    }
}

/// The call whose child an `agent_progress` line tells of.
pub(super) fn progress_call<'l>(line: &'l Line<'_>) -> Option<&'l str> {
    let data = line.data.get()?;
    match data.kind.get() {
        Some("agent_progress") => line.parent_tool_use_id.get(),
        _ => None,
    }
}

/// The sidechain conversations written inside a session file, told apart by
/// `agentId` or, in versions without it, by following `parentUuid`.
#[derive(Clone, Default)]
pub(super) struct InlineChains {
    pub chains: Vec<Converter>,
    by_uuid: HashMap<String, usize>,
    by_agent: HashMap<String, usize>,
}

impl InlineChains {
    /// The conversations to finish for a look ([`Converter::peek`]); the
    /// indexes only place later lines.
    pub fn peek(&self) -> InlineChains {
        InlineChains {
            chains: self.chains.iter().map(Converter::peek).collect(),
            by_uuid: HashMap::new(),
            by_agent: HashMap::new(),
        }
    }

    pub fn line(&mut self, line: Line<'_>, report: &mut Report) {
        let parent = line
            .parent_uuid
            .get()
            .and_then(|p| self.by_uuid.get(p).copied());
        let chain = match line.agent_id.get() {
            Some(agent) => match self.by_agent.get(agent) {
                Some(&i) => i,
                None => {
                    let i = parent.unwrap_or_else(|| self.new_chain());
                    self.by_agent.insert(agent.to_string(), i);
                    i
                }
            },
            None => parent.unwrap_or_else(|| self.new_chain()),
        };
        if let Some(uuid) = line.uuid.get() {
            self.by_uuid.insert(uuid.to_string(), chain);
        }
        if let Some(conv) = self.chains.get_mut(chain) {
            conv.line(line, report);
        }
    }

    fn new_chain(&mut self) -> usize {
        self.chains.push(Converter::new(false));
        self.chains.len() - 1
    }
}

/// Children's conversations carried by `agent_progress` lines, one per call.
#[derive(Clone, Default)]
pub(super) struct ProgressChains {
    /// The call that started each child, with its conversation.
    pub chains: Vec<(String, Converter)>,
    by_call: HashMap<String, usize>,
}

impl ProgressChains {
    /// The conversations to finish for a look ([`Converter::peek`]).
    pub fn peek(&self) -> ProgressChains {
        ProgressChains {
            chains: self
                .chains
                .iter()
                .map(|(call, conv)| (call.clone(), conv.peek()))
                .collect(),
            by_call: HashMap::new(),
        }
    }

    /// Takes one `agent_progress` line ([`progress_call`] names its call).
    /// Its `data.message` is a transcript line of the child (`type`,
    /// `message`, `uuid`, `timestamp`); `normalizedMessages` repeats the
    /// history before it and is read only when there is no `message`.
    pub fn line(&mut self, mut line: Line<'_>, report: &mut Report) {
        let Some(parent_call) = progress_call(&line).map(String::from) else {
            return;
        };
        let Some(data) = line.data.0.as_mut() else {
            return;
        };
        let agent_id = data.agent_id.take();
        let messages: Vec<Line<'_>> = match data.message.0.take() {
            Some(message) => vec![*message],
            None => std::mem::take(&mut data.history.0),
        };
        let i = match self.by_call.get(&parent_call) {
            Some(&i) => i,
            None => {
                self.chains
                    .push((parent_call.clone(), Converter::new(false)));
                self.by_call.insert(parent_call, self.chains.len() - 1);
                self.chains.len() - 1
            }
        };
        let Some((_, conv)) = self.chains.get_mut(i) else {
            return;
        };
        if conv.agent_id.is_none() {
            conv.agent_id = agent_id;
        }
        for mut message in messages {
            // The outer line knows when and in which session, if the inner does not.
            if !message.timestamp.is_some() {
                message.timestamp = line.timestamp.clone();
            }
            if !message.session_id.is_some() {
                message.session_id = line.session_id.clone();
            }
            conv.line(message, report);
        }
    }
}
