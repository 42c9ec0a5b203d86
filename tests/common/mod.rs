//! Running the real `brood` binary in a throwaway workspace with its own data
//! folder, so tests never touch the user's traces or logs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub struct Sandbox {
    pub root: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("ws")).unwrap();
        std::fs::create_dir_all(root.path().join("data")).unwrap();
        Sandbox { root }
    }

    pub fn workspace(&self) -> PathBuf {
        self.root.path().join("ws")
    }

    pub fn data(&self) -> PathBuf {
        self.root.path().join("data")
    }

    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        let path = self.workspace().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Writes a scripted-model script outside the workspace and returns its path.
    pub fn script(&self, script: serde_json::Value) -> PathBuf {
        let path = self.root.path().join("script.json");
        std::fs::write(&path, script.to_string()).unwrap();
        path
    }

    /// `brood ARGS` in the workspace, with a clean environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_brood"));
        cmd.args(args)
            .current_dir(self.workspace())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.path())
            .env("XDG_DATA_HOME", self.data())
            .env("XDG_CONFIG_HOME", self.root.path().join("config"))
            .stdin(Stdio::null());
        cmd
    }

    /// `brood run --provider scripted --script SCRIPT --no-trace PROMPT`,
    /// for the caller to add its environment to.
    pub fn scripted_run(&self, script: &Path, prompt: &str) -> Command {
        self.command(&[
            "run",
            "--provider",
            "scripted",
            "--script",
            script.to_str().unwrap(),
            "--no-trace",
            prompt,
        ])
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs the scripted provider on `script` with `extra` flags and a prompt.
    pub fn run_script(&self, script: serde_json::Value, extra: &[&str]) -> Output {
        let script = self.script(script);
        let mut args = vec!["run", "--provider", "scripted", "--script"];
        let script = script.to_str().unwrap().to_string();
        args.push(&script);
        args.extend_from_slice(extra);
        args.push("do the thing");
        self.run(&args)
    }

    /// `brood run --provider anthropic ARGS` against the server at
    /// `base_url`, with a key that is not real; asserts it exits 0 and
    /// returns its output.
    pub fn run_anthropic(&self, base_url: &str, args: &[&str]) -> Output {
        self.run_anthropic_with(base_url, args, &[])
    }

    /// [`Sandbox::run_anthropic`] with more environment variables.
    pub fn run_anthropic_with(
        &self,
        base_url: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Output {
        let mut all = vec!["run", "--provider", "anthropic"];
        all.extend_from_slice(args);
        let out = self
            .command(&all)
            .env("ANTHROPIC_BASE_URL", base_url)
            .env("ANTHROPIC_API_KEY", "test-key-not-real")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}\n{}",
            stdout(&out),
            stderr(&out)
        );
        out
    }

    /// Every trace file in the data folder.
    pub fn traces(&self) -> Vec<PathBuf> {
        let dir = self.data().join("brood/traces");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        paths.sort();
        paths
    }
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The `type` of every event line of a trace (the header excluded).
/// Every event line of a trace (the header left out), parsed.
pub fn trace_events(trace: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub fn event_types(trace: &Path) -> Vec<String> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}
pub mod anthropic_sse;
pub mod stream_server;
pub mod tmux;

/// A `sleep` argument no other process on the machine has.
pub fn unique_sleep(tag: u32) -> String {
    format!("7{tag:02}.{:06}", std::process::id() % 1_000_000)
}

/// How many live processes have `arg` on their command line.
pub fn running_with(arg: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            let path = entry.path();
            let alive = std::fs::read_to_string(path.join("stat")).is_ok_and(|stat| {
                stat.rsplit(')')
                    .next()
                    .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
            });
            alive
                && std::fs::read(path.join("cmdline")).is_ok_and(|cmdline| {
                    cmdline
                        .split(|&b| b == 0)
                        .any(|word| word == arg.as_bytes())
                })
        })
        .count()
}

/// A scripted session whose parent starts two `general` children (one
/// greps, one answers at once) and then answers: output tokens 100 + 40
/// for the parent, 50 + 9 and 7 for the children.
pub fn two_children() -> serde_json::Value {
    serde_json::json!({"agents": {
        "main": [
            {"text": "Two looks.", "tool_calls": [
                {"name": "task", "input": {"prompt": "Find login", "description": "find login", "subagent_type": "general"}},
                {"name": "task", "input": {"prompt": "Find logout", "description": "find logout", "subagent_type": "general"}}
            ], "usage": {"input_tokens": 900, "output_tokens": 100}},
            {"text": "Login is in src/auth.rs.", "usage": {"input_tokens": 1300, "output_tokens": 40}}
        ],
        "sub-1": [
            {"tool_calls": [{"name": "grep", "input": {"pattern": "fn login"}}], "usage": {"input_tokens": 700, "output_tokens": 50}},
            {"text": "src/auth.rs:1", "usage": {"input_tokens": 800, "output_tokens": 9}}
        ],
        "sub-2": [{"text": "no logout", "usage": {"input_tokens": 600, "output_tokens": 7}}]
    }})
}
