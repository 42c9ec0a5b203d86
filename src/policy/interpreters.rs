//! Shells and interpreters: code handed to them on the command line, through a
//! pipe or a here-document never passes through the rules as commands do, so
//! the policy reads what it can (shell scripts) and asks about the rest
//! (`python -c`, `perl -e`, `awk 'BEGIN{system(…)}'`, `sed -i`).

use super::command::{Input, Walker, script_names, show_word};
use super::rules::DOWNLOADERS;
use super::shell::{RedirOp, Word};
use crate::event::Decision;

pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh", "csh", "tcsh",
];

/// How an interpreter takes code on its command line.
struct Dialect {
    /// Short options (alone or in a cluster, `-ne`) whose value is code.
    inline: &'static str,
    /// Long options whose value is code (`--eval`, `--eval=…`).
    long: &'static [&'static str],
    /// The short option that names a module to run (`python -m json.tool`).
    module: Option<char>,
    /// A first argument that runs its next one as code (`deno eval`).
    subcommand: Option<&'static str>,
}

/// The dialect of interpreter `name`, if it is one.
fn dialect(name: &str) -> Option<Dialect> {
    let d = |inline, long, module, subcommand| {
        Some(Dialect {
            inline,
            long,
            module,
            subcommand,
        })
    };
    match name {
        n if n.starts_with("python") || n.starts_with("pypy") => d("c", &[], Some('m'), None),
        n if n.starts_with("perl") => d("eE", &[], None, None),
        "ruby" | "jruby" => d("e", &[], None, None),
        "node" | "nodejs" | "bun" => d("ep", &["--eval", "--print"], None, None),
        "deno" => d("", &["--eval"], None, Some("eval")),
        "php" => d("rRBE", &[], None, None),
        "lua" | "luajit" | "rscript" | "osascript" | "groovy" => d("e", &[], None, None),
        "julia" => d("eE", &["--eval", "--print"], None, None),
        "pwsh" | "powershell" => d("cCeE", &["--command"], None, None),
        "expect" | "tclsh" | "wish" => d("c", &[], None, None),
        _ => None,
    }
}

