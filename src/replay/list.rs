//! `brood traces`: what each saved session was, read fast enough to list
//! hundreds of them.
//!
//! Children and tokens are spread through a trace, so each file is read once,
//! streaming, but only the few events that matter (the first prompt, turn ends,
//! subagent starts, interruptions, errors) are parsed; every other line is
//! recognised from its first bytes (`{"seq":…,"t_ms":…,"agent":…,"type":…`, the
//! order brood writes) and passed over. Files are summarized in parallel.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader};

use crate::trace::line::{self as trace_line, LineRead};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Deserialize;

use super::ReplayError;
use crate::event::{Event, EventKind, TerminalReason};
use crate::trace::{TraceError, TraceHeader, TraceReader};

const READ_BUFFER: usize = 256 * 1024;

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndState {
    Completed,
    Interrupted,
    /// The last turn ended for this reason (never `completed`/`interrupted`).
    Failed(TerminalReason),
    /// The last turn has no `turn_end`: brood was killed or is still running.
    Unfinished,
}

impl EndState {
    fn after_turn(reason: TerminalReason) -> EndState {
        match reason {
            TerminalReason::Completed => EndState::Completed,
            TerminalReason::Interrupted => EndState::Interrupted,
            reason @ (TerminalReason::MaxSteps
            | TerminalReason::TokenBudget
            | TerminalReason::CostBudget
            | TerminalReason::ContextBudget
            | TerminalReason::ContractViolation
            | TerminalReason::ModelError) => EndState::Failed(reason),
        }
    }

    /// `completed`, `interrupted`, `failed` or `unfinished`.
    pub fn word(&self) -> &'static str {
        match self {
            EndState::Completed => "completed",
            EndState::Interrupted => "interrupted",
            EndState::Failed(_) => "failed",
            EndState::Unfinished => "unfinished",
        }
    }
}

/// One saved session at a glance.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSummary {
    pub path: PathBuf,
    pub header: TraceHeader,
    /// From the first event to the last, in recorded time.
    pub duration_ms: u64,
    /// The user's first message to the parent.
    pub first_prompt: Option<String>,
    /// The user's messages to the parent.
    pub turns: usize,
    pub children: usize,
    /// Every agent's tokens, summed from their turn ends.
    pub tokens: u64,
    /// What those tokens cost at the built-in prices; `None` when no
    /// agent's model has one.
    pub cost: Option<f64>,
    pub end: EndState,
    /// The parent's last error message, when the session failed.
    pub error: Option<String>,
    pub events: usize,
    pub bad_lines: usize,
}

/// The sessions of a folder, newest first, and the files that are not traces.
#[derive(Debug, Default)]
pub struct Listing {
    pub sessions: Vec<TraceSummary>,
    pub unreadable: Vec<(PathBuf, String)>,
}

/// Summarizes every `*.jsonl` file of `dir` (none when `dir` does not exist).
pub fn list_traces(dir: &Path) -> Result<Listing, ReplayError> {
    let files = trace_files(dir)?;
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(files.len()));
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8)
        .min(files.len());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(path) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let summary = summarize(path);
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((path.clone(), summary));
                }
            });
        }
    });
    let mut listing = Listing::default();
    for (path, result) in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        match result {
            Ok(summary) => listing.sessions.push(summary),
            Err(ReplayError::UnknownFormat { looks, .. }) => {
                let why = match looks {
                    Some(looks) => format!("not a brood trace; it looks like {}", looks.describe()),
                    None => "not a brood trace".to_string(),
                };
                listing.unreadable.push((path, why));
            }
            Err(ReplayError::Empty { .. }) => listing.unreadable.push((path, "empty".into())),
            Err(e) => listing.unreadable.push((path, e.to_string())),
        }
    }
    listing.sessions.sort_by(|a, b| {
        let key = |s: &TraceSummary| (started_ms(&s.header), s.path.clone());
        key(b).cmp(&key(a))
    });
    listing.unreadable.sort();
    Ok(listing)
}

/// `DIR` as `brood traces DIR` names it: a folder that exists. (The default
/// folder may be missing: nothing was saved yet.)
pub fn check_folder(dir: &Path) -> Result<(), ReplayError> {
    let dir = dir.to_path_buf();
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(ReplayError::NotAFolder { dir }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ReplayError::NoFolder { dir }),
        Err(source) => Err(ReplayError::Io { path: dir, source }),
    }
}

/// The newest session of `dir`, by the start time in its header.
pub fn newest_trace(dir: &Path) -> Result<PathBuf, ReplayError> {
    trace_files(dir)?
        .into_iter()
        .filter_map(|path| {
            let header = read_header(&mut open(&path).ok()?, &path).ok()?;
            Some((started_ms(&header), path))
        })
        .max()
        .map(|(_, path)| path)
        .ok_or_else(|| ReplayError::NoTraces {
            dir: dir.to_path_buf(),
        })
}

fn trace_files(dir: &Path) -> Result<Vec<PathBuf>, ReplayError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ReplayError::io(dir)(e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(ReplayError::io(dir))?;
        let path = entry.path();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && path.extension().is_some_and(|e| e == "jsonl") {
            files.push(path);
        }
    }
    Ok(files)
}

/// Milliseconds since the epoch of the header's start (0 when unreadable, so
/// such sessions sort last).
fn started_ms(header: &TraceHeader) -> i64 {
    chrono::DateTime::parse_from_rfc3339(&header.started_at).map_or(0, |t| t.timestamp_millis())
}

fn open(path: &Path) -> Result<BufReader<File>, ReplayError> {
    let file = File::open(path).map_err(ReplayError::io(path))?;
    Ok(BufReader::with_capacity(READ_BUFFER, file))
}

