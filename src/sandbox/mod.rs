//! The OS sandbox every `bash` call runs in, for the parent and every child.
//!
//! Parsing shell text can never be the only wall, so commands run under the
//! kernel's own mechanisms, through bubblewrap (`bwrap`): a mount namespace in
//! which the whole file system is read-only but for the workspace, the session's
//! private temporary folder and the folders the user added; a PID namespace, so a
//! command sees neither brood's process nor its memory and nothing it starts
//! outlives the call (or brood); no network namespace peers unless the user turns
//! the network on; no capabilities and no new user namespaces, so even root
//! cannot remount its way out; a new terminal session, so it cannot type into
//! brood's terminal. The policy stays the layer that asks a person.
//!
//! Where the sandbox cannot be built, brood says so once at start, naming what
//! is missing, and runs with the policy alone; it never does so silently.

mod bwrap;
mod seccomp;
mod settings;

#[cfg(test)]
mod tests;

pub use crate::protocol::{Network, SandboxMode, SandboxSummary};
pub use settings::SandboxSettings;

use std::path::{Path, PathBuf};

use tokio::process::Command;

/// Why a sandbox could not be prepared at all (as opposed to being unavailable
/// on this machine, which is not an error but a warning).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot make the session's temporary folder: {0}")]
    TempDir(#[source] std::io::Error),
    #[error("the writable folder {path} cannot be used: {source}")]
    Writable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// How this session's commands are started.
#[derive(Debug)]
enum Mechanism {
    /// bubblewrap confines each command; `userns` says whether it runs in its
    /// own user namespace (root on a kernel without them still drops every
    /// capability).
    Bubblewrap { program: PathBuf, userns: bool },
    /// Mode `off`: commands run as they are, but under bubblewrap's PID
    /// namespace when it works, so nothing they start outlives brood.
    Unconfined { reaper: Option<PathBuf> },
    /// The sandbox was asked for and cannot be built here.
    Unavailable,
}

/// The sandbox of one session: shared by every agent, made once at start.
#[derive(Debug)]
pub struct Sandbox {
    settings: SandboxSettings,
    workspace: PathBuf,
    /// The session's private temporary folder (mode 0700), removed with the
    /// sandbox; `TMPDIR` inside.
    tmp: tempfile::TempDir,
    /// brood's own folders and the folders the user's rules deny reading,
    /// hidden from commands; found once, at start.
    hidden: Vec<PathBuf>,
    /// Files the user's rules deny reading, shown to commands as empty.
    hidden_files: Vec<PathBuf>,
    mechanism: Mechanism,
    summary: SandboxSummary,
}

impl Sandbox {
    /// Prepares the sandbox `settings` ask for around `workspace`, finding
    /// bubblewrap on `PATH` and checking once that this kernel lets it work.
    pub fn prepare(settings: SandboxSettings, workspace: &Path) -> Result<Sandbox, SandboxError> {
        Sandbox::prepare_with(settings, workspace, bwrap::find())
    }

    /// [`Sandbox::prepare`] with bubblewrap at `program` (or none), so the
    /// unavailable path can be tested on a machine that has it.
    fn prepare_with(
        settings: SandboxSettings,
        workspace: &Path,
        program: Option<PathBuf>,
    ) -> Result<Sandbox, SandboxError> {
        let mut settings = settings;
        // Mounted where they really are: a symlink's target is what gets written.
        for dir in &mut settings.writable {
            let error = |source| SandboxError::Writable {
                path: dir.clone(),
                source,
            };
            let real = std::fs::canonicalize(&*dir).map_err(error)?;
            if !real.is_dir() {
                return Err(error(std::io::Error::other("it is not a folder")));
            }
            *dir = real;
        }
        let tmp = tempfile::Builder::new()
            .prefix("brood-")
            .tempdir()
            .map_err(SandboxError::TempDir)?;
        let mut sandbox = Sandbox {
            summary: SandboxSummary {
                mode: settings.mode,
                network: settings.network,
                enforced_by: None,
                missing: None,
            },
            settings,
            workspace: std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf()),
            tmp,
            hidden: Vec::new(),
            hidden_files: Vec::new(),
            mechanism: Mechanism::Unavailable,
        };
        sandbox.hidden = bwrap::hidden_dirs(&sandbox.writable_roots());
        for path in &sandbox.settings.unreadable {
            match std::fs::canonicalize(path) {
                Ok(real) if real.is_dir() => sandbox.hidden.push(real),
                Ok(real) => sandbox.hidden_files.push(real),
                // Nothing there now: nothing to read either.
                Err(_) => {}
            }
        }
        sandbox.mechanism = match (sandbox.settings.mode, program) {
            (SandboxMode::Off, Some(program)) => {
                let reaper = bwrap::works(&program, &bwrap::reaper_args()).ok();
                Mechanism::Unconfined {
                    reaper: reaper.map(|()| program),
                }
            }
            (SandboxMode::Off, None) => Mechanism::Unconfined { reaper: None },
            (_, None) => {
                sandbox.summary.missing = Some(
                    "bubblewrap (`bwrap`) is not installed; on Debian and Ubuntu: \
                     apt-get install bubblewrap"
                        .to_string(),
                );
                Mechanism::Unavailable
            }
            (_, Some(program)) => sandbox.probe(program),
        };
        if let Mechanism::Bubblewrap { .. } = sandbox.mechanism {
            sandbox.summary.enforced_by = Some("bubblewrap".to_string());
        }
        Ok(sandbox)
    }

    /// Tries bubblewrap in its own user namespace, then (for root on a kernel
    /// that refuses them) without one but with every capability dropped.
    fn probe(&mut self, program: PathBuf) -> Mechanism {
        let mut why = String::new();
        for userns in [true, false] {
            match bwrap::works(&program, &self.confined_args(userns, Path::new("/"))) {
                Ok(()) => return Mechanism::Bubblewrap { program, userns },
                Err(e) if why.is_empty() => why = e,
                Err(_) => {}
            }
        }
        self.summary.missing = Some(format!(
            "bubblewrap cannot build the sandbox on this kernel: {why}"
        ));
        Mechanism::Unavailable
    }

    /// What the session runs under.
    pub fn summary(&self) -> &SandboxSummary {
        &self.summary
    }

    /// The one warning to show at start, when commands are not confined.
    pub fn warning(&self) -> Option<String> {
        match (&self.mechanism, &self.summary.missing) {
            (Mechanism::Bubblewrap { .. }, _) => None,
            (Mechanism::Unconfined { .. }, _) => Some(
                "the sandbox is off (--sandbox off): commands can write anywhere this user \
                 can, and reach the network; the permission policy still asks"
                    .to_string(),
            ),
            (Mechanism::Unavailable, Some(missing)) => Some(format!(
                "no sandbox: {missing}. Commands run with the permission policy alone \
                 (--sandbox off says you mean it)"
            )),
            (Mechanism::Unavailable, None) => {
                Some("no sandbox: commands run with the permission policy alone".to_string())
            }
        }
    }

    /// The session's private temporary folder.
    pub fn tmp_dir(&self) -> &Path {
        self.tmp.path()
    }

    /// The folders a command may write: the workspace (unless read-only), the
    /// private temporary folder, and the user's additions.
    pub fn writable_roots(&self) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        if self.settings.mode == SandboxMode::WorkspaceWrite {
            roots.push(self.workspace.clone());
        }
        roots.push(self.tmp.path().to_path_buf());
        roots.extend(self.settings.writable.iter().cloned());
        roots
    }

    /// A command that runs `script` with `bash -c` in `cwd`, inside the sandbox,
    /// with no credential in its environment. The caller adds pipes and the
    /// process group.
    pub fn command(&self, script: &str, cwd: &Path) -> Command {
        let mut command = match &self.mechanism {
            Mechanism::Bubblewrap { program, userns } => {
                let mut command = Command::new(program);
                let mut args = self.confined_args(*userns, cwd);
                // Without its program bubblewrap would refuse to start, so a
                // filter that cannot be made leaves the flag out (the
                // namespaces still hold) and the log says so.
                if self.settings.network == Network::Off {
                    match seccomp::program_file() {
                        Ok(filter) => bwrap::pass_seccomp(command.as_std_mut(), filter),
                        Err(e) => {
                            tracing::warn!("no seccomp filter for this command: {e}");
                            args.retain(|a| {
                                a != "--seccomp" && a != bwrap::SECCOMP_FD.to_string().as_str()
                            });
                        }
                    }
                }
                command
                    .args(args)
                    .arg("bash")
                    .env("TMPDIR", self.tmp.path());
                command
            }
            Mechanism::Unconfined {
                reaper: Some(program),
            } => {
                let mut command = Command::new(program);
                command.args(bwrap::reaper_args()).arg("bash");
                command
            }
            Mechanism::Unconfined { reaper: None } | Mechanism::Unavailable => {
                let mut command = Command::new("bash");
                bwrap::die_with_parent(&mut command);
                command
            }
        };
        command.arg("-c").arg(script).current_dir(cwd);
        for (name, _) in std::env::vars_os() {
            if crate::config::is_secret_var(&name.to_string_lossy()) {
                command.env_remove(name);
            }
        }
        crate::huge_pages::give_back(command.as_std_mut());
        command
    }

    /// bubblewrap's arguments for a confined command in `cwd`, up to the `--`
    /// that precedes the command itself.
    fn confined_args(&self, userns: bool, cwd: &Path) -> Vec<std::ffi::OsString> {
        let writable = self.writable_roots();
        bwrap::confined_args(&bwrap::Layout {
            hidden: self.hidden.clone(),
            hidden_files: self.hidden_files.clone(),
            writable,
            network: self.settings.network,
            userns,
            seccomp: self.settings.network == Network::Off,
            cwd: cwd.to_path_buf(),
        })
    }
}
