//! The rules for one command (its wrappers already peeled off): what is denied
//! outright, what asks first, and where a written path is dangerous.
//!
//! Deny is kept for what no approval should ever let through from a coding agent
//! (wiping the filesystem, formatting disks, raising privileges, stopping the
//! machine, fork bombs); ask for what destroys work that may be wanted (deleting
//! files, discarding git changes, rewriting remote history, publishing).

use super::command::{Input, Walker, command_name, script_names};
use super::paths::{catastrophic_target, write_target};
use super::shell::{RedirOp, Word};
use crate::event::Decision;

/// Commands that fetch from the network; piped into a shell they run unseen code.
pub(super) const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh", "csh", "tcsh",
];

const INTERPRETERS: &[&str] = &["perl", "ruby", "node", "php", "deno", "bun"];

/// `cmd args…` for a reason, shortened when long.
fn show(words: &[Word]) -> String {
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
fn short_has(arg: &str, letters: &[char]) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg.len() > 1 && arg.contains(letters)
}

impl Walker {
    fn ask(&mut self, words: &[Word], reason: String) {
        self.add(Decision::Ask, reason, Some(words));
    }

    fn deny(&mut self, words: &[Word], reason: String) {
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
        match name.as_str() {
            "sudo" | "doas" | "su" | "pkexec" | "run0" => self.deny(
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
            "dd" => {
                for arg in &args {
                    if let Some(of) = arg.strip_prefix("of=") {
                        self.written(&format!("dd {arg}"), of);
                    }
                }
                if let Some(arg) = args.iter().find(|a| a.starts_with("if=")) {
                    self.deny(
                        words,
                        format!("`dd {arg}` copies raw data (`dd if=` is denied)"),
                    );
                }
            }
            "rm" => self.rm(words, &args),
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
                if name == "mv" && args.contains(&"/dev/null") {
                    self.ask(words, format!("`{}` destroys the files moved", show(words)));
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
                }
            }
            "tee" => {
                for target in &positional {
                    self.written(&format!("tee {target}"), target);
                }
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
            "eval" => self.source(&args.join(" "), Some("the string given to `eval`")),
            _ => {}
        }
        let shell = SHELLS.contains(&name.as_str());
        if shell || name.starts_with("python") || INTERPRETERS.contains(&name.as_str()) {
            self.interpreter(words, &name, shell, input);
        }
    }

    fn rm(&mut self, words: &[Word], args: &[&str]) {
        let mut recursive = false;
        let mut targets = Vec::new();
        let mut options_done = false;
        for arg in args {
            if options_done || !arg.starts_with('-') || *arg == "-" {
                targets.push(*arg);
            } else if *arg == "--" {
                options_done = true;
            } else if *arg == "--no-preserve-root" {
                self.deny(
                    words,
                    "`rm --no-preserve-root` lets rm delete the root filesystem".into(),
                );
                return;
            } else if *arg == "--recursive" || short_has(arg, &['r', 'R']) {
                recursive = true;
            }
        }
        if recursive {
            for target in &targets {
                if let Some(what) = catastrophic_target(target) {
                    self.deny(words, format!("`{}` would delete {what}", show(words)));
                    return;
                }
            }
        }
        self.ask(words, format!("`{}` deletes files", show(words)));
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
        if recursive && let Some(whole) = targets.iter().find_map(|t| catastrophic_target(t)) {
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

    fn git(&mut self, words: &[Word], args: &[&str]) {
        let Some((sub, rest)) = git_subcommand(args) else {
            return;
        };
        let has = |flag: &str| rest.contains(&flag);
        let short = |c: char| rest.iter().any(|a| short_has(a, &[c]));
        let reason = match sub.as_str() {
            "push" => rest
                .iter()
                .find(|a| {
                    matches!(
                        **a,
                        "--force" | "--mirror" | "--delete" | "--prune" | "--force-if-includes"
                    ) || a.starts_with("--force-with-lease")
                        || short_has(a, &['f', 'd'])
                        || a.starts_with('+')
                        || (a.starts_with(':') && a.len() > 1)
                })
                .map(|flag| {
                    format!("`git push {flag}` can overwrite or delete history on the remote")
                }),
            "reset" if has("--hard") => {
                Some("`git reset --hard` discards uncommitted changes".into())
            }
            "clean" if (has("--force") || short('f')) && !(has("--dry-run") || short('n')) => {
                Some("`git clean -f` deletes untracked files".into())
            }
            "checkout" if has("--") || has(".") || has("--force") || short('f') => Some(
                "`git checkout` of paths (or with --force) discards uncommitted changes".into(),
            ),
            "restore" if !(has("--staged") || short('S')) || has("--worktree") || short('W') => {
                Some("`git restore` discards uncommitted changes".into())
            }
            "switch" if has("--discard-changes") || has("--force") || short('f') => {
                Some("`git switch --force` discards uncommitted changes".into())
            }
            "rm" if !(has("--cached") || has("--dry-run") || short('n')) => {
                Some("`git rm` deletes files".into())
            }
            "branch"
                if short('D')
                    || ((has("--delete") || short('d')) && (has("--force") || short('f'))) =>
            {
                Some("`git branch -D` deletes a branch even if it is not merged".into())
            }
            "stash" if matches!(rest.first(), Some(&("drop" | "clear"))) => {
                Some("`git stash drop/clear` deletes stashed changes".into())
            }
            "filter-branch" | "filter-repo" => Some(format!("`git {sub}` rewrites history")),
            _ => None,
        };
        if let Some(reason) = reason {
            self.ask(words, reason);
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

    /// `find … -delete` asks; the command of `-exec`/`-ok` is checked as a command.
    fn find(&mut self, words: &[Word]) {
        let mut i = 1;
        while i < words.len() {
            match words[i].text.as_str() {
                "-delete" => self.ask(words, "`find … -delete` deletes the files it finds".into()),
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let start = i + 1;
                    let end = words[start..]
                        .iter()
                        .position(|w| w.text == ";" || w.text == "+")
                        .map_or(words.len(), |p| start + p);
                    self.run(&words[start..end], Input::default());
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// Shells and interpreters: the script given with `-c` is checked like the
    /// command line; a here-document is checked too; and a program that arrives
    /// through a pipe (or from a download) asks, since it cannot be seen.
    fn interpreter(&mut self, words: &[Word], name: &str, shell: bool, input: Input<'_>) {
        let program = program_source(&words[1..], shell);
        let origin = format!("the script given to `{name}`");
        let fed = |w: &Word| {
            let mut names = Vec::new();
            for sub in &w.subs {
                script_names(sub, &mut names);
            }
            names
                .into_iter()
                .find(|n| DOWNLOADERS.contains(&n.as_str()))
        };
        match program {
            Program::Inline(word) | Program::File(word) => {
                if let Some(downloader) = fed(word) {
                    self.add(
                        Decision::Ask,
                        format!("`{name}` runs a script downloaded by `{downloader}`"),
                        None,
                    );
                }
                if shell && matches!(program, Program::Inline(_)) {
                    self.source(&word.text, Some(&origin));
                }
            }
            Program::Stdin => {
                let stdin = input
                    .redirects
                    .iter()
                    .filter(|r| r.fd.is_none_or(|fd| fd == 0))
                    .rfind(|r| {
                        matches!(
                            r.op,
                            RedirOp::In
                                | RedirOp::HereDoc
                                | RedirOp::HereDocStrip
                                | RedirOp::HereString
                        )
                    });
                if let Some(redirect) = stdin {
                    if let Some(downloader) = fed(&redirect.target) {
                        self.add(
                            Decision::Ask,
                            format!("`{name}` runs a script downloaded by `{downloader}`"),
                            None,
                        );
                    }
                    let text = match redirect.op {
                        RedirOp::HereString => Some(redirect.target.text.as_str()),
                        _ => redirect.heredoc.as_ref().map(|d| d.body.as_str()),
                    };
                    if shell && let Some(text) = text {
                        self.source(text, Some(&origin));
                    }
                } else if let Some(downloader) = input.download {
                    self.add(
                        Decision::Ask,
                        format!("pipes a download (`{downloader}`) into `{name}`"),
                        None,
                    );
                } else if input.piped && shell {
                    self.add(
                        Decision::Ask,
                        format!("pipes text into `{name}`; the commands it runs cannot be checked"),
                        None,
                    );
                }
            }
        }
    }
}

/// Where an interpreter takes its program from.
enum Program<'a> {
    /// `-c 'script'` (or `-e`, `-m`, …).
    Inline(&'a Word),
    /// A script file.
    File(&'a Word),
    /// Standard input.
    Stdin,
}

fn program_source(args: &[Word], shell: bool) -> Program<'_> {
    let mut inline = false;
    let mut read_stdin = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let a = arg.text.as_str();
        if a == "--" || a == "-" {
            i += 1;
            if a == "-" {
                return Program::Stdin;
            }
            break;
        }
        if shell && matches!(a, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if !shell
            && matches!(
                a,
                "-c" | "-e" | "-E" | "-m" | "-r" | "-p" | "--eval" | "--print"
            )
        {
            return args.get(i + 1).map_or(Program::Stdin, Program::Inline);
        }
        if a.starts_with("--") {
            i += 1;
            continue;
        }
        if a.len() > 1 && (a.starts_with('-') || (shell && a.starts_with('+'))) {
            if shell && a.starts_with('-') {
                inline |= a.contains('c');
                read_stdin |= a.contains('s');
            }
            i += 1;
            continue;
        }
        break;
    }
    match args.get(i) {
        Some(word) if inline => Program::Inline(word),
        Some(word) if !read_stdin && word.text != "/dev/stdin" => Program::File(word),
        _ => Program::Stdin,
    }
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

/// The subcommand of a git invocation and its arguments, skipping git's own
/// options (`git -C dir -c k=v push` is `push`).
pub(super) fn git_subcommand<S: AsRef<str>>(args: &[S]) -> Option<(String, &[S])> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let arg = arg.as_ref();
        if matches!(
            arg,
            "-C" | "-c"
                | "--git-dir"
                | "--work-tree"
                | "--namespace"
                | "--super-prefix"
                | "--config-env"
        ) {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            return Some((arg.to_lowercase(), &args[i + 1..]));
        }
    }
    None
}