/// Where an interpreter takes its program from.
enum Program<'a> {
    /// Code on the command line (`-c 'script'`, `-e`).
    Inline(&'a Word),
    /// A module by name (`python -m json.tool`).
    Module,
    /// A script file.
    File(&'a Word),
    /// Standard input.
    Stdin,
}

impl Walker {
    /// Checks `words` (`words[0]` is `name`) when it is a shell or another
    /// interpreter; returns without a finding for any other command.
    pub(super) fn interpreter(&mut self, words: &[Word], name: &str, input: Input<'_>) {
        let shell = SHELLS.contains(&name);
        let program = if shell {
            shell_program(&words[1..])
        } else {
            match dialect(name) {
                Some(d) => program(&words[1..], &d),
                None => return,
            }
        };
        let origin = format!("the script given to `{name}`");
        if let Some(feeder) = input.fed {
            self.add(
                Decision::Ask,
                format!("`{feeder} {name}` runs code with arguments chosen by its input, which cannot be checked"),
                None,
            );
        }
        match program {
            Program::Inline(word) => {
                self.downloaded(word, name);
                if shell {
                    self.source_word(word, &origin);
                } else {
                    self.inline_code(name, &word.text);
                }
            }
            Program::Module => {}
            Program::File(word) => {
                self.downloaded(word, name);
                self.runs_written(&word.text, &format!("`{name}`"));
                if word.is_expanded() || is_not_a_file(&word.text) {
                    self.add(
                        Decision::Ask,
                        format!(
                            "`{name}` runs `{}`, which is not a plain file, so what runs cannot be checked",
                            show_word(&word.text)
                        ),
                        None,
                    );
                }
            }
            Program::Stdin => self.stdin_program(name, shell, &origin, input),
        }
    }

    /// A program an interpreter reads on standard input: a here-document or
    /// here-string is read like `-c` (walked for shells, asked about for the
    /// rest); a pipe or download cannot be seen, so it asks.
    fn stdin_program(&mut self, name: &str, shell: bool, origin: &str, input: Input<'_>) {
        let stdin = input
            .redirects
            .iter()
            .filter(|r| r.fd.is_none_or(|fd| fd == 0))
            .rfind(|r| {
                matches!(
                    r.op,
                    RedirOp::In | RedirOp::HereDoc | RedirOp::HereDocStrip | RedirOp::HereString
                )
            });
        if let Some(redirect) = stdin {
            self.downloaded(&redirect.target, name);
            let text = match redirect.op {
                RedirOp::HereString => {
                    if shell {
                        self.source_word(&redirect.target, origin);
                        return;
                    }
                    Some(redirect.target.text.as_str())
                }
                RedirOp::In => {
                    if redirect.target.is_expanded() || is_not_a_file(&redirect.target.text) {
                        self.add(
                            Decision::Ask,
                            format!(
                                "`{name}` reads its program from `{}`, which is not a plain file",
                                show_word(&redirect.target.text)
                            ),
                            None,
                        );
                    }
                    None
                }
                _ => redirect.heredoc.as_ref().map(|d| d.body.as_str()),
            };
            let Some(text) = text else {
                return;
            };
            if !shell {
                self.inline_code(name, text);
                return;
            }
            let expands = redirect.op != RedirOp::HereString
                && !redirect.target.quoted
                && text.contains(['$', '`']);
            if expands {
                self.add(
                    Decision::Ask,
                    format!(
                        "the here-document given to `{name}` is expanded before `{name}` reads it, so what runs cannot be checked"
                    ),
                    None,
                );
            }
            self.source(text, Some(origin));
        } else if let Some(downloader) = input.download {
            self.add(
                Decision::Ask,
                format!("pipes a download (`{downloader}`) into `{name}`"),
                None,
            );
        } else if input.piped {
            let what = if shell { "commands" } else { "code" };
            self.add(
                Decision::Ask,
                format!("pipes text into `{name}`; the {what} it runs cannot be checked"),
                None,
            );
        }
    }

    /// A finding when `word` is made by a downloader's output.
    fn downloaded(&mut self, word: &Word, name: &str) {
        let mut names = Vec::new();
        for sub in &word.subs {
            script_names(sub, &mut names);
        }
        if let Some(downloader) = names.iter().find(|n| DOWNLOADERS.contains(&n.as_str())) {
            self.add(
                Decision::Ask,
                format!("`{name}` runs a script downloaded by `{downloader}`"),
                None,
            );
        }
    }

    /// Code in another language: it cannot be checked, so it asks; one that
    /// forks in a loop is a fork bomb.
    fn inline_code(&mut self, name: &str, code: &str) {
        let looping = ["while", "for", "loop", "until", "repeat"]
            .iter()
            .any(|k| code.contains(k));
        if code.contains("fork") && looping {
            self.add(
                Decision::Deny,
                format!("fork bomb: the code given to `{name}` forks in a loop"),
                None,
            );
        }
        self.add(
            Decision::Ask,
            format!("`{name}` runs code given inline, which cannot be checked"),
            None,
        );
    }

    /// `awk` programs that run commands (`system()`, pipes) or write files
    /// (`print > "f"`, `-i inplace`) ask; plain text processing is allowed.
    pub(super) fn awk(&mut self, words: &[Word], name: &str) {
        let mut i = 1;
        let mut from_file = false;
        while let Some(word) = words.get(i) {
            let a = word.text.as_str();
            match a {
                "--" => {
                    i += 1;
                    break;
                }
                "-f" | "--file" | "-E" | "--exec" => {
                    from_file = true;
                    i += 2;
                }
                "-i" | "--include" | "-l" | "--load" => {
                    if words.get(i + 1).is_some_and(|w| w.text.contains("inplace")) {
                        self.add(
                            Decision::Ask,
                            format!("`{name} -i inplace` rewrites the files it reads"),
                            None,
                        );
                    }
                    i += 2;
                }
                "-F" | "-v" | "--assign" | "--field-separator" => i += 2,
                a if a.starts_with('-') && a.len() > 1 => i += 1,
                _ => break,
            }
        }
        if from_file {
            return;
        }
        let Some(program) = words.get(i) else {
            return;
        };
        if let Some(kind) = program.expansions.first() {
            self.add(
                Decision::Ask,
                format!(
                    "the `{name}` program comes from {}, so it cannot be checked",
                    kind.describe()
                ),
                None,
            );
            return;
        }
        let code = program.text.as_str();
        let pipes = code.replace("||", "").contains('|');
        let writes = code.contains("> \"") || code.contains(">\"") || code.contains(">> ");
        let why = if code.contains("system") {
            Some("calls `system()`, which runs shell commands")
        } else if pipes {
            Some("pipes to or from a shell command")
        } else if writes {
            Some("writes to files")
        } else {
            None
        };
        if let Some(why) = why {
            self.add(
                Decision::Ask,
                format!("the `{name}` program {why}, which cannot be checked"),
                None,
            );
        }
    }

    /// `sed -i` rewrites files in place.
    pub(super) fn sed(&mut self, words: &[Word], name: &str) {
        let in_place = words[1..].iter().any(|w| {
            let a = w.text.as_str();
            a.starts_with("--in-place")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
        });
        if in_place {
            self.add(
                Decision::Ask,
                format!("`{name} -i` rewrites files in place"),
                Some(words),
            );
        }
    }
}

/// A path that is not a plain file a script can be read from: a device, a
/// descriptor, a process's files, or standard input.
pub(super) fn is_not_a_file(path: &str) -> bool {
    path.is_empty()
        || path == "-"
        || path.starts_with("/dev/")
        || path.starts_with("/proc/")
        || path.starts_with("/sys/")
}

/// Where a shell takes its program from: `-c` (alone or in a cluster, `-ec`)
/// names the first argument after the options; `-s` or no file is stdin.
fn shell_program(args: &[Word]) -> Program<'_> {
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
        if matches!(a, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if a.starts_with("--") {
            i += 1;
            continue;
        }
        if a.len() > 1 && (a.starts_with('-') || a.starts_with('+')) {
            if a.starts_with('-') {
                inline |= a.contains('c');
                read_stdin |= a.contains('s');
            }
            // `-euo pipefail`: an `o` ending a cluster takes the next word.
            i += if a.ends_with(['o', 'O']) { 2 } else { 1 };
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

/// Where an interpreter of dialect `d` takes its program from.
fn program<'a>(args: &'a [Word], d: &Dialect) -> Program<'a> {
    if let (Some(sub), Some(first)) = (d.subcommand, args.first())
        && first.text == sub
    {
        return args.get(1).map_or(Program::Stdin, Program::Inline);
    }
    for (i, arg) in args.iter().enumerate() {
        let a = arg.text.as_str();
        if a == "-" {
            return Program::Stdin;
        }
        if a == "--" {
            return args.get(i + 1).map_or(Program::Stdin, Program::File);
        }
        if let Some(long) = a.strip_prefix("--") {
            let (option, attached) = match long.split_once('=') {
                Some((option, _)) => (option, true),
                None => (long, false),
            };
            if d.long
                .iter()
                .any(|l| l.trim_start_matches('-') == option.to_lowercase())
            {
                return match attached {
                    true => Program::Inline(arg),
                    false => args.get(i + 1).map_or(Program::Stdin, Program::Inline),
                };
            }
            continue;
        }
        if let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) {
            if d.module.is_some_and(|m| cluster.starts_with(m)) {
                return Program::Module;
            }
            if let Some(at) = cluster.find(|c| d.inline.contains(c)) {
                // `-e code` or `-ecode`, `-ne code`.
                let attached = at + 1 < cluster.len();
                return match attached {
                    true => Program::Inline(arg),
                    false => args.get(i + 1).map_or(Program::Stdin, Program::Inline),
                };
            }
            continue;
        }
        return Program::File(arg);
    }
    Program::Stdin
}
