//! Command prefixes that run the rest of their arguments as a command
//! (`env FOO=1 rm x`, `nice -n 5 rm x`, `xargs -0 rm`): the rules must judge the
//! command behind them, not the wrapper.

use super::command::command_name;
use super::shell::{Word, is_assignment_name};

/// What is left of a command once its wrappers are peeled off.
pub(super) enum Unwrap {
    /// The real command starts at this word.
    At(usize),
    /// The wrapper runs a string as a shell script (`env -S`, `watch`).
    Script(ScriptArg),
    /// No command runs (`command -v rm`, only assignments).
    Nothing,
    /// A wrapper whose own arguments are not parsed here (`strace -o f cmd`,
    /// `flock FILE cmd`, `taskset MASK cmd`): the command is one of the words
    /// from this one on, so each is judged as if it were.
    Opaque(usize),
}

/// Wrappers that run a command given after options and positional arguments
/// of their own, which brood does not parse.
const OPAQUE_WRAPPERS: &[&str] = &[
    "strace",
    "ltrace",
    "flock",
    "taskset",
    "chrt",
    "unshare",
    "chroot",
    "systemd-run",
    "nsenter",
    "firejail",
    "proot",
    "bwrap",
    "valgrind",
    "faketime",
    "torsocks",
    "proxychains",
    "proxychains4",
    "eatmydata",
    "fakeroot",
    "unbuffer",
    "rlwrap",
    "chronic",
    "numactl",
    "cgexec",
    "cpulimit",
    "trickle",
    "nocache",
    "catchsegv",
    "gdb",
    "lldb",
    "caffeinate",
    "sandbox-exec",
    "dbus-run-session",
    "xvfb-run",
];

/// A string a wrapper hands to a shell.
pub(super) struct ScriptArg {
    pub text: String,
    /// Where it came from, for reasons.
    pub origin: &'static str,
    /// The first of its words the outer shell expands first, if any: then the
    /// script is not the text shown.
    pub built_from: Option<Word>,
}

/// What the wrappers peeled off do to the command behind them.
#[derive(Default)]
pub(super) struct Via {
    /// `exec`: the command replaces the shell.
    pub exec: Option<&'static str>,
    /// `xargs`: the command gets arguments read from input, unseen.
    pub fed: Option<&'static str>,
}

