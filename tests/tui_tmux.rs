//! The real binary in a real terminal: tmux runs `brood demo` inside a shell, the
//! test reads the screen with capture-pane and types with send-keys. CI installs
//! tmux (`.ci/run`), so this never skips there; without tmux it fails loudly.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::Sandbox;

struct Tmux {
    socket: String,
}

impl Tmux {
    fn new(sb: &Sandbox, width: u16, height: u16) -> Tmux {
        let socket = format!("brood-test-{}-{}", std::process::id(), rand_suffix());
        let tmux = Tmux { socket };
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
                "env -i PATH='{path}' HOME='{home}' XDG_DATA_HOME='{data}' TERM=xterm-256color PS1='ready$ ' bash --norc --noprofile",
                home = sb.root.path().display(),
                data = sb.data().display(),
            ))
            .status()
            .expect("tmux must be installed to run the terminal tests (.ci/run installs it)");
        assert!(status.success(), "tmux new-session failed");
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

    fn keys(&self, keys: &[&str]) {
        self.run(&[&["send-keys", "-t", "t"][..], keys].concat());
    }

    fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "t", "-l", text]);
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// Waits until the screen shows `needle`, or fails showing the screen.
    fn wait_for(&self, needle: &str, timeout: Duration) -> String {
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

    fn resize(&self, width: u16, height: u16) {
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

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn rand_suffix() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0)
}

fn project(sb: &Sandbox) {
    sb.write(
        "src/main.rs",
        "mod config;\nfn main() {\n    let cfg = config::load();\n}\n",
    );
    sb.write(
        "src/config.rs",
        "// configuration is loaded here\npub fn load() {}\n",
    );
    sb.write(
        "src/errors.rs",
        "// errors are handled by returning Error\npub enum Error { Io }\n",
    );
}

#[test]
fn the_demo_runs_in_a_real_terminal_and_gives_the_shell_back() {
    let sb = Sandbox::new();
    project(&sb);
    let tmux = Tmux::new(&sb, 130, 40);
    tmux.wait_for("ready$", Duration::from_secs(10));
    tmux.type_text("brood demo --speed 8 --no-trace; echo \"brood-exit=$?\"");
    tmux.keys(&["Enter"]);
    // Children show up live, then the parent's answer.
    tmux.wait_for("[sub-1]", Duration::from_secs(30));
    let screen = tmux.wait_for("assembled from", Duration::from_secs(60));
    assert!(screen.contains("Subagents"), "{screen}");
    // Help opens over the layout and closes again.
    tmux.type_text("?");
    let help = tmux.wait_for("┌ Keys", Duration::from_secs(5));
    assert!(help.contains("Ctrl-D"), "{help}");
    tmux.keys(&["Escape"]);
    let closed = Instant::now() + Duration::from_secs(5);
    while tmux.screen().contains("┌ Keys") {
        assert!(
            Instant::now() < closed,
            "Esc did not close help:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Resizing reflows; too small shows the notice; big again shows the layout.
    tmux.resize(50, 12);
    tmux.wait_for("too small", Duration::from_secs(5));
    tmux.resize(100, 30);
    tmux.wait_for("Subagents", Duration::from_secs(5));
    // Ctrl-D on an empty composer quits.
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    // The shell works normally again: typed text echoes and commands run.
    tmux.type_text("echo shell-is-$((20+22))");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("shell-is-42", Duration::from_secs(5));
    assert!(
        !screen.contains("Subagents"),
        "the alternate screen was not left:\n{screen}"
    );
    // Canonical mode is back (raw mode would show `-icanon`).
    tmux.type_text("stty -a | grep -cw -- -icanon | sed 's/^/rawcount=/'");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rawcount=0", Duration::from_secs(5));
}

#[test]
fn ctrl_c_twice_quits_even_mid_run() {
    let sb = Sandbox::new();
    project(&sb);
    let tmux = Tmux::new(&sb, 120, 35);
    tmux.wait_for("ready$", Duration::from_secs(10));
    tmux.type_text("brood demo --speed 0.5 --no-trace; echo \"brood-exit=$?\"");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Subagents", Duration::from_secs(20));
    tmux.keys(&["C-c"]);
    tmux.wait_for("interrupt", Duration::from_secs(5));
    tmux.keys(&["C-c"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
}
