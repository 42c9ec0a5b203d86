//! The permission policy: every tool call is allowed, asked about or denied before
//! it runs. It knows the workspace boundary (paths are resolved through `..` and
//! symlinks) and classifies shell commands by parsing them into command words.

mod analysis;
mod builtins;
mod command;
mod cwd;
mod find;
mod forkbomb;
mod git;
mod interpreters;
mod overwrites;
mod paths;
mod prefix;
mod redirects;
mod rules;
mod shell;
mod user_rules;
mod wrappers;

pub use command::{classify_command, classify_command_with, command_prefix};
pub use user_rules::{RuleList, UserRules};

use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::event::Decision;
use crate::protocol::ToolKind;
use crate::workspace::Workspace;

/// A decision and the reason a person (and the model) can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub decision: Decision,
    pub reason: String,
}

impl Verdict {
    fn new(decision: Decision, reason: impl Into<String>) -> Self {
        Verdict {
            decision,
            reason: reason.into(),
        }
    }
}

/// How much an agent may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionMode {
    /// The deny/ask/allow rules.
    Normal,
    /// Only read tools; everything else is denied (the `explore` profile).
    ReadOnly,
}

/// The rules one agent's tool calls are checked against.
///
/// One `Policy` is shared (behind an `Arc`) by everything that checks calls for a
/// session, so the session's approved command prefixes live inside it behind a
/// mutex rather than in the caller.
#[derive(Debug)]
pub struct Policy {
    workspace: Arc<Workspace>,
    mode: PermissionMode,
    /// Command prefixes the user approved for this session, each split into words;
    /// shared by the parent's policy and every child's (see `with_mode`).
    allowed_prefixes: Arc<Mutex<Vec<Vec<String>>>>,
    /// The user's own allow/ask/deny rules (settings files, `brood.toml`).
    rules: Arc<UserRules>,
}

impl Policy {
    pub fn new(workspace: Arc<Workspace>, mode: PermissionMode) -> Self {
        Policy {
            workspace,
            mode,
            allowed_prefixes: Arc::new(Mutex::new(Vec::new())),
            rules: Arc::new(UserRules::default()),
        }
    }

    /// The same policy with the user's rules on top.
    pub fn with_rules(self, rules: UserRules) -> Policy {
        Policy {
            rules: Arc::new(rules),
            ..self
        }
    }

    /// A policy for another agent of the same session, in `mode`: same workspace,
    /// and the same approved prefixes, so "allow for the session" from one agent's
    /// dialog holds for its siblings too.
    pub fn with_mode(&self, mode: PermissionMode) -> Policy {
        Policy {
            workspace: self.workspace.clone(),
            mode,
            allowed_prefixes: self.allowed_prefixes.clone(),
            rules: self.rules.clone(),
        }
    }

    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    pub fn workspace(&self) -> &Arc<Workspace> {
        &self.workspace
    }

