//! The rules for one command (its wrappers already peeled off): what is denied
//! outright, what asks first, and where a written path is dangerous.
//!
//! Deny is kept for what no approval should ever let through from a coding agent
//! (wiping the filesystem, formatting disks, raising privileges, stopping the
//! machine, fork bombs); ask for what destroys work that may be wanted (deleting
//! files, discarding git changes, rewriting remote history, publishing).

use super::command::{Input, Walker, command_name};
use super::paths::{catastrophic_target, emptied_target, write_target};
use super::shell::Word;
use crate::event::Decision;

/// Commands that fetch from the network; piped into a shell they run unseen code.
pub(super) const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];

/// Commands that write the files named in their arguments: behind `xargs` or
/// `find -exec` those names are not in the line, so they cannot be checked.
const WRITERS: &[&str] = &[
    "cp", "mv", "install", "ln", "tee", "dd", "truncate", "shred", "sed", "gsed", "perl", "chmod",
    "chown", "chgrp", "rsync", "rm", "unlink", "rmdir", "patch", "tar", "unzip",
];

/// `cmd args…` for a reason, shortened when long.
pub(super) fn show(words: &[Word]) -> String {
    let text = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(79).collect::<String>())
    } else {
        text
    }
}

/// Short options (`-rf`) that contain any of `letters`; `--long` ones never do.
pub(super) fn short_has(arg: &str, letters: &[char]) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg.len() > 1 && arg.contains(letters)
}

impl Walker {
    pub(super) fn ask(&mut self, words: &[Word], reason: String) {
        self.add(Decision::Ask, reason, Some(words));
    }

    pub(super) fn deny(&mut self, words: &[Word], reason: String) {
        self.add(Decision::Deny, reason, Some(words));
    }

    /// A finding about a path written to; never waived by an approved prefix.
    fn written(&mut self, what: &str, path: &str) {
        if let Some((decision, why)) = write_target(path) {
            self.add(decision, format!("`{what}` {why}"), None);
        }
    }

