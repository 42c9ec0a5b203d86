//! Command prefixes as a session approval names them (`git push`, `rm`), and
//! whether an approved prefix covers a command.

use super::command::command_name;

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

/// `[name, subcommand]` or `[name]` (see [`super::command_prefix`]).
pub(super) fn prefix_words(words: &[String]) -> Vec<String> {
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
        if let Some((sub, rest)) = super::git::git_subcommand(args) {
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
pub(super) fn prefix_covers(prefix: &[String], words: &[String]) -> bool {
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
pub(super) fn paths_inside(
    prefix: &[String],
    words: &[String],
    inside: &dyn Fn(&str) -> bool,
) -> bool {
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
