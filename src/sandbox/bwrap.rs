//! bubblewrap's command lines, and the one check at start that it works here.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::Network;

/// bubblewrap on `PATH`, if it is installed.
pub(super) fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
}

/// Runs `true` under `program args`; the error is bubblewrap's own first line
/// (it names what the kernel refused).
pub(super) fn works(program: &Path, args: &[OsString]) -> Result<(), String> {
    let mut command = std::process::Command::new(program);
    if args.iter().any(|a| a == "--seccomp") {
        let filter = super::seccomp::program_file()
            .map_err(|e| format!("cannot prepare the seccomp filter: {e}"))?;
        pass_seccomp(&mut command, filter);
    }
    let output = command
        .args(args)
        .arg("true")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    Err(match first.trim() {
        "" => format!("bwrap failed ({})", output.status),
        line => crate::text::visible(line).into_owned(),
    })
}

/// Where a confined command may write and what it may not see.
pub(super) struct Layout {
    pub writable: Vec<PathBuf>,
    /// Folders replaced by an empty read-only one (brood's own config and
    /// data, folders the user's rules deny reading).
    pub hidden: Vec<PathBuf>,
    /// Files replaced by an empty one (`/dev/null`).
    pub hidden_files: Vec<PathBuf>,
    pub network: Network,
    /// In a user namespace of its own, with further ones forbidden.
    pub userns: bool,
    /// The seccomp program at [`SECCOMP_FD`] (with the network off).
    pub seccomp: bool,
    pub cwd: PathBuf,
}

/// The descriptor the seccomp program is handed to bubblewrap on.
pub(super) const SECCOMP_FD: i32 = 10;

/// The arguments of a confined command, up to and including `--`.
pub(super) fn confined_args(layout: &Layout) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::with_capacity(40);
    let mut push = |words: &[&str]| args.extend(words.iter().map(OsString::from));
    // A terminal session of its own: no TIOCSTI into brood's terminal, no
    // /dev/tty. Killed with brood.
    push(&["--new-session", "--die-with-parent"]);
    if layout.userns {
        push(&["--unshare-user", "--disable-userns"]);
    }
    push(&[
        "--cap-drop",
        "ALL",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]);
    if layout.network == Network::Off {
        push(&["--unshare-net"]);
    }
    push(&["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    for dir in &layout.writable {
        args.extend(["--bind".into(), dir.into(), dir.into()]);
    }
    for dir in &layout.hidden {
        args.extend([
            "--tmpfs".into(),
            dir.into(),
            "--remount-ro".into(),
            dir.into(),
        ]);
    }
    for file in &layout.hidden_files {
        args.extend(["--ro-bind".into(), "/dev/null".into(), file.into()]);
    }
    if layout.seccomp {
        args.extend(["--seccomp".into(), SECCOMP_FD.to_string().into()]);
    }
    args.extend(["--chdir".into(), layout.cwd.clone().into(), "--".into()]);
    args
}

/// Hands `program` to the command on [`SECCOMP_FD`], read from its start
/// (for a tokio command, through `as_std_mut`).
pub(super) fn pass_seccomp(command: &mut std::process::Command, program: std::os::fd::OwnedFd) {
    pass_fd(command, program, SECCOMP_FD);
}

/// Hands `file` to the command on descriptor `target`, read from its start.
///
/// `file` is close-on-exec here. `dup2` gives the copy at `target` a clear
/// flag, but when `file` already is `target` it does nothing, so the flag is
/// cleared by hand: otherwise the command would start without the descriptor
/// (which happens whenever the descriptors this process holds leave `target`
/// the lowest free one).
fn pass_fd(command: &mut std::process::Command, file: std::os::fd::OwnedFd, target: i32) {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec and calls
    // only lseek, dup2 and fcntl, which are async-signal-safe; `file` is moved
    // in and outlives the spawn.
    unsafe {
        command.pre_exec(move || {
            let fd = file.as_raw_fd();
            if libc::lseek(fd, 0, libc::SEEK_SET) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let handed = if fd == target {
                libc::fcntl(fd, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, target)
            };
            if handed < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The arguments in mode `off`: the real file system, writable, devices and
/// all, but in a PID namespace that ends with the command and with brood.
pub(super) fn reaper_args() -> Vec<OsString> {
    [
        "--new-session",
        "--die-with-parent",
        "--unshare-pid",
        "--dev-bind",
        "/",
        "/",
        "--",
    ]
    .into_iter()
    .map(OsString::from)
    .collect()
}

/// brood's config and data folders, where they exist and hold no writable
/// root: a command has no business reading brood's settings, log or other
/// sessions' traces.
pub(super) fn hidden_dirs(writable: &[PathBuf]) -> Vec<PathBuf> {
    [crate::config::config_dir(), crate::config::data_dir().ok()]
        .into_iter()
        .flatten()
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .filter(|dir| !writable.iter().any(|root| root.starts_with(dir)))
        .collect()
}

/// Asks the kernel to kill the command when brood dies: the parent-death
/// signal, for commands that run without bubblewrap (which sets it itself).
pub(super) fn die_with_parent(command: &mut tokio::process::Command) {
    // SAFETY: the closure runs in the child between fork and exec and calls only
    // prctl and getppid, which are async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // brood died between fork and prctl: the signal will never come.
            if libc::getppid() == 1 {
                return Err(std::io::Error::other("brood is gone"));
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::fd::{AsRawFd, OwnedFd};

    /// A close-on-exec file holding `text`, as the seccomp program is made.
    fn cloexec_file(text: &str) -> OwnedFd {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        OwnedFd::from(file)
    }

    fn read_in_child(file: OwnedFd, target: i32) -> String {
        let mut command = std::process::Command::new("bash");
        command.arg("-c").arg(format!("cat <&{target}"));
        super::pass_fd(&mut command, file, target);
        let output = command.output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    #[test]
    fn a_descriptor_reaches_the_command_on_the_number_it_is_asked_for() {
        assert_eq!(read_in_child(cloexec_file("program"), 57), "program");
    }

    /// The case that made bubblewrap start without its seccomp program: the
    /// file already has the number the command expects it on.
    #[test]
    fn a_descriptor_that_already_has_its_number_still_reaches_the_command() {
        let file = cloexec_file("program");
        let number = file.as_raw_fd();
        assert_eq!(read_in_child(file, number), "program");
    }
}
