//! Finding each `Task` call's subagent transcript.
//!
//! Claude Code has kept subagent transcripts in four places over its versions:
//! (a) `<session>/subagents/agent-<id>.jsonl` with `agent-<id>.meta.json` beside
//! it, in a folder named like the session file without `.jsonl`; (b) flat
//! `agent-<id>.jsonl` files next to the session file, shared by every session of
//! the project; (c) `isSidechain: true` lines inside the session file itself;
//! (d) `agent_progress` lines inside the session file, each carrying one of the
//! child's messages and the id of the call (`parentToolUseID`).
//! The rule that links a call to its transcript, first match wins:
//!
//! 1. a `meta.json` whose `toolUseId` is the call's id;
//! 2. the agent id the call's result names (`toolUseResult.agentId`, the
//!    result block's or line's `agentId`, or the `agentId: <id>` trailer of the
//!    result text) equal to the transcript's id (its file name
//!    `agent-<id>.jsonl` or its lines' `agentId`);
//! 3. the transcript's first user message equal to the call's `prompt` (after
//!    trimming), among transcripts of this session (flat files of other sessions,
//!    told by `sessionId`, are left alone); when several match, the one that
//!    started nearest the call;
//! 4. the `agent_progress` lines of the call, when no file or sidechain is its
//!    transcript (newer versions write both: the file is complete, so
//!    progress lines of a call a `meta.json` names are not even read).
//!
//! A call with no transcript still gets a lane (its prompt, an error saying the
//! transcript is missing, and its result); a transcript that matches no call is
//! left out with a note. `agent-acompact-*` files (context compaction) are not
//! subagents and are never read.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::lines::{Fed, Flow, JsonLines, Reading, str_at};
use super::super::live::Ending;
use super::super::{ImportError, Report};
use super::chains::{InlineChains, ProgressChains};
use super::convert::{Converter, TaskCall};
use super::wire::Line;

/// What `agent-<id>.meta.json` says.
#[derive(Debug, Clone, Default)]
pub(super) struct Meta {
    pub agent_type: Option<String>,
    pub model: Option<String>,
    pub tool_use_id: Option<String>,
}

#[derive(Clone)]
enum Origin {
    File(PathBuf),
    /// Index into the inline sidechain chains.
    Inline(usize),
    /// Index into the chains, for the call with this id.
    Progress(usize, String),
}

#[derive(Clone)]
struct Source {
    origin: Origin,
    agent_id: Option<String>,
    session_id: Option<String>,
    prompt: Option<String>,
    first_ts: Option<i64>,
    meta: Meta,
    used: bool,
}

/// A call's transcript, converted, with its `meta.json`.
pub(super) struct Child {
    pub conv: Option<Converter>,
    pub meta: Meta,
}