    /// Checks one command; `words[0]` is the command word.
    pub(super) fn rules(&mut self, words: &[Word], input: Input<'_>) {
        let Some((first, rest)) = words.split_first() else {
            return;
        };
        let name = command_name(&first.text);
        let args: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
        let positional: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| !a.starts_with('-'))
            .collect();
        if let Some(feeder) = input.fed
            && WRITERS.contains(&name.as_str())
        {
            self.add(
                Decision::Ask,
                format!(
                    "`{feeder} {}` writes to files chosen by its input, which cannot be checked",
                    show(words)
                ),
                None,
            );
        }
        match name.as_str() {
            "sudo" | "doas" | "su" | "pkexec" | "run0" | "runuser" | "sg" | "newgrp" => self.deny(
                words,
                format!("`{name}` runs commands as another user (privilege escalation is denied)"),
            ),
            "shutdown" | "reboot" | "halt" | "poweroff" => {
                self.deny(words, format!("`{name}` stops or restarts the machine"));
            }
            "init" | "telinit" if matches!(args.first(), Some(&("0" | "6"))) => {
                self.deny(
                    words,
                    format!("`{}` stops or restarts the machine", show(words)),
                );
            }
            "systemctl"
                if positional
                    .iter()
                    .any(|a| matches!(*a, "poweroff" | "reboot" | "halt" | "kexec")) =>
            {
                self.deny(
                    words,
                    format!("`{}` stops or restarts the machine", show(words)),
                );
            }
            n if n.starts_with("mkfs") || n == "mke2fs" || n == "wipefs" => {
                self.deny(words, format!("`{n}` formats or wipes a filesystem"));
            }
            "dd" => self.dd(words, &args),
            "rm" => self.rm(words, rest),
            "rmdir" | "del" | "erase" | "unlink" | "rd" | "rimraf" => {
                self.ask(words, format!("`{}` deletes files", show(words)));
            }
            "shred" => {
                for target in &positional {
                    self.written(&format!("shred {target}"), target);
                }
                self.ask(words, format!("`{}` destroys file contents", show(words)));
            }
            "truncate" => self.ask(words, format!("`{}` cuts files short", show(words))),
            "chmod" | "chown" | "chgrp" => self.permissions(words, &name, &args),
            "git" => self.git(words, &args),
            "mv" | "cp" | "install" => {
                self.copies_over(words, &name);
                if name == "mv" && args.contains(&"/dev/null") {
                    self.ask(words, format!("`{}` destroys the files moved", show(words)));
                }
                if name != "mv"
                    && let Some(source) = positional.iter().find(|a| emptied_target(a))
                    && let Some(target) = rest.iter().rfind(|w| !w.text.starts_with('-'))
                    && positional.len() > 1
                {
                    let what = format!("`{name} {source} {}`", target.text);
                    self.truncation(target, &what);
                }
                let target = args
                    .iter()
                    .position(|a| *a == "-t")
                    .and_then(|i| args.get(i + 1).copied())
                    .or_else(|| {
                        args.iter()
                            .find_map(|a| a.strip_prefix("--target-directory="))
                    })
                    .or(if positional.len() > 1 {
                        positional.last().copied()
                    } else {
                        None
                    });
                if let Some(target) = target {
                    self.written(&format!("{name} … {target}"), target);
                    self.wrote(&Word::plain(target));
                }
            }
            "tee" => {
                let appends = args
                    .iter()
                    .any(|a| *a == "--append" || short_has(a, &['a']));
                for target in rest.iter().filter(|w| !w.text.starts_with('-')) {
                    self.wrote(target);
                    self.written(&format!("tee {}", target.text), &target.text);
                    if !appends {
                        self.truncation(target, &format!("`tee {}`", target.text));
                    }
                }
            }
            "kill" if kills_everything(&args) => self.deny(
                words,
                format!("`{}` signals every process the user can reach", show(words)),
            ),
            "killall5" => self.deny(words, "`killall5` signals every process".into()),
            "pkill" | "killall" if matches_every_name(&args) => {
                self.deny(words, format!("`{}` kills every process", show(words)))
            }
            "kill" if sends_sigkill(&args) => {
                self.ask(
                    words,
                    format!(
                        "`{}` kills processes without letting them clean up",
                        show(words)
                    ),
                );
            }
            "pkill" | "killall" => {
                self.ask(words, format!("`{}` kills processes by name", show(words)));
            }
            "docker" | "podman" => self.containers(words, &name, &args),
            "npm" | "pnpm" | "yarn" | "bun" | "cargo" | "gem" | "twine" | "poetry" | "uv" => {
                self.publish(words, &name, &args);
            }
            "crontab" if args.iter().any(|a| short_has(a, &['r'])) => {
                self.ask(words, "`crontab -r` deletes the crontab".into());
            }
            "find" => self.find(words),
            "curl" | "wget" => {
                let output = rest.windows(2).find(|pair| {
                    matches!(
                        pair[0].text.as_str(),
                        "-o" | "--output" | "-O" | "--output-document"
                    )
                });
                if let Some(pair) = output {
                    self.wrote(&pair[1]);
                }
                self.saves_to(words, &name);
            }
            "awk" | "gawk" | "mawk" | "nawk" => self.awk(words, &name),
            "sed" | "gsed" => {
                self.sed(words, &name);
                self.sed_script(words, &name);
            }
            "ln" => self.links_over(words),
            "tar" | "gtar" | "bsdtar" => self.archives(words),
            "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "lzma" | "unlzma"
            | "zstd" | "unzstd" | "lz4" | "zip" => self.compresses(words, &name),
            "sort" => self.saves_to(words, &name),
            "kill" if args.contains(&"0") => self.ask(
                words,
                format!("`{}` signals every process of its group", show(words)),
            ),
            _ => self.builtin(words, &name),
        }
        self.interpreter(words, &name, input);
    }

    /// `dd` overwrites its `of=` target: a raw disk is denied, a file asks
    /// (`dd if=a of=b` copies between files, which is no reason to deny);
    /// reading a device (`if=/dev/sda`) is denied.
    fn dd(&mut self, words: &[Word], args: &[&str]) {
        for arg in args {
            if let Some(of) = arg.strip_prefix("of=") {
                self.written(&format!("dd {arg}"), of);
            }
        }
        let device = args.iter().find(|a| {
            a.strip_prefix("if=")
                .is_some_and(|f| f.starts_with("/dev/"))
        });
        match device {
            Some(arg) => self.deny(
                words,
                format!("`dd {arg}` copies raw data from a device (`dd if=/dev/…` is denied)"),
            ),
            None if args.iter().any(|a| a.starts_with("of=")) => self.ask(
                words,
                format!("`{}` overwrites the file it writes to", show(words)),
            ),
            None => {}
        }
    }

    /// `rm` asks; a recursive delete of the whole system or the home folder
    /// is denied, also where it is reached through the folder the line `cd`ed
    /// to (`cd / && rm -rf *`) or through a variable that may be empty
    /// (`rm -rf $dir/`). An option the shell still expands (`rm $opts /`)
    /// may be `-rf`.
    fn rm(&mut self, words: &[Word], args: &[Word]) {
        let mut recursive = false;
        let mut targets: Vec<&Word> = Vec::new();
        let mut options_done = false;
        for word in args {
            let arg = word.text.as_str();
            if word.is_expanded() && arg.starts_with('$') && !options_done {
                recursive = true;
                targets.push(word);
            } else if options_done || !arg.starts_with('-') || arg == "-" {
                targets.push(word);
            } else if arg == "--" {
                options_done = true;
            } else if arg == "--no-preserve-root" {
                self.deny(
                    words,
                    "`rm --no-preserve-root` lets rm delete the root filesystem".into(),
                );
                return;
            } else if arg == "--recursive" || short_has(arg, &['r', 'R']) {
                recursive = true;
            }
        }
        if recursive && let Some(what) = targets.iter().find_map(|t| self.catastrophic(t)) {
            self.deny(words, format!("`{}` would delete {what}", show(words)));
            return;
        }
        self.ask(words, format!("`{}` deletes files", show(words)));
    }

    /// What a recursive operation on `target` would take with it when that is
    /// the whole system or the home folder, read from the folder the command
    /// runs in, and with its variables taken as empty (`$dir/` is `/`).
    pub(super) fn catastrophic(&self, target: &Word) -> Option<String> {
        if let Some(what) = catastrophic_target(&self.in_cwd(&target.text)) {
            return Some(what);
        }
        let emptied = super::paths::without_variables(&target.text)?;
        let what = catastrophic_target(&self.in_cwd(&emptied))?;
        let everything = what == "the root filesystem" || what.starts_with("the home directory");
        everything.then(|| format!("{what} if `{}` is empty", target.text))
    }

    fn permissions(&mut self, words: &[Word], name: &str, args: &[&str]) {
        let mut recursive = false;
        let mut positional = Vec::new();
        let mut options_done = false;
        for arg in args {
            if options_done {
                positional.push(*arg);
            } else if *arg == "--" {
                options_done = true;
            } else if *arg == "--recursive" {
                recursive = true;
            } else if arg.starts_with("--") {
            } else if arg.len() > 1
                && arg.starts_with('-')
                && arg[1..].chars().all(|c| "cfvRhHLP".contains(c))
            {
                recursive |= arg.contains('R');
            } else {
                positional.push(*arg);
            }
        }
        let what = if name == "chmod" {
            "permissions"
        } else {
            "ownership"
        };
        let Some((mode, targets)) = positional.split_first() else {
            return;
        };
        if recursive
            && let Some(whole) = targets
                .iter()
                .find_map(|t| catastrophic_target(&self.in_cwd(t)))
        {
            self.deny(
                words,
                format!("`{}` changes the {what} of {whole}", show(words)),
            );
        } else if name == "chmod" && world_writable(mode) {
            self.ask(
                words,
                format!("`chmod {mode}` makes files writable by everyone"),
            );
        } else if recursive {
            self.ask(words, format!("`{name} -R` changes {what} recursively"));
        }
    }

    fn containers(&mut self, words: &[Word], name: &str, args: &[&str]) {
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            match *arg {
                "-H" | "--host" | "-c" | "--context" | "--config" | "-l" | "--log-level" => i += 2,
                a if a.starts_with('-') => i += 1,
                _ => break,
            }
        }
        let positional: Vec<&str> = args
            .iter()
            .skip(i)
            .copied()
            .filter(|a| !a.starts_with('-'))
            .take(2)
            .collect();
        match positional.as_slice() {
            [
                "system" | "image" | "container" | "volume" | "network" | "builder",
                "prune",
            ]
            | ["prune", ..] => self.ask(
                words,
                format!("`{}` deletes containers, images or volumes", show(words)),
            ),
            ["volume", "rm" | "remove"] => {
                self.ask(
                    words,
                    format!("`{name} volume rm` deletes volumes and their data"),
                );
            }
            _ => {}
        }
    }

    fn publish(&mut self, words: &[Word], name: &str, args: &[&str]) {
        if args.contains(&"--dry-run") {
            return;
        }
        let positional: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| !a.starts_with('-') && !a.starts_with('+'))
            .collect();
        let publishes = matches!(
            (name, positional.as_slice()),
            ("npm" | "pnpm" | "bun", ["publish" | "unpublish", ..])
                | ("yarn", ["publish", ..] | ["npm", "publish", ..])
                | ("cargo", ["publish" | "yank", ..])
                | ("gem", ["push" | "yank", ..])
                | ("twine", ["upload", ..])
                | ("poetry" | "uv", ["publish", ..])
        );
        if publishes {
            self.ask(
                words,
                format!("`{}` publishes to a package registry", show(words)),
            );
        }
    }
}

