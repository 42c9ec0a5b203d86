//! Children's conversations written inside the session file itself (sidechain
//! lines, `isSidechain: true`), and which lines of a session file they are.

use std::collections::HashMap;

use serde_json::Value;

use super::super::Report;
use super::super::lines::{bool_at, str_at};
use super::convert::Converter;

/// Where one line of a session file goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    /// The session's own conversation (and the lines it counts as skipped).
    Main,
    /// A subagent's line, written into the session file.
    Sidechain,
}

/// Tells a session file's lines apart. `standalone` remembers whether the file
/// is a subagent's own (all sidechain), which is then shown as the session.
pub(super) fn route(line: &Value, standalone: &mut Option<bool>) -> Route {
    match str_at(line, "type") {
        Some("user" | "assistant") => {
            let sidechain = bool_at(line, "isSidechain");
            let alone = *standalone.get_or_insert(sidechain);
            match sidechain && !alone {
                true => Route::Sidechain,
                false => Route::Main,
            }
        }
        _ => Route::Main,
    }
}

/// The sidechain conversations written inside a session file, told apart by
/// `agentId` or, in versions without it, by following `parentUuid`.
#[derive(Default)]
pub(super) struct InlineChains {
    pub chains: Vec<Converter>,
    by_uuid: HashMap<String, usize>,
    by_agent: HashMap<String, usize>,
}

impl InlineChains {
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
