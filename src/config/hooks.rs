//! Command hooks as the user configured them: `[[hooks.EVENT]]` in
//! `brood.toml`, and the `hooks` section of Claude Code's settings files
//! (`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
//! "command": "…", "timeout": 30}]}]}`). Running them is `agent::CommandHooks`.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The points a command hook can run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    SubagentStart,
    SubagentStop,
}

impl HookEvent {
    pub fn as_str(&self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
        }
    }

    fn parse(name: &str) -> Option<HookEvent> {
        [
            HookEvent::PreToolUse,
            HookEvent::PostToolUse,
            HookEvent::UserPromptSubmit,
            HookEvent::Stop,
            HookEvent::SubagentStart,
            HookEvent::SubagentStop,
        ]
        .into_iter()
        .find(|e| e.as_str() == name)
    }
}

/// One command hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSpec {
    pub event: HookEvent,
    /// Tool names it runs for (`Bash`, `Edit|Write`, a regex); `None` for all.
    pub matcher: Option<String>,
    pub command: String,
    pub timeout_secs: u64,
    /// The file it came from, as shown.
    pub source: String,
    /// A workspace's file brought it: it runs inside the sandbox.
    pub from_workspace: bool,
}

/// Seconds a hook may run when it does not say.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// `[[hooks.EVENT]]` of `brood.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TomlHook {
    #[serde(default)]
    matcher: Option<String>,
    command: String,
    #[serde(default)]
    timeout: Option<u64>,
}

/// A settings file's `hooks` entry: a matcher and its commands.
#[derive(Debug, Clone, Deserialize)]
struct SettingsGroup {
    #[serde(default)]
    matcher: Option<String>,
    #[serde(default)]
    hooks: Vec<SettingsHook>,
}

#[derive(Debug, Clone, Deserialize)]
struct SettingsHook {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    timeout: Option<u64>,
}

/// What reading hooks found besides the hooks: events and kinds brood does
/// not run, said at start.
#[derive(Debug, Clone, Default)]
pub struct LoadedHooks {
    pub hooks: Vec<HookSpec>,
    pub notes: Vec<String>,
}

impl LoadedHooks {
    /// Adds `brood.toml`'s `[[hooks.EVENT]]` tables.
    pub(super) fn add_toml(
        &mut self,
        tables: &BTreeMap<String, Vec<TomlHook>>,
        source: &str,
        from_workspace: bool,
    ) {
        for (event, hooks) in tables {
            let Some(event) = self.event(event, source) else {
                continue;
            };
            for hook in hooks {
                self.push(
                    event,
                    hook.matcher.clone(),
                    &hook.command,
                    hook.timeout,
                    source,
                    from_workspace,
                );
            }
        }
    }

    /// Adds a settings file's `hooks` value.
    pub(super) fn add_settings(
        &mut self,
        value: &serde_json::Value,
        source: &str,
        from_workspace: bool,
    ) -> Result<(), String> {
        let Some(map) = value.as_object() else {
            return Err("`hooks` must be an object of hook events".into());
        };
        for (event, groups) in map {
            let groups: Vec<SettingsGroup> = serde_json::from_value(groups.clone())
                .map_err(|e| format!("hooks.{event}: {e}"))?;
            let Some(event) = self.event(event, source) else {
                continue;
            };
            for group in groups {
                for hook in group.hooks {
                    match (hook.kind.as_deref(), &hook.command) {
                        (None | Some("command"), Some(command)) => self.push(
                            event,
                            group.matcher.clone(),
                            command,
                            hook.timeout,
                            source,
                            from_workspace,
                        ),
                        (kind, _) => self.notes.push(format!(
                            "{source}: a {} hook of {} is not run (brood runs command hooks)",
                            kind.unwrap_or("typeless"),
                            event.as_str()
                        )),
                    }
                }
            }
        }
        Ok(())
    }

    fn event(&mut self, name: &str, source: &str) -> Option<HookEvent> {
        let event = HookEvent::parse(name);
        if event.is_none() {
            self.notes
                .push(format!("{source}: {name} hooks are not run by brood"));
        }
        event
    }

    fn push(
        &mut self,
        event: HookEvent,
        matcher: Option<String>,
        command: &str,
        timeout: Option<u64>,
        source: &str,
        from_workspace: bool,
    ) {
        let matcher = matcher.filter(|m| !m.trim().is_empty() && m.trim() != "*");
        self.hooks.push(HookSpec {
            event,
            matcher,
            command: command.to_string(),
            timeout_secs: timeout.unwrap_or(DEFAULT_TIMEOUT_SECS).max(1),
            source: source.to_string(),
            from_workspace,
        });
    }
}
