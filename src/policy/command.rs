//! Shell command classification: which commands a bash call would run, and
//! whether any of them is destructive.
//!
//! The line is parsed (see [`super::shell`]) and every simple command in it is
//! visited: each segment of lists and pipelines, subshells and groups, command and
//! process substitutions, here-documents, the scripts given to `bash -c`, `eval`
//! and `find -exec`, and the command behind wrappers such as `env`, `nohup`,
//! `timeout` or `xargs`. Each command the walk arrives at is checked by the
//! rules in [`super::rules`]; the most severe finding decides.
//!
//! The walk fails closed: a command word the shell would still change (`$RM`,
//! `$(…)`, `r[m]`, `{rm,x}`, an empty string) cannot be checked, so it asks;
//! and since it may expand to nothing, the words after it are checked as the
//! command too, so `$x rm -rf /` is still denied.

use std::collections::HashMap;

use super::Verdict;
pub(crate) use super::analysis::{Analysis, Finding, Waiver};
use super::cwd::Cwd;
use super::prefix::prefix_words;
use super::shell::{self, Command, Expansion, Redirect, Script, SimpleCommand, Word};
use super::wrappers::{Unwrap, peel};
use crate::event::Decision;

/// How deeply the walk may descend through nested scripts (substitutions,
/// groups, strings run by shells) before it stops and asks; each parse is
/// bounded on its own, this bounds their sum.
const MAX_WALK_DEPTH: usize = 256;

/// How many times a line may hand a script string to another shell (`bash -c
/// "eval '…'"`) before the walk stops and asks.
const MAX_NESTING: usize = 8;

/// How many times one line may have a variable it set replaced into a command
/// word (`RM=rm; $RM x`); a bound on hostile lines, not on real ones.
const MAX_SUBSTITUTIONS: usize = 32;

/// How many function definitions the fork-bomb check follows.
const MAX_FUNCTIONS: usize = 64;

/// Decides whether a bash command may run without asking.
pub fn classify_command(command: &str) -> Verdict {
    analyze(command).verdict(&[])
}

/// [`classify_command`] with the user's permission rules on the verdict.
pub fn classify_command_with(command: &str, rules: &super::UserRules) -> Verdict {
    let analysis = analyze(command);
    let verdict = analysis.verdict(&rules.allowed_prefixes());
    super::with_rule(verdict, rules.for_command(command, &analysis.commands))
}

/// The prefix an approval dialog offers for "allow commands like this for the
/// session": the command word and, for tools with subcommands, the subcommand
/// (`git push`, `cargo publish`, `rm`). It is taken from the first command that
/// needs approval, since that is what the user is being asked about; if none
/// does, from the first command.
pub fn command_prefix(command: &str) -> String {
    let analysis = analyze(command);
    let flagged = analysis
        .findings
        .iter()
        .filter(|f| f.decision != Decision::Allow)
        .find_map(|f| match &f.waiver {
            Waiver::Prefix(words) => Some(words.as_slice()),
            Waiver::NewFile(_) | Waiver::Overwrite(_) | Waiver::Never => None,
        });
    match flagged.or(analysis.first.as_deref()) {
        Some(words) => prefix_words(words).join(" "),
        None => command.split_whitespace().next().unwrap_or("").to_string(),
    }
}

/// Parses and walks `command`.
pub(crate) fn analyze(command: &str) -> Analysis {
    let mut walker = Walker::default();
    walker.source(command, None);
    Analysis {
        findings: walker.findings,
        first: walker.first,
        dir_changes: walker.dir_changes,
        commands: walker.commands,
    }
}

/// The basename of a command word, lowercased: `/bin/RM` is `rm`.
pub(crate) fn command_name(word: &str) -> String {
    let base = word.rsplit('/').next().unwrap_or(word).to_lowercase();
    match base.strip_suffix(".exe") {
        Some(stem) => stem.to_string(),
        None => base,
    }
}

/// Why a command word cannot be taken at its word, as a reason names it; `None`
/// when it is plain text. Empty counts: `"" rm x` runs `rm x` in some shells
/// and nothing in others, so the word after it must be checked too.
pub(super) fn unresolved(word: &Word, what: &str) -> Option<String> {
    if let Some(kind) = word.expansions.first() {
        let shown = show_word(&word.text);
        let made = match kind {
            Expansion::Glob | Expansion::Brace => "is",
            Expansion::Parameter
            | Expansion::Command
            | Expansion::Arithmetic
            | Expansion::Process => "comes from",
        };
        return Some(format!(
            "{what} `{shown}` {made} {}, so it cannot be checked",
            kind.describe()
        ));
    }
    if word.text.is_empty() {
        return Some(format!(
            "{what} is an empty string, so the words after it cannot be trusted"
        ));
    }
    None
}

