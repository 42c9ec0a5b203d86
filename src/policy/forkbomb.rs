//! Fork bombs: functions that start themselves more than once at a time, so
//! processes multiply until the machine stops (`:(){ :|:& };:`), whatever the
//! names and spacing, and through other functions of the same line.

use super::shell::{Command, Script};
use super::wrappers::{Unwrap, peel};

/// Whether calling `name` (whose body is `body`) reaches a call of `name` in a
/// pipeline or in the background, directly or through the other `functions`.
pub(super) fn forks_itself(name: &str, body: &Command, functions: &[(String, Command)]) -> bool {
    let mut seen = Vec::new();
    reaches(name, body, false, functions, &mut seen)
}

fn reaches(
    target: &str,
    command: &Command,
    forking: bool,
    functions: &[(String, Command)],
    seen: &mut Vec<(String, bool)>,
) -> bool {
    let in_script = |script: &Script, forking: bool, seen: &mut Vec<(String, bool)>| {
        script.items.iter().any(|item| {
            item.pipelines.iter().any(|p| {
                let forking = forking || item.background || p.commands.len() > 1;
                p.commands
                    .iter()
                    .any(|c| reaches(target, c, forking, functions, seen))
            })
        })
    };
    match command {
        Command::Simple(cmd) => {
            let Unwrap::At(i) = peel(&cmd.words).0 else {
                return false;
            };
            let called = cmd.words[i].text.as_str();
            if called == target {
                return forking;
            }
            // Each function is followed once in a forking context and once
            // outside one, which bounds the walk.
            if seen.iter().any(|(s, f)| s == called && *f == forking) {
                return false;
            }
            match functions.iter().find(|(n, _)| n == called) {
                Some((n, body)) => {
                    seen.push((n.clone(), forking));
                    reaches(target, body, forking, functions, seen)
                }
                None => false,
            }
        }
        Command::Subshell { body, .. } | Command::Group { body, .. } => {
            in_script(body, forking, seen)
        }
        Command::Function { .. } => false,
        Command::Case { arms, .. } => arms.iter().any(|arm| in_script(arm, forking, seen)),
    }
}
