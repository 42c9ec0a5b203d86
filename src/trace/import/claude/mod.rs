//! Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! What is mapped, for the session and every subagent alike:
//!
//! - a user text → `user_message` (in the session's lane it also starts a turn;
//!   the previous turn gets its `turn_end`); `[Request interrupted by user…]` →
//!   `interrupted`, and the turn ends `interrupted`;
//! - an assistant message → `model_request` (step counted per turn), one
//!   `text_delta` with its text, `assistant_message` with usage, stop reason and
//!   the number of tool calls, then one `tool_call` per `tool_use`, then the
//!   results. Claude Code writes one line per content block, each with the
//!   usage counted so far, and runs a call as soon as its block is written, so
//!   the results of a message's first calls can come before its last blocks:
//!   lines sharing `message.id` are one message, whatever results come between,
//!   and its usage is its last line's;
//! - a `tool_result` block → `tool_result` (content flattened to text, images as
//!   `[image]`, `is_error`, duration from the call's timestamp);
//! - an assistant line marked `isApiErrorMessage` → `error`;
//! - what Claude Code writes for itself (slash commands and their output, `!`
//!   commands, task notifications, `isMeta` text, compaction boundaries and
//!   summaries) → notes, told in `claude/harness.rs`: none is a prompt or
//!   starts a turn; a model step after one opens a turn of its own;
//! - a rewind (the user went back to an earlier prompt) → the abandoned branch
//!   folded into one note where it was, and the kept branch followed, told in
//!   `claude/rewind.rs`;
//! - a `Task` or `Agent` call → a `tool_call` named `task` (so the screen draws a
//!   task cell) and a child lane `sub-N`, numbered in call order:
//!   `subagent_start`, the child's own events, `turn_end` and `subagent_end`
//!   (reason from the result: completed, `interrupted` for an interrupted call,
//!   `model_error` for another error, `interrupted` when the session ended before
//!   the result; summary = the result text without its `agentId:` trailer; steps,
//!   tool counts and usage from the child's transcript; elapsed from
//!   `toolUseResult.totalDurationMs` or the timestamps). A background agent
//!   (`toolUseResult.isAsync`, status `async_launched`) returns at launch: its
//!   lane runs on past that result and ends with its own last event, its last
//!   text as the summary. How a call finds its transcript (a file, sidechain
//!   lines or `agent_progress` lines) is told in `claude/children.rs`; the
//!   lane's start and end are made in `claude/lane.rs`.
//!
//! Left out, and counted in `skipped`: `summary`, `file-history-snapshot`,
//! `queue-operation`, `attachment` and other line types; `system` lines other
//! than compaction boundaries and local commands; `progress` lines other than a
//! child's `agent_progress`; `thinking` and other content blocks
//! (`block:<type>`); the caveat Claude Code writes before each local command;
//! lines repeating a `uuid`. Not kept at all: `toolUseResult` details beyond a
//! Task's status, id, duration and usage; per-line `cwd`/`gitBranch` changes;
//! limits (Claude Code has none for subagents, so `max_steps` and the budgets
//! are `None`).

mod blocks;
mod chains;
mod children;
mod convert;
mod harness;
mod lane;
mod live;
mod rewind;
mod tally;
mod user;
mod wire;

pub use live::ClaudeLive;

use std::hash::{BuildHasher, RandomState};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::lines::{JsonLines, Reading};
use super::live::Ending;
use super::timeline::{LaneBuf, Timeline};
use super::{Format, ImportError, Imported, Report, SharedEvent, header};
use crate::event::AgentId;
use chains::{InlineChains, ProgressChains, Route, progress_call, route};
use children::{Child, ChildFiles};
use convert::{Converter, TaskCall};
use lane::{Transcript, child_end, child_start};
use rewind::{Abandoned, Fold, Tree};
use std::collections::HashSet;
use wire::Line;

/// An id (`uuid`, message id, call id) or a timestamp as the importer keeps
/// it to look it up or compare it later: a keyed 64-bit hash.
///
/// A follower keeps what it knows of every line it has read (the rewind
/// tree, the uuids seen, the usage per message, the calls made), so it holds
/// a number per line, not the line's ids and times as text: the text was
/// most of what a bare call cost to follow. The key is random per process,
/// so no file can be written to make two ids collide; a chance collision of
/// 64-bit hashes within one session is negligible.
type Key = u64;