/// One [`Child`] per task call, in call order.
#[allow(clippy::too_many_arguments)]
pub(super) fn link(
    session: &Path,
    session_id: Option<&str>,
    tasks: &[TaskCall],
    inline: InlineChains,
    progress: ProgressChains,
    files: &mut ChildFiles,
    ending: Ending,
    report: &mut Report,
) -> Result<Vec<Child>, ImportError> {
    let dir = session.parent().unwrap_or(Path::new("."));
    let mut sources = Vec::new();
    for path in agent_files(&session.with_extension("").join("subagents")) {
        sources.push(files.peek(path)?);
    }
    // Conversations read from the session file itself, kept until linked.
    let mut chains: Vec<Option<Converter>> = Vec::new();
    let written_inside = inline.chains.into_iter().map(|conv| (None, conv)).chain(
        progress
            .chains
            .into_iter()
            .map(|(call, conv)| (Some(call), conv)),
    );
    for (call, conv) in written_inside {
        let conv = conv.finish(ending);
        sources.push(Source {
            origin: match call {
                Some(call) => Origin::Progress(chains.len(), call),
                None => Origin::Inline(chains.len()),
            },
            agent_id: conv.agent_id.clone(),
            session_id: conv.session_id.clone(),
            prompt: conv.prompt.clone(),
            first_ts: conv.first_ts,
            meta: Meta::default(),
            used: false,
        });
        chains.push(Some(conv));
    }

    let mut chosen: Vec<Option<usize>> = vec![None; tasks.len()];
    // 1. meta.json's toolUseId.
    for (task, slot) in tasks.iter().zip(chosen.iter_mut()) {
        *slot = take(&mut sources, |s| {
            s.meta.tool_use_id.as_deref() == Some(&task.call_id)
        });
    }
    // 2. The agent id named by the result.
    for (task, slot) in tasks.iter().zip(chosen.iter_mut()) {
        let Some(id) = task.result.as_ref().and_then(|r| r.agent_id.as_deref()) else {
            continue;
        };
        if slot.is_some() {
            continue;
        }
        *slot = take(&mut sources, |s| s.agent_id.as_deref() == Some(id));
        let flat = dir.join(format!("agent-{id}.jsonl"));
        if slot.is_none() && flat.is_file() && !known(&sources, &flat) {
            sources.push(files.peek(flat)?);
            *slot = take(&mut sources, |s| s.agent_id.as_deref() == Some(id));
        }
    }
    // 3. The prompt, looking at this session's flat files too.
    if chosen.iter().any(Option::is_none) {
        for path in agent_files(dir) {
            if known(&sources, &path) {
                continue;
            }
            let source = files.peek(path)?;
            let same_session = match (session_id, source.session_id.as_deref()) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            if same_session {
                sources.push(source);
            }
        }
        for (task, slot) in tasks.iter().zip(chosen.iter_mut()) {
            if slot.is_some() {
                continue;
            }
            let Some(prompt) = task.input.get("prompt").and_then(Value::as_str) else {
                continue;
            };
            let best = sources
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    !s.used
                        && s.progress_of().is_none()
                        && s.prompt.as_deref().map(str::trim) == Some(prompt.trim())
                })
                .min_by_key(|(_, s)| distance(s.first_ts, task.ts))
                .map(|(i, _)| i);
            if let Some(i) = best {
                sources[i].used = true;
                *slot = Some(i);
            }
        }
    }
    // 4. The call's progress lines.
    for (task, slot) in tasks.iter().zip(chosen.iter_mut()) {
        if slot.is_none() {
            let i = sources
                .iter()
                .position(|s| !s.used && s.progress_of() == Some(task.call_id.as_str()));
            if let Some(i) = i {
                sources[i].used = true;
                *slot = Some(i);
            }
        }
    }
    // Progress lines were a fallback; of the rest, flat files of other sessions
    // were never added, so anything here is ours.
    for source in sources
        .iter()
        .filter(|s| !s.used && s.progress_of().is_none())
    {
        report.notes.push(format!(
            "subagent transcript {} matched no Task call and is not shown",
            match &source.origin {
                Origin::File(p) => p.display().to_string(),
                Origin::Inline(_) | Origin::Progress(..) => format!(
                    "(inline sidechain{})",
                    source
                        .agent_id
                        .as_deref()
                        .map(|a| format!(" {a}"))
                        .unwrap_or_default()
                ),
            }
        ));
    }

    // The transcript files to read, read all at once (in parallel when read
    // whole).
    let wanted: Vec<&Path> = chosen
        .iter()
        .filter_map(|slot| slot.and_then(|i| sources.get(i)))
        .filter_map(|s| match &s.origin {
            Origin::File(path) => Some(path.as_path()),
            Origin::Inline(_) | Origin::Progress(..) => None,
        })
        .collect();
    files.convert_all(&wanted, ending, report)?;
    let mut children = Vec::with_capacity(tasks.len());
    for (task, slot) in tasks.iter().zip(chosen) {
        let Some(source) = slot.and_then(|i| sources.get(i)) else {
            report.notes.push(format!(
                "Task call {}: no subagent transcript found",
                task.call_id
            ));
            children.push(Child {
                conv: None,
                meta: Meta::default(),
            });
            continue;
        };
        let conv = match &source.origin {
            Origin::File(path) => files.converted.remove(path),
            Origin::Inline(i) | Origin::Progress(i, _) => chains.get_mut(*i).and_then(Option::take),
        };
        report.children_loaded += usize::from(conv.is_some());
        children.push(Child {
            conv,
            meta: source.meta.clone(),
        });
    }
    Ok(children)
}

impl Source {
    /// The call whose progress lines this transcript is made of.
    fn progress_of(&self) -> Option<&str> {
        match &self.origin {
            Origin::Progress(_, call) => Some(call),
            Origin::File(_) | Origin::Inline(_) => None,
        }
    }
}

/// Marks and returns the first unused file or sidechain that fits.
fn take(sources: &mut [Source], fits: impl Fn(&Source) -> bool) -> Option<usize> {
    let i = sources
        .iter()
        .position(|s| !s.used && s.progress_of().is_none() && fits(s))?;
    sources[i].used = true;
    Some(i)
}