/// `kill … -1` (after the signal, or after `--`): every process the user may
/// signal, brood and the desktop included.
fn kills_everything(args: &[&str]) -> bool {
    let mut signal_given = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match *arg {
            "-l" | "-L" | "--list" | "--table" => return false,
            "-s" | "-n" | "--signal" => {
                signal_given = true;
                i += 2;
                continue;
            }
            "--" => return args[i + 1..].contains(&"-1"),
            "-1" if signal_given => return true,
            _ => signal_given = true,
        }
        i += 1;
    }
    false
}

/// `pkill .`, `killall -r '.*'`: a pattern every process name matches.
fn matches_every_name(args: &[&str]) -> bool {
    const EVERY: &[&str] = &[".", ".*", ".+", "^", "$", "", "^.*", "^.*$", "*", "^."];
    const WITH_VALUE: &[&str] = &[
        "-u",
        "-U",
        "-g",
        "-G",
        "-P",
        "-s",
        "-t",
        "-F",
        "--signal",
        "--pidfile",
        "--ns",
        "--nslist",
        "-O",
        "--older",
        "-Y",
        "--younger",
        "--user",
        "--group",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if WITH_VALUE.contains(arg) {
            i += 2;
            continue;
        }
        if !arg.starts_with('-') && EVERY.contains(arg) {
            return true;
        }
        i += 1;
    }
    false
}

fn sends_sigkill(args: &[&str]) -> bool {
    let is_kill = |s: &str| {
        let s = s.to_uppercase();
        let s = s.strip_prefix("SIG").unwrap_or(&s);
        s == "9" || s == "KILL"
    };
    args.iter().enumerate().any(|(i, a)| match *a {
        "-s" | "-n" | "--signal" => args.get(i + 1).is_some_and(|v| is_kill(v)),
        a => match a.strip_prefix("--signal=") {
            Some(v) => is_kill(v),
            None => a.strip_prefix('-').is_some_and(is_kill),
        },
    })
}

fn world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.chars().all(|c| c.is_digit(8)) {
        return mode
            .chars()
            .last()
            .and_then(|c| c.to_digit(8))
            .is_some_and(|d| d & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let who_len = clause.chars().take_while(|c| "ugoa".contains(*c)).count();
        let (who, rest) = clause.split_at(who_len);
        (who.contains('o') || who.contains('a'))
            && (rest.starts_with('+') || rest.starts_with('='))
            && rest.contains('w')
    })
}
