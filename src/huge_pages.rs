//! Transparent huge pages refused for brood's own heap, and given back to
//! the commands brood starts.
//!
//! Every command but `replay --print` refuses huge pages for brood's heap
//! (`main.rs`'s `heap.rs` says why) with `PR_SET_THP_DISABLE`, which the
//! kernel hands on to every child and keeps across `exec`. A command an
//! agent runs (a build, a test suite, a server), a hook or an MCP server
//! should run as it would from the user's shell, so each is started with
//! the setting brood itself was given.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether brood refused huge pages it was given, so that the commands it
/// starts get them back.
static REFUSED: AtomicBool = AtomicBool::new(false);

/// Refuses huge pages for the rest of this process's life. A process that
/// was started without them keeps it that way, and so do its children.
pub fn refuse() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: reads a flag of this process; no memory is passed.
        let already = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        if already != 0 {
            return match already {
                1 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            };
        }
        // SAFETY: sets a flag of this process, which the kernel reads when
        // it backs a page; no memory is passed.
        if unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        REFUSED.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// Makes `command` start with the huge pages brood was given, when brood
/// refused them for itself.
pub fn give_back(command: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    if REFUSED.load(Ordering::Relaxed) {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the child between fork and exec, where
        // only async-signal-safe calls are allowed: prctl is a system call,
        // and the closure allocates nothing and takes no lock.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
                Ok(())
            });
        }
    }
}
