//! Shell builtins and variables that change what later commands run, so the
//! text of the line no longer tells: `eval`, `source` of what is not a plain
//! file, `trap`, `alias`, `hash -p`, `enable`, and variables such as `PATH`,
//! `IFS`, `LD_PRELOAD` or `BASH_ENV`.

use super::command::{Walker, show_word};
use super::interpreters::is_not_a_file;
use super::shell::{Word, is_assignment_name};
use crate::event::Decision;

/// What setting a variable does to the commands that see it.
enum Risk {
    /// `IFS`: how words split, so every later expansion.
    Splitting,
    /// `PATH`: which program a command name runs.
    Lookup,
    /// `LD_PRELOAD` and kin: a library loaded into every program.
    Preload,
    /// `BASH_ENV`, `PROMPT_COMMAND`, …: code the shell runs by itself.
    Startup,
    /// `NODE_OPTIONS`, `PERL5OPT`, `GIT_CONFIG_*`, …: code or configuration an
    /// interpreter or git loads by itself.
    Injects,
    /// `PAGER`, `GIT_SSH_COMMAND`, …: a command line a program runs; it is
    /// checked as one.
    Command,
}

fn risk(name: &str) -> Option<Risk> {
    let risk = match name {
        "IFS" => Risk::Splitting,
        "PATH" => Risk::Lookup,
        "LD_PRELOAD" | "LD_LIBRARY_PATH" | "LD_AUDIT" => Risk::Preload,
        n if n.starts_with("DYLD_") => Risk::Preload,
        "BASH_ENV"
        | "ENV"
        | "PROMPT_COMMAND"
        | "PS0"
        | "PS1"
        | "PS2"
        | "PS4"
        | "SHELLOPTS"
        | "BASHOPTS"
        | "ZDOTDIR"
        | "BASH_LOADABLES_PATH"
        | "EXECIGNORE"
        | "HISTFILE" => Risk::Startup,
        n if n.starts_with("BASH_FUNC_") => Risk::Startup,
        "NODE_OPTIONS"
        | "PERL5OPT"
        | "PERL5LIB"
        | "RUBYOPT"
        | "PYTHONSTARTUP"
        | "PYTHONPATH"
        | "PYTHONHOME"
        | "JAVA_TOOL_OPTIONS"
        | "_JAVA_OPTIONS"
        | "GIT_EXEC_PATH"
        | "GIT_CONFIG_PARAMETERS"
        | "GIT_CONFIG_GLOBAL"
        | "GIT_CONFIG_SYSTEM"
        | "GIT_DIR"
        | "GIT_TEMPLATE_DIR"
        | "CARGO_TARGET_DIR_RUNNER"
        | "RUSTC_WRAPPER"
        | "RUSTC" => Risk::Injects,
        n if n.starts_with("GIT_CONFIG_") => Risk::Injects,
        n if n.starts_with("CARGO_") && n.ends_with("_RUNNER") => Risk::Injects,
        "PAGER"
        | "GIT_PAGER"
        | "MANPAGER"
        | "EDITOR"
        | "VISUAL"
        | "GIT_EDITOR"
        | "GIT_SEQUENCE_EDITOR"
        | "GIT_SSH_COMMAND"
        | "GIT_SSH"
        | "GIT_EXTERNAL_DIFF"
        | "GIT_ASKPASS"
        | "SSH_ASKPASS"
        | "SUDO_ASKPASS"
        | "LESSOPEN"
        | "LESSCLOSE"
        | "BROWSER" => Risk::Command,
        _ => return None,
    };
    Some(risk)
}

