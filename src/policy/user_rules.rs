//! The user's own permission rules, in Claude Code's syntax: `Bash(npm run
//! test:*)`, `Bash(git push:*)`, `Read(./secrets/**)`, `Edit(src/**)`, `Write`,
//! a bare tool name. They come from `brood.toml`'s `[permissions]` and from
//! Claude Code's settings files, each kept with the file it came from so a
//! verdict can name both.
//!
//! A rule only moves the policy's own verdict: a `deny` rule denies, an
//! `ask` rule asks (a denial stands), and an `allow` rule turns a question
//! into an allowance, never a denial into one; commands still run in the
//! sandbox whatever a rule says.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use super::command::command_name;
use crate::event::Decision;
use crate::protocol::ToolKind;

/// Which list a rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleList {
    Allow,
    Ask,
    Deny,
}

impl RuleList {
    fn decision(self) -> Decision {
        match self {
            RuleList::Allow => Decision::Allow,
            RuleList::Ask => Decision::Ask,
            RuleList::Deny => Decision::Deny,
        }
    }

    fn strength(self) -> u8 {
        match self {
            RuleList::Allow => 0,
            RuleList::Ask => 1,
            RuleList::Deny => 2,
        }
    }
}

/// What a rule matches.
#[derive(Debug, Clone)]
enum Matcher {
    /// Every call of the tools.
    All,
    /// Commands that start with these words (`Bash(git push:*)`).
    Prefix(Vec<String>),
    /// Exactly this command line (`Bash(npm run build)`).
    Exact(String),
    /// Paths matching the glob; `base` is the part before its first wildcard,
    /// for searches that would walk into it.
    Path { glob: GlobMatcher, base: PathBuf },
}

/// Which of brood's tools a rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Bash,
    /// `Read`: read_file, grep and glob.
    Read,
    /// `Edit`: edit_file and write_file.
    Edit,
    /// `Write`: write_file.
    Write,
    /// `mcp__server__tool`, `mcp__server__*` or `mcp__server`: tools of an
    /// MCP server, by name (held in an [`Matcher::Exact`]).
    Mcp,
}

/// One rule, as written and where.
#[derive(Debug, Clone)]
pub struct UserRule {
    list: RuleList,
    target: Target,
    matcher: Matcher,
    /// As written, e.g. `Bash(git push:*)`.
    pub text: String,
    /// The file it came from, as shown.
    pub file: String,
}

/// All rules of a session.
#[derive(Debug, Clone, Default)]
pub struct UserRules {
    rules: Vec<UserRule>,
}

/// A rule that matched a call, and what it makes of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RuleVerdict {
    pub decision: Decision,
    pub reason: String,
}

impl UserRules {
    /// Reads `text` as a rule of `list` from `file`; `root` and `home` place
    /// its paths. A rule for a tool brood lacks is `Ok(None)`.
    pub fn add(
        &mut self,
        list: RuleList,
        text: &str,
        file: &str,
        root: &Path,
        home: Option<&Path>,
    ) -> Result<bool, String> {
        let text = text.trim();
        let (tool, inner) = match text.split_once('(') {
            Some((tool, rest)) => {
                let Some(inner) = rest.strip_suffix(')') else {
                    return Err(format!("rule {text:?}: no closing parenthesis"));
                };
                (tool.trim(), Some(inner.trim()))
            }
            None => (text, None),
        };
        let target = match tool {
            "Bash" | "bash" => Target::Bash,
            "Read" | "read_file" | "Grep" | "Glob" | "LS" => Target::Read,
            "Edit" | "MultiEdit" | "edit_file" => Target::Edit,
            "Write" | "write_file" => Target::Write,
            name if name.starts_with("mcp__") && inner.is_none() => Target::Mcp,
            _ => return Ok(false),
        };
        let matcher = match (target, inner) {
            (Target::Mcp, _) => Matcher::Exact(tool.to_string()),
            (_, None) | (_, Some("") | Some("*")) => Matcher::All,
            (Target::Bash, Some(pattern)) => bash_matcher(pattern),
            (Target::Read | Target::Edit | Target::Write, Some(pattern)) => {
                path_matcher(pattern, root, home).map_err(|e| format!("rule {text:?}: {e}"))?
            }
        };
        self.rules.push(UserRule {
            list,
            target,
            matcher,
            text: text.to_string(),
            file: file.to_string(),
        });
        Ok(true)
    }