/// A word for a reason, shortened when long.
pub(super) fn show_word(text: &str) -> String {
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(59).collect::<String>())
    } else {
        text.to_string()
    }
}

/// Where a command's input comes from, for the rules about feeding shells.
#[derive(Clone, Copy, Default)]
pub(super) struct Input<'a> {
    /// Reads the output of an earlier pipeline stage.
    pub piped: bool,
    /// An earlier stage downloads something (the downloader's name).
    pub download: Option<&'a str>,
    /// The command's redirections (here-documents and here-strings).
    pub redirects: &'a [Redirect],
    /// The command gets arguments no one can see (`xargs cp`, `find -exec
    /// mv`): the wrapper that supplies them.
    pub fed: Option<&'static str>,
}

/// Collects findings while visiting every command of a line.
#[derive(Default)]
pub(super) struct Walker {
    pub findings: Vec<Finding>,
    first: Option<Vec<String>>,
    pub dir_changes: Vec<Option<String>>,
    /// The words of every command the line runs, wrappers peeled off.
    commands: Vec<Vec<String>>,
    nesting: usize,
    depth: usize,
    /// Where the command being checked runs.
    pub cwd: Cwd,
    /// Variables the line set to plain text (`RM=rm`), so `$RM x` can be
    /// checked as `rm x` as well.
    pub vars: HashMap<String, String>,
    substitutions: usize,
    /// Commands judged behind opaque wrappers so far: nested ones
    /// (`strace strace … rm`) multiply, so they share one budget.
    opaque_runs: usize,
    /// Functions the line defines, for the fork-bomb check.
    pub functions: Vec<(String, Command)>,
    /// Files the line writes, so running one of them later in the line
    /// (`echo 'rm x' > s.sh; sh s.sh`) asks: its text was never checked.
    pub wrote: Vec<String>,
}

impl Walker {
    /// A finding about the command `words` (a prefix approval may waive it),
    /// or, with `None`, one nothing waives.
    pub(super) fn add(&mut self, decision: Decision, reason: String, words: Option<&[Word]>) {
        let waiver = match words {
            Some(words) => Waiver::Prefix(texts(words)),
            None => Waiver::Never,
        };
        self.findings.push(Finding {
            decision,
            reason,
            waiver,
        });
    }

    /// The line would empty the file `path` (`> f`, `tee f`); asks unless no
    /// file is there yet.
    pub(super) fn empties(&mut self, path: &str, reason: String) {
        self.findings.push(Finding {
            decision: Decision::Ask,
            reason,
            waiver: Waiver::NewFile(path.to_string()),
        });
    }

    /// The line would replace a file: asks unless nothing is at the first of
    /// `paths` nor, for a folder, at the others (see `Waiver::Overwrite`).
    pub(super) fn replaces(&mut self, paths: Vec<String>, reason: String) {
        self.findings.push(Finding {
            decision: Decision::Ask,
            reason,
            waiver: Waiver::Overwrite(paths),
        });
    }

    /// Parses script text (the line itself, or a string a shell will run) and
    /// walks it; `origin` names where the string came from.
    pub(super) fn source(&mut self, text: &str, origin: Option<&str>) {
        if super::forkbomb::endless_background_loop(text) {
            self.add(
                Decision::Deny,
                "fork bomb: an endless loop starts a background process each turn".into(),
                None,
            );
        }
        if self.nesting >= MAX_NESTING {
            self.add(
                Decision::Ask,
                "command hands scripts to shells too deeply to check".into(),
                None,
            );
            return;
        }
        match shell::parse(text) {
            Ok(script) => {
                self.nesting += 1;
                self.script(&script);
                self.nesting -= 1;
            }
            Err(e) => {
                let reason = match origin {
                    None => format!("could not parse command: {e}"),
                    Some(origin) => format!("could not parse command: {e} (in {origin})"),
                };
                self.add(Decision::Ask, reason, None);
            }
        }
    }

    /// Like [`Walker::source`] for a script that is one shell word (`bash -c
    /// "…"`, `trap '…' EXIT`): when the outer shell expands parts of it first,
    /// the inner shell parses text no one has seen, so it asks; the text as
    /// written is still walked, so what is visible is still judged.
    pub(super) fn source_word(&mut self, word: &Word, origin: &str) {
        if let Some(kind) = word.expansions.first() {
            self.add(
                Decision::Ask,
                format!(
                    "{origin} is built from {} (`{}`), so what runs cannot be checked",
                    kind.describe(),
                    show_word(&word.text)
                ),
                None,
            );
        }
        self.source(&word.text, Some(origin));
    }

