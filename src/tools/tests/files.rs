//! read_file, write_file and edit_file on real files.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::Fixture;
use crate::tools::{EditFileTool, ReadFileTool, WriteFileTool};

/// Names in `dir` (not recursive), sorted.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn read_file_numbers_lines_like_cat_n() {
    let fx = Fixture::new();
    fx.write("src/a.txt", "alpha\r\nbeta\n\ngamma");
    let out = fx.ok(&ReadFileTool, json!({"path": "src/a.txt"})).await;
    assert_eq!(out, "     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma");
}

#[tokio::test]
async fn read_file_window_and_continue_marker() {
    let fx = Fixture::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    fx.write("f.txt", text);
    let out = fx
        .ok(
            &ReadFileTool,
            json!({"path": "f.txt", "offset": 3, "limit": 2}),
        )
        .await;
    assert_eq!(
        out,
        "     3\tline 3\n     4\tline 4\n\
         [... file continues: 6 more lines; read on with offset=5]"
    );
    let end = fx
        .ok(&ReadFileTool, json!({"path": "f.txt", "offset": 9}))
        .await;
    assert_eq!(end, "     9\tline 9\n    10\tline 10");
    let past = fx
        .err(&ReadFileTool, json!({"path": "f.txt", "offset": 11}))
        .await;
    assert!(
        past.contains("offset 11 is past the end of f.txt, which has 10 lines"),
        "{past}"
    );
}

#[tokio::test]
async fn read_file_huge_file_stops_at_2000_lines() {
    let fx = Fixture::new();
    let text: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    fx.write("big.txt", text);
    let out = fx.ok(&ReadFileTool, json!({"path": "big.txt"})).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2001);
    assert_eq!(lines[1999], "  2000\t2000");
    assert_eq!(
        lines[2000],
        "[... file continues: 98000 more lines; read on with offset=2001]"
    );
    let next = fx
        .ok(
            &ReadFileTool,
            json!({"path": "big.txt", "offset": 2001, "limit": 1}),
        )
        .await;
    assert!(
        next.starts_with("  2001\t2001\n[... file continues: 97999 more lines"),
        "{next}"
    );
}

#[tokio::test]
async fn read_file_stops_at_50k_characters() {
    let fx = Fixture::new();
    let line = "y".repeat(1000);
    let text: String = (0..200).map(|_| format!("{line}\n")).collect();
    fx.write("wide.txt", text);
    let out = fx.ok(&ReadFileTool, json!({"path": "wide.txt"})).await;
    assert!(out.len() <= 50_200, "{}", out.len());
    let shown = out.lines().filter(|l| l.contains('\t')).count();
    assert!((40..60).contains(&shown), "{shown}");
    let marker = out.lines().last().unwrap();
    let expected = format!(
        "[... file continues: {} more lines; read on with offset={}]",
        200 - shown,
        shown + 1
    );
    assert_eq!(marker, expected);
}

#[tokio::test]
async fn read_file_cuts_long_lines() {
    let fx = Fixture::new();
    fx.write("min.js", format!("{}\nshort\n", "x".repeat(5000)));
    let out = fx.ok(&ReadFileTool, json!({"path": "min.js"})).await;
    let first = out.lines().next().unwrap();
    assert!(
        first.ends_with("x [... line cut: 3000 more bytes]"),
        "{first}"
    );
    assert_eq!(first.matches('x').count(), 2000);
    assert_eq!(out.lines().nth(1).unwrap(), "     2\tshort");
}

#[tokio::test]
async fn read_file_refusals_name_the_path() {
    let fx = Fixture::new();
    let missing = fx
        .err(&ReadFileTool, json!({"path": "nope/missing.txt"}))
        .await;
    assert_eq!(missing, "file not found: nope/missing.txt");
    std::fs::create_dir(fx.dir.path().join("folder")).unwrap();
    let dir = fx.err(&ReadFileTool, json!({"path": "folder"})).await;
    assert!(
        dir.contains("folder is a directory") && dir.contains("glob"),
        "{dir}"
    );
    let mut binary = b"\x7fELF".to_vec();
    binary.extend_from_slice(&[0u8; 100]);
    fx.write("prog", &binary);
    let bin = fx.err(&ReadFileTool, json!({"path": "prog"})).await;
    assert_eq!(bin, "prog is a binary file (104 bytes); not shown");
}

