//! The MyCodeAgent importer on any bytes, as a session's trace or transcript
//! and one child's (the input split at its first NUL), in the project's
//! `memory/traces/` folder. The importer finds a child by the session id the
//! parent names (`trace-<child_session_id>.jsonl` beside a trace,
//! `transcript-subagent-<id>.jsonl` beside a transcript), so the child's bytes
//! are written under each of the first few ids the parent's lines name. No
//! panic, and an import that succeeds is well formed (`common/imported.rs`:
//! seq in order, each child lane a start, its events and an end).
#![no_main]

#[path = "common/imported.rs"]
mod imported;

use brood::trace::import::import;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const SESSION: &str = "s-20260714-101500-7a3c";
/// Child ids written at most: a parent naming more only loses the others'.
const MAX_CHILDREN: usize = 4;

fuzz_target!(|data: &[u8]| {
    let (parent, child) = match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let traces = dir.path().join("shop/memory/traces");
    let path = traces.join(format!("trace-{SESSION}.jsonl"));
    if std::fs::create_dir_all(&traces).is_err() || std::fs::write(&path, parent).is_err() {
        return;
    }
    for id in child_ids(parent) {
        for name in [
            format!("trace-{id}.jsonl"),
            format!("transcript-subagent-{id}.jsonl"),
        ] {
            if std::fs::write(traces.join(name), child).is_err() {
                return;
            }
        }
    }
    if let Ok(imported) = import(&path) {
        imported::assert_well_formed(&imported);
    }
});

/// The ids a line of the parent may name a child by, usable in a file name.
fn child_ids(parent: &[u8]) -> Vec<String> {
    let mut ids = Vec::new();
    for line in parent.split(|b| *b == b'\n') {
        if let Ok(value) = serde_json::from_slice::<Value>(line.trim_ascii()) {
            collect(&value, &mut ids);
        }
        if ids.len() >= MAX_CHILDREN {
            break;
        }
    }
    ids.truncate(MAX_CHILDREN);
    ids
}

fn collect(value: &Value, ids: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match v {
                    Value::String(id)
                        if matches!(
                            key.as_str(),
                            "child_session_id" | "session_id" | "child_id"
                        ) && usable(id)
                            && !ids.contains(id) =>
                    {
                        ids.push(id.clone())
                    }
                    other => collect(other, ids),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, ids)),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// A name part that stays in the folder and is not the parent's own.
fn usable(id: &str) -> bool {
    !id.is_empty() && id.len() <= 100 && !id.contains(['/', '\0']) && id != SESSION
}