impl Walker {
    /// The builtins that change what later commands run; any other command
    /// passes untouched.
    pub(super) fn builtin(&mut self, words: &[Word], name: &str) {
        let args = &words[1..];
        match name {
            "eval" => {
                self.add(
                    Decision::Ask,
                    "`eval` runs a string built when the line runs, which cannot be checked"
                        .into(),
                    None,
                );
                let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
                self.source(&text.join(" "), Some("the string given to `eval`"));
            }
            "source" | "." => {
                let file = args.iter().find(|w| w.text != "--");
                let plain = file.is_some_and(|w| !w.is_expanded() && !is_not_a_file(&w.text));
                if let Some(file) = file.filter(|_| plain) {
                    self.runs_written(&file.text, &format!("`{name}`"));
                }
                if !plain {
                    let shown = file.map_or(String::new(), |w| show_word(&w.text));
                    self.add(
                        Decision::Ask,
                        format!(
                            "`{name} {shown}` runs a script that is not a plain file, so what runs cannot be checked"
                        ),
                        None,
                    );
                }
            }
            "trap" => self.trap(args),
            "alias" => {
                if args.iter().any(|w| w.text.contains('=')) {
                    self.add(
                        Decision::Ask,
                        "`alias` changes what a command name runs".into(),
                        None,
                    );
                }
                for word in args {
                    if let Some((_, value)) = word.text.split_once('=') {
                        self.source(value, Some("the value of an alias"));
                    }
                }
            }
            "hash" if args.iter().any(|w| w.text.starts_with('-') && w.text.contains('p')) => {
                self.add(
                    Decision::Ask,
                    "`hash -p` makes a command name run another program".into(),
                    None,
                );
            }
            "enable" if !args.is_empty() => self.add(
                Decision::Ask,
                "`enable` turns shell builtins on or off (or loads new ones), which changes what commands run".into(),
                None,
            ),
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                if args
                    .iter()
                    .take_while(|w| w.text.starts_with('-'))
                    .any(|w| w.text.contains('f'))
                    && name == "export"
                {
                    self.add(
                        Decision::Ask,
                        "`export -f` hands a shell function to every shell started later".into(),
                        None,
                    );
                }
                for word in args.iter().filter(|w| !w.text.starts_with('-')) {
                    self.assignment(word, true);
                }
            }
            _ => {}
        }
    }

    /// `trap ACTION SIGNAL…` runs ACTION later; it asks, and the action is
    /// checked as a command (so `trap 'rm -rf /' EXIT` is still denied).
    fn trap(&mut self, args: &[Word]) {
        let mut args = args.iter().skip_while(|w| w.text == "--");
        let Some(action) = args.next() else {
            return;
        };
        if matches!(action.text.as_str(), "-l" | "-p" | "-P") || action.text == "-" {
            return;
        }
        if args.next().is_none() {
            // `trap SIGNAL` resets it.
            return;
        }
        self.add(
            Decision::Ask,
            format!(
                "`trap '{}' …` runs a command later, on a signal or when the shell exits",
                show_word(&action.text)
            ),
            None,
        );
        self.source_word(action, "the command given to `trap`");
    }

    /// Checks the `NAME=value` words of one command; with `standalone`, they
    /// set the shell's own variables (and are remembered for `$NAME`).
    pub(super) fn assignments(&mut self, words: &[Word], standalone: bool) {
        for word in words {
            self.assignment(word, standalone);
        }
    }

    /// One `NAME=value`: a variable that changes what commands run asks.
    pub(super) fn assignment(&mut self, word: &Word, standalone: bool) {
        let Some((name, value)) = word.text.split_once('=') else {
            return;
        };
        if !is_assignment_name(name) {
            return;
        }
        let name = name.trim_end_matches('+');
        if standalone {
            match word.is_expanded() {
                true => self.vars.remove(name),
                false => self.vars.insert(name.to_string(), value.to_string()),
            };
        }
        let Some(risk) = risk(name) else {
            return;
        };
        let shown = show_word(value);
        let reason = match risk {
            Risk::Splitting => {
                format!(
                    "`{name}={shown}` changes how the shell splits words, so later commands cannot be checked"
                )
            }
            Risk::Lookup => {
                let appends = ["$PATH:", "${PATH}:"].iter().any(|p| value.starts_with(p));
                if appends {
                    return;
                }
                format!("`PATH={shown}` changes which program each command name runs")
            }
            Risk::Preload => {
                format!("`{name}={shown}` loads a library into every program that runs")
            }
            Risk::Startup => format!("`{name}={shown}` makes the shell run code by itself"),
            Risk::Injects => {
                format!(
                    "`{name}={shown}` makes programs load code or settings of the caller's choosing"
                )
            }
            Risk::Command => {
                if let Some(kind) = word.expansions.first() {
                    format!(
                        "`{name}` is set from {}, and programs run it as a command",
                        kind.describe()
                    )
                } else {
                    let command = value.trim_start_matches('|');
                    self.source(command, Some(&format!("the command in `{name}`")));
                    return;
                }
            }
        };
        self.add(Decision::Ask, reason, None);
    }
}