#[tokio::test]
async fn read_file_empty_and_invalid_utf8() {
    let fx = Fixture::new();
    fx.write("empty", "");
    assert_eq!(
        fx.ok(&ReadFileTool, json!({"path": "empty"})).await,
        "(empty file)"
    );
    fx.write("latin1", b"caf\xe9\n");
    assert_eq!(
        fx.ok(&ReadFileTool, json!({"path": "latin1"})).await,
        "     1\tcaf\u{fffd}"
    );
}

#[tokio::test]
async fn write_file_creates_nested_folders_without_leftovers() {
    let fx = Fixture::new();
    let out = fx
        .ok(
            &WriteFileTool,
            json!({"path": "a/b/c.txt", "content": "hello"}),
        )
        .await;
    assert_eq!(out, "wrote 5 bytes to a/b/c.txt (new file)");
    assert_eq!(fx.read("a/b/c.txt"), "hello");
    assert_eq!(entries(&fx.dir.path().join("a/b")), ["c.txt"]);
    // A new file gets the same mode as any file created here (not tempfile's 0600).
    let mode = |rel: &str| {
        let meta = std::fs::metadata(fx.dir.path().join(rel)).unwrap();
        meta.permissions().mode() & 0o777
    };
    std::fs::File::create(fx.dir.path().join("reference")).unwrap();
    assert_eq!(mode("a/b/c.txt"), mode("reference"));
}

#[tokio::test]
async fn write_file_overwrites_keeping_permissions() {
    let fx = Fixture::new();
    fx.write("run.sh", "old");
    let path = fx.dir.path().join("run.sh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o750)).unwrap();
    let out = fx
        .ok(
            &WriteFileTool,
            json!({"path": "run.sh", "content": "#!/bin/sh\n"}),
        )
        .await;
    assert_eq!(out, "wrote 10 bytes to run.sh (overwrote existing file)");
    assert_eq!(fx.read("run.sh"), "#!/bin/sh\n");
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o750
    );
    assert_eq!(entries(fx.dir.path()), ["run.sh"]);
    std::fs::create_dir(fx.dir.path().join("d")).unwrap();
    let err = fx
        .err(&WriteFileTool, json!({"path": "d", "content": "x"}))
        .await;
    assert!(err.contains("d is a directory"), "{err}");
}