    pub(super) fn script(&mut self, script: &Script) {
        if self.depth >= MAX_WALK_DEPTH {
            self.add(
                Decision::Ask,
                "command nests scripts too deeply to check".into(),
                None,
            );
            return;
        }
        self.depth += 1;
        self.script_items(script);
        self.depth -= 1;
    }

    fn script_items(&mut self, script: &Script) {
        for item in &script.items {
            for pipeline in &item.pipelines {
                let mut download: Option<String> = None;
                for (i, command) in pipeline.commands.iter().enumerate() {
                    let input = Input {
                        piped: i > 0,
                        download: download.as_deref(),
                        ..Input::default()
                    };
                    self.command(command, input);
                    if let Some(name) = downloader_in(command) {
                        download = Some(name);
                    }
                }
            }
        }
    }

    fn command(&mut self, command: &Command, input: Input<'_>) {
        match command {
            Command::Simple(cmd) => self.simple(cmd, input),
            Command::Subshell { body, redirects } | Command::Group { body, redirects } => {
                self.redirects(redirects);
                self.script(body);
            }
            Command::Function { name, body } => self.function(name, body),
            Command::Case {
                subject,
                patterns,
                arms,
                redirects,
            } => {
                self.word_subs(subject);
                for word in patterns {
                    self.word_subs(word);
                }
                for arm in arms {
                    self.script(arm);
                }
                self.redirects(redirects);
            }
        }
    }

    /// A function definition asks (the name now runs its body, wherever it is
    /// called); one that calls itself forking, directly or through the other
    /// functions of the line, is a fork bomb.
    fn function(&mut self, name: &str, body: &Command) {
        self.add(
            Decision::Ask,
            format!("defines the shell function `{name}`, which changes what `{name}` runs"),
            None,
        );
        self.functions.retain(|(n, _)| n != name);
        if self.functions.len() < MAX_FUNCTIONS {
            self.functions.push((name.to_string(), body.clone()));
        }
        let bombs: Vec<String> = self
            .functions
            .iter()
            .filter(|(n, b)| super::forkbomb::forks_itself(n, b, &self.functions))
            .map(|(n, _)| n.clone())
            .collect();
        for bomb in bombs {
            self.add(
                Decision::Deny,
                format!("fork bomb: function `{bomb}` calls itself in a pipe or in the background"),
                None,
            );
        }
        self.command(body, Input::default());
    }

    fn simple(&mut self, cmd: &SimpleCommand, input: Input<'_>) {
        if let Unwrap::At(i) = peel(&cmd.words).0 {
            // `env NAME=value cmd`: the wrappers' assignments count too.
            for word in cmd.words[..i].iter().filter(|w| w.text.contains('=')) {
                self.assignment(word, false);
            }
            if self.first.is_none() {
                self.first = Some(texts(&cmd.words[i..]));
            }
            self.commands.push(texts(&cmd.words[i..]));
            let name = command_name(&cmd.words[i].text);
            if ["cd", "pushd", "popd"].contains(&name.as_str()) {
                self.change_dir(&name, &cmd.words[i + 1..]);
            }
        }
        for word in cmd.assignments.iter().chain(&cmd.words) {
            self.word_subs(word);
        }
        self.assignments(&cmd.assignments, cmd.words.is_empty());
        self.redirects(&cmd.redirects);
        let input = Input {
            redirects: &cmd.redirects,
            ..input
        };
        self.run(&cmd.words, input);
    }

    /// Walks the substitutions inside a word.
    pub(super) fn word_subs(&mut self, word: &Word) {
        for sub in &word.subs {
            self.script(sub);
        }
    }

