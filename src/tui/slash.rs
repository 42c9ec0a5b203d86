//! Slash commands: a prompt that starts with `/name` is a command to brood,
//! never sent to the model. One table drives the parsing, the list shown
//! while a command is typed, Tab's completion and the help.

/// What a command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlashCommand {
    Help,
    Compact,
    Cost,
    Model,
    Agents,
    Clear,
    Resume,
    Copy,
    Export,
    Mouse,
    Diff,
    Quit,
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandInfo {
    pub name: &'static str,
    /// What follows the name, for the list (`NAME`, or empty).
    pub args: &'static str,
    pub about: &'static str,
    pub command: SlashCommand,
}

/// Every command, in the order the list shows them.
pub const COMMANDS: &[CommandInfo] = &[
    CommandInfo {
        name: "help",
        args: "",
        about: "the keys and commands",
        command: SlashCommand::Help,
    },
    CommandInfo {
        name: "compact",
        args: "",
        about: "summarise the conversation so far to free the context",
        command: SlashCommand::Compact,
    },
    CommandInfo {
        name: "cost",
        args: "",
        about: "what the session cost, by agent, and its tokens",
        command: SlashCommand::Cost,
    },
    CommandInfo {
        name: "model",
        args: "[light] NAME",
        about: "the main (or light) model for the next turns",
        command: SlashCommand::Model,
    },
    CommandInfo {
        name: "agents",
        args: "",
        about: "the subagent profiles and where each came from",
        command: SlashCommand::Agents,
    },
    CommandInfo {
        name: "clear",
        args: "",
        about: "start a new session here; this one stays resumable",
        command: SlashCommand::Clear,
    },
    CommandInfo {
        name: "resume",
        args: "[ID]",
        about: "continue a saved session of this workspace (a list without ID)",
        command: SlashCommand::Resume,
    },
    CommandInfo {
        name: "copy",
        args: "",
        about: "copy the last answer to the clipboard (OSC 52)",
        command: SlashCommand::Copy,
    },
    CommandInfo {
        name: "export",
        args: "[FILE]",
        about: "write the session as Markdown (default brood-SESSION.md)",
        command: SlashCommand::Export,
    },
    CommandInfo {
        name: "mouse",
        args: "",
        about: "the mouse to the terminal to select text, and back (F2)",
        command: SlashCommand::Mouse,
    },
    CommandInfo {
        name: "diff",
        args: "",
        about: "every file the session changed, with its diffs",
        command: SlashCommand::Diff,
    },
    CommandInfo {
        name: "quit",
        args: "",
        about: "end the session (it stays resumable)",
        command: SlashCommand::Quit,
    },
];

/// What a submitted prompt is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed<'a> {
    Command(SlashCommand, &'a str),
    /// `/name` that is no command: said on screen, not sent.
    Unknown(&'a str),
    /// Text for the model (a path like `/etc/hosts …` is text too).
    Prompt,
}

/// Reads `text` as a command when its first word is `/` and letters.
pub fn parse(text: &str) -> Parsed<'_> {
    let text = text.trim();
    let Some(rest) = text.strip_prefix('/') else {
        return Parsed::Prompt;
    };
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphabetic() || c == '-') {
        return Parsed::Prompt;
    }
    match COMMANDS.iter().find(|c| c.name == name) {
        Some(info) => Parsed::Command(info.command, args.trim()),
        None => Parsed::Unknown(name),
    }
}

/// The commands a composer holding `text` is typing: `/` and the start of a
/// name, nothing after it yet.
pub fn matching(text: &str) -> Vec<&'static CommandInfo> {
    let Some(typed) = text.strip_prefix('/') else {
        return Vec::new();
    };
    if typed.contains(char::is_whitespace) {
        return Vec::new();
    }
    COMMANDS
        .iter()
        .filter(|c| c.name.starts_with(typed))
        .collect()
}

/// What Tab makes of `text`: the whole name and a space when one command
/// fits, the longest start they share when several do.
pub fn complete(text: &str) -> Option<String> {
    let found = matching(text);
    match found.as_slice() {
        [] => None,
        [one] => Some(format!("/{} ", one.name)),
        [first, rest @ ..] => {
            let shared = rest.iter().fold(first.name, |shared, c| {
                let n = shared
                    .chars()
                    .zip(c.name.chars())
                    .take_while(|(a, b)| a == b)
                    .count();
                &shared[..n]
            });
            let longer = shared.len() + 1 > text.len();
            longer.then(|| format!("/{shared}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_parsed_and_paths_stay_prompts() {
        assert_eq!(parse("/help"), Parsed::Command(SlashCommand::Help, ""));
        assert_eq!(
            parse("  /model light claude-haiku-4-5 "),
            Parsed::Command(SlashCommand::Model, "light claude-haiku-4-5")
        );
        assert_eq!(parse("/halp"), Parsed::Unknown("halp"));
        assert_eq!(parse("/diff"), Parsed::Command(SlashCommand::Diff, ""));
        assert_eq!(parse("/etc/hosts: what is this?"), Parsed::Prompt);
        assert_eq!(parse("what does /help do?"), Parsed::Prompt);
        assert_eq!(parse("/"), Parsed::Prompt);
    }

    #[test]
    fn tab_completes_one_command_whole_and_several_to_what_they_share() {
        assert_eq!(complete("/he").as_deref(), Some("/help "));
        assert_eq!(complete("/m").as_deref(), Some("/mo"), "model and mouse");
        assert_eq!(complete("/mo"), None, "nothing more to add");
        assert_eq!(complete("/cop").as_deref(), Some("/copy "));
        assert_eq!(complete("/x"), None);
        assert_eq!(complete("/help now"), None);
        assert_eq!(matching("/").len(), COMMANDS.len());
        assert!(matching("hello").is_empty());
    }
}