#[tokio::test]
async fn edit_file_replaces_exactly_one_match() {
    let fx = Fixture::new();
    fx.write("f.rs", "fn a() {}\nfn b() {}\n");
    std::fs::set_permissions(
        fx.dir.path().join("f.rs"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let out = fx
        .ok(
            &EditFileTool,
            json!({"path": "f.rs", "old_text": "fn b() {}", "new_text": "fn c() {}"}),
        )
        .await;
    assert_eq!(out, "replaced 1 occurrence in f.rs");
    assert_eq!(fx.read("f.rs"), "fn a() {}\nfn c() {}\n");
    let mode = std::fs::metadata(fx.dir.path().join("f.rs"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(entries(fx.dir.path()), ["f.rs"]);
}

#[tokio::test]
async fn edit_file_refuses_no_match_and_hints_at_whitespace() {
    let fx = Fixture::new();
    fx.write("f.py", "def f():\n    return 1\n");
    let input = |old: &str| json!({"path": "f.py", "old_text": old, "new_text": "x"});
    let none = fx.err(&EditFileTool, input("return 2")).await;
    assert_eq!(
        none,
        "old_text not found in f.py; read the file and copy the text exactly"
    );
    let indent = fx.err(&EditFileTool, input("def f():\n  return 1")).await;
    assert!(
        indent.contains("would match if whitespace were ignored"),
        "{indent}"
    );
    let empty = fx.err(&EditFileTool, input("")).await;
    assert!(empty.contains("old_text is empty"), "{empty}");
    let missing = fx
        .err(
            &EditFileTool,
            json!({"path": "g.py", "old_text": "a", "new_text": "b"}),
        )
        .await;
    assert!(
        missing.contains("file not found: g.py; use write_file"),
        "{missing}"
    );
    assert_eq!(fx.read("f.py"), "def f():\n    return 1\n");
}

#[tokio::test]
async fn edit_file_many_matches_need_replace_all() {
    let fx = Fixture::new();
    fx.write("f.txt", "foo foo\nfoo\n");
    let input = json!({"path": "f.txt", "old_text": "foo", "new_text": "bar"});
    let err = fx.err(&EditFileTool, input.clone()).await;
    assert_eq!(
        err,
        "old_text matches 3 times in f.txt; add more context or set replace_all"
    );
    assert_eq!(fx.read("f.txt"), "foo foo\nfoo\n");
    let mut all = input;
    all["replace_all"] = json!(true);
    assert_eq!(
        fx.ok(&EditFileTool, all).await,
        "replaced 3 occurrences in f.txt"
    );
    assert_eq!(fx.read("f.txt"), "bar bar\nbar\n");
    assert_eq!(entries(fx.dir.path()), ["f.txt"]);
}

/// A FIFO or a device would block a file tool forever or never end: each is
/// refused at once, and a FIFO stays a FIFO.
#[tokio::test]
async fn fifos_and_devices_are_refused_without_blocking() {
    use std::os::unix::fs::FileTypeExt;
    let fx = Fixture::new();
    let fifo = fx.dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let refused = "pipe is a FIFO (named pipe), not a regular file";
    let read = fx.err(&ReadFileTool, json!({"path": "pipe"})).await;
    assert!(read.starts_with(refused), "{read}");
    let edit = fx
        .err(
            &EditFileTool,
            json!({"path": "pipe", "old_text": "a", "new_text": "b"}),
        )
        .await;
    assert!(edit.starts_with(refused), "{edit}");
    let write = fx
        .err(&WriteFileTool, json!({"path": "pipe", "content": "x"}))
        .await;
    assert!(write.starts_with(refused), "{write}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let device = fx.err(&ReadFileTool, json!({"path": "/dev/zero"})).await;
    assert!(
        device.contains("is a device, not a regular file"),
        "{device}"
    );
}

/// A folder swapped for a symlink to outside, as fast as the kernel allows,
/// while the file tools write, read and edit beneath it: every call lands
/// inside or fails; nothing is written or read outside.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_in_never_leads_a_file_tool_outside() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "outside").unwrap();
    std::fs::write(outside.path().join("edit.txt"), "outside").unwrap();
    fx.write("sub/secret.txt", "inside");
    fx.write("sub/edit.txt", "inside");
    std::os::unix::fs::symlink(outside.path(), fx.dir.path().join("swap")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let (a, b) = (fx.dir.path().join("sub"), fx.dir.path().join("swap"));
        std::thread::spawn(move || {
            let a = std::ffi::CString::new(a.as_os_str().as_encoded_bytes()).unwrap();
            let b = std::ffi::CString::new(b.as_os_str().as_encoded_bytes()).unwrap();
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                // SAFETY: two NUL-terminated paths; RENAME_EXCHANGE swaps them atomically.
                let rc = unsafe {
                    libc::renameat2(
                        libc::AT_FDCWD,
                        a.as_ptr(),
                        libc::AT_FDCWD,
                        b.as_ptr(),
                        libc::RENAME_EXCHANGE,
                    )
                };
                assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
                swaps += 1;
            }
            swaps
        })
    };
    let (mut wrote, mut refused) = (0, 0);
    for i in 0..300 {
        let path = format!("sub/new-{i}.txt");
        match fx
            .run(&WriteFileTool, json!({"path": path, "content": "x"}))
            .await
        {
            Ok(_) => wrote += 1,
            Err(_) => refused += 1,
        }
        if let Ok(text) = fx
            .run(&ReadFileTool, json!({"path": "sub/secret.txt"}))
            .await
        {
            assert!(!text.contains("outside"), "read outside: {text}");
        }
        let _ = fx
            .run(
                &EditFileTool,
                json!({"path": "sub/edit.txt", "old_text": "side", "new_text": "side!"}),
            )
            .await;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 300, "the swap raced the calls ({swaps} swaps)");
    assert!(
        wrote > 0 && refused > 0,
        "both sides were hit: {wrote} written, {refused} refused"
    );
    let mut left: Vec<String> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["edit.txt", "secret.txt"], "nothing new outside");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("edit.txt")).unwrap(),
        "outside",
        "the file outside was never edited"
    );
}