fn key(text: &str) -> Key {
    static HASHER: OnceLock<RandomState> = OnceLock::new();
    HASHER.get_or_init(RandomState::new).hash_one(text)
}

/// Imports a Claude Code session file with its subagents' transcripts.
pub fn import(path: &Path) -> Result<Imported, ImportError> {
    // The subagents' own files hold much of a big session's bytes: they are
    // read on a second thread while this one reads the session file.
    let (session, prefetched) = std::thread::scope(|scope| {
        let prefetch = scope.spawn(|| children::prefetch(path, Ending::Closed));
        let session = read_session(path);
        (session, prefetch.join().unwrap_or_default())
    });
    let mut files = ChildFiles::new(Reading::ToEnd);
    files.preload(prefetched);
    let read = session?.finish(Ending::Closed);
    assemble(path, read, &mut files, Ending::Closed, Children::Linked).map(Imported::into_owned)
}

/// Reads a session file whole, twice when it has rewinds: rewinds are rare,
/// so only a file that has them is read again, without the branches the user
/// left.
fn read_session(path: &Path) -> Result<Read, ImportError> {
    let mut tree = Tree::default();
    let session = read(path, &Abandoned::default(), Some(&mut tree))?;
    let abandoned = tree.abandoned();
    match abandoned.is_empty() {
        true => Ok(session),
        false => read(path, &abandoned, None),
    }
}

/// Whether an import reads the subagents' transcripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Children {
    Linked,
    /// Not yet: a first look at a big session shows its own lane while the
    /// transcripts are read.
    Later,
}

/// What one reading of a session file gathers.
struct Read {
    main: Converter,
    inline: InlineChains,
    progress: ProgressChains,
    report: Report,
}

impl Read {
    /// The conversations read so far, with what is still open shown.
    fn finish(self, ending: Ending) -> Read {
        Read {
            main: self.main.finish(ending),
            ..self
        }
    }
}

/// Reads a session file line by line, leaving out the `abandoned` branches
/// (each folded into a note) and adding every line to a tree if given.
struct SessionReader {
    read: Read,
    abandoned: Abandoned,
    /// The session file, whose subagents' `meta.json` files say which calls
    /// they describe ([`children::described_calls`]).
    path: PathBuf,
    /// Those calls, read when the first `agent_progress` line needs them:
    /// a session without any reads none.
    described: Option<HashSet<String>>,
    /// The abandoned branch being read: its number and its conversation.
    branch: Option<(usize, Converter)>,
    /// What abandoned lines would have counted is not what the session skipped.
    scratch: Report,
    /// A subagent's own file given alone is all sidechain: show it as the session.
    standalone: Option<bool>,
}

impl SessionReader {
    fn new(path: &Path, abandoned: Abandoned) -> SessionReader {
        SessionReader {
            read: Read {
                main: Converter::new(true),
                inline: InlineChains::default(),
                progress: ProgressChains::default(),
                report: Report::default(),
            },
            abandoned,
            path: path.to_path_buf(),
            described: None,
            branch: None,
            scratch: Report::default(),
            standalone: None,
        }
    }

    fn line(&mut self, line: Line<'_>) {
        let Read {
            main,
            inline,
            progress,
            report,
        } = &mut self.read;
        if let Some(n) = self.abandoned.branch_of(&line) {
            if self.branch.as_ref().is_some_and(|(open, _)| *open != n) {
                fold(main, self.branch.take());
            }
            let (_, conv) = self
                .branch
                .get_or_insert_with(|| (n, Converter::new(false)));
            conv.line(line, &mut self.scratch);
            return;
        }
        // The branch ends where the conversation goes on without it.
        if self.abandoned.continues(&line) {
            fold(main, self.branch.take());
        }
        match route(&line, &mut self.standalone) {
            Route::Main => main.line(line, report),
            Route::Sidechain => inline.line(line, report),
            Route::AgentProgress => {
                let described = self
                    .described
                    .get_or_insert_with(|| children::described_calls(&self.path));
                match progress_call(&line).is_some_and(|call| described.contains(call)) {
                    true => report.skip("progress"),
                    false => progress.line(line, report),
                }
            }
        }
    }

