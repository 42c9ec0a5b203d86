//! The trace file is brood's alone, through the binary: a `--trace` through a
//! symbolic link is refused (the target untouched), an existing 0644 file ends
//! 0600, a second session on a file another is writing refuses before it
//! truncates anything, and the traces folder is 0700.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Sandbox, stderr};
use serde_json::json;

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

fn quick() -> serde_json::Value {
    json!([{"text": "done"}])
}

#[test]
fn a_trace_through_a_symlink_is_refused_and_its_target_untouched() {
    let sb = Sandbox::new();
    let target = sb.write("elsewhere/precious.txt", "keep me\n");
    let link = sb.workspace().join("trace.jsonl");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let out = sb.run_script(quick(), &["--trace", link.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "keep me\n");
}

#[test]
fn an_existing_readable_trace_file_ends_owner_only() {
    let sb = Sandbox::new();
    let trace = sb.write("t.jsonl", "old\n");
    std::fs::set_permissions(&trace, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = sb.run_script(quick(), &["--trace", trace.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(mode(&trace), 0o600);
    let text = std::fs::read_to_string(&trace).expect("read");
    assert!(text.starts_with("{\"format\":\"brood-trace\""), "{text}");
}

#[test]
fn a_second_session_on_the_same_trace_refuses_without_truncating_it() {
    let sb = Sandbox::new();
    let trace = sb.workspace().join("shared.jsonl");
    let trace_arg = trace.to_str().expect("path").to_string();
    // The first session streams slowly, holding the trace for a few seconds.
    let slow = sb.script(
        json!([{"text": "one two three four five six seven eight", "chunk_delay_ms": 300}]),
    );
    let mut first = sb
        .command(&[
            "run",
            "--provider",
            "scripted",
            "--script",
            slow.to_str().expect("path"),
            "--trace",
            &trace_arg,
            "go",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("first session");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&trace).map_or(true, |t| t.lines().count() < 2) {
        assert!(
            Instant::now() < deadline,
            "the first session never wrote its trace"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = sb.run_script(quick(), &["--trace", &trace_arg]);
    assert_eq!(second.status.code(), Some(1), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("another brood session is writing it"),
        "{}",
        stderr(&second)
    );
    assert!(first.wait().expect("first ends").success());
    let text = std::fs::read_to_string(&trace).expect("read");
    assert!(
        text.contains("\"type\":\"turn_end\""),
        "the first trace is whole: {text}"
    );
    assert!(text.contains("eight"), "{text}");
}

#[test]
fn the_traces_folder_is_owner_only_even_when_it_existed() {
    let sb = Sandbox::new();
    let dir = sb.data().join("brood/traces");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = sb.run_script(quick(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(mode(&dir), 0o700);
    let traces = sb.traces();
    assert_eq!(traces.len(), 1);
    assert_eq!(mode(&traces[0]), 0o600);
}