    /// What `Read` deny rules name before their first wildcard, where that
    /// is inside `root` (not `root` itself) or under `home`: the sandbox hides
    /// them from commands, so `cat secrets/key` meets the rule as `read_file`
    /// does. A rule whose wildcard comes first (`**/*.pem`) cannot be a
    /// path, and one elsewhere (`//etc/**`) would break the commands
    /// themselves; the policy alone holds those.
    pub fn unreadable_paths(&self, root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
        self.rules
            .iter()
            .filter(|r| r.list == RuleList::Deny && r.target == Target::Read)
            .filter_map(|r| match &r.matcher {
                Matcher::Path { base, .. } => Some(base.clone()),
                Matcher::All | Matcher::Prefix(_) | Matcher::Exact(_) => None,
            })
            .filter(|base| {
                let under = |dir: &Path| base.starts_with(dir) && base != dir;
                under(root) || home.is_some_and(under)
            })
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The command prefixes `allow` rules approve, each split into words:
    /// they waive questions as a session approval does, command by command.
    pub(super) fn allowed_prefixes(&self) -> Vec<Vec<String>> {
        self.rules
            .iter()
            .filter(|r| r.list == RuleList::Allow && r.target == Target::Bash)
            .filter_map(|r| match &r.matcher {
                Matcher::Prefix(words) => Some(words.clone()),
                Matcher::All | Matcher::Exact(_) | Matcher::Path { .. } => None,
            })
            .collect()
    }

    /// The strongest rule about a bash `line` whose commands are `commands`.
    /// An allowance by prefix is not one of them: it waives questions
    /// command by command ([`UserRules::allowed_prefixes`]), and a line with
    /// another command that asks still asks.
    pub(super) fn for_command(&self, line: &str, commands: &[Vec<String>]) -> Option<RuleVerdict> {
        self.strongest(|rule| {
            rule.target == Target::Bash
                && match &rule.matcher {
                    Matcher::All => true,
                    Matcher::Prefix(words) => {
                        rule.list != RuleList::Allow
                            && commands.iter().any(|c| starts_with(c, words))
                    }
                    // An exact allowance is for the whole line; an exact
                    // denial or question for any command of it.
                    Matcher::Exact(exact) => {
                        line.trim() == exact
                            || (rule.list != RuleList::Allow
                                && commands.iter().any(|c| c.join(" ") == *exact))
                    }
                    Matcher::Path { .. } => false,
                }
        })
    }

    /// The strongest rule about a file tool `tool` (of `kind`) on the
    /// resolved `path`. A search (`grep`, `glob`) of a folder that holds
    /// paths a rule denies is asked about: it would read them.
    pub(super) fn for_path(&self, tool: &str, kind: ToolKind, path: &Path) -> Option<RuleVerdict> {
        let search = matches!(tool, "grep" | "glob");
        let covers = |target: Target| match target {
            Target::Read => kind == ToolKind::Read,
            Target::Edit => kind == ToolKind::Write,
            Target::Write => tool == "write_file",
            Target::Bash | Target::Mcp => false,
        };
        let direct = self.strongest(|rule| {
            covers(rule.target)
                && match &rule.matcher {
                    Matcher::All => true,
                    Matcher::Path { glob, .. } => glob.is_match(path),
                    Matcher::Prefix(_) | Matcher::Exact(_) => false,
                }
        });
        if !search {
            return direct;
        }
        let walked_into = self.rules.iter().find(|rule| {
            rule.list == RuleList::Deny
                && covers(rule.target)
                && matches!(&rule.matcher, Matcher::Path { base, .. } if base.starts_with(path))
        });
        match (direct, walked_into) {
            (Some(direct), _) if direct.decision == Decision::Deny => Some(direct),
            // Walking into a denied folder outweighs an allowance or a question.
            (_, Some(rule)) => Some(RuleVerdict {
                decision: Decision::Ask,
                reason: format!(
                    "{tool} would search paths `{}` in {} denies",
                    rule.text, rule.file
                ),
            }),
            (direct, None) => direct,
        }
    }

    /// The strongest rule about the MCP tool `name` (`mcp__server__tool`).
    pub(super) fn for_tool(&self, name: &str) -> Option<RuleVerdict> {
        self.strongest(|rule| {
            rule.target == Target::Mcp
                && matches!(&rule.matcher, Matcher::Exact(pattern) if mcp_rule_matches(pattern, name))
        })
    }

    fn strongest(&self, matches: impl Fn(&UserRule) -> bool) -> Option<RuleVerdict> {
        let rule = self
            .rules
            .iter()
            .filter(|r| matches(r))
            .max_by_key(|r| r.list.strength())?;
        let verb = match rule.list {
            RuleList::Allow => "allows",
            RuleList::Ask => "asks",
            RuleList::Deny => "denies",
        };
        Some(RuleVerdict {
            decision: rule.list.decision(),
            reason: format!("`{}` in {} {verb}", rule.text, rule.file),
        })
    }
}

/// Whether a command's words start with `prefix` (its first word compared by
/// name: `/usr/bin/git` is `git`).
fn starts_with(command: &[String], prefix: &[String]) -> bool {
    command.len() >= prefix.len()
        && command
            .iter()
            .zip(prefix)
            .enumerate()
            .all(|(i, (word, want))| match i {
                0 => command_name(word) == *want,
                _ => word == want,
            })
}

/// `git push:*` and `git push *` are prefixes; anything else is exact.
fn bash_matcher(pattern: &str) -> Matcher {
    let prefix = pattern
        .strip_suffix(":*")
        .or_else(|| pattern.strip_suffix(" *"))
        .or_else(|| pattern.strip_suffix('*').filter(|p| p.ends_with(' ')));
    match prefix {
        Some(prefix) => Matcher::Prefix(prefix.split_whitespace().map(str::to_string).collect()),
        None => Matcher::Exact(pattern.split_whitespace().collect::<Vec<_>>().join(" ")),
    }
}

/// A gitignore-style path pattern: `//abs` is absolute, `~/x` under home,
/// `/x`, `./x` and `x` from the workspace's root.
fn path_matcher(pattern: &str, root: &Path, home: Option<&Path>) -> Result<Matcher, String> {
    let path = if let Some(abs) = pattern.strip_prefix("//") {
        PathBuf::from("/").join(abs)
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        home.ok_or("no home folder for `~`")?.join(rest)
    } else {
        root.join(pattern.trim_start_matches("./").trim_start_matches('/'))
    };
    let text = path.to_string_lossy();
    // A folder pattern (`secrets/`) is everything in it.
    let text = match text.strip_suffix('/') {
        Some(dir) => format!("{dir}/**"),
        None => text.into_owned(),
    };
    let glob = GlobBuilder::new(&text)
        .literal_separator(true)
        .build()
        .map_err(|e| e.kind().to_string())?
        .compile_matcher();
    let base: PathBuf = path
        .components()
        .take_while(|c| {
            !c.as_os_str()
                .to_string_lossy()
                .contains(['*', '?', '[', '{'])
        })
        .collect();
    Ok(Matcher::Path { glob, base })
}

/// Whether an MCP rule names the tool `name`: exactly, by a trailing `*`, or
/// by the server alone (`mcp__github` is every tool of `github`), as Claude
/// Code reads them.
fn mcp_rule_matches(pattern: &str, name: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix('*') {
        return name.starts_with(prefix);
    }
    let server_only = pattern
        .strip_prefix("mcp__")
        .is_some_and(|rest| !rest.contains("__"));
    name == pattern
        || (server_only
            && name
                .strip_prefix(pattern)
                .is_some_and(|rest| rest.starts_with("__")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(list: &[(RuleList, &str)]) -> UserRules {
        let mut rules = UserRules::default();
        for (kind, text) in list {
            assert!(
                rules
                    .add(
                        *kind,
                        text,
                        ".claude/settings.json",
                        Path::new("/w"),
                        Some(Path::new("/h"))
                    )
                    .unwrap()
            );
        }
        rules
    }

    fn words(line: &str) -> Vec<Vec<String>> {
        line.split("&&")
            .map(|c| c.split_whitespace().map(str::to_string).collect())
            .collect()
    }

    #[test]
    fn bash_rules_match_prefixes_and_exact_lines() {
        let r = rules(&[
            (RuleList::Allow, "Bash(npm run test:*)"),
            (RuleList::Deny, "Bash(git push:*)"),
            (RuleList::Ask, "Bash(npm run build)"),
        ]);
        let check = |line: &str| r.for_command(line, &words(line)).map(|v| v.decision);
        assert_eq!(check("npm run test:unit"), None, "a prefix is whole words");
        assert_eq!(check("npm run test -- --watch"), None, "waived as a prefix");
        assert_eq!(
            check("git status && /usr/bin/git push origin"),
            Some(Decision::Deny)
        );
        assert_eq!(check("npm run build"), Some(Decision::Ask));
        assert_eq!(check("npm run build --prod"), None);
        let verdict = r.for_command("git push", &words("git push")).unwrap();
        assert_eq!(
            verdict.reason,
            "`Bash(git push:*)` in .claude/settings.json denies"
        );
        assert_eq!(r.allowed_prefixes(), [["npm", "run", "test"]]);
    }

    #[test]
    fn path_rules_match_globs_from_the_workspace_root() {
        let r = rules(&[
            (RuleList::Deny, "Read(./secrets/**)"),
            (RuleList::Allow, "Edit(src/**)"),
            (RuleList::Deny, "Write(//etc/*)"),
            (RuleList::Ask, "Read(~/.ssh/)"),
        ]);
        let check = |tool: &str, kind, path: &str| {
            r.for_path(tool, kind, Path::new(path)).map(|v| v.decision)
        };
        assert_eq!(
            check("read_file", ToolKind::Read, "/w/secrets/a/key.pem"),
            Some(Decision::Deny)
        );
        assert_eq!(
            check("read_file", ToolKind::Read, "/w/src/secrets.rs"),
            None
        );
        assert_eq!(
            check("edit_file", ToolKind::Write, "/w/src/a/b.rs"),
            Some(Decision::Allow)
        );
        assert_eq!(
            check("write_file", ToolKind::Write, "/etc/passwd"),
            Some(Decision::Deny)
        );
        assert_eq!(
            check("read_file", ToolKind::Read, "/h/.ssh/id_ed25519"),
            Some(Decision::Ask)
        );
        // A search from the root would read the denied folder.
        assert_eq!(check("grep", ToolKind::Read, "/w"), Some(Decision::Ask));
        assert_eq!(check("grep", ToolKind::Read, "/w/src"), None);
        let mut with_allow = r.clone();
        with_allow
            .add(RuleList::Allow, "Read", "f", Path::new("/w"), None)
            .unwrap();
        let search = with_allow.for_path("grep", ToolKind::Read, Path::new("/w"));
        assert_eq!(
            search.map(|v| v.decision),
            Some(Decision::Ask),
            "an allowance does not open it"
        );
    }

    #[test]
    fn rules_for_tools_brood_lacks_are_not_kept_and_broken_ones_say_why() {
        let mut r = UserRules::default();
        let root = Path::new("/w");
        assert_eq!(
            r.add(RuleList::Deny, "WebFetch(domain:x.com)", "f", root, None),
            Ok(false)
        );
        assert!(
            r.add(RuleList::Deny, "Bash(rm", "f", root, None)
                .unwrap_err()
                .contains("parenthesis")
        );
        assert!(r.is_empty());
    }

    #[test]
    fn mcp_rules_name_a_tool_a_pattern_or_a_whole_server() {
        assert!(mcp_rule_matches(
            "mcp__github__get_issue",
            "mcp__github__get_issue"
        ));
        assert!(!mcp_rule_matches(
            "mcp__github__get_issue",
            "mcp__github__get_issues"
        ));
        assert!(mcp_rule_matches("mcp__github__*", "mcp__github__create_pr"));
        assert!(mcp_rule_matches("mcp__github", "mcp__github__create_pr"));
        assert!(!mcp_rule_matches("mcp__github", "mcp__githubx__create_pr"));
        assert!(!mcp_rule_matches("mcp__git", "mcp__github__create_pr"));
    }
}
