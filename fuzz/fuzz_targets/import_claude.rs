//! The Claude Code importer on any bytes, as a session file with one
//! subagent file beside it (the input split at its first NUL): no panic,
//! and an import that succeeds numbers its events in order. Built for the
//! fuzzer (`cfg(fuzzing)`), the importer also reads every line its fast
//! reader takes with serde_json, and panics if the two readings differ.
#![no_main]

use brood::trace::import::import;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (session, agent) = match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let path = dir.path().join("5e55a0b1-c0de-4bee-8a11-000000000001.jsonl");
    let subagents = dir.path().join("5e55a0b1-c0de-4bee-8a11-000000000001/subagents");
    if std::fs::write(&path, session).is_err()
        || std::fs::create_dir_all(&subagents).is_err()
        || std::fs::write(subagents.join("agent-a1.jsonl"), agent).is_err()
    {
        return;
    }
    if let Ok(imported) = import(&path) {
        let seqs: Vec<u64> = imported.events.iter().map(|e| e.seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "seq out of order: {seqs:?}");
    }
});
