//! Property tests of the command policy (issue 18, point 4): commands made
//! of wrappers (`env`, `nice`, `timeout`, `command`, `xargs`, `sh -c`, …),
//! quoting, expansions, pipelines and lists around known cores. Whatever is
//! wrapped around a core, the decision is never weaker than the core's own;
//! safe cores under safe wrappers stay allowed.

use brood::event::Decision;
use brood::policy::classify_command;
use proptest::prelude::*;

/// Cores the policy must not let run without a person: each with the least
/// decision it gets alone.
const RISKY: &[(&str, Decision)] = &[
    ("rm -rf build", Decision::Ask),
    ("rm notes.txt", Decision::Ask),
    ("rmdir old", Decision::Ask),
    ("git push --force origin main", Decision::Ask),
    ("chmod 777 run.sh", Decision::Ask),
    ("sudo ls", Decision::Deny),
    ("rm -rf /", Decision::Deny),
    ("mkfs.ext4 /dev/sda1", Decision::Deny),
    ("shutdown -h now", Decision::Deny),
    ("reboot", Decision::Deny),
    ("dd if=/dev/zero of=/dev/sda", Decision::Deny),
];

/// Everyday commands that run without asking.
const SAFE: &[&str] = &[
    "ls -la",
    "git status",
    "git log --oneline -5",
    "cat README.md",
    "grep -rn login src",
    "cargo test",
    "wc -l src/main.rs",
    "echo done",
];

/// Wrappers that run their arguments as a command.
fn wrap(core: &str, wrapper: usize) -> String {
    match wrapper {
        0 => core.to_string(),
        1 => format!("env FOO=1 {core}"),
        2 => format!("nice -n 5 {core}"),
        3 => format!("timeout 10 {core}"),
        4 => format!("command {core}"),
        5 => format!("nohup {core}"),
        6 => format!("time {core}"),
        7 => format!("sh -c '{core}'"),
        8 => format!("bash -c \"{core}\""),
        9 => format!("env -i PATH=/usr/bin nice {core}"),
        10 => format!("timeout 5 env A=b {core}"),
        11 => format!("echo x | xargs {core}"),
        12 => format!("FOO=1 {core}"),
        13 => format!("exec {core}"),
        _ => format!("find . -maxdepth 0 -exec {core} \\;"),
    }
}

/// The core's first word spelled another way the shell reads the same.
fn respell(core: &str, style: usize) -> String {
    let (word, rest) = core.split_once(' ').unwrap_or((core, ""));
    let word = match style {
        0 => word.to_string(),
        1 => format!("'{word}'"),
        2 => format!("\"{word}\""),
        3 => format!("\\{word}"),
        _ => {
            let (a, b) = word.split_at(1);
            format!("{a}''{b}")
        }
    };
    match rest {
        "" => word,
        rest => format!("{word} {rest}"),
    }
}

/// The command set among others: lists, pipelines, subshells.
fn place(command: &str, safe: &str, how: usize) -> String {
    match how {
        0 => command.to_string(),
        1 => format!("{safe} && {command}"),
        2 => format!("{safe}; {command}"),
        3 => format!("{command} | head -5"),
        4 => format!("{safe} | {command}"),
        5 => format!("({command})"),
        6 => format!("{safe} || {command}"),
        7 => format!("if true; then {command}; fi"),
        _ => format!("{{ {command}; }}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// No wrapper, spelling or place makes a risky core weaker.
    #[test]
    fn a_risky_core_is_never_weakened(
        core in 0..RISKY.len(),
        style in 0usize..5,
        wrapper in 0usize..15,
        outer in 0usize..15,
        how in 0usize..9,
        safe in 0..SAFE.len(),
    ) {
        let (text, least) = RISKY[core];
        let alone = classify_command(text).decision;
        prop_assert!(alone >= least, "{text:?} alone: {alone}");
        // A shell string holds the inner wrapper (quotes do not nest there),
        // and an assignment or `exec` means what it says only where the
        // command starts: behind `nice` they would be a program's name.
        let inner = wrap(&respell(text, style), wrapper);
        let wrapped = match (wrapper, outer) {
            (7 | 8 | 12 | 13, _) | (_, 7 | 8) => inner,
            _ => wrap(&inner, outer),
        };
        let command = place(&wrapped, SAFE[safe], how);
        let got = classify_command(&command);
        prop_assert!(
            got.decision >= alone,
            "{command:?}: {} ({}), weaker than {text:?} alone: {alone}",
            got.decision,
            got.reason
        );
    }

    /// A command word the parser cannot read literally (an expansion) asks,
    /// whatever it would expand to.
    #[test]
    fn an_expanded_command_word_asks(
        core in 0..RISKY.len(),
        expansion in 0usize..5,
        how in 0usize..9,
        safe in 0..SAFE.len(),
    ) {
        let (text, _) = RISKY[core];
        let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
        let spelled = match expansion {
            0 => format!("$(echo {word})"),
            1 => format!("`echo {word}`"),
            2 => format!("${{CMD:-{word}}}"),
            3 => format!("\"$X\"{word}"),
            _ => format!("$'{word}'"),
        };
        let command = place(&format!("{spelled} {rest}"), SAFE[safe], how);
        let got = classify_command(&command);
        prop_assert!(got.decision >= Decision::Ask, "{command:?}: {} ({})", got.decision, got.reason);
    }

    /// Safe cores under safe wrappers, in lists and pipelines, stay allowed.
    #[test]
    fn safe_cores_under_safe_wrappers_stay_allowed(
        core in 0..SAFE.len(),
        wrapper in 0usize..7,
        how in 0usize..9,
        other in 0..SAFE.len(),
    ) {
        let command = place(&wrap(SAFE[core], wrapper), SAFE[other], how);
        let got = classify_command(&command);
        prop_assert_eq!(got.decision, Decision::Allow, "{:?}: {}", command, got.reason);
    }
}
