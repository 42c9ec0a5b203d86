//! The sessions `brood watch` can follow: Claude Code's projects, Codex's
//! sessions and brood's own traces, wherever each tool keeps them on this
//! machine (`CLAUDE_CONFIG_DIR`, `CODEX_HOME` and brood's data folder are
//! honoured). Children are not sessions of their own: Claude Code's
//! `agent-*.jsonl` files and Codex rollouts spawned by another thread are
//! followed as part of their parent.
//!
//! Finding the newest costs one `stat` per file; only the sessions listed are
//! opened, and only their first lines are read.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use super::ReplayError;
use crate::trace::import::codex;

/// Which tool wrote a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tool {
    ClaudeCode,
    Codex,
    Brood,
}

impl Tool {
    pub fn name(&self) -> &str {
        match self {
            Tool::ClaudeCode => "claude",
            Tool::Codex => "codex",
            Tool::Brood => "brood",
        }
    }
}

/// Where one tool keeps its sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub tool: Tool,
    pub dir: PathBuf,
}

/// The folders sessions are looked for in, from the environment as each tool
/// reads it: `$CLAUDE_CONFIG_DIR/projects` (else `~/.claude/projects`),
/// `$CODEX_HOME/sessions` (else `~/.codex/sessions`), brood's traces folder.
pub fn roots() -> Vec<Root> {
    let from_env = crate::config::tool_dir;
    let mut roots = Vec::new();
    if let Some(dir) = from_env("CLAUDE_CONFIG_DIR", ".claude") {
        roots.push(Root {
            tool: Tool::ClaudeCode,
            dir: dir.join("projects"),
        });
    }
    if let Some(dir) = from_env("CODEX_HOME", ".codex") {
        roots.push(Root {
            tool: Tool::Codex,
            dir: dir.join("sessions"),
        });
    }
    if let Ok(dir) = super::traces_dir() {
        roots.push(Root {
            tool: Tool::Brood,
            dir,
        });
    }
    roots
}

/// A session file, found.
#[derive(Debug, Clone)]
pub struct Found {
    pub tool: Tool,
    pub path: PathBuf,
    pub modified: SystemTime,
}

/// Every session file under `roots`, most recently written first. Codex
/// child rollouts are among them: [`is_child`] tells (it reads the file).
pub fn find(roots: &[Root]) -> Vec<Found> {
    let mut found = Vec::new();
    for root in roots {
        match root.tool {
            Tool::ClaudeCode => {
                for project in dirs(&root.dir) {
                    files(&project, &mut found, root.tool, is_claude_session);
                }
            }
            Tool::Codex => {
                for year in dirs(&root.dir) {
                    for month in dirs(&year) {
                        for day in dirs(&month) {
                            files(&day, &mut found, root.tool, |name| {
                                name.starts_with("rollout-") && name.ends_with(".jsonl")
                            });
                        }
                    }
                }
            }
            Tool::Brood => files(&root.dir, &mut found, root.tool, |name| {
                name.ends_with(".jsonl")
            }),
        }
    }
    found.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
    found
}

/// Whether a found file is a child followed with its parent, not a session.
pub fn is_child(found: &Found) -> bool {
    found.tool == Tool::Codex && codex_parent(&found.path).is_some()
}

/// A Claude Code session file: `<uuid>.jsonl`, not a subagent's `agent-*`.
fn is_claude_session(name: &str) -> bool {
    name.ends_with(".jsonl") && !name.starts_with("agent-")
}

fn dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

fn files(dir: &Path, found: &mut Vec<Found>, tool: Tool, wanted: impl Fn(&str) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !wanted(&entry.file_name().to_string_lossy()) {
            continue;
        }
        if let Ok(meta) = entry.metadata()
            && meta.is_file()
            && meta.len() > 0
        {
            found.push(Found {
                tool,
                path: entry.path(),
                modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            });
        }
    }
}

/// The session to follow for `brood watch PATH`: the file itself; in a
/// folder of sessions (a Claude Code project, a Codex date folder, a traces
/// folder, or any folder above them) the most recently written one; in a
/// project's working folder (`brood watch .`), the most recently written
/// session any tool recorded for it.
pub fn resolve(path: &Path, roots: &[Root]) -> Result<PathBuf, ReplayError> {
    let meta = std::fs::metadata(path).map_err(|e| ReplayError::stat(path, e))?;
    if !meta.is_dir() {
        return Ok(path.to_path_buf());
    }
    newest_for_project(path, roots)
        .or_else(|| newest_under(path))
        .ok_or_else(|| ReplayError::NoSessions {
            dir: path.to_path_buf(),
        })
}

/// Sessions found and described at most, looking for a project's.
const PROJECT_SCAN: usize = 200;

/// The newest session whose working folder is `project`: Claude Code's
/// project folder named after it, Codex rollouts and brood traces whose
/// recorded folder it is.
fn newest_for_project(project: &Path, roots: &[Root]) -> Option<PathBuf> {
    let project = project.canonicalize().ok()?;
    let wanted = project.to_string_lossy().into_owned();
    find(roots)
        .into_iter()
        .filter(|f| !is_child(f))
        .take(PROJECT_SCAN)
        .find(|f| match f.tool {
            // Claude Code names a project's folder by its path, every
            // character other than a letter or digit made a `-`.
            Tool::ClaudeCode => f
                .path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|name| name.to_string_lossy() == claude_slug(&wanted)),
            Tool::Codex => {
                codex::rollout_thread(&f.path).and_then(|t| t.cwd) == Some(wanted.clone())
            }
            // The header is enough: a whole summary would read every trace.
            Tool::Brood => {
                crate::trace::TraceReader::open(&f.path).is_ok_and(|r| r.header().cwd == wanted)
            }
        })
        .map(|f| f.path)
}