fn known(sources: &[Source], path: &Path) -> bool {
    sources
        .iter()
        .any(|s| matches!(&s.origin, Origin::File(p) if p == path))
}

/// How far a transcript's start is from the call; one that starts before the
/// call is a worse match than any that starts after.
fn distance(start: Option<i64>, call: Option<i64>) -> (bool, i64) {
    match (start, call) {
        (Some(s), Some(c)) => (s < c, (s - c).abs()),
        _ => (true, i64::MAX),
    }
}

/// `agent-*.jsonl` files in `dir`, sorted; none when it does not exist.
fn agent_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("agent-") && n.ends_with(".jsonl") && !n.starts_with("agent-acompact")
            }) && p.is_file()
        })
        .collect();
    files.sort();
    files
}

/// The calls whose transcripts a `meta.json` of `<session>/subagents/` names:
/// their progress lines need not be read.
pub(super) fn described_calls(session: &Path) -> HashSet<String> {
    agent_files(&session.with_extension("").join("subagents"))
        .iter()
        .filter_map(|path| read_meta(path).tool_use_id)
        .collect()
}

/// Reads what linking needs from a transcript's first lines and its meta.json.
fn peek(path: PathBuf) -> Result<Source, ImportError> {
    let mut lines = JsonLines::open(&path)?;
    // Bad lines are reported when the file is read in full, not here.
    let mut scratch = Report::default();
    let mut source = Source {
        agent_id: file_agent_id(&path),
        session_id: None,
        prompt: None,
        first_ts: None,
        meta: read_meta(&path),
        used: false,
        origin: Origin::File(path),
    };
    let mut looked = 0;
    while looked < 64 {
        let Some(at) = lines.advance(Reading::ToEnd, &mut scratch)? else {
            break;
        };
        let line = match Line::parse(lines.text()) {
            Ok(line) => line,
            Err(e) => match lines.reject(at, &e, &mut scratch) {
                Flow::Next => continue,
                Flow::End => break,
            },
        };
        looked += 1;
        if source.session_id.is_none() {
            source.session_id = line.session_id.owned();
        }
        source.first_ts = source.first_ts.or(line.timestamp.ms());
        if line.kind.get() == Some("user") {
            let mut conv = Converter::new(false);
            conv.line(line, &mut scratch);
            if let Some(prompt) = conv.prompt {
                source.prompt = Some(prompt);
                break;
            }
        }
    }
    Ok(source)
}

fn file_agent_id(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    stem.strip_prefix("agent-").map(String::from)
}

