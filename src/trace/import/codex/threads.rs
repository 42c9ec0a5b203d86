//! Which thread a rollout is, and where the rollouts of its sub-agents are.
//!
//! Codex writes every thread, sub-agents' included, to its own rollout in
//! `~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl`, in
//! the folder of the day it started. A sub-agent's first line, its
//! `session_meta`, names its parent: `source` is
//! `{"subagent": {"thread_spawn": {"parent_thread_id", "depth", "agent_nickname",
//! "agent_role", …}}}`, and newer versions repeat `parent_thread_id` at the top
//! of the payload. So the children of a session are found by reading only the
//! first line of each rollout in the day folders from the session's own day on.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::lines::{first_str, str_at, timestamp_ms};

/// Bytes of a first line read at most: a `session_meta` carries the base
/// instructions (a dozen kilobytes) and sometimes tool definitions.
const MAX_HEAD_BYTES: u64 = 4 * 1024 * 1024;

/// What a rollout's `session_meta` says about its thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Thread {
    pub id: Option<String>,
    /// The thread that spawned this one, for a sub-agent.
    pub parent: Option<String>,
    pub nickname: Option<String>,
    pub role: Option<String>,
    pub cwd: Option<String>,
    pub model: Option<String>,
    pub started: Option<i64>,
}

impl Thread {
    /// Reads a `session_meta` payload (or a 2025 rollout's bare header line).
    pub fn from_meta(meta: &Value) -> Thread {
        let spawn = meta
            .get("source")
            .and_then(|s| s.get("subagent"))
            .and_then(|s| s.get("thread_spawn"))
            .unwrap_or(&Value::Null);
        let text = |v: &Value, keys: &[&str]| first_str(v, keys).map(String::from);
        Thread {
            id: text(meta, &["id", "session_id"]),
            parent: text(spawn, &["parent_thread_id"])
                .or_else(|| text(meta, &["parent_thread_id"])),
            nickname: text(spawn, &["agent_nickname"]).or_else(|| text(meta, &["agent_nickname"])),
            role: text(spawn, &["agent_role", "agent_type"])
                .or_else(|| text(meta, &["agent_role", "agent_type"])),
            cwd: text(meta, &["cwd"]),
            model: text(meta, &["model"]),
            started: timestamp_ms(meta.get("timestamp")),
        }
    }
}

/// A rollout found in the sessions tree, known by its first line.
#[derive(Debug, Clone)]
pub(super) struct Head {
    pub path: PathBuf,
    pub thread: Thread,
}

/// The rollouts that may hold sub-agents of the session at `path`, which ran
/// until `until` (ms): those of the day folders of its sessions tree from its
/// own day to the day after `until` (folders are named by local dates), or,
/// when the file is not in such a tree, those beside it. The session itself is
/// left out.
pub(super) fn heads_near(path: &Path, until: Option<i64>) -> Vec<Head> {
    let last_day = until
        .and_then(|ms| chrono::DateTime::from_timestamp_millis(ms + 24 * 3600 * 1000))
        .map(|t| {
            use chrono::Datelike;
            (t.year().max(0) as u32, t.month(), t.day())
        });
    let folders = match day_folders(path, last_day) {
        Some(days) => days,
        None => vec![path.parent().unwrap_or(Path::new(".")).to_path_buf()],
    };
    let own = std::fs::canonicalize(path).ok();
    let mut heads = Vec::new();
    for folder in folders {
        for file in rollouts_in(&folder) {
            if own.is_some() && std::fs::canonicalize(&file).ok() == own {
                continue;
            }
            if let Some(thread) = read_head(&file) {
                heads.push(Head { path: file, thread });
            }
        }
    }
    heads
}

/// When `path` is `<root>/YYYY/MM/DD/<file>`: the day folders of `root` from
/// that day to `last` (or on), in date order.
fn day_folders(path: &Path, last: Option<(u32, u32, u32)>) -> Option<Vec<PathBuf>> {
    let day = path.parent()?;
    let month = day.parent()?;
    let year = month.parent()?;
    let root = year.parent()?;
    let number = |p: &Path, width: usize| -> Option<u32> {
        let name = p.file_name()?.to_str()?;
        (name.len() == width && name.bytes().all(|b| b.is_ascii_digit()))
            .then(|| name.parse().ok())
            .flatten()
    };
    let from = (number(year, 4)?, number(month, 2)?, number(day, 2)?);
    let mut days = Vec::new();
    for y in numbered(root, 4) {
        for m in numbered(&root.join(format!("{y:04}")), 2) {
            for d in numbered(&root.join(format!("{y:04}/{m:02}")), 2) {
                if (y, m, d) >= from && last.is_none_or(|last| (y, m, d) <= last) {
                    days.push((y, m, d));
                }
            }
        }
    }
    days.sort_unstable();
    Some(
        days.into_iter()
            .map(|(y, m, d)| root.join(format!("{y:04}/{m:02}/{d:02}")))
            .collect(),
    )
}

/// The sub-folders of `dir` named by a number of `width` digits.
fn numbered(dir: &Path, width: usize) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            (name.len() == width && name.bytes().all(|b| b.is_ascii_digit()))
                .then(|| name.parse().ok())
                .flatten()
        })
        .collect()
}

/// `rollout-*.jsonl` files of `dir`, sorted.
fn rollouts_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    files
}

/// The thread named by the first line of a rollout, if that line is one.
pub(super) fn read_head(path: &Path) -> Option<Thread> {
    let file = File::open(path).ok()?;
    let mut reader = BufReader::new(file.take(MAX_HEAD_BYTES));
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).ok()?;
    let value: Value = serde_json::from_slice(line.trim_ascii()).ok()?;
    let meta = match (str_at(&value, "type"), value.get("payload")) {
        (Some("session_meta"), Some(payload)) => payload,
        // A 2025 rollout's first line is the bare header.
        (None, None) if str_at(&value, "id").is_some() => &value,
        _ => return None,
    };
    Some(Thread::from_meta(meta))
}
