//! Call ids a trace masks, taken back from the session's transcript.
//!
//! MyCodeAgent's trace sanitizer replaces every payload value under a key named
//! `tool_call_id`, `call_id` or `session_id` by `***`, so every `tool_call` of a
//! trace carries the same id, and its `tool_result` carries none. The transcript
//! the same runtime writes beside it (`memory/transcripts/transcript-<session>.jsonl`,
//! `transcript-subagent-<session>.jsonl` for a child) is not sanitized: its
//! `tool_lifecycle` facts name each call's real id, in the order the trace logged
//! the same calls (both files are written by one sink, event by event). Calls
//! are matched by tool name and arguments, results by tool name and the
//! `params_input` their envelope repeats; concurrent calls can finish in any
//! order, so neither match relies on position alone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::lines::{JsonLines, Reading, first_str, str_at};
use super::super::{ImportError, Report};

/// A trace's masked-id placeholder (`***`), or no id at all.
pub(super) fn masked(id: &str) -> bool {
    id.trim().chars().all(|c| c == '*')
}

/// Where the transcript of the trace session `session` would be, for a trace
/// in `dir`: the runtime's `memory/transcripts/` beside `memory/traces/`, or the
/// same folder when the files were copied together.
pub(super) fn transcript_for(dir: &Path, session: &str) -> Option<PathBuf> {
    let names = [
        format!("transcript-{session}.jsonl"),
        format!("transcript-subagent-{session}.jsonl"),
    ];
    let dirs: Vec<PathBuf> = dir
        .parent()
        .map(|p| p.join("transcripts"))
        .into_iter()
        .chain([dir.to_path_buf()])
        .collect();
    dirs.iter()
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|p| p.is_file())
}

/// How far past the oldest unused entry a match is looked for: the trace and
/// the transcript log the same calls in nearly the same order (concurrent calls
/// of one batch can swap), so a fitting entry is close, and a long session
/// stays linear.
const WINDOW: usize = 64;

struct Entry {
    name: String,
    id: String,
    used: bool,
}

/// Entries in transcript order; those before `next` are all used.
#[derive(Default)]
struct Queue {
    entries: Vec<Entry>,
    next: usize,
}

impl Queue {
    /// Takes the first unused entry of `name` near the front that `prefer`
    /// accepts, else the first of `name`.
    fn take(&mut self, name: &str, prefer: impl Fn(&str) -> bool) -> Option<String> {
        while self.entries.get(self.next).is_some_and(|e| e.used) {
            self.next += 1;
        }
        let near = self.entries.get(self.next..)?.iter().take(WINDOW);
        let fits: Vec<usize> = near
            .enumerate()
            .filter(|(_, e)| !e.used && e.name == name)
            .map(|(i, _)| self.next + i)
            .collect();
        let i = fits
            .iter()
            .copied()
            .find(|&i| prefer(&self.entries[i].id))
            .or(fits.first().copied())?;
        let entry = &mut self.entries[i];
        entry.used = true;
        Some(entry.id.clone())
    }
}

/// The real ids of one transcript's calls and results, in order.
#[derive(Default)]
pub(super) struct CallIds {
    calls: Queue,
    finishes: Queue,
    /// Each call's arguments, by id.
    args: HashMap<String, Value>,
}

impl CallIds {
    /// Reads the `tool_lifecycle` facts of a transcript; its bad lines are
    /// reported like any other file's.
    pub fn load(path: &Path, report: &mut Report) -> Result<Self, ImportError> {
        let mut lines = JsonLines::open(path)?;
        let mut ids = CallIds::default();
        while let Some((_, line)) = lines.next_object(Reading::ToEnd, report)? {
            if str_at(&line, "event_type") != Some("tool_lifecycle") {
                continue;
            }
            let p = line.get("payload").unwrap_or(&Value::Null);
            let (Some(name), Some(id)) = (
                first_str(p, &["tool_name", "tool"]),
                first_str(p, &["tool_call_id"]),
            ) else {
                continue;
            };
            let entry = Entry {
                name: name.to_string(),
                id: id.to_string(),
                used: false,
            };
            match str_at(p, "status").unwrap_or_default() {
                "requested" => {
                    let args = p.get("args").cloned().unwrap_or(Value::Null);
                    ids.args.insert(entry.id.clone(), args);
                    ids.calls.entries.push(entry);
                }
                "completed" | "failed" => ids.finishes.entries.push(entry),
                _ => {}
            }
        }
        Ok(ids)
    }

    /// The id of the next call of `name`, preferring one made with `args`.
    pub fn call(&mut self, name: &str, args: &Value) -> Option<String> {
        let made = &self.args;
        self.calls
            .take(name, |id| made.get(id).is_some_and(|a| a == args))
    }

    /// The id of the next result of `name`, preferring the call made with
    /// `args` (the result's `params_input`).
    pub fn result(&mut self, name: &str, args: Option<&Value>) -> Option<String> {
        let made = &self.args;
        self.finishes.take(name, |id| {
            args.is_some_and(|a| made.get(id).is_some_and(|m| m == a))
        })
    }
}
