//! Continuing a session from its trace (`brood --continue`, `--resume`).
//!
//! The trace is the only record: the parent's messages are rebuilt from its
//! events, in the same shape the loop kept them ([`Message::assistant`]), so
//! the first request after a resume is the last one before it with the new
//! prompt added. Children are not resumed: what each found is in the
//! parent's history already, as its `task` result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::event::{AgentId, Event, EventKind};
use crate::model::{ContentBlock, Message, Role};
use crate::trace::{TraceError, TraceHeader, TraceReader};

/// Which session to continue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeFrom {
    /// The one of this workspace written last.
    Newest,
    /// A trace file, or a session id (whole, or its start or end).
    Named(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error(
        "no brood session of this workspace ({workspace}) to continue; `brood traces` lists them all"
    )]
    NoSession { workspace: PathBuf },
    #[error("no saved session is called {name:?}; `brood traces` lists them")]
    NotFound { name: String },
    #[error("{name:?} names {} sessions: {}; give more of the id", ids.len(), ids.join(", "))]
    Ambiguous { name: String, ids: Vec<String> },
    #[error(
        "{path} is not a brood trace, so it cannot be continued (`brood replay` shows it): {why}"
    )]
    NotBrood { path: PathBuf, why: String },
    #[error(transparent)]
    Trace(#[from] TraceError),
}

/// A saved session, read back to go on from.
#[derive(Debug, Clone)]
pub struct Resume {
    pub path: PathBuf,
    pub header: TraceHeader,
    pub events: Vec<Event>,
    /// The parent's history, as it was last sent.
    pub messages: Vec<Message>,
}

impl Resume {
    /// Reads the trace at `path` and rebuilds the parent's history.
    pub fn load(path: &Path) -> Result<Resume, ResumeError> {
        let mut reader = TraceReader::open(path).map_err(|e| not_brood(path, e))?;
        let mut events = Vec::new();
        while let Some(event) = reader.next_event()? {
            events.push(event);
        }
        let header = reader.header().clone();
        Ok(Resume {
            path: path.to_path_buf(),
            messages: rebuild(&events),
            header,
            events,
        })
    }

