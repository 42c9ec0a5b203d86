//! Shell command classification: which commands a bash call would run, and
//! whether any of them is destructive.
//!
//! The line is parsed (see [`super::shell`]) and every simple command in it is
//! visited: each segment of lists and pipelines, subshells and groups, command and
//! process substitutions, here-documents, the scripts given to `bash -c`, `eval`
//! and `find -exec`, and the command behind wrappers such as `env`, `nohup`,
//! `timeout` or `xargs`. Each command the walk arrives at is checked by the
//! rules in [`super::rules`]; the most severe finding decides.

use super::Verdict;
use super::shell::{self, Command, RedirOp, Redirect, Script, SimpleCommand, Word};
use super::wrappers::{Unwrap, unwrap};
use crate::event::Decision;

/// How deeply the walk may descend through nested scripts (substitutions,
/// groups, strings run by shells) before it stops and asks; each parse is
/// bounded on its own, this bounds their sum.
const MAX_WALK_DEPTH: usize = 256;

/// How many times a line may hand a script string to another shell (`bash -c
/// "eval '…'"`) before the walk stops and asks.
const MAX_NESTING: usize = 8;

/// Decides whether a bash command may run without asking.
pub fn classify_command(command: &str) -> Verdict {
    analyze(command).verdict(&[])
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
        .find_map(|f| f.words.as_deref());
    match flagged.or(analysis.first.as_deref()) {
        Some(words) => prefix_words(words).join(" "),
        None => command.split_whitespace().next().unwrap_or("").to_string(),
    }
}

/// One thing the walk found.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub decision: Decision,
    pub reason: String,
    /// The command (after wrappers) the finding is about, when a session
    /// approval of its prefix may cover it; `None` for findings no prefix should
    /// ever waive (parse failures, redirections, pipes into shells).
    pub words: Option<Vec<String>>,
}

/// Everything found in one command line.
#[derive(Debug, Clone, Default)]
pub(crate) struct Analysis {
    pub findings: Vec<Finding>,
    /// The first command the line runs, for [`command_prefix`].
    pub first: Option<Vec<String>>,
    /// Where each `cd`/`pushd`/`popd` of the line goes: the target as
    /// written, or `None` when it has none (home, the stack) or one built from
    /// expansions. Paths after one no longer resolve from the workspace root.
    pub dir_changes: Vec<Option<String>>,
}

impl Analysis {
    /// The verdict once the session's approved prefixes (each split into words)
    /// have waived the `ask` findings they cover. A `deny` is never waived.
    pub(crate) fn verdict(&self, approved: &[Vec<String>]) -> Verdict {
        self.verdict_within(approved, &|_| true)
    }

    /// Like [`Analysis::verdict`], where a session approval of a prefix waives
    /// a command only while every path it names is one `inside` accepts: "allow
    /// `rm` for the session" after `rm junk.txt` does not let `rm -rf ../x`
    /// run. An argument brood cannot read as a plain path (`~`, `$HOME`, a
    /// backquote) is taken as outside, so that command asks again.
    pub(crate) fn verdict_within(
        &self,
        approved: &[Vec<String>],
        inside: &dyn Fn(&str) -> bool,
    ) -> Verdict {
        let mut worst = Decision::Allow;
        let mut reasons: Vec<&str> = Vec::new();
        let mut waived: Vec<String> = Vec::new();
        for finding in &self.findings {
            if finding.decision == Decision::Ask
                && let Some(words) = &finding.words
                && let Some(prefix) = approved.iter().find(|p| prefix_covers(p, words))
                && paths_inside(prefix, words, inside)
            {
                waived.push(prefix.join(" "));
                continue;
            }
            if severity(finding.decision) > severity(worst) {
                worst = finding.decision;
                reasons.clear();
            }
            if finding.decision == worst && !reasons.contains(&finding.reason.as_str()) {
                reasons.push(&finding.reason);
            }
        }
        let reason = match worst {
            Decision::Allow if waived.is_empty() => "no destructive command found".to_string(),
            Decision::Allow => {
                waived.dedup();
                format!("approved for this session: {}", waived.join(", "))
            }
            Decision::Ask | Decision::Deny => reasons.join("; "),
        };
        Verdict {
            decision: worst,
            reason,
        }
    }
}

