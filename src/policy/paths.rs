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
    if let Some(what) = above_home(target) {
        return Some(what);
    }
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

/// `~/..`, `$HOME/../..`, `~root/..`: a path that climbs out of a home
/// folder reaches the folder of every user's home, or the root.
fn above_home(target: &str) -> Option<String> {
    let (home, rest) = match target.split_once('/') {
        Some((home, rest)) => (home, rest),
        None => return None,
    };
    let is_home = home.starts_with('~') || home == "$HOME" || home == "${HOME}";
    if !is_home {
        return None;
    }
    let mut depth: i64 = 0;
    for part in rest.split('/') {
        match part {
            "" | "." | "*" => {}
            ".." => depth -= 1,
            _ => depth += 1,
        }
        if depth < 0 {
            return Some(format!("the folder above the home directory ({target})"));
        }
    }
    None
}

/// Devices writing to which destroys nothing: truncating them is no loss.
pub(super) fn is_sink(path: &str) -> bool {
    SAFE_FILES.contains(&path)
        || ["/dev/fd/", "/proc/self/fd/"].iter().any(|d| {
            path.strip_prefix(d)
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
        })
}

/// A source that copies as an empty file: `cp /dev/null f` empties `f`.
pub(super) fn emptied_target(path: &str) -> bool {
    path == "/dev/null" || path == "/dev/zero"
}

/// `path` with its variables (but `$HOME`) taken as empty, as the shell
/// leaves them when unset: `$dir/` is `/`. `None` when it has none.
pub(super) fn without_variables(path: &str) -> Option<String> {
    let chars: Vec<char> = path.chars().collect();
    let mut out = String::new();
    let mut changed = false;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '$' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let rest: String = chars[i..].iter().collect();
        if rest.starts_with("$HOME") || rest.starts_with("${HOME}") {
            out.push('$');
            i += 1;
            continue;
        }
        let len = match chars.get(i + 1) {
            Some('{') => chars[i..].iter().position(|c| *c == '}').map(|p| p + 1),
            Some(c) if c.is_ascii_alphabetic() || *c == '_' => Some(
                1 + chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                    .count(),
            ),
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(*c) => Some(2),
            _ => None,
        };
        match len {
            Some(len) => {
                changed = true;
                i += len;
            }
            None => {
                out.push('$');
                i += 1;
            }
        }
    }
    changed.then_some(out)
}
