//! Commands that replace files as a side effect ask, and through the policy
//! only when something is there to lose.

use std::sync::Arc;

use serde_json::json;

use crate::event::Decision;
use crate::policy::{PermissionMode, Policy};
use crate::protocol::ToolKind;
use crate::workspace::Workspace;

const REPLACING: &[(&str, Decision)] = &[
    ("mv other canary.txt", Decision::Ask),
    ("mv -f a b", Decision::Ask),
    ("cp /etc/hostname canary.txt", Decision::Ask),
    ("cp -r src dst", Decision::Ask),
    ("cp -t dir a b", Decision::Ask),
    ("install -m 644 build/app bin/app", Decision::Ask),
    ("ln -sf /etc/passwd canary.txt", Decision::Ask),
    ("ln -f a b", Decision::Ask),
    ("tar -cf canary.txt /dev/null", Decision::Ask),
    ("tar czf out.tgz src", Decision::Ask),
    ("tar --create --file=out.tar src", Decision::Ask),
    ("tar -xf archive.tar", Decision::Ask),
    ("tar xzf archive.tgz", Decision::Ask),
    ("gzip canary.txt", Decision::Ask),
    ("gunzip data.gz", Decision::Ask),
    ("bzip2 log.txt", Decision::Ask),
    ("xz -9 dump.sql", Decision::Ask),
    ("zstd --rm big.bin", Decision::Ask),
    ("zip -m x.zip canary.txt", Decision::Ask),
    ("sort -o canary.txt /dev/null", Decision::Ask),
    ("sort --output=canary.txt in.txt", Decision::Ask),
    ("curl -o canary.txt http://x", Decision::Ask),
    ("curl -O http://x/canary.txt", Decision::Ask),
    ("wget -O canary.txt http://x", Decision::Ask),
    ("wget --output-document=canary.txt http://x", Decision::Ask),
    ("sed -n 'w canary.txt' /dev/null", Decision::Ask),
    ("sed -e '1w canary.txt' README", Decision::Ask),
    ("sed 's/a/b/w out.txt' in.txt", Decision::Ask),
    ("sed 's/x/date/e' f", Decision::Ask),
    ("sed '1e rm canary.txt' f", Decision::Ask),
    ("kill 0", Decision::Ask),
    ("while :; do sleep 1 & done", Decision::Deny),
    ("while true; do yes > /dev/null & done", Decision::Deny),
    ("until false; do x & done", Decision::Deny),
    ("bash -c 'while :; do sh -c : & done'", Decision::Deny),
    ("for i in 1 2 3; do sleep 1 & done; wait", Decision::Allow),
    ("while read f; do echo $f & done < list", Decision::Allow),
    ("while :; do job & wait; done", Decision::Allow),
    ("while true; do make && break; done", Decision::Allow),
    // What keeps its input, writes nowhere or only lists stays allowed.
    ("cp -n a b", Decision::Allow),
    ("gzip -c canary.txt", Decision::Allow),
    ("gzip -k canary.txt", Decision::Allow),
    ("gunzip -c data.gz", Decision::Allow),
    ("xz -l dump.xz", Decision::Allow),
    ("zstd big.bin", Decision::Allow),
    ("tar -tf archive.tar", Decision::Allow),
    ("tar -cf - src", Decision::Allow),
    ("tar -xkf archive.tar", Decision::Allow),
    ("sort in.txt", Decision::Allow),
    ("sort -o /dev/null in.txt", Decision::Allow),
    ("curl -o - http://x", Decision::Allow),
    ("curl -s http://x", Decision::Allow),
    ("sed -n '/new /p' f", Decision::Allow),
    ("sed 's/one/two/g' f", Decision::Allow),
    ("sed -e 's/foo/bar/' -e 's/we/they/' f", Decision::Allow),
    ("ln -s target link", Decision::Allow),
    ("zip -r out.zip src", Decision::Allow),
    ("kill 1234", Decision::Allow),
];

#[test]
fn commands_that_replace_files_ask() {
    super::fail_closed_tests::check(REPLACING);
}

#[test]
fn through_the_policy_only_what_is_there_to_lose_asks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("dir")).unwrap();
    std::fs::write(dir.path().join("dir/kept.txt"), "x").unwrap();
    std::fs::write(dir.path().join("kept.txt"), "x").unwrap();
    std::fs::write(dir.path().join("other.txt"), "x").unwrap();
    let workspace = Arc::new(Workspace::new(dir.path()).unwrap());
    let policy = Policy::new(workspace, PermissionMode::Normal);
    let bash = |command: &str| {
        policy
            .check("bash", ToolKind::Exec, &json!({"command": command}))
            .decision
    };
    for allowed in [
        "cp other.txt new.txt",
        "mv other.txt dir/",
        "cp other.txt dir",
        "cp -t dir other.txt",
        "tar -cf new.tar other.txt",
        "sort -o sorted.txt other.txt",
        "curl -o fresh.html http://127.0.0.1:1/",
    ] {
        assert_eq!(bash(allowed), Decision::Allow, "{allowed}");
    }
    for asked in [
        "cp other.txt kept.txt",
        "mv other.txt kept.txt",
        "cp kept.txt dir/",
        "mv kept.txt dir",
        "cp -t dir kept.txt",
        "tar -cf kept.txt other.txt",
        "sort -o kept.txt other.txt",
        "ln -sf other.txt kept.txt",
    ] {
        assert_eq!(bash(asked), Decision::Ask, "{asked}");
    }
}