fn severity(decision: Decision) -> u8 {
    match decision {
        Decision::Allow => 0,
        Decision::Ask => 1,
        Decision::Deny => 2,
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

/// Tools whose first argument is a subcommand worth naming in a prefix.
const SUBCOMMAND_TOOLS: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "go",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "terraform",
    "systemctl",
    "gh",
    "apt",
    "apt-get",
    "brew",
    "make",
    "gem",
    "twine",
    "dotnet",
];

/// `[name, subcommand]` or `[name]` (see [`command_prefix`]).
fn prefix_words(words: &[String]) -> Vec<String> {
    let normal = normalized(words);
    let take = match normal.first() {
        Some(name) if SUBCOMMAND_TOOLS.contains(&name.as_str()) => 2,
        _ => 1,
    };
    normal.into_iter().take(take).collect()
}

/// The command as a prefix is compared with it: the command name, then (for
/// tools with subcommands) the subcommand with the options before it dropped,
/// then the remaining arguments.
fn normalized(words: &[String]) -> Vec<String> {
    let Some((first, args)) = words.split_first() else {
        return Vec::new();
    };
    let name = command_name(first);
    let mut out = vec![name.clone()];
    if name == "git" {
        if let Some((sub, rest)) = super::rules::git_subcommand(args) {
            out.push(sub);
            out.extend(rest.iter().cloned());
        }
        return out;
    }
    if SUBCOMMAND_TOOLS.contains(&name.as_str())
        && let Some(i) = args.iter().position(|a| !a.starts_with('-'))
    {
        out.push(args[i].clone());
        out.extend(args[i + 1..].iter().cloned());
        return out;
    }
    out.extend(args.iter().cloned());
    out
}

/// Whether the approved `prefix` covers the command `words`, word by word.
fn prefix_covers(prefix: &[String], words: &[String]) -> bool {
    let Some((first, rest)) = prefix.split_first() else {
        return false;
    };
    let words = normalized(words);
    words.len() > rest.len()
        && words[0] == command_name(first)
        && rest.iter().zip(&words[1..]).all(|(p, w)| p == w)
}

/// Whether every path argument of `words` after the `prefix` words is one
/// `inside` accepts. Flags are not paths, but the value of `--flag=value` is.
fn paths_inside(prefix: &[String], words: &[String], inside: &dyn Fn(&str) -> bool) -> bool {
    let words = normalized(words);
    words.iter().skip(prefix.len()).all(|word| {
        let path = match word.strip_prefix('-') {
            Some(flag) => match flag.split_once('=') {
                Some((_, value)) => value,
                None => return true,
            },
            None => word.as_str(),
        };
        let unreadable = path.starts_with('~') || path.contains(['$', '`']);
        !unreadable && inside(path)
    })
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
}

/// Collects findings while visiting every command of a line.
#[derive(Default)]
pub(super) struct Walker {
    pub findings: Vec<Finding>,
    first: Option<Vec<String>>,
    dir_changes: Vec<Option<String>>,
    nesting: usize,
    depth: usize,
}

impl Walker {
    pub(super) fn add(&mut self, decision: Decision, reason: String, words: Option<&[Word]>) {
        self.findings.push(Finding {
            decision,
            reason,
            words: words.map(texts),
        });
    }

    /// Parses script text (the line itself, or a string a shell will run) and
    /// walks it; `origin` names where the string came from.
    pub(super) fn source(&mut self, text: &str, origin: Option<&str>) {
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
                        redirects: &[],
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
            Command::Function { name, body } => {
                if calls_itself_forking(name, body, false) {
                    self.add(
                        Decision::Deny,
                        format!(
                            "fork bomb: function `{name}` calls itself in a pipe or in the background"
                        ),
                        None,
                    );
                }
                self.command(body, Input::default());
            }
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

    fn simple(&mut self, cmd: &SimpleCommand, input: Input<'_>) {
        if let Unwrap::At(i) = unwrap(&cmd.words) {
            if self.first.is_none() {
                self.first = Some(texts(&cmd.words[i..]));
            }
            let name = command_name(&cmd.words[i].text);
            if ["cd", "pushd", "popd"].contains(&name.as_str()) {
                let target = cmd.words[i + 1..]
                    .iter()
                    .find(|w| !w.text.starts_with('-'))
                    .filter(|w| name != "popd" && w.subs.is_empty())
                    .map(|w| w.text.clone());
                self.dir_changes.push(target);
            }
        }
        for word in cmd.assignments.iter().chain(&cmd.words) {
            self.word_subs(word);
        }
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

    fn redirects(&mut self, redirects: &[Redirect]) {
        for redirect in redirects {
            self.word_subs(&redirect.target);
            if let Some(doc) = &redirect.heredoc {
                for sub in &doc.subs {
                    self.script(sub);
                }
            }
            let target = redirect.target.text.as_str();
            let writes = match redirect.op {
                RedirOp::Out
                | RedirOp::Append
                | RedirOp::Clobber
                | RedirOp::ReadWrite
                | RedirOp::OutBoth
                | RedirOp::AppendBoth => true,
                // `>&2` duplicates a descriptor; `>& file` writes a file.
                RedirOp::DupOut => !target
                    .trim_end_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit()),
                RedirOp::In
                | RedirOp::DupIn
                | RedirOp::HereDoc
                | RedirOp::HereDocStrip
                | RedirOp::HereString => false,
            };
            if writes && let Some((decision, why)) = super::paths::write_target(target) {
                let fd = redirect.fd.map(|n| n.to_string()).unwrap_or_default();
                let op = redirect.op.as_str();
                self.add(decision, format!("`{fd}{op} {target}` {why}"), None);
            }
        }
    }

    /// Runs the command `words` (after its wrappers) through the rules.
    pub(super) fn run(&mut self, words: &[Word], input: Input<'_>) {
        match unwrap(words) {
            Unwrap::At(i) => {
                if computed_name(&words[i]) {
                    self.add(
                        Decision::Ask,
                        format!(
                            "the command name `{}` comes from a command substitution and cannot be checked",
                            words[i].text
                        ),
                        None,
                    );
                }
                self.rules(&words[i..], input);
            }
            Unwrap::Script(text, origin) => self.source(&text, Some(origin)),
            Unwrap::Nothing => {}
        }
    }
}

/// Whether a command word's name (after its last `/`) is made by a command
/// substitution, `$(echo rm) x`, so no rule can see which command runs. A
/// computed directory with a literal name, `$(git rev-parse --show-toplevel)/x.sh`,
/// is fine; so is `$VAR`, which is too common to ask about.
fn computed_name(word: &Word) -> bool {
    if word.subs.is_empty() {
        return false;
    }
    let after_sub = word.text.rfind([')', '`']).map_or(0, |i| i + 1);
    !word.text[after_sub..].contains('/')
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
            if let Unwrap::At(i) = unwrap(&cmd.words) {
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

/// Whether the body of function `name` calls `name` in a pipeline or in the
/// background, which multiplies processes without bound: `:(){ :|:& };:`.
fn calls_itself_forking(name: &str, command: &Command, forking: bool) -> bool {
    let in_script = |script: &Script, forking: bool| {
        script.items.iter().any(|item| {
            item.pipelines.iter().any(|p| {
                let forking = forking || item.background || p.commands.len() > 1;
                p.commands
                    .iter()
                    .any(|c| calls_itself_forking(name, c, forking))
            })
        })
    };
    match command {
        Command::Simple(cmd) => {
            forking && matches!(unwrap(&cmd.words), Unwrap::At(i) if cmd.words[i].text == name)
        }
        Command::Subshell { body, .. } | Command::Group { body, .. } => in_script(body, forking),
        Command::Function { .. } => false,
        Command::Case { arms, .. } => arms.iter().any(|arm| in_script(arm, forking)),
    }
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