fn read_header(input: &mut impl BufRead, path: &Path) -> Result<TraceHeader, ReplayError> {
    match TraceReader::new(path, input) {
        Ok(reader) => Ok(reader.header().clone()),
        // Not a brood trace: listed apart, not an error of the listing.
        Err(TraceError::BadHeader { message, .. }) => Err(ReplayError::UnknownFormat {
            path: path.to_path_buf(),
            looks: crate::trace::import::lookalike(path),
            detail: format!("line 1: {message}"),
        }),
        Err(e) => Err(e.into()),
    }
}

/// Reads one trace, streaming, into its summary.
pub fn summarize(path: &Path) -> Result<TraceSummary, ReplayError> {
    let mut input = open(path)?;
    let header = read_header(&mut input, path)?;
    let mut summary = TraceSummary {
        path: path.to_path_buf(),
        header,
        duration_ms: 0,
        first_prompt: None,
        turns: 0,
        cost: None,
        children: 0,
        tokens: 0,
        end: EndState::Unfinished,
        error: None,
        events: 0,
        bad_lines: 0,
    };
    let mut first_t: Option<u64> = None;
    let mut last_t = 0;
    let mut models = Models::default();
    let mut line = Vec::new();
    loop {
        match trace_line::read_line(&mut input, &mut line, trace_line::MAX_LINE_BYTES)
            .map_err(ReplayError::io(path))?
        {
            LineRead::End => break,
            LineRead::TooLong { .. } => {
                summary.bad_lines += 1;
                continue;
            }
            LineRead::Line { .. } => {}
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        let Some(peek) = peek(text) else {
            // A cut-off last line is normal; anything else is counted.
            summary.bad_lines += usize::from(line.ends_with(b"\n"));
            continue;
        };
        summary.events += 1;
        first_t.get_or_insert(peek.t_ms);
        last_t = last_t.max(peek.t_ms);
        take(&mut summary, &mut models, &peek, text);
    }
    summary.duration_ms = last_t.saturating_sub(first_t.unwrap_or(last_t));
    Ok(summary)
}

/// The children's models, by agent, as their starts name them.
#[derive(Default)]
struct Models {
    children: std::collections::HashMap<String, String>,
    prices: crate::protocol::PriceTable,
}

/// Updates the summary with one event, parsing it only when it matters.
fn take(summary: &mut TraceSummary, models: &mut Models, peek: &Peek<'_>, line: &[u8]) {
    let main = peek.agent == "main";
    let full = || serde_json::from_slice::<Event>(line).ok().map(|e| e.kind);
    match (&*peek.kind, main) {
        ("subagent_start", _) => {
            summary.children += 1;
            if let Some(EventKind::SubagentStart(start)) = full() {
                models
                    .children
                    .insert(peek.agent.to_string(), start.model_name);
            }
        }
        ("user_message", true) => {
            summary.turns += 1;
            if summary.first_prompt.is_none()
                && let Some(EventKind::UserMessage { text }) = full()
            {
                summary.first_prompt = Some(text);
            }
            summary.end = EndState::Unfinished;
            summary.error = None;
        }
        ("turn_end", _) => {
            if let Some(EventKind::TurnEnd { reason, usage, .. }) = full() {
                summary.tokens += usage.total();
                let model = match main {
                    true => Some(&summary.header.model),
                    false => models.children.get(&*peek.agent),
                };
                if let Some(cost) = model.and_then(|m| models.prices.cost(m, &usage)) {
                    *summary.cost.get_or_insert(0.0) += cost;
                }
                if main {
                    summary.end = EndState::after_turn(reason);
                }
            }
        }
        ("interrupted", true) => summary.end = EndState::Interrupted,
        ("error", true) => {
            if let Some(EventKind::Error { message }) = full() {
                summary.error = Some(message);
            }
        }
        _ => {}
    }
}

/// The fields of an event line that say what it is.
#[derive(Debug, Deserialize, PartialEq)]
struct Peek<'a> {
    t_ms: u64,
    #[serde(borrow)]
    agent: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
}

/// Reads `{"seq":N,"t_ms":N,"agent":"…","type":"…"` off the front of the line
/// without looking at the rest; a line in another shape is parsed in full.
fn peek(line: &[u8]) -> Option<Peek<'_>> {
    fast_peek(line).or_else(|| serde_json::from_slice(line).ok())
}

fn fast_peek(line: &[u8]) -> Option<Peek<'_>> {
    let rest = line.strip_prefix(br#"{"seq":"#)?;
    let (_, rest) = number(rest)?;
    let rest = rest.strip_prefix(br#","t_ms":"#)?;
    let (t_ms, rest) = number(rest)?;
    let rest = rest.strip_prefix(br#","agent":""#)?;
    let (agent, rest) = plain_string(rest)?;
    let rest = rest.strip_prefix(br#","type":""#)?;
    let (kind, rest) = plain_string(rest)?;
    // The rest must at least close the object for the line to count as whole.
    if !rest.ends_with(b"}") {
        return None;
    }
    Some(Peek {
        t_ms,
        agent: Cow::Borrowed(agent),
        kind: Cow::Borrowed(kind),
    })
}

fn number(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let value = std::str::from_utf8(&bytes[..digits]).ok()?.parse().ok()?;
    Some((value, &bytes[digits..]))
}

/// A string without escapes, up to its closing quote.
fn plain_string(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let end = bytes.iter().position(|b| *b == b'"' || *b == b'\\')?;
    if bytes[end] != b'"' {
        return None;
    }
    Some((std::str::from_utf8(&bytes[..end]).ok()?, &bytes[end + 1..]))
}
