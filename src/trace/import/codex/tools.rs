//! Codex's tool calls and their outputs as brood's `tool_call` and `tool_result`.
//!
//! The model's calls are `response_item`s: `function_call` {name, namespace?,
//! arguments (a JSON string), call_id} for `exec_command`, `shell`,
//! `apply_patch`, `update_plan`, MCP tools (named `server__tool`, or with the
//! server in `namespace`) and the collab tools (`spawn_agent`, `wait_agent`, …);
//! `custom_tool_call` {name, input (free text), call_id} for freeform tools such
//! as `apply_patch`; `local_shell_call` {call_id, action}; `tool_search_call`
//! {call_id, arguments}; and `web_search_call` {action}, which has no output
//! record. Outputs are `function_call_output` / `custom_tool_call_output` /
//! `tool_search_output` {call_id, output}, where `output` is text, a list of
//! content items, or (older `shell`) a JSON string `{output, metadata:
//! {exit_code}}`.

use serde_json::{Value, json};

use super::super::lines::{display, first_str, str_at, u64_at};
use crate::event::Usage;
use crate::protocol::TASK_TOOL;

/// What a call does for the import, beyond being shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Plain,
    /// `spawn_agent`: starts a sub-agent thread; shown as a `task` call.
    Spawn,
    /// `wait` / `wait_agent`: returns when sub-agents end.
    Wait,
}

/// One call of the model, ready to be a `tool_call` event.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub call_id: String,
    pub name: String,
    pub input: Value,
    pub summary: String,
    pub role: Role,
    /// A call that has no output record carries its result (`web_search_call`).
    pub result: Option<String>,
}

/// The call a `response_item` payload makes, if it is one; `seq` numbers the
/// ids made up for calls that have none.
pub(super) fn call_of(item: &Value, seq: usize) -> Option<Call> {
    let id = |keys: &[&str]| {
        first_str(item, keys)
            .map(String::from)
            .unwrap_or_else(|| format!("codex-call-{seq}"))
    };
    let (call_id, name, input, result) = match str_at(item, "type")? {
        "function_call" => {
            let name = str_at(item, "name").unwrap_or("unknown");
            let name = match str_at(item, "namespace").filter(|n| !n.is_empty()) {
                Some(ns) if !name.starts_with(ns) && ns.starts_with("mcp") => {
                    format!("{ns}__{name}")
                }
                _ => name.to_string(),
            };
            let input = match item.get("arguments") {
                Some(Value::String(s)) => serde_json::from_str(s)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({ "arguments": s })),
                Some(other) => other.clone(),
                None => Value::Null,
            };
            (id(&["call_id", "id"]), name, input, None)
        }
        "custom_tool_call" => (
            id(&["call_id", "id"]),
            str_at(item, "name").unwrap_or("unknown").to_string(),
            json!({ "input": str_at(item, "input").unwrap_or_default() }),
            None,
        ),
        "local_shell_call" => (
            id(&["call_id", "id"]),
            "local_shell".to_string(),
            item.get("action").cloned().unwrap_or(Value::Null),
            None,
        ),
        "tool_search_call" => (
            id(&["call_id", "id"]),
            "tool_search".to_string(),
            item.get("arguments").cloned().unwrap_or(Value::Null),
            None,
        ),
        "web_search_call" => {
            let action = item.get("action").cloned().unwrap_or_else(|| json!({}));
            let status = str_at(item, "status").unwrap_or("done").to_string();
            (id(&["id"]), "web_search".to_string(), action, Some(status))
        }
        _ => return None,
    };
    let role = match name.as_str() {
        "spawn_agent" => Role::Spawn,
        "wait" | "wait_agent" => Role::Wait,
        _ => Role::Plain,
    };
    let summary = summary_of(&name, &input);
    let (name, input) = match role {
        Role::Spawn => (TASK_TOOL.to_string(), task_input(input)),
        Role::Plain | Role::Wait => (name, input),
    };
    Some(Call {
        call_id,
        name,
        input,
        summary,
        role,
        result,
    })
}