/// The name of Claude Code's folder for the project at `path`.
fn claude_slug(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The most recently written session file under `dir`, four levels down at
/// most (Codex's `YYYY/MM/DD`), leaving out children's files.
fn newest_under(dir: &Path) -> Option<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0u8)];
    while let Some((dir, depth)) = stack.pop() {
        files(&dir, &mut found, Tool::Brood, is_claude_session);
        if depth < 4 {
            for sub in dirs(&dir) {
                // A Claude session's own folder holds only its children.
                if sub.with_extension("jsonl").is_file() || sub.ends_with("subagents") {
                    continue;
                }
                stack.push((sub, depth + 1));
            }
        }
    }
    found.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
    // Other JSON Lines files (a project's test data) are not sessions: the
    // newest file in a format brood reads is.
    found
        .into_iter()
        .filter(|f| codex_parent(&f.path).is_none())
        .take(PROJECT_SCAN)
        .find(|f| crate::trace::import::detect(&f.path).is_ok())
        .map(|f| f.path)
}

/// Lines read at most to describe a session.
const HEAD_LINES: usize = 400;
/// Bytes read at most to describe a session.
const HEAD_BYTES: u64 = 4 * 1024 * 1024;

/// What `--list` says about a session.
#[derive(Debug, Clone, Default)]
pub struct Described {
    pub project: String,
    /// RFC 3339, as the file wrote it.
    pub started: Option<String>,
    pub first_prompt: Option<String>,
    pub children: usize,
}

/// Reads the start of a session for `--list`.
pub fn describe(found: &Found) -> Described {
    match found.tool {
        Tool::Brood => match super::summarize(&found.path) {
            Ok(summary) => Described {
                project: summary.header.cwd.clone(),
                started: Some(summary.header.started_at.clone()),
                first_prompt: summary.first_prompt.clone(),
                children: summary.children,
            },
            Err(_) => Described::default(),
        },
        Tool::ClaudeCode => describe_claude(&found.path),
        Tool::Codex => describe_codex(&found.path),
    }
}

fn head(path: &Path) -> Vec<Value> {
    let Ok(file) = File::open(path) else {
        return Vec::new();
    };
    BufReader::new(file.take(HEAD_BYTES))
        .split(b'\n')
        .take(HEAD_LINES)
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_slice(&line).ok())
        .collect()
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

fn describe_claude(path: &Path) -> Described {
    let lines = head(path);
    let mut described = Described::default();
    for line in &lines {
        if described.project.is_empty() {
            described.project = str_at(line, "/cwd").unwrap_or_default().to_string();
        }
        if described.started.is_none() {
            described.started = str_at(line, "/timestamp").map(String::from);
        }
        let prompt = line.get("type").and_then(Value::as_str) == Some("user")
            && line.get("isSidechain").and_then(Value::as_bool) != Some(true)
            && line.get("isMeta").and_then(Value::as_bool) != Some(true);
        if described.first_prompt.is_none() && prompt {
            described.first_prompt = user_text(line.pointer("/message/content"));
        }
    }
    if let Some(stem) = path.file_stem() {
        let subagents = path.with_file_name(stem).join("subagents");
        if let Ok(entries) = std::fs::read_dir(subagents) {
            described.children = entries
                .flatten()
                .filter(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name.starts_with("agent-")
                        && name.ends_with(".jsonl")
                        && !name.starts_with("agent-acompact")
                })
                .count();
        }
    }
    described
}

/// A user message's own words: a string, or its text blocks; `None` for
/// tool results, commands and other text the tool wrote itself.
fn user_text(content: Option<&Value>) -> Option<String> {
    let text = match content? {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    let text = text.trim();
    let written_by_the_tool = text.starts_with('<') || text.starts_with("Caveat:");
    (!text.is_empty() && !written_by_the_tool).then(|| text.to_string())
}

fn describe_codex(path: &Path) -> Described {
    let lines = head(path);
    let mut described = Described {
        project: codex::rollout_thread(path)
            .and_then(|t| t.cwd)
            .unwrap_or_default(),
        ..Described::default()
    };
    for line in &lines {
        let payload = line.get("payload").unwrap_or(line);
        if described.started.is_none() {
            described.started = str_at(payload, "/timestamp")
                .or_else(|| str_at(line, "/timestamp"))
                .map(String::from);
        }
        let user = line.get("type").and_then(Value::as_str) == Some("event_msg")
            && str_at(payload, "/type") == Some("user_message");
        if described.first_prompt.is_none() && user {
            described.first_prompt = str_at(payload, "/message")
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(String::from);
        }
    }
    described.children = codex::sub_agent_count(path);
    described
}

/// The thread a Codex rollout was spawned by; `None` for a session the user
/// started, and for files that are not rollouts.
pub fn codex_parent(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    if !name.starts_with("rollout-") {
        return None;
    }
    codex::rollout_thread(path)?.parent
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;
