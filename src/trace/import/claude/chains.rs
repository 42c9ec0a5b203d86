//! Children's conversations written inside the session file itself: sidechain
//! lines (`isSidechain: true`, older versions) and `agent_progress` lines
//! (`type: progress`, 2.1), and which of the two a session line is.

use std::collections::HashMap;

use serde_json::Value;

use super::super::Report;
use super::super::lines::{bool_at, str_at};
use super::convert::Converter;

/// Where one line of a session file goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route<'a> {
    /// The session's own conversation (and the lines it counts as skipped).
    Main,
    /// A subagent's line, written into the session file.
    Sidechain,
    /// A `progress` line carrying one message of the child started by the call
    /// `parent_call`.
    AgentProgress { parent_call: &'a str },
}

/// Tells a session file's lines apart. `standalone` remembers whether the file
/// is a subagent's own (all sidechain), which is then shown as the session.
pub(super) fn route<'a>(line: &'a Value, standalone: &mut Option<bool>) -> Route<'a> {
    match str_at(line, "type") {
        Some("user" | "assistant") => {
            let sidechain = bool_at(line, "isSidechain");
            let alone = *standalone.get_or_insert(sidechain);
            match sidechain && !alone {
                true => Route::Sidechain,
                false => Route::Main,
            }
        }
        // Compaction inside a child written into the session file.
        Some("system") if bool_at(line, "isSidechain") && *standalone == Some(false) => {
            Route::Sidechain
        }
        Some("progress") => {
            let data = line.get("data").unwrap_or(&Value::Null);
            match (str_at(data, "type"), str_at(line, "parentToolUseID")) {
                (Some("agent_progress"), Some(parent_call)) => Route::AgentProgress { parent_call },
                _ => Route::Main,
            }
        }
        _ => Route::Main,
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

    pub fn line(&mut self, line: &Value, report: &mut Report) {
        let parent = str_at(line, "parentUuid").and_then(|p| self.by_uuid.get(p).copied());
        let chain = match str_at(line, "agentId") {
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
        if let Some(uuid) = str_at(line, "uuid") {
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

    /// Takes one `agent_progress` line of the child started by `parent_call`.
    /// Its `data.message` is a transcript line of the child (`type`, `message`,
    /// `uuid`, `timestamp`); `normalizedMessages` repeats the history before it
    /// and is read only when there is no `message`.
    pub fn line(&mut self, parent_call: &str, line: &Value, report: &mut Report) {
        let data = line.get("data").unwrap_or(&Value::Null);
        let messages: Vec<&Value> = match data.get("message").filter(|m| m.is_object()) {
            Some(message) => vec![message],
            None => data
                .get("normalizedMessages")
                .and_then(Value::as_array)
                .map(|all| all.iter().filter(|m| m.is_object()).collect())
                .unwrap_or_default(),
        };
        let i = match self.by_call.get(parent_call) {
            Some(&i) => i,
            None => {
                self.chains
                    .push((parent_call.to_string(), Converter::new(false)));
                self.by_call
                    .insert(parent_call.to_string(), self.chains.len() - 1);
                self.chains.len() - 1
            }
        };
        let Some((_, conv)) = self.chains.get_mut(i) else {
            return;
        };
        if conv.agent_id.is_none() {
            conv.agent_id = str_at(data, "agentId").map(String::from);
        }
        for message in messages {
            // The outer line knows when and in which session, if the inner does not.
            let mut message = message.clone();
            if let Some(fields) = message.as_object_mut() {
                for key in ["timestamp", "sessionId"] {
                    if !fields.contains_key(key)
                        && let Some(value) = line.get(key)
                    {
                        fields.insert(key.to_string(), value.clone());
                    }
                }
            }
            conv.line(&message, report);
        }
    }
}