/// `spawn_agent`'s arguments {message | items, agent_type, model, …} as the
/// input of brood's `task` tool, so the screen draws a task cell.
fn task_input(args: Value) -> Value {
    let mut input = match args {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let prompt = match (input.get("message"), input.get("items")) {
        (Some(Value::String(m)), _) => m.clone(),
        (_, Some(Value::Array(items))) => items
            .iter()
            .filter_map(|i| str_at(i, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let role = first_str(&Value::Object(input.clone()), &["agent_type", "agent_role"])
        .unwrap_or("default")
        .to_string();
    input.entry("prompt").or_insert(Value::String(prompt));
    input.entry("subagent_type").or_insert(Value::String(role));
    Value::Object(input)
}

/// The one-line label of the calls whose input says little by itself.
fn summary_of(name: &str, input: &Value) -> String {
    match name {
        "exec_command" => command_line(input.get("cmd")),
        "shell" | "shell_command" | "local_shell" | "container.exec" => {
            command_line(input.get("command"))
        }
        "wait" | "wait_agent" | "close_agent" | "send_input" | "resume_agent" => {
            let ids = ["targets", "ids", "agent_ids", "id", "agent_id", "target"]
                .iter()
                .find_map(|k| input.get(*k))
                .map(|v| match v {
                    Value::Array(ids) => ids.iter().map(display).collect::<Vec<_>>().join(", "),
                    other => display(other),
                });
            ids.unwrap_or_default()
        }
        "apply_patch" => {
            let patch = first_str(input, &["input", "patch"]).unwrap_or_default();
            let files: Vec<String> = patch
                .lines()
                .filter_map(|l| {
                    let l = l.trim();
                    [
                        ("*** Update File: ", "edit "),
                        ("*** Add File: ", "add "),
                        ("*** Delete File: ", "delete "),
                    ]
                    .iter()
                    .find_map(|(mark, verb)| l.strip_prefix(mark).map(|f| format!("{verb}{f}")))
                })
                .collect();
            files.join(", ")
        }
        _ => String::new(),
    }
}

/// A command given as text or as argv; `bash -lc "…"` shows only the script.
fn command_line(command: Option<&Value>) -> String {
    match command {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(argv)) => {
            let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') => {
                    script.to_string()
                }
                _ => words.join(" "),
            }
        }
        _ => String::new(),
    }
}

/// An output payload's text, and whether it says the call failed.
pub(super) fn output_of(item: &Value) -> (String, bool) {
    match item.get("output") {
        Some(Value::String(s)) => structured(s),
        Some(Value::Array(items)) => (content_items(items), false),
        Some(Value::Object(o)) => {
            let failed = o.get("success").and_then(Value::as_bool) == Some(false);
            let text = match o.get("content").or_else(|| o.get("output")) {
                Some(Value::Array(items)) => content_items(items),
                Some(other) => display(other),
                None => display(&Value::Object(o.clone())),
            };
            (text, failed)
        }
        Some(other) => (display(other), false),
        None => match item.get("tools") {
            // tool_search_output: the tools it found.
            Some(Value::Array(tools)) => (
                tools
                    .iter()
                    .filter_map(|t| first_str(t, &["name"]))
                    .collect::<Vec<_>>()
                    .join(", "),
                false,
            ),
            _ => (String::new(), false),
        },
    }
}

/// Older `shell` outputs are `{"output": …, "metadata": {"exit_code": …}}`;
/// `exec_command` and newer `shell` outputs start with a header (`Chunk ID`,
/// `Wall time`, `Process exited with code N` or `Exit code: N`, …) and then
/// `Output:`; an interrupted call's is `aborted`. People get the output, with
/// the exit code when it is not 0 and the session of a command still running.
fn structured(text: &str) -> (String, bool) {
    if text.trim_start().starts_with('{')
        && let Ok(v) = serde_json::from_str::<Value>(text)
        && let Some(out) = str_at(&v, "output")
        && let Some(meta) = v.get("metadata")
    {
        return (
            out.to_string(),
            u64_at(meta, "exit_code").is_some_and(|c| c != 0),
        );
    }
    // What Codex records for a call cut off by an interrupt.
    if text.trim() == "aborted" {
        return (text.to_string(), true);
    }
    let mut code = None;
    let mut running = None;
    for (i, line) in text.lines().enumerate().take(8) {
        let line = line.trim();
        if line == "Output:" {
            let body = text.splitn(i + 2, '\n').nth(i + 1).unwrap_or_default();
            let mut shown = String::new();
            if let Some(c) = code.filter(|c| *c != "0") {
                shown.push_str(&format!("exit code {c}\n"));
            }
            if let Some(session) = running {
                shown.push_str(&format!("still running as session {session}\n"));
            }
            shown.push_str(body);
            return (shown, code.is_some_and(|c| c != "0"));
        }
        let value = line
            .strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "));
        if value.is_some() {
            code = value.map(str::trim);
        } else if let Some(s) = line.strip_prefix("Process running with session ID ") {
            running = Some(s.trim());
        } else if !line.contains(": ") {
            break;
        }
    }
    (text.to_string(), false)
}

fn content_items(items: &[Value]) -> String {
    items
        .iter()
        .map(|i| match str_at(i, "type") {
            Some(t) if t.contains("image") => "[image]".to_string(),
            _ => str_at(i, "text").map_or_else(|| display(i), String::from),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The thread id `spawn_agent` answered with (`{"agent_id": …, "nickname": …}`).
pub(super) fn spawned_id(output: &str) -> Option<String> {
    let v: Value = serde_json::from_str(output).ok()?;
    first_str(&v, &["agent_id", "thread_id", "id"]).map(String::from)
}

/// How a sub-agent ended, as a `wait` output reports it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Final {
    Completed(String),
    Errored(String),
    /// Shut down or not found.
    Gone,
}

/// The sub-agents a `wait` output reports as ended: its `status` map, keyed by
/// thread id (or agent path), with values `{"completed": text}`,
/// `{"errored": text}`, `"shutdown"`, `"not_found"`; running ones are left out.
pub(super) fn ended(output: &str) -> Vec<(String, Final)> {
    let Ok(v) = serde_json::from_str::<Value>(output) else {
        return Vec::new();
    };
    let Some(Value::Object(map)) = v.get("status").or_else(|| v.get("statuses")) else {
        return Vec::new();
    };
    map.iter()
        .filter_map(|(id, status)| {
            let done = match status {
                Value::Object(o) => match (o.get("completed"), o.get("errored")) {
                    (Some(text), _) => Final::Completed(display(text)),
                    (None, Some(text)) => Final::Errored(display(text)),
                    (None, None) => return None,
                },
                Value::String(s) if matches!(s.as_str(), "shutdown" | "not_found") => Final::Gone,
                _ => return None,
            };
            Some((id.clone(), done))
        })
        .collect()
}

/// Token counts as Codex reports them: `input_tokens` includes the cached ones,
/// `output_tokens` includes reasoning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Counts {
    input: u64,
    cached: u64,
    output: u64,
}

impl Counts {
    pub fn of(usage: Option<&Value>) -> Option<Counts> {
        let u = usage.filter(|u| u.is_object())?;
        Some(Counts {
            input: u64_at(u, "input_tokens").unwrap_or(0),
            cached: u64_at(u, "cached_input_tokens").unwrap_or(0),
            output: u64_at(u, "output_tokens").unwrap_or(0),
        })
    }

    /// What was added since `before`; `None` when a count went down (a new
    /// process counting from zero again).
    pub fn since(&self, before: &Counts) -> Option<Counts> {
        Some(Counts {
            input: self.input.checked_sub(before.input)?,
            cached: self.cached.checked_sub(before.cached)?,
            output: self.output.checked_sub(before.output)?,
        })
    }

    /// As brood counts: input without the cached part, which is its own count.
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input.saturating_sub(self.cached),
            output_tokens: self.output,
            cache_read_tokens: self.cached.min(self.input),
            cache_write_tokens: 0,
            reasoning_tokens: 0,
            estimated: false,
        }
    }
}
