//! The rules for `git`: what discards work or rewrites history, and which
//! configuration makes git run commands.

use super::command::{Walker, show_word, unresolved};
use super::rules::short_has;
use super::shell::Word;
use crate::event::Decision;

/// Configuration keys whose value git runs as a command (or a program, or a
/// folder of hooks): set on the command line, they run whatever they say.
const PROGRAM_KEYS: &[&str] = &[
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.hookspath",
    "core.askpass",
    "core.gitproxy",
    "core.alternaterefscommand",
    "sequence.editor",
    "diff.external",
    "diff.tool",
    "merge.tool",
    "credential.helper",
    "gpg.program",
    "gpg.ssh.program",
    "pager.",
    "uploadpack.packobjectshook",
    "receive.procreceiverefs",
    "include.path",
    "includeif.",
    "protocol.ext.allow",
    "protocol.allow",
    "ssh.variant",
    "filter.",
    "difftool.",
    "mergetool.",
    "remote.",
    "url.",
    "http.proxy",
];

/// Whether git runs the value of configuration `key` (lowercased) as a command.
fn runs_program(key: &str) -> bool {
    PROGRAM_KEYS.iter().any(|k| {
        if k.ends_with('.') {
            key.starts_with(k)
        } else {
            key == *k
        }
    }) || key.ends_with(".textconv")
        || key.ends_with(".command")
        || key.ends_with(".cmd")
        || key.ends_with(".driver")
}

impl Walker {
    /// git's own options before the subcommand: `-c key=value`,
    /// `--config-env=key=VAR`, `--exec-path=dir`, and the subcommand itself.
    fn git_options(&mut self, words: &[Word]) {
        let mut i = 1;
        while let Some(word) = words.get(i) {
            let a = word.text.as_str();
            let setting = match a {
                "-c" | "--config-env" => {
                    i += 1;
                    words.get(i)
                }
                a if a.starts_with("--config-env=") || a.starts_with("-c") && a.len() > 2 => {
                    Some(word)
                }
                a if a.starts_with("--exec-path=") => {
                    self.add(
                        Decision::Ask,
                        format!("`git {a}` makes git run its commands from another folder"),
                        None,
                    );
                    None
                }
                "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => {
                    i += 2;
                    continue;
                }
                a if a.starts_with('-') => None,
                _ => {
                    if let Some(why) = unresolved(word, "the git subcommand") {
                        self.add(Decision::Ask, why, None);
                    }
                    return;
                }
            };
            if let Some(setting) = setting {
                self.git_setting(setting);
            }
            i += 1;
        }
    }

    /// One `-c key=value` (or `--config-env=key=VAR`).
    fn git_setting(&mut self, setting: &Word) {
        let text = setting.text.as_str();
        let text = text
            .strip_prefix("--config-env=")
            .or_else(|| text.strip_prefix("-c"))
            .unwrap_or(text);
        if let Some(kind) = setting.expansions.first() {
            self.add(
                Decision::Ask,
                format!(
                    "`git -c {}` sets configuration from {}, so it cannot be checked",
                    show_word(text),
                    kind.describe()
                ),
                None,
            );
            return;
        }
        let (key, value) = text.split_once('=').unwrap_or((text, ""));
        let key = key.to_lowercase();
        if key.starts_with("alias.") && value.trim_start().starts_with('!') {
            self.add(
                Decision::Ask,
                format!(
                    "`git -c {key}=…` defines an alias that runs a shell command: {}",
                    show_word(value)
                ),
                None,
            );
            let command = value.trim_start().trim_start_matches('!');
            self.source(command, Some("the command of a git alias"));
        } else if runs_program(&key) {
            self.add(
                Decision::Ask,
                format!(
                    "`git -c {key}=…` makes git run a command of the caller's choosing: {}",
                    show_word(value)
                ),
                None,
            );
        }
    }

    /// `git config key value` that sets an alias to a shell command or a key
    /// git runs as a program: every later git command would run it.
    fn git_config(&mut self, words: &[Word], rest: &[&str]) {
        let mut values = rest.iter().filter(|a| !a.starts_with('-'));
        let (Some(key), Some(value)) = (values.next(), values.next()) else {
            return;
        };
        let key = key.to_lowercase();
        if (key.starts_with("alias.") && value.starts_with('!')) || runs_program(&key) {
            self.add(
                Decision::Ask,
                format!(
                    "`git config {key}` makes git run a command: {}",
                    show_word(value)
                ),
                Some(words),
            );
        }
    }

    /// Destructive git subcommands ask; so do options that make git run a
    /// command of the line's choosing (`-c alias.x='!…'`, `-c core.pager=…`)
    /// and a subcommand the shell still expands (`git $cmd`).
    pub(super) fn git(&mut self, words: &[Word], args: &[&str]) {
        self.git_options(words);
        let Some((sub, rest)) = git_subcommand(args) else {
            return;
        };
        if sub == "config" {
            self.git_config(words, rest);
        }
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
