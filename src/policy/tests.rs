use super::*;
use serde_json::json;
use std::os::unix::fs::symlink;

struct Fixture {
    ws_dir: tempfile::TempDir,
    outside: tempfile::TempDir,
    workspace: Arc<Workspace>,
}

fn fixture() -> Fixture {
    let ws_dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws_dir.path().join("src")).unwrap();
    std::fs::write(ws_dir.path().join("src/lib.rs"), "").unwrap();
    let workspace = Arc::new(Workspace::new(ws_dir.path()).unwrap());
    Fixture {
        ws_dir,
        outside,
        workspace,
    }
}

fn policy(f: &Fixture, mode: PermissionMode) -> Policy {
    Policy::new(f.workspace.clone(), mode)
}

#[test]
fn writes_inside_the_workspace_are_allowed() {
    let f = fixture();
    let p = policy(&f, PermissionMode::Normal);
    for path in ["src/lib.rs", "new/dir/file.txt", "./a/../b.txt"] {
        let v = p.check("write_file", ToolKind::Write, &json!({"path": path}));
        assert_eq!(v.decision, Decision::Allow, "{path}: {v:?}");
    }
    let abs = f.ws_dir.path().join("src/x.rs");
    let v = p.check(
        "edit_file",
        ToolKind::Write,
        &json!({"path": abs.to_str().unwrap()}),
    );
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

#[test]
fn writes_outside_the_workspace_are_denied_naming_the_resolved_path() {
    let f = fixture();
    let p = policy(&f, PermissionMode::Normal);
    let v = p.check(
        "write_file",
        ToolKind::Write,
        &json!({"path": "../escape.txt"}),
    );
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    let parent = f.workspace.root().parent().unwrap().join("escape.txt");
    assert!(v.reason.contains(&parent.display().to_string()), "{v:?}");

    let v = p.check(
        "edit_file",
        ToolKind::Write,
        &json!({"path": "/etc/passwd"}),
    );
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert!(v.reason.contains("/etc/passwd"), "{v:?}");

    let v = p.check(
        "write_file",
        ToolKind::Write,
        &json!({"path": "src/../../x"}),
    );
    assert_eq!(v.decision, Decision::Deny, "{v:?}");

    // A write with no path cannot be checked, so it does not run.
    let v = p.check("write_file", ToolKind::Write, &json!({}));
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
}

#[test]
fn a_symlink_escape_is_denied_for_writes() {
    let f = fixture();
    symlink(f.outside.path(), f.ws_dir.path().join("link")).unwrap();
    let p = policy(&f, PermissionMode::Normal);
    let v = p.check(
        "write_file",
        ToolKind::Write,
        &json!({"path": "link/secret.txt"}),
    );
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    let target = f.outside.path().canonicalize().unwrap().join("secret.txt");
    assert!(v.reason.contains(&target.display().to_string()), "{v:?}");
    // A symlinked file pointing out is caught too.
    symlink(
        f.outside.path().join("f"),
        f.ws_dir.path().join("file_link"),
    )
    .unwrap();
    std::fs::write(f.outside.path().join("f"), "x").unwrap();
    let v = p.check("edit_file", ToolKind::Write, &json!({"path": "file_link"}));
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
}

#[test]
fn reads_outside_the_workspace_ask() {
    let f = fixture();
    let p = policy(&f, PermissionMode::Normal);
    let v = p.check("read_file", ToolKind::Read, &json!({"path": "src/lib.rs"}));
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    let v = p.check(
        "read_file",
        ToolKind::Read,
        &json!({"path": "/etc/hostname"}),
    );
    assert_eq!(v.decision, Decision::Ask, "{v:?}");
    assert!(v.reason.contains("/etc/hostname"), "{v:?}");
    symlink(f.outside.path(), f.ws_dir.path().join("link")).unwrap();
    let v = p.check(
        "grep",
        ToolKind::Read,
        &json!({"path": "link", "pattern": "x"}),
    );
    assert_eq!(v.decision, Decision::Ask, "{v:?}");
    // No path (or not a string) means the workspace root.
    let v = p.check("glob", ToolKind::Read, &json!({"pattern": "**/*.rs"}));
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    let v = p.check("glob", ToolKind::Read, &json!({"path": 3}));
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

#[test]
fn read_only_mode_denies_everything_but_reads_even_when_called() {
    let f = fixture();
    let p = policy(&f, PermissionMode::ReadOnly);
    let calls = [
        ("bash", ToolKind::Exec, json!({"command": "ls"})),
        (
            "write_file",
            ToolKind::Write,
            json!({"path": "src/a.rs", "content": ""}),
        ),
        ("edit_file", ToolKind::Write, json!({"path": "src/lib.rs"})),
        ("task", ToolKind::Delegate, json!({"prompt": "x"})),
    ];
    for (tool, kind, input) in calls {
        let v = p.check(tool, kind, &input);
        assert_eq!(v.decision, Decision::Deny, "{tool}: {v:?}");
        assert_eq!(v.reason, format!("read-only mode: {tool} is not allowed"));
    }
    // An approved prefix does not reopen the door.
    p.allow_prefix("ls");
    assert_eq!(
        p.check("bash", ToolKind::Exec, &json!({"command": "ls"}))
            .decision,
        Decision::Deny
    );
    // Reads still follow the read rules.
    let v = p.check("read_file", ToolKind::Read, &json!({"path": "src/lib.rs"}));
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    let v = p.check(
        "read_file",
        ToolKind::Read,
        &json!({"path": "/etc/hostname"}),
    );
    assert_eq!(v.decision, Decision::Ask, "{v:?}");
}

#[test]
fn bash_calls_are_classified_and_task_is_allowed() {
    let f = fixture();
    let p = policy(&f, PermissionMode::Normal);
    let bash = |command: &str| p.check("bash", ToolKind::Exec, &json!({"command": command}));
    assert_eq!(bash("cargo test").decision, Decision::Allow);
    assert_eq!(bash("rm -r build").decision, Decision::Ask);
    assert_eq!(bash("sudo ls").decision, Decision::Deny);
    assert_eq!(bash("echo 'oops").decision, Decision::Ask);
    let v = p.check("bash", ToolKind::Exec, &json!({}));
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    let v = p.check("task", ToolKind::Delegate, &json!({"prompt": "look"}));
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

#[test]
fn allowed_prefixes_turn_ask_into_allow_but_never_deny() {
    let f = fixture();
    let p = policy(&f, PermissionMode::Normal);
    let bash = |command: &str| p.check("bash", ToolKind::Exec, &json!({"command": command}));
    assert_eq!(bash("rm -r build").decision, Decision::Ask);
    p.allow_prefix(&command_prefix("cd x && rm -r build"));
    assert_eq!(p.allowed_prefixes(), ["rm"]);
    let v = bash("rm -r build");
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    assert!(v.reason.contains("approved for this session"), "{v:?}");
    assert_eq!(bash("cd x && rm y").decision, Decision::Allow);
    // Never deny into allow.
    assert_eq!(bash("rm -rf /").decision, Decision::Deny);
    assert_eq!(bash("rm x; sudo ls").decision, Decision::Deny);
    // Other flagged commands still ask.
    assert_eq!(bash("rm x && git push --force").decision, Decision::Ask);
    assert_eq!(bash("rmdir d").decision, Decision::Ask);
    assert_eq!(bash("rm 'unterminated").decision, Decision::Ask);
    p.allow_prefix("git push");
    assert_eq!(bash("rm x && git push --force").decision, Decision::Allow);
    assert_eq!(bash("git reset --hard").decision, Decision::Ask);
    // An empty prefix would approve everything; it is ignored.
    p.allow_prefix("   ");
    assert_eq!(p.allowed_prefixes(), ["rm", "git push"]);
    assert_eq!(bash("git reset --hard").decision, Decision::Ask);
    // Writes outside the workspace are unaffected by command approvals.
    let v = p.check("write_file", ToolKind::Write, &json!({"path": "/tmp/x"}));
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
}

/// "Allow `rm` for the session" after `rm junk.txt` is a rule about the
/// workspace: the same command on a path outside it, or after changing
/// folder, asks again.
#[test]
fn a_session_approval_covers_paths_inside_the_workspace_only() {
    let f = fixture();
    let p = policy(&f, PermissionMode::Normal);
    let bash = |command: &str| p.check("bash", ToolKind::Exec, &json!({"command": command}));
    p.allow_prefix(&command_prefix("rm junk.txt"));
    for inside in [
        "rm junk.txt",
        "rm -rf build src/old",
        "rm -f ./a/../b",
        "cd src && rm x",
        "echo cd .. && rm x",
        "rm --interactive=never x",
    ] {
        assert_eq!(bash(inside).decision, Decision::Allow, "{inside}");
    }
    for outside in [
        "rm -rf ../sentinel",
        "rm /tmp/x",
        "rm ~/x",
        "rm $HOME/x",
        "rm `pwd`/../x",
        "cd .. && rm -rf sentinel",
        "cd && rm -rf x",
        "pushd /tmp; rm x",
        "popd; rm x",
        "cd $(mktemp -d) && rm x",
        "cd \"$HOME\" && rm x",
        "cd -- .. && rm x",
        "bash -c 'cd .. && rm -rf sentinel'",
        "rm --file=../x y",
    ] {
        let v = bash(outside);
        assert_eq!(v.decision, Decision::Ask, "{outside}: {v:?}");
    }
}

/// A redirection empties its file, so it asks while a file is there; writing
/// a new file loses nothing and is allowed. After a `cd` the text no longer
/// tells which file is meant, so it asks.
#[test]
fn emptying_a_file_asks_but_writing_a_new_one_does_not() {
    let f = fixture();
    let p = policy(&f, PermissionMode::Normal);
    let bash = |command: &str| p.check("bash", ToolKind::Exec, &json!({"command": command}));
    for new in [
        "echo hi > out.txt",
        "cargo test > new/test.log 2>&1",
        "echo x | tee fresh.txt",
        "cat <<'EOF' > notes.md\nhi\nEOF",
    ] {
        let v = bash(new);
        assert_eq!(v.decision, Decision::Allow, "{new}: {v:?}");
    }
    for existing in [
        "echo hi > src/lib.rs",
        ": > src/lib.rs",
        "> ./src/../src/lib.rs",
        "cp /dev/null src/lib.rs",
        "echo x | tee src/lib.rs",
        "cd src && echo > new.txt",
        "echo x > \"$OUT\"",
    ] {
        let v = bash(existing);
        assert_eq!(v.decision, Decision::Ask, "{existing}: {v:?}");
    }
    // A file the line writes and then runs was never checked.
    for command in [
        "echo 'rm x' > new.sh && sh new.sh",
        "echo 'rm x' > new.sh; . ./new.sh",
        "cat > run.sh <<'EOF'\nrm x\nEOF\nbash run.sh",
    ] {
        let v = bash(command);
        assert_eq!(v.decision, Decision::Ask, "{command}: {v:?}");
        assert!(v.reason.contains("which this line writes first"), "{v:?}");
    }
    let v = bash(": > src/lib.rs");
    assert_eq!(v.reason, "`> src/lib.rs` empties src/lib.rs if it exists");
    // An approved prefix does not cover emptying a file.
    p.allow_prefix("echo");
    assert_eq!(bash("echo > src/lib.rs").decision, Decision::Ask);
}

/// Command names from expansions ask through the policy too, and no session
/// approval waives that.
#[test]
fn expanded_command_names_ask_even_after_an_approval() {
    let f = fixture();
    let p = policy(&f, PermissionMode::Normal);
    let bash = |command: &str| p.check("bash", ToolKind::Exec, &json!({"command": command}));
    p.allow_prefix("rm");
    assert_eq!(bash("rm junk.txt").decision, Decision::Allow);
    for command in ["$x rm junk.txt", "$RM junk.txt", "r[m] junk.txt"] {
        assert_eq!(bash(command).decision, Decision::Ask, "{command}");
    }
    assert_eq!(bash("$x rm -rf /").decision, Decision::Deny);
}
