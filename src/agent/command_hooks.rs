//! The user's command hooks, run with Claude Code's contract: the event as
//! JSON on stdin, exit 0 to go on, exit 2 to block (its stderr goes to the
//! model, or for `Stop`/`SubagentStop` makes the agent go on), a JSON answer
//! on stdout (`decision`/`reason`, `hookSpecificOutput.permissionDecision`),
//! and a timeout that fails open with a visible warning. Every run is a
//! `hook_run` event; a hook that fails never ends a session.
//!
//! A hook from the user's own files runs as the user; one a workspace's
//! file brought runs inside the sandbox, like the commands of the agent.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use super::hooks::{Hook, ToolOutcome};
use crate::config::hooks::{HookEvent, HookSpec};
use crate::event::{AgentId, Decision, EventBus, EventKind, HookOutcome};
use crate::model::ToolCall;
use crate::policy::Verdict;
use crate::protocol::ToolKind;
use crate::sandbox::Sandbox;

/// The most of a hook's stdout or stderr that is kept.
const MAX_OUTPUT: usize = 64 * 1024;

/// How many times in a row Stop hooks may send one agent back to work.
const MAX_CONTINUATIONS: u32 = 8;

/// The command hooks of a session.
pub struct CommandHooks {
    specs: Vec<HookSpec>,
    session: String,
    cwd: PathBuf,
    transcript: Option<PathBuf>,
    sandbox: Arc<Sandbox>,
    bus: EventBus,
    /// Stop continuations in a row, per agent.
    continued: std::sync::Mutex<std::collections::HashMap<AgentId, u32>>,
}

/// What one run said.
struct Ran {
    outcome: HookOutcome,
    exit_code: Option<i32>,
    /// For the model or the person: why it blocked, or nothing.
    said: String,
    /// A permission answer in its JSON.
    permission: Option<Decision>,
    /// Its stdout, when it went on (context for a prompt).
    stdout: String,
}

impl Ran {
    /// A run with nothing to say but how it ended.
    fn plain(outcome: HookOutcome, exit_code: Option<i32>, said: String) -> Ran {
        Ran {
            outcome,
            exit_code,
            said,
            permission: None,
            stdout: String::new(),
        }
    }
}

impl CommandHooks {
    pub fn new(
        specs: Vec<HookSpec>,
        session: String,
        cwd: PathBuf,
        transcript: Option<PathBuf>,
        sandbox: Arc<Sandbox>,
        bus: EventBus,
    ) -> CommandHooks {
        CommandHooks {
            specs,
            session,
            cwd,
            transcript,
            sandbox,
            bus,
            continued: Default::default(),
        }
    }

    /// Runs the hooks of `event` that match `tool` (all of them when `None`),
    /// one after another, stopping at the first that blocks.
    async fn run(
        &self,
        agent: AgentId,
        event: HookEvent,
        tool: Option<&str>,
        mut input: Value,
    ) -> Vec<Ran> {
        let mut ran = Vec::new();
        if let Value::Object(map) = &mut input {
            map.insert("session_id".into(), self.session.clone().into());
            map.insert("hook_event_name".into(), event.as_str().into());
            map.insert("cwd".into(), self.cwd.display().to_string().into());
            map.insert("agent_id".into(), agent.to_string().into());
            map.insert(
                "transcript_path".into(),
                self.transcript
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .into(),
            );
        }
        for spec in self.specs.iter().filter(|s| s.event == event) {
            if let (Some(matcher), Some(tool)) = (&spec.matcher, tool)
                && !matches(matcher, tool)
            {
                continue;
            }
            let one = self.run_one(agent, spec, &input).await;
            let blocked = one.outcome == HookOutcome::Blocked;
            ran.push(one);
            if blocked {
                break;
            }
        }
        ran
    }

    async fn run_one(&self, agent: AgentId, spec: &HookSpec, input: &Value) -> Ran {
        let started = Instant::now();
        let result = tokio::time::timeout(
            Duration::from_secs(spec.timeout_secs),
            self.spawn(spec, input),
        )
        .await;
        let ran = match result {
            Err(_) => Ran::plain(
                HookOutcome::TimedOut,
                None,
                format!(
                    "no answer within {} s; going on without it",
                    spec.timeout_secs
                ),
            ),
            Ok(Err(e)) => Ran::plain(HookOutcome::Failed, None, format!("cannot run it: {e}")),
            Ok(Ok((code, stdout, stderr))) => read_answer(code, stdout, stderr),
        };
        self.bus.publish(
            agent,
            EventKind::HookRun {
                hook: spec.event.as_str().into(),
                command: spec.command.clone(),
                outcome: ran.outcome,
                exit_code: ran.exit_code,
                message: ran.said.clone(),
                duration_ms: started.elapsed().as_millis() as u64,
            },
        );
        ran
    }

