//! The Codex rollout importer on any bytes, as a session's rollout and one
//! sub-agent's rollout (the input split at its first NUL), both in one day
//! folder of a sessions tree (`sessions/YYYY/MM/DD/rollout-*.jsonl`), where
//! the importer looks for the rollouts whose `session_meta` names the session
//! as their parent: no panic, and an import that succeeds is well formed
//! (`common/imported.rs`: seq in order, each child lane a start, its events
//! and an end).
#![no_main]

#[path = "common/imported.rs"]
mod imported;

use brood::trace::import::import;
use libfuzzer_sys::fuzz_target;

const DAY: &str = "sessions/2026/02/11";
const PARENT: &str = "rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl";
const CHILD: &str = "rollout-2026-02-11T23-50-30-019c4d11-0b2c-7d3e-9f40-5a6b7c8d9e01.jsonl";

fuzz_target!(|data: &[u8]| {
    let (parent, child) = match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let day = dir.path().join(DAY);
    let path = day.join(PARENT);
    if std::fs::create_dir_all(&day).is_err()
        || std::fs::write(&path, parent).is_err()
        || std::fs::write(day.join(CHILD), child).is_err()
    {
        return;
    }
    if let Ok(imported) = import(&path) {
        imported::assert_well_formed(&imported);
    }
});
