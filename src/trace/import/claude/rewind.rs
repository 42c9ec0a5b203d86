//! Rewinds: a user who goes back to an earlier prompt (Esc Esc, or editing a
//! message) leaves the old branch in the file, and the new prompt points to the
//! same parent (`parentUuid`) as the old one. The file is then a tree, and
//! shown in file order it would tell both branches as one conversation.
//!
//! A branch point is a line with two or more children that are prompts (user
//! lines with text the user wrote: not tool results, `isMeta` or compaction
//! summaries) written at different times. Other lines with several children
//! are how Claude Code records parallel calls, progress lines and compaction
//! replays (which repeat a prompt with the same timestamp), not rewinds.
//!
//! At a branch point the child whose subtree holds the session's last message
//! is kept (or, when no child does, the one written last); every other child's
//! subtree is abandoned. A compaction boundary has no `parentUuid`: it hangs
//! from its `logicalParentUuid`. The importer builds the tree while it reads
//! the file; only when the tree has branch points does it read the file again,
//! showing each abandoned branch as one folded note.

use std::collections::HashMap;

use super::blocks::first_line;
use super::convert::Converter;
use super::harness::is_note;
use super::wire::{Content, Line};
use super::{Key, key};
use crate::event::EventKind;
use crate::text::count;

/// The lines of a session's main conversation as a tree.
#[derive(Debug, Default)]
pub(super) struct Tree {
    nodes: Vec<Node>,
    index: HashMap<Key, usize>,
    /// The first prompt under each parent line, with when it was written.
    first_prompts: HashMap<Option<Key>, Option<Key>>,
    /// Whether a parent has prompts written apart: without such a branch
    /// point nothing is abandoned, which a follower asks after every read.
    branched: bool,
}

#[derive(Debug)]
struct Node {
    /// The line's own `uuid`, whose branch [`Abandoned`] tells.
    id: Key,
    parent: Option<Key>,
    prompt: bool,
    conversational: bool,
    ts: Option<Key>,
}

/// Which lines are abandoned, by `uuid`, each with the number of its branch.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Abandoned {
    branch: HashMap<Key, usize>,
}

impl Abandoned {
    /// Whether no branch was abandoned: the file reads as one conversation.
    pub fn is_empty(&self) -> bool {
        self.branch.is_empty()
    }

    /// The abandoned branch a line of the session's own conversation is in.
    pub fn branch_of(&self, line: &Line<'_>) -> Option<usize> {
        if self.branch.is_empty() || line.is_sidechain.0 {
            return None;
        }
        self.branch.get(&key(line.uuid.get()?)).copied()
    }

    /// Whether a line that no branch abandoned goes on with the conversation
    /// (so a branch read before it has ended): a line of the tree, not a line
    /// without `uuid` (snapshots, summaries) or a sidechain's.
    pub fn continues(&self, line: &Line<'_>) -> bool {
        !line.is_sidechain.0 && line.uuid.is_some()
    }
}

impl Tree {
    /// Adds one line of the file (a follower adds them as they come); lines
    /// without `uuid` and a sidechain's are left out.
    pub fn add(&mut self, line: &Line<'_>) {
        let (Some(uuid), false) = (line.uuid.get(), line.is_sidechain.0) else {
            return;
        };
        let id = key(uuid);
        if self.index.contains_key(&id) {
            return;
        }
        let kind = line.kind.get();
        let prompt = kind == Some("user")
            && typed(line.content())
            && !line.is_meta.0
            && !line.is_compact_summary.0;
        self.index.insert(id, self.nodes.len());
        let node = Node {
            id,
            parent: line
                .parent_uuid
                .get()
                .or_else(|| line.logical_parent_uuid.get())
                .map(key),
            prompt,
            conversational: matches!(kind, Some("user" | "assistant")),
            ts: line.timestamp.text().map(key),
        };
        if node.prompt {
            match self.first_prompts.get(&node.parent) {
                Some(first) => self.branched |= *first != node.ts,
                None => {
                    self.first_prompts.insert(node.parent, node.ts);
                }
            }
        }
        self.nodes.push(node);
    }

