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

/// `while :; do x & done`: a loop that never ends and starts a background
/// process each turn, so processes multiply without a function. Read from the
/// text, since the parser flattens loops; a `wait` in the body paces it.
pub(super) fn endless_background_loop(text: &str) -> bool {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let loops: [(&str, &[&str]); 2] = [
        (
            "while ",
            &[":", "true", "/bin/true", "[ 1 ]", "((1))", "(( 1 ))"],
        ),
        ("until ", &["false", "/bin/false", "! :", "! true"]),
    ];
    loops.iter().any(|(keyword, endless)| {
        flat.match_indices(keyword).any(|(at, _)| {
            let starts_word = flat[..at]
                .chars()
                .next_back()
                .is_none_or(|b| matches!(b, ' ' | ';' | '&' | '|' | '(' | '{'));
            let after = &flat[at + keyword.len()..];
            let Some(do_at) = after.find("do ").or_else(|| after.find("do;")) else {
                return false;
            };
            let condition = after[..do_at].trim().trim_end_matches(';').trim();
            let Some(done_at) = after[do_at..].find("done") else {
                return false;
            };
            let body = &after[do_at + 2..do_at + done_at];
            starts_word
                && endless.contains(&condition)
                && backgrounds(body)
                && !body.contains("wait")
        })
    })
}

/// Whether `body` sends a command to the background: an `&` that is not part
/// of `&&`, `>&`, `&>` or `|&`.
fn backgrounds(body: &str) -> bool {
    let chars: Vec<char> = body.chars().collect();
    chars.iter().enumerate().any(|(i, c)| {
        *c == '&'
            && chars.get(i + 1) != Some(&'&')
            && chars.get(i + 1) != Some(&'>')
            && (i == 0 || !matches!(chars[i - 1], '&' | '>' | '<' | '|'))
    })
}
