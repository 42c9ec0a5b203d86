use std::path::{Path, PathBuf};

use super::*;
use crate::trace::import::lax::read_fast;

/// Every `.jsonl` file under `dir`.
fn sessions(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(sessions(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            found.push(path);
        }
    }
    found
}

/// The fast reader is only worth having if it takes the lines Claude Code
/// writes, and only right if it reads them as serde_json does: every line of
/// every sample is held to both.
#[test]
fn every_sample_line_is_taken_by_the_fast_reader_and_read_as_serde_json_reads_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/import/claude");
    let mut taken = 0;
    for path in sessions(&dir) {
        let text = std::fs::read(&path).unwrap();
        for (no, line) in text.split(|&b| b == b'\n').enumerate() {
            let line = line.trim_ascii();
            if line.is_empty() {
                continue;
            }
            let slow = serde_json::from_slice::<Obj<Line>>(line);
            match (read_fast::<Line>(line), slow) {
                (Some(fast), Ok(Obj(Some(slow)))) => {
                    assert_eq!(
                        format!("{fast:?}"),
                        format!("{slow:?}"),
                        "{path:?}:{}",
                        no + 1
                    );
                    taken += 1;
                }
                (None, Ok(Obj(Some(_)))) => {
                    panic!("{path:?}:{}: declined a line serde_json reads", no + 1)
                }
                (Some(_), _) => panic!("{path:?}:{}: took a line serde_json refuses", no + 1),
                (None, _) => {}
            }
        }
    }
    assert!(taken > 100, "only {taken} lines read");
}