fn read_meta(path: &Path) -> Meta {
    let meta_path = path.with_extension("meta.json");
    let Some(value) = std::fs::read(&meta_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
    else {
        return Meta::default();
    };
    let get = |k: &str| {
        str_at(&value, k)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    Meta {
        agent_type: get("agentType"),
        model: get("model"),
        tool_use_id: get("toolUseId"),
    }
}

/// Reads a whole transcript into a lane.
/// The transcript files of one import: read once, or kept and fed as they
/// grow ([`Reading::Growing`], for a session being followed).
pub(super) struct ChildFiles {
    reading: Reading,
    peeked: HashMap<PathBuf, Source>,
    fed: HashMap<PathBuf, Fed<Converter>>,
    /// What [`ChildFiles::convert_all`] made, until linked.
    converted: HashMap<PathBuf, Converter>,
    /// Transcripts read whole before linking ([`prefetch`]), used instead
    /// of reading them again.
    preloaded: HashMap<PathBuf, Result<Whole, ImportError>>,
}

impl ChildFiles {
    pub fn new(reading: Reading) -> ChildFiles {
        ChildFiles {
            reading,
            peeked: HashMap::new(),
            fed: HashMap::new(),
            converted: HashMap::new(),
            preloaded: HashMap::new(),
        }
    }

    /// Transcripts already read whole, and what their first lines say
    /// ([`prefetch`]).
    pub fn preload(&mut self, prefetched: Prefetched) {
        self.preloaded.extend(prefetched.wholes);
        self.peeked.extend(prefetched.peeks);
    }

    /// Converts the transcripts at `paths` into [`ChildFiles::converted`],
    /// with what reading them found added to `report` in `paths` order.
    /// Files read whole are read by as many threads as there are cores: a
    /// session with 40 subagents has most of its bytes in their files.
    fn convert_all(
        &mut self,
        paths: &[&Path],
        ending: Ending,
        report: &mut Report,
    ) -> Result<(), ImportError> {
        let mut rest = Vec::with_capacity(paths.len());
        for path in paths {
            match self.preloaded.remove(*path) {
                Some(whole) => {
                    let (conv, found) = whole?;
                    report.absorb(&found);
                    self.converted.insert(path.to_path_buf(), conv);
                }
                None => rest.push(*path),
            }
        }
        let paths = rest.as_slice();
        if self.reading == Reading::Growing || paths.len() < 2 {
            for path in paths {
                let conv = self.convert(path, ending, report)?;
                self.converted.insert(path.to_path_buf(), conv);
            }
            return Ok(());
        }
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(paths.len());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut done: Vec<(usize, Result<Whole, ImportError>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(path) = paths.get(i) else {
                                return mine;
                            };
                            mine.push((i, read_whole(path, ending)));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect()
        });
        done.sort_by_key(|(i, _)| *i);
        for (i, result) in done {
            let (conv, found) = result?;
            report.absorb(&found);
            if let Some(path) = paths.get(i) {
                self.converted.insert(path.to_path_buf(), conv);
            }
        }
        // A worker that died took its files with it: read those here.
        for path in paths {
            if !self.converted.contains_key(*path) {
                let conv = self.convert(path, ending, report)?;
                self.converted.insert(path.to_path_buf(), conv);
            }
        }
        Ok(())
    }

    /// What a transcript's first lines say; kept once they name its prompt
    /// (they do not change after), or as [`prefetch`] found it.
    fn peek(&mut self, path: PathBuf) -> Result<Source, ImportError> {
        if let Some(source) = self.peeked.get(&path) {
            return Ok(source.clone());
        }
        let source = peek(path.clone())?;
        if self.reading == Reading::Growing && source.prompt.is_some() {
            self.peeked.insert(path, source.clone());
        }
        Ok(source)
    }

    /// The transcript at `path` as a conversation, with what reading it found
    /// added to `report`.
    fn convert(
        &mut self,
        path: &Path,
        ending: Ending,
        report: &mut Report,
    ) -> Result<Converter, ImportError> {
        let fed = match self.fed.entry(path.to_path_buf()) {
            Entry::Occupied(fed) => fed.into_mut(),
            Entry::Vacant(slot) => slot.insert(Fed::open(path, Converter::new(false))?),
        };
        fed.feed(self.reading, feed_line)?;
        report.absorb(&fed.report);
        let conv = match self.reading {
            Reading::ToEnd => match self.fed.remove(path) {
                Some(fed) => fed.conv,
                None => Converter::new(false),
            },
            Reading::Growing => fed.conv.peek(),
        };
        Ok(conv.finish(ending))
    }

    /// The transcript files being fed, for a follower to watch.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.fed.keys().map(PathBuf::as_path)
    }
}

/// A transcript read whole on its own, with what reading it found.
pub(super) type Whole = (Converter, Report);

/// Transcripts read whole before linking, with what their first lines say.
#[derive(Default)]
pub(super) struct Prefetched {
    wholes: HashMap<PathBuf, Result<Whole, ImportError>>,
    /// Of the transcripts whose first lines could be read.
    peeks: HashMap<PathBuf, Source>,
}

/// Reads every transcript in `<session>/subagents/` whole, on this thread,
/// before the session file says which of them its calls use: nearly all are
/// (a file no call links is left out with a note), and reading them beside
/// the session file puts a second core to work. What linking looks up in
/// each (its first lines, its `meta.json`) is read here too: this thread
/// ends before the one reading the session file. Flat files beside the
/// session, shared by the project's sessions, are left to linking.
pub(super) fn prefetch(session: &Path, ending: Ending) -> Prefetched {
    let mut prefetched = Prefetched::default();
    for path in agent_files(&session.with_extension("").join("subagents")) {
        if let Ok(source) = peek(path.clone()) {
            prefetched.peeks.insert(path.clone(), source);
        }
        let whole = read_whole(&path, ending);
        prefetched.wholes.insert(path, whole);
    }
    prefetched
}

fn read_whole(path: &Path, ending: Ending) -> Result<Whole, ImportError> {
    let mut fed = Fed::open(path, Converter::new(false))?;
    fed.feed(Reading::ToEnd, feed_line)?;
    Ok((fed.conv.finish(ending), fed.report))
}

/// Gives one line of a transcript to its conversation.
fn feed_line(conv: &mut Converter, text: &[u8], report: &mut Report) -> serde_json::Result<()> {
    conv.line(Line::parse(text)?, report);
    Ok(())
}
