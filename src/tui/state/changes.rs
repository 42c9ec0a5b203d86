//! The files a session changed, as diffs: every agent's `edit_file` and
//! `write_file` calls (and Claude Code's `Edit` and `Write` in imported
//! sessions), read from their inputs. A diff is made when the call is seen,
//! so its cell shows it while it waits for approval, and counts as a change
//! once its result says it applied.
//!
//! What a file held is known only from the session itself: a write gives the
//! whole content, and an edit of a known content gives the next one. Then an
//! edit's diff is numbered as in the file; otherwise it is the diff of its
//! old and new text. Any other tool that may write (a command, an MCP tool)
//! makes every known content unknown again.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::event::AgentId;
use crate::tui::diff::{Before, FileDiff, Numbers};

/// One applied change to one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub agent: AgentId,
    pub call_id: String,
    pub tool: String,
    pub path: String,
    pub diff: Arc<FileDiff>,
}

/// A call's change until its result comes, and the file's content after it
/// when that is known.
#[derive(Debug, Clone)]
struct Pending {
    change: Change,
    after: Option<Arc<str>>,
    /// The session knew what the file held when the call was made.
    knew_before: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Changes {
    /// Applied changes, in the order their results came.
    pub done: Vec<Change>,
    pending: HashMap<(AgentId, String), Pending>,
    /// What each file holds, where the session's own writes and edits say.
    known: HashMap<String, Arc<str>>,
}

/// The tools that only read: their results leave the known contents known.
const READERS: &[&str] = &["read_file", "grep", "glob", crate::protocol::TASK_TOOL];

impl Changes {
    /// A tool call: the diff it proposes, when it is a file tool's.
    pub fn call(
        &mut self,
        agent: AgentId,
        call_id: &str,
        tool: &str,
        input: &Value,
    ) -> Option<Arc<FileDiff>> {
        let text = |key: &str| input.get(key)?.as_str();
        // Each tool's own field names: a call that used another's fails, and
        // must not look like a change.
        let (path, old, new) = match tool {
            "edit_file" | "write_file" => ("path", "old_text", "new_text"),
            "Edit" | "Write" => ("file_path", "old_string", "new_string"),
            _ => return None,
        };
        let path = text(path)?;
        let known = self.known.get(path).cloned();
        let knew_before = known.is_some();
        let (diff, after) = match tool {
            "edit_file" | "Edit" => {
                let old = text(old)?;
                let new = text(new)?;
                let all = input
                    .get("replace_all")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                edit(known.as_deref(), old, new, all)
            }
            "write_file" | "Write" => {
                let content = text("content")?;
                let before = known.as_deref().unwrap_or_default();
                (
                    FileDiff::new(before, content, Numbers::File),
                    Some(Arc::from(content)),
                )
            }
            _ => return None,
        };
        let diff = Arc::new(diff);
        let change = Change {
            agent,
            call_id: call_id.to_string(),
            tool: tool.to_string(),
            path: path.to_string(),
            diff: diff.clone(),
        };
        self.pending.insert(
            (agent, call_id.to_string()),
            Pending {
                change,
                after,
                knew_before,
            },
        );
        Some(diff)
    }

    /// A tool's result: a file tool's change counts once it applied. Returns
    /// the call's diff when the result changed it (a write that replaced a
    /// file the session never saw).
    pub fn result(
        &mut self,
        agent: AgentId,
        call_id: &str,
        tool: &str,
        failed: bool,
        content: &str,
    ) -> Option<Arc<FileDiff>> {
        let Some(Pending {
            mut change,
            after,
            knew_before,
        }) = self.pending.remove(&(agent, call_id.into()))
        else {
            if !failed && !READERS.contains(&tool) {
                self.known.clear();
            }
            return None;
        };
        if failed {
            return None;
        }
        let mut changed = None;
        if crate::protocol::overwrote(tool, content) && !knew_before {
            Arc::make_mut(&mut change.diff).before = Before::Unseen;
            changed = Some(change.diff.clone());
        }
        match after {
            Some(after) => self.known.insert(change.path.clone(), after),
            None => self.known.remove(&change.path),
        };
        self.done.push(change);
        changed
    }

    /// The changed files in the order they were first changed, each with its
    /// changes in order.
    pub fn by_file(&self) -> Vec<(&str, Vec<&Change>)> {
        let mut files: Vec<(&str, Vec<&Change>)> = Vec::new();
        for change in &self.done {
            match files.iter_mut().find(|(path, _)| *path == change.path) {
                Some((_, changes)) => changes.push(change),
                None => files.push((&change.path, vec![change])),
            }
        }
        files
    }
}

/// An edit's diff, against the file when its content is known and holds the
/// old text; else of the old and new text alone.
fn edit(known: Option<&str>, old: &str, new: &str, all: bool) -> (FileDiff, Option<Arc<str>>) {
    match known {
        Some(before) if !old.is_empty() && before.contains(old) => {
            let after = match all {
                true => before.replace(old, new),
                false => before.replacen(old, new, 1),
            };
            let diff = FileDiff::new(before, &after, Numbers::File);
            (diff, Some(Arc::from(after)))
        }
        Some(_) | None => (FileDiff::new(old, new, Numbers::Piece), None),
    }
}

#[cfg(test)]
#[path = "changes_tests.rs"]
mod tests;