    /// Remembers for the rest of the session that bash commands starting with
    /// `prefix` (compared word by word, e.g. `git push` or `rm`) need no approval
    /// while every path they name is inside the workspace.
    ///
    /// It only ever turns `ask` into `allow`, and only for findings tied to a
    /// command of that prefix: a `deny`, a parse failure, a redirect into a system
    /// path or a pipe into a shell still stand. An empty prefix is ignored, since
    /// it would approve every command.
    pub fn allow_prefix(&self, prefix: &str) {
        let words: Vec<String> = prefix.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            return;
        }
        let mut list = self.prefixes();
        if !list.contains(&words) {
            list.push(words);
        }
    }

    /// The prefixes approved so far, as the user gave them.
    pub fn allowed_prefixes(&self) -> Vec<String> {
        self.prefixes().iter().map(|w| w.join(" ")).collect()
    }

    fn prefixes(&self) -> std::sync::MutexGuard<'_, Vec<Vec<String>>> {
        // The list is only ever pushed to, so a panic elsewhere cannot leave it
        // half-written; keep using it.
        self.allowed_prefixes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Decides whether the call `tool` (of `kind`) with `input` may run.
    pub fn check(&self, tool: &str, kind: ToolKind, input: &Value) -> Verdict {
        match self.mode {
            PermissionMode::Normal => {}
            PermissionMode::ReadOnly => match kind {
                // A server's word that its tool only reads is what a profile
                // that lists the server relies on; the rest cannot run here.
                ToolKind::Read | ToolKind::External { read_only: true } => {}
                ToolKind::External { read_only: false } => {
                    return Verdict::new(
                        Decision::Deny,
                        format!(
                            "read-only mode: {tool} is an MCP tool its server does not mark read-only"
                        ),
                    );
                }
                // A second barrier: profiles should never hand these tools to a
                // read-only agent, but if one does, the call still stops here.
                ToolKind::Write | ToolKind::Exec | ToolKind::Delegate => {
                    return Verdict::new(
                        Decision::Deny,
                        format!("read-only mode: {tool} is not allowed"),
                    );
                }
            },
        }
        let (base, rule) = match kind {
            ToolKind::Read => (
                self.check_read(tool, input),
                self.path_rule(tool, kind, input),
            ),
            ToolKind::Write => (
                self.check_write(tool, input),
                self.path_rule(tool, kind, input),
            ),
            ToolKind::Exec => self.check_exec(tool, input),
            ToolKind::Delegate => (
                Verdict::new(Decision::Allow, "starting a subagent is allowed"),
                None,
            ),
            ToolKind::External { .. } => (
                Verdict::new(
                    Decision::Ask,
                    format!("{tool} is a tool of an MCP server: it asks unless a rule allows it"),
                ),
                self.rules.for_tool(tool),
            ),
        };
        with_rule(base, rule)
    }

    /// The user's rule about a file tool's call, on the path it names (the
    /// workspace's root for a search without one).
    fn path_rule(
        &self,
        tool: &str,
        kind: ToolKind,
        input: &Value,
    ) -> Option<user_rules::RuleVerdict> {
        if self.rules.is_empty() {
            return None;
        }
        let path = input.get("path").and_then(Value::as_str).unwrap_or(".");
        self.rules
            .for_path(tool, kind, &self.workspace.resolve(path).path)
    }

    fn check_read(&self, tool: &str, input: &Value) -> Verdict {
        // Read tools default to the workspace root when no path is given.
        let Some(path) = input.get("path").and_then(Value::as_str) else {
            return Verdict::new(Decision::Allow, "reads inside the workspace");
        };
        let resolved = self.workspace.resolve(path);
        if resolved.inside {
            Verdict::new(Decision::Allow, "reads inside the workspace")
        } else {
            Verdict::new(
                Decision::Ask,
                format!(
                    "{tool} reads outside the workspace: {}",
                    resolved.path.display()
                ),
            )
        }
    }

    fn check_write(&self, tool: &str, input: &Value) -> Verdict {
        // Without a path there is nothing to hold against the boundary, and a
        // write that cannot be checked must not run.
        let Some(path) = input.get("path").and_then(Value::as_str) else {
            return Verdict::new(
                Decision::Deny,
                format!("{tool} has no path to check against the workspace"),
            );
        };
        let resolved = self.workspace.resolve(path);
        if resolved.inside {
            Verdict::new(Decision::Allow, "writes inside the workspace")
        } else {
            Verdict::new(
                Decision::Deny,
                format!(
                    "{tool} would write outside the workspace: {} resolves to {}",
                    path,
                    resolved.path.display()
                ),
            )
        }
    }

    fn check_exec(&self, tool: &str, input: &Value) -> (Verdict, Option<user_rules::RuleVerdict>) {
        let Some(command) = input.get("command").and_then(Value::as_str) else {
            return (
                Verdict::new(Decision::Deny, format!("{tool} has no command to check")),
                None,
            );
        };
        let analysis = command::analyze(command);
        // Commands run in the workspace root, so a relative path resolves
        // there; a line that changes folder first (`cd .. && rm -rf x`) makes
        // that guess wrong, and then no session approval applies.
        let leaves_the_root = analysis.dir_changes.iter().any(|target| match target {
            Some(dir) if !dir.starts_with('~') && !dir.contains(['$', '`']) => {
                !self.workspace.resolve(dir).inside
            }
            Some(_) | None => true,
        });
        let approved = match leaves_the_root {
            true => Vec::new(),
            false => {
                let mut approved = self.prefixes().clone();
                approved.extend(self.rules.allowed_prefixes());
                approved
            }
        };
        let rule = self.rules.for_command(command, &analysis.commands);
        // A file the line would empty is no loss if nothing is there yet;
        // after a `cd` the text no longer tells where a relative path is.
        let changes_dir = !analysis.dir_changes.is_empty();
        let missing = |path: &str| {
            !changes_dir
                && !path.starts_with('~')
                && matches!(
                    std::fs::symlink_metadata(self.workspace.resolve(path).path),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound
                )
        };
        let verdict = analysis.verdict_within(
            &approved,
            &|path| self.workspace.resolve(path).inside,
            &missing,
        );
        (verdict, rule)
    }
}

/// The policy's own verdict with the user's rule on it: a `deny` rule
/// denies, an `ask` rule asks unless the policy denies, an `allow` rule
/// allows what the policy would ask about. The rule's word is the reason
/// whenever it changed the decision.
fn with_rule(base: Verdict, rule: Option<user_rules::RuleVerdict>) -> Verdict {
    let Some(rule) = rule else {
        return base;
    };
    let decision = match (rule.decision, base.decision) {
        (Decision::Deny, _) => Decision::Deny,
        (Decision::Ask, Decision::Deny) => return base,
        (Decision::Ask, _) => Decision::Ask,
        (Decision::Allow, Decision::Ask) => Decision::Allow,
        (Decision::Allow, _) => return base,
    };
    Verdict::new(decision, rule.reason)
}

#[cfg(test)]
mod tests;