    /// Starts the hook, hands it `input` and waits: its exit code, stdout
    /// and stderr (each cut at [`MAX_OUTPUT`]).
    async fn spawn(
        &self,
        spec: &HookSpec,
        input: &Value,
    ) -> std::io::Result<(Option<i32>, String, String)> {
        let mut command = match spec.from_workspace {
            true => self.sandbox.command(&spec.command, &self.cwd),
            false => {
                let mut command = tokio::process::Command::new("bash");
                command.arg("-c").arg(&spec.command).current_dir(&self.cwd);
                for (name, _) in std::env::vars_os() {
                    if crate::config::is_secret_var(&name.to_string_lossy()) {
                        command.env_remove(name);
                    }
                }
                crate::huge_pages::give_back(command.as_std_mut());
                command
            }
        };
        command
            .env("BROOD_PROJECT_DIR", &self.cwd)
            .env("CLAUDE_PROJECT_DIR", &self.cwd)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take();
        let feed = async move {
            if let Some(mut stdin) = stdin {
                // A hook that does not read its input is fine.
                let _ = stdin.write_all(input.to_string().as_bytes()).await;
            }
        };
        let (_, stdout, stderr) = tokio::join!(
            feed,
            bounded(child.stdout.take()),
            bounded(child.stderr.take())
        );
        let status = child.wait().await?;
        Ok((status.code(), stdout, stderr))
    }
}

/// A hook's output, its first [`MAX_OUTPUT`] bytes kept and the rest read
/// and dropped, so a hook that prints without end neither fills memory nor
/// blocks on a full pipe.
async fn bounded<R: tokio::io::AsyncRead + Unpin>(pipe: Option<R>) -> String {
    use tokio::io::AsyncReadExt;
    let Some(mut pipe) = pipe else {
        return String::new();
    };
    let mut kept = Vec::new();
    let _ = (&mut pipe)
        .take(MAX_OUTPUT as u64)
        .read_to_end(&mut kept)
        .await;
    let _ = tokio::io::copy(&mut pipe, &mut tokio::io::sink()).await;
    String::from_utf8_lossy(&kept).into_owned()
}

/// An exit code and outputs read by the contract.
fn read_answer(code: Option<i32>, stdout: String, stderr: String) -> Ran {
    let stderr = crate::text::visible(stderr.trim()).into_owned();
    match code {
        Some(0) => {
            let answer: Option<Value> = stdout
                .trim_start()
                .starts_with('{')
                .then(|| serde_json::from_str(stdout.trim()).ok())
                .flatten();
            let Some(answer) = answer else {
                return Ran {
                    stdout,
                    ..Ran::plain(HookOutcome::Continued, code, String::new())
                };
            };
            let reason = answer["reason"]
                .as_str()
                .or(answer["hookSpecificOutput"]["permissionDecisionReason"].as_str())
                .unwrap_or("")
                .to_string();
            let permission = match answer["hookSpecificOutput"]["permissionDecision"].as_str() {
                Some("deny") => Some(Decision::Deny),
                Some("ask") => Some(Decision::Ask),
                Some("allow") => Some(Decision::Allow),
                _ => None,
            };
            let blocks = matches!(answer["decision"].as_str(), Some("block" | "deny"))
                || permission == Some(Decision::Deny)
                || answer["continue"] == json!(false);
            let (outcome, permission) = match blocks {
                true => (HookOutcome::Blocked, permission.or(Some(Decision::Deny))),
                false => (HookOutcome::Continued, permission),
            };
            Ran {
                permission,
                ..Ran::plain(outcome, code, reason)
            }
        }
        Some(2) => Ran {
            permission: Some(Decision::Deny),
            ..Ran::plain(HookOutcome::Blocked, code, stderr)
        },
        _ => Ran::plain(HookOutcome::Failed, code, stderr),
    }
}

/// Whether a matcher (`Bash`, `Edit|Write`, a regex) names `tool` by its
/// Claude Code name or brood's.
fn matches(matcher: &str, tool: &str) -> bool {
    let claude = claude_name(tool);
    let pattern = format!("^(?:{matcher})$");
    match regex::Regex::new(&pattern) {
        Ok(re) => re.is_match(tool) || re.is_match(claude),
        // Not a regex: names separated by `|`.
        Err(_) => matcher
            .split('|')
            .any(|m| m.trim() == tool || m.trim() == claude),
    }
}

/// Claude Code's name for one of brood's tools, which hooks written for it
/// test.
fn claude_name(tool: &str) -> &str {
    match tool {
        "bash" => "Bash",
        "read_file" => "Read",
        "edit_file" => "Edit",
        "write_file" => "Write",
        "grep" => "Grep",
        "glob" => "Glob",
        "task" => "Task",
        other => other,
    }
}

/// A tool call as a hook reads it: Claude Code's names, with brood's too.
fn tool_input(call: &ToolCall) -> Value {
    let mut input = call.input.clone();
    if let Value::Object(map) = &mut input
        && let Some(path) = map.get("path").cloned()
    {
        map.entry("file_path").or_insert(path);
    }
    json!({
        "tool_name": claude_name(&call.name),
        "brood_tool_name": call.name,
        "tool_input": input,
    })
}

