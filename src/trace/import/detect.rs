//! Telling the formats apart by what the first lines say.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

use super::lines::str_at;
use super::{Format, ImportError};
use crate::trace::TRACE_FORMAT;

/// Non-empty lines looked at before giving up.
const MAX_LINES: usize = 20;
/// Bytes read at most: a first line can hold a whole file snapshot, but a binary
/// file without newlines must not be read whole.
const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Line types Claude Code writes into session files.
const CLAUDE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "file-history-snapshot",
    "progress",
    "queue-operation",
    "custom-title",
    "attachment",
    "pr-link",
];

/// Record types of a Codex rollout line `{timestamp, type, payload}`.
const CODEX_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// Fields only Claude Code's envelope has.
const CLAUDE_FIELDS: &[&str] = &[
    "sessionId",
    "parentUuid",
    "isSidechain",
    "uuid",
    "leafUuid",
    "messageId",
];

/// Which format the file at `path` is in, judged from its first non-empty lines
/// (a line that is not JSON, such as a cut-off one, is passed over).
pub fn detect(path: &Path) -> Result<Format, ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let mut reader = BufReader::new(file.take(MAX_BYTES));
    let mut buf = Vec::new();
    let mut seen = 0;
    while seen < MAX_LINES {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(io)? == 0 {
            break;
        }
        let text = buf.trim_ascii();
        if text.is_empty() {
            continue;
        }
        seen += 1;
        if let Ok(value) = serde_json::from_slice::<Value>(text)
            && let Some(format) = classify(&value)
        {
            return Ok(format);
        }
    }
    if seen == 0 {
        return Err(ImportError::Empty {
            path: path.to_path_buf(),
        });
    }
    Err(ImportError::UnknownFormat {
        path: path.to_path_buf(),
    })
}

/// The format one line belongs to, if it tells.
fn classify(line: &Value) -> Option<Format> {
    if str_at(line, "format") == Some(TRACE_FORMAT) {
        return Some(Format::Brood);
    }
    if str_at(line, "event").is_some()
        && line.get("payload").is_some()
        && (line.get("ts").is_some() || line.get("session_id").is_some())
    {
        return Some(Format::MyCodeAgent);
    }
    if is_codex(line) {
        return Some(Format::Codex);
    }
    // A MyCodeAgent transcript fact (`memory/transcripts/transcript-*.jsonl`).
    if str_at(line, "event_type").is_some()
        && line.get("payload").is_some_and(Value::is_object)
        && (line.get("schema_version").is_some() || line.get("run_id").is_some())
    {
        return Some(Format::MyCodeAgent);
    }
    let kind = str_at(line, "type")?;
    let claude_type = CLAUDE_TYPES.contains(&kind);
    let claude_fields = CLAUDE_FIELDS.iter().any(|f| line.get(f).is_some());
    let message =
        matches!(kind, "user" | "assistant") && line.get("message").is_some_and(Value::is_object);
    (claude_type && (claude_fields || message)).then_some(Format::ClaudeCode)
}

/// A Codex rollout record, or a line only a 2025 rollout has: its bare header
/// `{id, timestamp, instructions, …}` or a `{"record_type": "state"}` marker.
fn is_codex(line: &Value) -> bool {
    let record = str_at(line, "type").is_some_and(|t| CODEX_TYPES.contains(&t))
        && line.get("payload").is_some_and(Value::is_object);
    let untyped = line.get("type").is_none();
    let legacy_header = untyped
        && str_at(line, "id").is_some()
        && line.get("timestamp").is_some()
        && (line.get("instructions").is_some() || line.get("git").is_some());
    let state = untyped && str_at(line, "record_type") == Some("state");
    record || legacy_header || state
}
