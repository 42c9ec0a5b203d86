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

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::lines::{JsonLines, first_str, str_at};
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

struct Call {
    name: String,
    id: String,
    args: Value,
    used: bool,
}

struct Finish {
    name: String,
    id: String,
    used: bool,
}

/// The real ids of one transcript's calls and results, in order.
#[derive(Default)]
pub(super) struct CallIds {
    calls: Vec<Call>,
    finishes: Vec<Finish>,
}

impl CallIds {
    /// Reads the `tool_lifecycle` facts of a transcript; its bad lines are
    /// reported like any other file's.
    pub fn load(path: &Path, report: &mut Report) -> Result<Self, ImportError> {
        let mut lines = JsonLines::open(path)?;
        let mut ids = CallIds::default();
        while let Some((_, line)) = lines.next_value(report)? {
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
            let (name, id) = (name.to_string(), id.to_string());
            match str_at(p, "status").unwrap_or_default() {
                "requested" => ids.calls.push(Call {
                    name,
                    id,
                    args: p.get("args").cloned().unwrap_or(Value::Null),
                    used: false,
                }),
                "completed" | "failed" => ids.finishes.push(Finish {
                    name,
                    id,
                    used: false,
                }),
                _ => {}
            }
        }
        Ok(ids)
    }

    /// The id of the next call of `name`, preferring one made with `args`.
    pub fn call(&mut self, name: &str, args: &Value) -> Option<String> {
        let open = |c: &Call| !c.used && c.name == name;
        let i = self
            .calls
            .iter()
            .position(|c| open(c) && c.args == *args)
            .or_else(|| self.calls.iter().position(open))?;
        let pick = &mut self.calls[i];
        pick.used = true;
        Some(pick.id.clone())
    }

    /// The id of the next result of `name`, preferring the call made with
    /// `args` (the result's `params_input`).
    pub fn result(&mut self, name: &str, args: Option<&Value>) -> Option<String> {
        let made_with =
            |id: &str| args.is_some_and(|a| self.calls.iter().any(|c| c.id == id && c.args == *a));
        let fits: Vec<usize> = (0..self.finishes.len())
            .filter(|&i| !self.finishes[i].used && self.finishes[i].name == name)
            .collect();
        let i = fits
            .iter()
            .copied()
            .find(|&i| made_with(&self.finishes[i].id))
            .or(fits.first().copied())?;
        let finish = &mut self.finishes[i];
        finish.used = true;
        Some(finish.id.clone())
    }
}
