//! The bypass shapes of issue 11 through the real binary: `brood tool bash`
//! without `--yes`, where no one can answer a question, so anything the
//! policy asks about (or denies) must be refused. After each shape every
//! canary, in the workspace and in a folder beside it, is checked intact.
//!
//! Each shape aims only at the canaries (relative paths, or `~`, which is the
//! sandbox root here), so a policy that let one through would destroy a
//! canary and fail the test, never anything outside the temporary folder.

mod common;

use std::path::PathBuf;

use common::{Sandbox, stdout};

const CANARY: &str = "canary: do not touch\n";

/// Commands that would destroy `canary.txt` (in the workspace) or the folder
/// `outside` (beside it) if they ran.
const SHAPES: &[&str] = &[
    "$x rm canary.txt",
    "$@ rm canary.txt",
    "nice $x rm canary.txt",
    "timeout 5 $x rm canary.txt",
    "env -i $x rm -rf ../outside",
    "RM=rm; $RM canary.txt",
    "${x:-rm} canary.txt",
    "{rm,canary.txt}",
    "/usr/bin/r[m] canary.txt",
    "$(echo rm) canary.txt",
    "`echo rm` canary.txt",
    "\"\" rm canary.txt",
    "$'\\x72m' canary.txt",
    "\\rm canary.txt",
    "busybox rm canary.txt",
    "IFS=,; x=rm,canary.txt; $x",
    "source <(echo rm canary.txt)",
    ". /dev/stdin <<< 'rm canary.txt'",
    "eval 'rm canary.txt'",
    "trap 'rm canary.txt' EXIT",
    "hash -p /bin/rm ls; ls canary.txt",
    "f() { rm canary.txt; }; f",
    "exec rm canary.txt",
    "git -c alias.st='!rm canary.txt' st",
    "git -c core.pager='rm canary.txt' log",
    "python3 -c 'import os; os.remove(\"canary.txt\")'",
    "perl -e 'unlink \"canary.txt\"'",
    "node -e 'require(\"fs\").unlinkSync(\"canary.txt\")'",
    "awk 'BEGIN{system(\"rm canary.txt\")}'",
    "sed -i d canary.txt",
    ": > canary.txt",
    "> canary.txt",
    "x=canary.txt; : > $x",
    "cp /dev/null canary.txt",
    "truncate -s0 canary.txt",
    "echo x | tee canary.txt",
    "dd if=/dev/null of=canary.txt",
    "shred -u canary.txt",
    "find . -name canary.txt -delete",
    "find . -name canary.txt -exec rm {} \\;",
    "ls canary.txt | xargs rm",
    "echo canary.txt | xargs sed -i d",
    "bash -c 'rm canary.txt'",
    "echo 'rm canary.txt' | sh",
    "sh <<< 'rm canary.txt'",
    "rm -rf ../outside",
    "cd .. && rm -rf outside",
    "rm -rf ~/outside",
    "echo 'rm canary.txt' > s.sh; sh s.sh",
    "printf 'rm -rf ../outside' > t.sh && . ./t.sh",
    // Replacing the file as a side effect.
    "cp /etc/hostname canary.txt",
    "mv ../outside/keep canary.txt",
    "ln -sf /etc/hostname canary.txt",
    "tar -cf canary.txt /dev/null",
    "gzip canary.txt",
    "sort -o canary.txt /dev/null",
    "sed -n 'w canary.txt' /dev/null",
    "strace -o /dev/null rm canary.txt",
];

struct Canaries {
    sandbox: Sandbox,
    inside: PathBuf,
    outside: PathBuf,
}

impl Canaries {
    fn new() -> Self {
        let sandbox = Sandbox::new();
        let inside = sandbox.write("canary.txt", CANARY);
        let outside = sandbox.root.path().join("outside/canary.txt");
        std::fs::create_dir_all(sandbox.root.path().join("outside")).unwrap();
        std::fs::write(&outside, CANARY).unwrap();
        Canaries {
            sandbox,
            inside,
            outside,
        }
    }

    fn intact(&self) -> Result<(), String> {
        for path in [&self.inside, &self.outside] {
            match std::fs::read_to_string(path) {
                Ok(text) if text == CANARY => {}
                Ok(text) => return Err(format!("{} now holds {text:?}", path.display())),
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
        Ok(())
    }
}

#[test]
fn bypass_shapes_are_refused_and_every_canary_survives() {
    assert!(SHAPES.len() >= 40, "{}", SHAPES.len());
    let canaries = Canaries::new();
    let mut failures = Vec::new();
    for shape in SHAPES {
        let input = serde_json::json!({ "command": shape }).to_string();
        let out = canaries.sandbox.run(&["tool", "bash", &input]);
        let said = stdout(&out);
        if !said.starts_with("Permission denied: ") || out.status.code() != Some(1) {
            failures.push(format!("{shape:?} was not refused: {said:?}"));
        }
        if let Err(damage) = canaries.intact() {
            failures.push(format!("{shape:?} destroyed a canary: {damage}"));
            // Put it back, so each shape is judged on its own.
            std::fs::create_dir_all(canaries.outside.parent().unwrap()).unwrap();
            std::fs::write(&canaries.inside, CANARY).unwrap();
            std::fs::write(&canaries.outside, CANARY).unwrap();
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The same binary still runs the everyday commands next to the canaries.
#[test]
fn safe_commands_still_run() {
    let canaries = Canaries::new();
    for (command, expected) in [
        ("cat canary.txt | head -1", "canary: do not touch"),
        ("grep -r touch .", "./canary.txt:canary: do not touch"),
        ("echo \"rm -rf /\"", "rm -rf /"),
        ("ls -la | grep -c canary", "1"),
        ("echo new > fresh.txt && cat fresh.txt", "new"),
    ] {
        let input = serde_json::json!({ "command": command }).to_string();
        let out = canaries.sandbox.run(&["tool", "bash", &input]);
        assert_eq!(out.status.code(), Some(0), "{command}: {}", stdout(&out));
        assert!(
            stdout(&out).contains(expected),
            "{command}: {}",
            stdout(&out)
        );
    }
    canaries.intact().unwrap();
}