    /// The abandoned branches.
    pub fn abandoned(&self) -> Abandoned {
        if !self.branched {
            return Abandoned::default();
        }
        let parent = |i: usize| {
            self.nodes[i]
                .parent
                .and_then(|p| self.index.get(&p).copied())
        };
        // A file whose lines name no parent in it (written by another tool, or
        // cut out of a session) is no tree: every prompt would be a root.
        let linked = self
            .nodes
            .iter()
            .any(|n| n.parent.is_some_and(|p| self.index.contains_key(&p)));
        if !linked {
            return Abandoned::default();
        }
        // Siblings share a parent line; lines whose parent is in no file read
        // here are siblings only of lines naming the same missing parent.
        let mut children: HashMap<Option<Key>, Vec<usize>> = HashMap::new();
        for (i, node) in self.nodes.iter().enumerate() {
            children.entry(node.parent).or_default().push(i);
        }
        // The path from the last message up to the root (guarded against cycles).
        let mut kept = vec![false; self.nodes.len()];
        let mut at = (0..self.nodes.len())
            .rev()
            .find(|&i| self.nodes[i].conversational);
        while let Some(i) = at.filter(|&i| !kept[i]) {
            kept[i] = true;
            at = parent(i);
        }
        let mut abandoned = Abandoned::default();
        let mut roots: Vec<usize> = Vec::new();
        for kids in children.values() {
            let prompts: Vec<usize> = kids
                .iter()
                .copied()
                .filter(|&k| self.nodes[k].prompt)
                .collect();
            // Replays repeat a prompt at its own time; a rewind is a new one.
            let written_apart = prompts
                .iter()
                .any(|&k| self.nodes[k].ts != self.nodes[prompts[0]].ts);
            if !written_apart {
                continue;
            }
            let keep = prompts
                .iter()
                .copied()
                .find(|&k| kept[k])
                .or(prompts.last().copied());
            roots.extend(prompts.into_iter().filter(|&k| Some(k) != keep));
        }
        roots.sort_unstable();
        for (n, root) in roots.into_iter().enumerate() {
            let mut stack = vec![root];
            while let Some(i) = stack.pop() {
                let id = self.nodes[i].id;
                if abandoned.branch.insert(id, n).is_some() {
                    continue;
                }
                stack.extend(children.get(&Some(id)).into_iter().flatten());
            }
        }
        abandoned
    }
}

/// An abandoned branch as its note tells it.
pub(super) struct Fold {
    pub label: String,
    pub listing: String,
    pub span: (Option<i64>, Option<i64>),
}

/// Lines of the listing: enough to recognise the branch, not to read it.
const LISTING_LINES: usize = 40;

impl Fold {
    /// Folds the branch's conversation (converted on its own lane, then dropped).
    pub fn of(branch: &Converter) -> Fold {
        let mut messages = 0u64;
        let mut calls = 0u64;
        let mut listing = Vec::new();
        for pending in branch.buf.iter() {
            let (what, text) = match &*pending.kind {
                EventKind::UserMessage { text } => ("prompt", text.as_str()),
                EventKind::AssistantMessage { text, .. } if !text.trim().is_empty() => {
                    ("answer", text.as_str())
                }
                EventKind::ToolCall { name, .. } if !is_note(name) => {
                    calls += 1;
                    listing.push(format!("tool: {name}"));
                    continue;
                }
                _ => continue,
            };
            messages += 1;
            listing.push(format!("{what}: {}", first_line(text)));
        }
        let label = match calls {
            0 => format!("{} abandoned", count(messages, "message")),
            _ => format!(
                "{}, {} abandoned",
                count(messages, "message"),
                count(calls, "tool call")
            ),
        };
        let more = listing.len().saturating_sub(LISTING_LINES);
        listing.truncate(LISTING_LINES);
        if more > 0 {
            listing.push(format!("… {}", count(more as u64, "more line")));
        }
        Fold {
            label,
            listing: listing.join("\n"),
            span: (branch.buf.first_ts(), branch.buf.last_ts()),
        }
    }
}

/// Whether a user line's content holds something someone wrote: a non-blank
/// text, or a block that is not a tool result (a block without a type is text,
/// as the import reads it).
fn typed(content: &Content<'_>) -> bool {
    match content {
        Content::Text(s) => !s.trim().is_empty(),
        Content::Blocks { blocks, .. } => blocks.iter().any(|b| b.kind() != "tool_result"),
        Content::None => false,
    }
}