    /// The highest child number in the trace (0 for none).
    pub fn last_child(&self) -> u32 {
        self.events
            .iter()
            .filter_map(|e| match e.agent {
                AgentId::Sub(n) => Some(n),
                AgentId::Main => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The number the next event takes.
    pub fn next_seq(&self) -> u64 {
        self.events.last().map_or(1, |e| e.seq + 1)
    }

    /// Where the session's clock stood when it was closed.
    pub fn clock_ms(&self) -> u64 {
        self.events.iter().map(|e| e.t_ms).max().unwrap_or(0)
    }
}

/// A header that does not parse means another tool's file.
fn not_brood(path: &Path, e: TraceError) -> ResumeError {
    match e {
        TraceError::BadHeader { message, .. } => ResumeError::NotBrood {
            path: path.to_path_buf(),
            why: match crate::trace::import::lookalike(path) {
                Some(looks) => format!("it looks like {}", looks.describe()),
                None => message,
            },
        },
        other => ResumeError::Trace(other),
    }
}

/// The trace to continue: `from` among the traces in `dir`, for the
/// session in `workspace`.
pub fn locate(from: &ResumeFrom, workspace: &Path, dir: &Path) -> Result<PathBuf, ResumeError> {
    match from {
        ResumeFrom::Newest => {
            let here = of_workspace(workspace);
            saved(dir)
                .into_iter()
                .filter(|s| here(&s.header))
                .max_by_key(|s| s.written)
                .map(|s| s.path)
                .ok_or_else(|| ResumeError::NoSession {
                    workspace: workspace.to_path_buf(),
                })
        }
        ResumeFrom::Named(name) => {
            let path = Path::new(name);
            if path.is_file() {
                return Ok(path.to_path_buf());
            }
            let all = saved(dir);
            if let Some(exact) = all.iter().find(|s| &s.header.session == name) {
                return Ok(exact.path.clone());
            }
            let mut found: Vec<Saved> = all
                .into_iter()
                .filter(|s| {
                    !name.is_empty()
                        && (s.header.session.starts_with(name.as_str())
                            || s.header.session.ends_with(name.as_str()))
                })
                .collect();
            match found.len() {
                0 => Err(ResumeError::NotFound { name: name.clone() }),
                1 => Ok(found.remove(0).path),
                _ => Err(ResumeError::Ambiguous {
                    name: name.clone(),
                    ids: found.into_iter().map(|s| s.header.session).collect(),
                }),
            }
        }
    }
}

/// A trace file and what its first line says.
struct Saved {
    path: PathBuf,
    header: TraceHeader,
    written: Option<std::time::SystemTime>,
}

/// The brood traces of `dir` (other files are passed over).
fn saved(dir: &Path) -> Vec<Saved> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter_map(|path| {
            let header = TraceReader::open(&path).ok()?.header().clone();
            let written = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
            Some(Saved {
                path,
                header,
                written,
            })
        })
        .collect()
}

/// Whether a trace is a session of `workspace`: its header's folder is the
/// same folder, however either is spelled (`.`, a symlink).
pub fn of_workspace(workspace: &Path) -> impl Fn(&TraceHeader) -> bool + use<> {
    let here = canonical(workspace);
    move |header| canonical(Path::new(&header.cwd)) == here
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The parent's messages as the loop kept them, from the trace's events.
///
/// A prompt (with what UserPromptSubmit hooks added) and a Stop hook's
/// continuation are user messages; an answer is its text and then the calls
/// published for it; the results follow in one user message, in call order
/// whatever order they finished in. A call brood was stopped before it
/// answered (killed mid-tool) gets an error result, as the API requires one
/// for every call.
pub fn rebuild(events: &[Event]) -> Vec<Message> {
    let mut messages: Vec<Message> = Vec::new();
    let mut open = OpenCalls::default();
    // The reasoning published before the answer it belongs to.
    let mut thinking: Vec<ContentBlock> = Vec::new();
    for event in events.iter().filter(|e| e.agent == AgentId::Main) {
        match &event.kind {
            EventKind::UserMessage { text } | EventKind::HookContinue { text } => {
                open.close(&mut messages);
                messages.push(Message::user_text(text.as_str()));
            }
            EventKind::Steer { text } => {
                open.close(&mut messages);
                crate::agent::append_steer(&mut messages, text);
            }
            EventKind::PromptContext { text } => {
                if let Some(Message {
                    role: Role::User,
                    content,
                }) = messages.last_mut()
                    && let Some(ContentBlock::Text { text: prompt }) = content.last_mut()
                {
                    *prompt = super::with_context(prompt, text);
                }
            }
            EventKind::Thinking {
                text,
                signature,
                redacted,
            } => thinking.push(match redacted {
                Some(data) => ContentBlock::RedactedThinking { data: data.clone() },
                None => ContentBlock::Thinking {
                    thinking: text.clone(),
                    signature: signature.clone(),
                },
            }),
            EventKind::AssistantMessage { text, .. } => {
                open.close(&mut messages);
                let before = std::mem::take(&mut thinking);
                messages.push(Message::assistant_thinking(
                    before,
                    text.clone(),
                    Vec::new(),
                ));
                open.answering = true;
            }
            EventKind::ToolCall {
                call_id,
                name,
                input,
                ..
            } if open.answering => {
                if let Some(answer) = messages.last_mut() {
                    answer.content.push(ContentBlock::ToolUse {
                        id: call_id.clone(),
                        name: name.clone(),
                        input: input.to_value(),
                    });
                }
                open.calls.push(call_id.clone());
            }
            EventKind::ToolResult {
                call_id,
                content,
                is_error,
                ..
            } => {
                open.results
                    .insert(call_id.clone(), (content.to_string(), *is_error));
            }
            EventKind::Compacted {
                summary,
                kept_messages,
                ..
            } => {
                open.close(&mut messages);
                crate::agent::compact::apply(&mut messages, summary, *kept_messages);
            }
            EventKind::ModelRequest { .. }
            | EventKind::Resumed { .. }
            | EventKind::TextDelta { .. }
            | EventKind::ThinkingDelta { .. }
            | EventKind::ModelChanged { .. }
            | EventKind::ToolCall { .. }
            | EventKind::ApprovalRequested(_)
            | EventKind::PermissionDecision { .. }
            | EventKind::HookRun { .. }
            | EventKind::McpServerDown { .. }
            | EventKind::TurnEnd { .. }
            | EventKind::Error { .. }
            | EventKind::Retry { .. }
            | EventKind::Interrupted {}
            | EventKind::SubagentStart(_)
            | EventKind::SubagentEnd { .. } => {}
        }
    }
    open.close(&mut messages);
    messages
}

/// The calls of the last answer, waiting for their results.
#[derive(Default)]
struct OpenCalls {
    answering: bool,
    calls: Vec<String>,
    results: HashMap<String, (String, bool)>,
}

impl OpenCalls {
    /// Adds the results of the answer's calls, if it made any.
    fn close(&mut self, messages: &mut Vec<Message>) {
        self.answering = false;
        if self.calls.is_empty() {
            return;
        }
        let content = std::mem::take(&mut self.calls)
            .into_iter()
            .map(|id| {
                let (content, is_error) = self.results.remove(&id).unwrap_or_else(|| {
                    (
                        "brood was stopped before this call returned a result".to_string(),
                        true,
                    )
                });
                ContentBlock::ToolResult {
                    tool_use_id: id,
                    content,
                    is_error,
                }
            })
            .collect();
        self.results.clear();
        messages.push(Message {
            role: Role::User,
            content,
        });
    }
}

#[cfg(test)]
#[path = "resume_tests.rs"]
mod tests;
