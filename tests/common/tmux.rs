//! Driving the real binary in a real terminal: tmux runs an interactive shell
//! (with `brood` on its PATH and a clean environment), the test types with
//! send-keys and reads the screen with capture-pane. CI installs tmux
//! (`.ci/run`), so these tests never skip there; without tmux they fail loudly.

use std::process::Command;
use std::time::{Duration, Instant};

use super::Sandbox;

/// The prompt of the test shell, to know when it is ready.
pub const PROMPT: &str = "ready$";

pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// An interactive bash at `width`×`height` in the sandbox's workspace.
    pub fn shell(sb: &Sandbox, width: u16, height: u16) -> Tmux {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmux = Tmux {
            socket: format!("brood-test-{}-{nanos}", std::process::id()),
        };
        let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_brood"))
            .parent()
            .unwrap()
            .to_path_buf();
        let path = format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let status = Command::new("tmux")
            .args(["-L", &tmux.socket, "-f", "/dev/null", "new-session", "-d", "-s", "t"])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .args(["-c", sb.workspace().to_str().unwrap()])
            .arg(format!(
                "env -i PATH='{path}' HOME='{home}' XDG_DATA_HOME='{data}' TERM=xterm-256color PS1='{PROMPT} ' bash --norc --noprofile",
                home = sb.root.path().display(),
                data = sb.data().display(),
            ))
            .status()
            .expect("tmux must be installed to run the terminal tests (.ci/run installs it)");
        assert!(status.success(), "tmux new-session failed");
        tmux.wait_for(PROMPT, Duration::from_secs(10));
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Any other tmux command on this server (`show-buffer`, `display -p …`),
    /// its output.
    pub fn tmux(&self, args: &[&str]) -> String {
        self.run(args)
    }

    /// Sends keys by tmux name (`Enter`, `C-c`, `Escape`, `G`).
    pub fn keys(&self, keys: &[&str]) {
        self.run(&[&["send-keys", "-t", "t"][..], keys].concat());
    }

    /// From now on, appends every byte the program writes to the terminal
    /// to `file`, escape sequences included.
    pub fn record_output(&self, file: &std::path::Path) {
        self.run(&[
            "pipe-pane",
            "-O",
            "-t",
            "t",
            &format!("cat >> '{}'", file.display()),
        ]);
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "t", "-l", text]);
    }

    /// Pastes `text` as a terminal does when the program asked for
    /// bracketed paste (`paste-buffer -p`), its newlines sent as CR.
    pub fn paste(&self, text: &str) {
        self.run(&["set-buffer", "-b", "p", text]);
        self.run(&["paste-buffer", "-p", "-r", "-b", "p", "-t", "t"]);
    }

    /// Types a command line and presses Enter.
    pub fn command(&self, line: &str) {
        self.type_text(line);
        self.keys(&["Enter"]);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// Waits until the screen shows `needle`, or fails showing the screen.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("waited {timeout:?} for {needle:?}; the screen was:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn resize(&self, width: u16, height: u16) {
        self.run(&[
            "resize-window",
            "-t",
            "t",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }
}

impl Tmux {
    /// Closes the terminal as a window manager would: every process in it
    /// gets SIGHUP.
    pub fn close(&self) {
        self.run(&["kill-server"]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}
