//! Judgements about paths named in commands: which writes leave the workspace
//! (or hit a raw disk), and which recursive targets are the whole system.
//!
//! These work on the text of the command, before the shell expands it, so they
//! recognise the spellings that matter (`/`, `/*`, `~`, `$HOME`, `/dev/sda`) and
//! resolve `.` and `..` lexically; they cannot know where the shell's working
//! directory is, so relative paths are left to the command.

use crate::event::Decision;

/// Prefixes (after `/dev/`) of block devices: disks, partitions, RAID, loops.
const BLOCK_DEVICES: &[&str] = &[
    "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "dm-", "md", "mapper/", "loop",
    "sr", "nbd",
];

/// Writes here are routine and harmless.
const SAFE_FILES: &[&str] = &[
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/zero",
];
const SAFE_DIRS: &[&str] = &[
    "/tmp/",
    "/var/tmp/",
    "/dev/fd/",
    "/proc/self/fd/",
    "/dev/shm/",
];

/// Directories of the operating system itself.
const SYSTEM_DIRS: &[&str] = &[
    "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/boot", "/sys", "/proc", "/dev",
    "/var", "/opt", "/root", "/System", "/Library",
];

/// `path` with `.`, `..` and repeated slashes resolved as text.
fn normalize_abs(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

fn is_home(path: &str) -> bool {
    let rest = path
        .strip_prefix("${HOME}")
        .or_else(|| path.strip_prefix("$HOME"))
        .or_else(|| path.strip_prefix('~'));
    rest.is_some_and(|r| r.is_empty() || r.starts_with('/'))
}

/// What a recursive delete (or chmod/chown) of `target` would take with it when
/// that is the whole system or the home directory: `/`, `/*`, `/usr`, `~`,
/// `$HOME`.
pub(super) fn catastrophic_target(target: &str) -> Option<String> {
    let mut t = target;
    while let Some(shorter) = t
        .strip_suffix("/*")
        .or_else(|| t.strip_suffix("/."))
        .or_else(|| t.strip_suffix('/'))
    {
        if shorter.is_empty() {
            return Some("the root filesystem".into());
        }
        t = shorter;
    }
    if is_home(t) && !t.contains('/') {
        return Some("the home directory".into());
    }
    if t.starts_with('~') && !t.contains('/') {
        return Some(format!("the home directory {t}"));
    }
    if t.starts_with('/') {
        let normal = normalize_abs(t);
        if normal == "/" {
            return Some("the root filesystem".into());
        }
        if normal.matches('/').count() == 1 {
            return Some(format!("the top-level directory {normal}"));
        }
    }
    None
}

/// Whether writing to `path` (a redirect, `tee`, `dd of=`, a copy's target)
/// needs a person: raw disks are denied; the home directory, system paths and
/// other absolute paths outside the temp directories ask. Relative paths and
/// paths behind variables other than `$HOME` are the command's own business.
pub(super) fn write_target(path: &str) -> Option<(Decision, String)> {
    if is_home(path) {
        return Some((
            Decision::Ask,
            "writes into the home directory, outside the workspace".into(),
        ));
    }
    if !path.starts_with('/') {
        return None;
    }
    let normal = normalize_abs(path);
    if let Some(device) = normal.strip_prefix("/dev/")
        && BLOCK_DEVICES.iter().any(|b| device.starts_with(b))
    {
        return Some((
            Decision::Deny,
            format!("writes to the raw disk device {normal}"),
        ));
    }
    let dir = format!("{normal}/");
    if SAFE_FILES.contains(&normal.as_str()) || SAFE_DIRS.iter().any(|d| dir.starts_with(d)) {
        return None;
    }
    if SYSTEM_DIRS
        .iter()
        .any(|d| normal == *d || normal.starts_with(&format!("{d}/")))
    {
        return Some((
            Decision::Ask,
            format!("writes into the system path {normal}"),
        ));
    }
    Some((
        Decision::Ask,
        format!("writes to {normal}, outside the workspace and temp directories"),
    ))
}