#[async_trait]
impl Hook for CommandHooks {
    async fn pre_tool_use(
        &self,
        agent: AgentId,
        call: &ToolCall,
        _kind: ToolKind,
    ) -> Option<Verdict> {
        let ran = self
            .run(
                agent,
                HookEvent::PreToolUse,
                Some(&call.name),
                tool_input(call),
            )
            .await;
        let strongest = ran
            .iter()
            .filter_map(|r| r.permission.map(|p| (p, r)))
            .max_by_key(|(p, _)| match p {
                Decision::Allow => 0,
                Decision::Ask => 1,
                Decision::Deny => 2,
            })?;
        let (decision, ran) = strongest;
        let said = match ran.said.is_empty() {
            true => "no reason given".to_string(),
            false => ran.said.clone(),
        };
        Some(Verdict {
            decision,
            reason: format!(
                "a PreToolUse hook {}: {said}",
                match decision {
                    Decision::Deny => "blocked it",
                    Decision::Ask => "asks",
                    Decision::Allow => "allows it",
                }
            ),
        })
    }

    async fn post_tool_use(
        &self,
        agent: AgentId,
        call: &ToolCall,
        outcome: &ToolOutcome,
    ) -> Option<String> {
        let mut input = tool_input(call);
        input["tool_response"] = json!({"content": outcome.content, "is_error": outcome.is_error});
        let ran = self
            .run(agent, HookEvent::PostToolUse, Some(&call.name), input)
            .await;
        ran.into_iter()
            .find(|r| r.outcome == HookOutcome::Blocked && !r.said.is_empty())
            .map(|r| format!("PostToolUse hook: {}", r.said))
    }

    async fn stop(&self, agent: AgentId, final_text: &str) -> Option<String> {
        let event = match agent {
            AgentId::Main => HookEvent::Stop,
            AgentId::Sub(_) => HookEvent::SubagentStop,
        };
        let count = self
            .continued
            .lock()
            .map(|c| c.get(&agent).copied().unwrap_or(0))
            .unwrap_or(0);
        let input = json!({"stop_hook_active": count > 0, "last_assistant_message": final_text});
        let ran = self.run(agent, event, None, input).await;
        let blocked = ran.into_iter().find(|r| r.outcome == HookOutcome::Blocked);
        let mut counts = self.continued.lock().unwrap_or_else(|e| e.into_inner());
        match blocked {
            Some(r) if count < MAX_CONTINUATIONS => {
                counts.insert(agent, count + 1);
                Some(match r.said.is_empty() {
                    true => format!("A {} hook asks you to go on.", event.as_str()),
                    false => r.said,
                })
            }
            Some(_) | None => {
                counts.remove(&agent);
                None
            }
        }
    }

    async fn user_prompt_submit(&self, prompt: &str) -> Result<Option<String>, String> {
        let ran = self
            .run(
                AgentId::Main,
                HookEvent::UserPromptSubmit,
                None,
                json!({"prompt": prompt}),
            )
            .await;
        if let Some(blocked) = ran.iter().find(|r| r.outcome == HookOutcome::Blocked) {
            return Err(blocked.said.clone());
        }
        let context: Vec<String> = ran
            .iter()
            .map(|r| r.stdout.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        Ok((!context.is_empty()).then(|| context.join("\n")))
    }

    async fn subagent_start(&self, agent: AgentId, profile: &str, prompt: &str) {
        let input = json!({"agent_type": profile, "prompt": prompt});
        self.run(agent, HookEvent::SubagentStart, None, input).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_name_tools_by_either_name() {
        assert!(matches("Bash", "bash"));
        assert!(matches("Edit|Write", "write_file"));
        assert!(matches("mcp__.*", "mcp__github__issue"));
        assert!(!matches("Bash", "read_file"));
        assert!(matches("read_file", "read_file"));
    }

    #[test]
    fn answers_are_read_by_the_contract() {
        let read = |code, stdout: &str, stderr: &str| {
            let ran = read_answer(Some(code), stdout.into(), stderr.into());
            (ran.outcome, ran.said, ran.permission)
        };
        assert_eq!(
            read(2, "", "no pushes\n"),
            (
                HookOutcome::Blocked,
                "no pushes".into(),
                Some(Decision::Deny)
            )
        );
        let json = r#"{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "check"}}"#;
        assert_eq!(
            read(0, json, ""),
            (HookOutcome::Continued, "check".into(), Some(Decision::Ask))
        );
        assert_eq!(
            read(1, "", "oops"),
            (HookOutcome::Failed, "oops".into(), None)
        );
        assert_eq!(
            read(0, r#"{"decision": "block", "reason": "tests fail"}"#, ""),
            (
                HookOutcome::Blocked,
                "tests fail".into(),
                Some(Decision::Deny)
            )
        );
        let plain = read_answer(Some(0), "some context\n".into(), String::new());
        assert_eq!(
            (plain.outcome, plain.stdout.as_str()),
            (HookOutcome::Continued, "some context\n")
        );
    }
}
