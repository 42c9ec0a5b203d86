//! Readers are bounded, through the binary: a line over the limit is a bad
//! line (reported by number, the events around it kept), and files that are
//! not regular files (a FIFO, a device) are refused at once instead of
//! blocking or reading forever.

mod common;

use std::io::Write;

use common::{Sandbox, stderr, stdout};
use serde_json::json;

fn header() -> String {
    json!({"format": "brood-trace", "version": 1, "session": "s",
           "started_at": "2026-01-01T00:00:00Z", "cwd": "/", "provider": "offline",
           "model": "m", "light_model": null, "brood_version": "0"})
    .to_string()
}

fn event(seq: u64, text: &str) -> String {
    json!({"seq": seq, "t_ms": 0, "agent": "main", "type": "text_delta", "text": text}).to_string()
}

#[test]
fn a_line_over_the_limit_is_a_bad_line_and_the_rest_is_read() {
    let sb = Sandbox::new();
    let path = sb.write("long.jsonl", "");
    let mut file = std::fs::File::create(&path).expect("create");
    writeln!(file, "{}", header()).expect("write");
    writeln!(file, "{}", event(1, "before the long line")).expect("write");
    // 65 MiB of one line, over the 64 MiB limit.
    let chunk = vec![b'a'; 1024 * 1024];
    for _ in 0..65 {
        file.write_all(&chunk).expect("write");
    }
    writeln!(file).expect("write");
    writeln!(file, "{}", event(2, " and after the long line")).expect("write");
    drop(file);

    let out = sb.run(&["replay", "--print", path.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (printed, notes) = (stdout(&out), stderr(&out));
    assert!(printed.contains("before the long line"), "{printed}");
    assert!(printed.contains("after the long line"), "{printed}");
    assert!(
        notes.contains("skipped line 3: 68157441 bytes, over the 64 MiB limit"),
        "{notes}"
    );

    let listed = sb.run(&["traces", sb.workspace().to_str().expect("path")]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
}

#[test]
fn fifos_and_devices_are_refused_at_once() {
    let sb = Sandbox::new();
    let fifo = sb.workspace().join("pipe.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    for path in [fifo.to_str().expect("path"), "/dev/zero"] {
        let out = sb.run(&["replay", "--print", path]);
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("is not a regular file"),
            "{path}: {}",
            stderr(&out)
        );
    }
}