    /// What was read, the branch being read folded.
    fn into_read(mut self) -> Read {
        fold(&mut self.read.main, self.branch.take());
        self.read
    }

    fn abandoned(&self) -> &Abandoned {
        &self.abandoned
    }

    /// What was read so far, as [`SessionReader::into_read`], keeping the
    /// reader: a copy of each conversation to finish ([`Converter::peek`]).
    fn peek(&self) -> Read {
        let mut read = Read {
            main: self.read.main.peek(),
            inline: self.read.inline.peek(),
            progress: self.read.progress.peek(),
            report: self.read.report.clone(),
        };
        let branch = self.branch.as_ref().map(|(n, conv)| (*n, conv.peek()));
        fold(&mut read.main, branch);
        read
    }
}

/// Reads the session file to its end, leaving out the `abandoned` branches
/// and adding every line to `tree` if given.
fn read(
    path: &Path,
    abandoned: &Abandoned,
    mut tree: Option<&mut Tree>,
) -> Result<Read, ImportError> {
    let mut lines = JsonLines::open(path)?;
    let mut reader = SessionReader::new(path, abandoned.clone());
    let mut report = Report::default();
    lines.each(Reading::ToEnd, &mut report, |text, _| {
        let line = Line::parse(text)?;
        if let Some(tree) = tree.as_deref_mut() {
            tree.add(&line);
        }
        reader.line(line);
        Ok(())
    })?;
    let mut read = reader.into_read();
    read.report.absorb(&report);
    Ok(read)
}

/// The session's lane and its children's, merged into one stream.
fn assemble(
    path: &Path,
    read: Read,
    files: &mut ChildFiles,
    ending: Ending,
    linking: Children,
) -> Result<Imported<SharedEvent>, ImportError> {
    let Read {
        main,
        inline,
        progress,
        mut report,
    } = read;

    let children = match linking {
        Children::Linked => children::link(
            path,
            main.session_id.as_deref(),
            &main.tasks,
            inline,
            progress,
            files,
            ending,
            &mut report,
        )?,
        Children::Later => Vec::new(),
    };

    let mut timeline = Timeline::default();
    let main_lane = timeline.add_lane(AgentId::Main);
    let mut child_model = None;
    for (n, (task, child)) in main.tasks.iter().zip(children).enumerate() {
        let lane = timeline.add_lane(AgentId::Sub(n as u32 + 1));
        child_model = child_model.or_else(|| child.conv.as_ref().and_then(|c| c.model.clone()));
        timeline.fill(lane, child_lane(task, child, ending));
        timeline.start_after(lane, main_lane, task.call_idx);
        if let Some(result) = task.result.as_ref().filter(|r| !r.background) {
            timeline.end_before(lane, main_lane, result.idx);
        }
    }
    let session = main.session_id.clone().unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let model = main
        .model
        .clone()
        .or(child_model)
        .unwrap_or_else(|| "unknown".into());
    let cwd = main.cwd.clone().unwrap_or_default();
    timeline.fill(main_lane, main.buf);
    let header = header(
        Format::ClaudeCode,
        path,
        session,
        timeline.first_ts(),
        cwd,
        model,
    );
    Ok(Imported {
        format: Format::ClaudeCode,
        header,
        events: timeline.merge(),
        bad_lines: report.bad_lines,
        skipped: report.skipped,
        children_loaded: report.children_loaded,
        notes: report.notes,
        truncated: report.truncated,
    })
}

/// Shows a finished abandoned branch as one note in the session's lane.
fn fold(main: &mut Converter, branch: Option<(usize, Converter)>) {
    if let Some((_, conv)) = branch {
        let fold = Fold::of(&conv.finish(Ending::Closed));
        main.rewound(&fold.label, &fold.listing, fold.span);
    }
}

/// A child's lane: its start, its transcript (if found), its end.
fn child_lane(task: &TaskCall, child: Child, ending: Ending) -> LaneBuf {
    let Child { conv, meta } = child;
    let head = child_start(task, &meta, conv.as_ref());
    let (mut buf, found) = match conv {
        Some(c) => (c.buf, Transcript::Found),
        None => (LaneBuf::default(), Transcript::Missing),
    };
    let tail = child_end(task, &buf, found, ending);
    buf.prepend(head);
    for pending in tail {
        buf.push_pending(pending);
    }
    buf
}