    /// Runs the command `words` (after its wrappers) through the rules. A
    /// command word that cannot be read as text asks, and the words after it
    /// are checked as the command as well, since it may expand to nothing.
    pub(super) fn run(&mut self, words: &[Word], input: Input<'_>) {
        let mut words = words;
        let mut flagged = false;
        loop {
            let (found, via) = peel(words);
            let input = Input {
                fed: via.fed.or(input.fed),
                ..input
            };
            match found {
                Unwrap::At(i) => {
                    if let Some(wrapper) = via.exec {
                        self.add(
                            Decision::Ask,
                            format!(
                                "`{wrapper}` replaces the shell with `{}`",
                                show_word(&words[i].text)
                            ),
                            None,
                        );
                    }
                    let word = &words[i];
                    let Some(why) = unresolved(word, "the command name") else {
                        if word.text.contains('/') {
                            self.runs_written(&word.text, "the line");
                        }
                        self.rules(&words[i..], input);
                        return;
                    };
                    if !flagged {
                        self.add(Decision::Ask, why, None);
                        flagged = true;
                        self.substitute(word, &words[i + 1..], input);
                    }
                    words = &words[i + 1..];
                }
                Unwrap::Script(script) => {
                    if let Some(word) = script.built_from {
                        self.source_word(&word, script.origin);
                    } else {
                        self.source(&script.text, Some(script.origin));
                    }
                    return;
                }
                Unwrap::Nothing => return,
                Unwrap::Opaque(from) => {
                    // Bounded: a wrapper with a thousand arguments is judged on
                    // its first few dozen positions, and asks for the rest.
                    let end = words.len().min(from + MAX_OPAQUE_POSITIONS);
                    for start in from..end {
                        if self.opaque_runs >= MAX_OPAQUE_RUNS {
                            break;
                        }
                        self.opaque_runs += 1;
                        self.run(&words[start..], input);
                    }
                    if words.len() > end || self.opaque_runs >= MAX_OPAQUE_RUNS {
                        self.add(
                            Decision::Ask,
                            format!(
                                "`{}` has too many arguments to find the command it runs",
                                show_word(&words[from - 1].text)
                            ),
                            None,
                        );
                    }
                    return;
                }
            }
        }
    }

    /// `$RM x` after `RM=rm` in the same line: checks `rm x` too.
    fn substitute(&mut self, word: &Word, rest: &[Word], input: Input<'_>) {
        if self.substitutions >= MAX_SUBSTITUTIONS {
            return;
        }
        let Some(value) = known_variable(word).and_then(|name| self.vars.get(name)) else {
            return;
        };
        let mut words: Vec<Word> = value.split_whitespace().map(Word::plain).collect();
        if words.is_empty() {
            return;
        }
        self.substitutions += 1;
        words.extend(rest.iter().cloned());
        self.run(&words, input);
    }
}

/// How many positions after an opaque wrapper are judged as its command, and
/// how many such judgements one line gets in all.
const MAX_OPAQUE_POSITIONS: usize = 32;
const MAX_OPAQUE_RUNS: usize = 256;

/// `NAME` when `word` is exactly `$NAME` or `${NAME}` (quoted or not).
fn known_variable(word: &Word) -> Option<&str> {
    if word.expansions != [Expansion::Parameter] {
        return None;
    }
    let name = word
        .text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .or_else(|| word.text.strip_prefix('$'))?;
    shell::is_assignment_name(name)
        .then_some(name)
        .filter(|n| !n.contains(['[', '+']))
}

/// The plain text of words.
pub(super) fn texts(words: &[Word]) -> Vec<String> {
    words.iter().map(|w| w.text.clone()).collect()
}

/// The first downloader (`curl`, `wget`, …) a command runs, if any.
fn downloader_in(command: &Command) -> Option<String> {
    let mut names = Vec::new();
    command_names(command, &mut names);
    names
        .into_iter()
        .find(|n| super::rules::DOWNLOADERS.contains(&n.as_str()))
}

/// The names of the commands `command` runs (after wrappers), not counting
/// substitutions.
pub(super) fn command_names(command: &Command, out: &mut Vec<String>) {
    match command {
        Command::Simple(cmd) => {
            if let Unwrap::At(i) = peel(&cmd.words).0 {
                out.push(command_name(&cmd.words[i].text));
            }
        }
        Command::Subshell { body, .. } | Command::Group { body, .. } => {
            script_names(body, out);
        }
        Command::Function { .. } => {}
        Command::Case { arms, .. } => {
            for arm in arms {
                script_names(arm, out);
            }
        }
    }
}

/// The names of every command in `script`, substitutions included.
pub(super) fn script_names(script: &Script, out: &mut Vec<String>) {
    for item in &script.items {
        for pipeline in &item.pipelines {
            for command in &pipeline.commands {
                command_names(command, out);
                if let Command::Simple(cmd) = command {
                    for sub in cmd.words.iter().flat_map(|w| &w.subs) {
                        script_names(sub, out);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "fail_closed_tests.rs"]
mod fail_closed_tests;
#[cfg(test)]
#[path = "overwrites_tests.rs"]
mod overwrites_tests;

#[cfg(test)]
#[path = "fail_closed_effects_tests.rs"]
mod fail_closed_effects_tests;