/// Skips command prefixes that run the rest of their arguments as a command:
/// `env [-i] [VAR=x…]`, `command`, `builtin`, `exec`, `nohup`, `nice [-n N]`,
/// `time`, `timeout N`, `xargs [opts]`, `stdbuf`, `ionice`, `setsid`, `busybox`,
/// `npx`/`bunx`/`pnpx`, `watch`; and says what the wrappers do to the command
/// (`exec` replaces the shell, `xargs` feeds it unseen arguments).
pub(super) fn peel(words: &[Word]) -> (Unwrap, Via) {
    let mut via = Via::default();
    let mut i = 0;
    loop {
        let Some(first) = words.get(i) else {
            return (Unwrap::Nothing, via);
        };
        let args: Vec<&str> = words[i + 1..].iter().map(|w| w.text.as_str()).collect();
        let script = |text: String, origin: &'static str| {
            let built_from = words[i + 1..].iter().find(|w| w.is_expanded()).cloned();
            Unwrap::Script(ScriptArg {
                text,
                origin,
                built_from,
            })
        };
        let skip = match command_name(&first.text).as_str() {
            "env" => match env_skip(&args) {
                Ok(n) => n,
                Err(text) => return (script(text, "the string given to `env -S`"), via),
            },
            "command" => {
                if args
                    .iter()
                    .take_while(|a| a.starts_with('-'))
                    .any(|a| a.contains(['v', 'V']))
                {
                    return (Unwrap::Nothing, via);
                }
                options(&args, &[])
            }
            "builtin" | "nohup" | "busybox" => options(&args, &[]),
            "npx" | "bunx" | "pnpx" => {
                if let Some(i) = args.iter().position(|a| *a == "-c" || *a == "--call") {
                    let text = args.get(i + 1).copied().unwrap_or_default().to_string();
                    return (script(text, "the command given to `npx -c`"), via);
                }
                options(&args, &["-p", "--package"])
            }
            "exec" => {
                via.exec = Some("exec");
                options(&args, &["-a"])
            }
            "setsid" => options(&args, &[]),
            "nice" => options(&args, &["-n", "--adjustment"]),
            "time" => options(&args, &["-f", "-o", "--format", "--output"]),
            "stdbuf" => options(&args, &["-i", "-o", "-e"]),
            "ionice" => options(&args, &["-c", "-n", "-p", "-P", "-u"]),
            "timeout" => {
                let n = options(&args, &["-s", "-k", "--signal", "--kill-after"]);
                // The duration comes next.
                n + 1
            }
            "xargs" => {
                via.fed = Some("xargs");
                options(
                    &args,
                    &[
                        "-I",
                        "-L",
                        "-n",
                        "-P",
                        "-s",
                        "-d",
                        "-E",
                        "-a",
                        "--arg-file",
                        "--delimiter",
                        "--max-args",
                        "--max-procs",
                        "--max-chars",
                        "--max-lines",
                        "--replace",
                        "--eof",
                        "--process-slot-var",
                    ],
                )
            }
            "watch" => {
                let n = options(&args, &["-n", "--interval", "-q", "--equexit"]);
                let rest: Vec<&str> = args.iter().skip(n).copied().collect();
                if rest.is_empty() {
                    return (Unwrap::Nothing, via);
                }
                return (script(rest.join(" "), "the command given to `watch`"), via);
            }
            "script" => {
                if let Some(at) = args.iter().position(|a| {
                    matches!(*a, "-c" | "--command")
                        || (a.starts_with("-") && !a.starts_with("--") && a.ends_with('c'))
                }) {
                    let text = args.get(at + 1).copied().unwrap_or_default().to_string();
                    return (script(text, "the command given to `script -c`"), via);
                }
                return (Unwrap::Nothing, via);
            }
            "parallel" => {
                via.fed = Some("parallel");
                return (Unwrap::Opaque(i + 1), via);
            }
            name if OPAQUE_WRAPPERS.contains(&name) => return (Unwrap::Opaque(i + 1), via),
            _ => return (Unwrap::At(i), via),
        };
        i += 1 + skip;
    }
}

/// How many leading `args` are options (those in `with_value` take the next
/// argument unless written `--opt=value` or `-oVALUE`); `--` ends them.
fn options(args: &[&str], with_value: &[&str]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if *arg == "--" {
            return i + 1;
        }
        if !arg.starts_with('-') || *arg == "-" {
            return i;
        }
        // `nice -5 cmd`, `-n5`: the value is attached.
        i += if with_value.contains(arg) { 2 } else { 1 };
    }
    args.len()
}

/// How many of `env`'s arguments come before the command; `Err` with the
/// script when `env -S` splits a string into the command.
pub(super) fn env_skip(args: &[&str]) -> Result<usize, String> {
    let mut i = 0;
    let mut options_done = false;
    while let Some(arg) = args.get(i) {
        match *arg {
            "-S" | "--split-string" if !options_done => return Err(args[i + 1..].join(" ")),
            "-u" | "--unset" | "-C" | "--chdir" if !options_done => i += 2,
            "--" if !options_done => {
                options_done = true;
                i += 1;
            }
            a if !options_done && a.starts_with("-S") => {
                return Err(format!("{} {}", &a[2..], args[i + 1..].join(" ")));
            }
            a if !options_done && a.starts_with("--split-string=") => {
                let script = &a["--split-string=".len()..];
                return Err(format!("{script} {}", args[i + 1..].join(" ")));
            }
            a if !options_done && a.starts_with('-') => i += 1,
            a if a.find('=').is_some_and(|eq| is_assignment_name(&a[..eq])) => i += 1,
            _ => return Ok(i),
        }
    }
    Ok(i)
}
