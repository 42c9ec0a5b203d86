//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! Each line is `{timestamp, type, payload}` with `type` one of `session_meta`
//! (the thread: id, cwd, `source`), `turn_context` (the model of the turn),
//! `response_item` (what the model saw and said), `event_msg` (what the screen
//! showed, token counts) and `compacted`. Rollouts of 2025 start with a bare
//! header `{id, timestamp, instructions}` and hold bare response items; both
//! shapes are read. What is mapped, for the session and every sub-agent alike:
//!
//! - a user `message` → `user_message` (a turn starts in the session's lane);
//!   the `event_msg` `user_message` that repeats it is passed over; injected
//!   texts (`<environment_context>`, `<user_instructions>`, AGENTS.md, skills,
//!   notices) are counted as `message (injected context)`, not shown;
//! - one model response (reasoning, assistant text, calls, up to its
//!   `token_count`) → `model_request`, `text_delta` (the reasoning summary as
//!   `Reasoning: …`, then the text), `assistant_message` with usage, one
//!   `tool_call` per call; usage is the growth of `total_token_usage`, so the
//!   steps add up to the rollout's last total;
//! - `function_call_output` and the other outputs → `tool_result` (failed when
//!   an exit code or `success: false` says so, in the output or in the
//!   `exec_command_end` / `patch_apply_end` / `mcp_tool_call_end` before it);
//! - `task_complete` ends the turn; `turn_aborted` → `interrupted`; `error` →
//!   `error`; `compacted` / `context_compacted` → one `[context compacted]`
//!   message;
//! - `spawn_agent` → a `task` call and a child lane `sub-N` (in call order,
//!   depth first) read from the sub-agent's own rollout, found as told in
//!   `codex/threads.rs` and tied to the call by the thread id its output (or
//!   `collab_agent_spawn_end`) names; a rollout naming this session as parent
//!   that no call names gets a lane too, after the parent's event before it
//!   started. `spawn_agent` returns at once, so the lane runs past the call's
//!   result; the result of the first `wait` that reports it ended waits for it.
//!
//! Left out and counted in `skipped`: developer messages, encrypted reasoning,
//! `ghost_snapshot`, image generation, other record, item and event types.
//! Not kept: `event_msg` copies of messages and reasoning, rate limits,
//! `turn_context` beyond the model and cwd.

mod convert;
mod threads;
mod tools;

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};

use super::lines::{Fed, Reading, first_str, object};
use super::live::{Ending, Grew, Live, Signature};
use super::timeline::{LaneBuf, Pending, Timeline, elapsed_ms};
use super::{Format, ImportError, Imported, Report, SharedEvent, header};
use crate::event::{AgentId, EventKind, TerminalReason};
use convert::{Converter, Lane, Spawn};
use threads::Head;
use tools::Final;

/// How deep sub-agents of sub-agents are followed.
const MAX_DEPTH: usize = 8;

/// What a rollout's first line says about its thread, for finding and listing
/// sessions without importing them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RolloutThread {
    pub id: Option<String>,
    /// The thread that spawned this one: set for a sub-agent's rollout.
    pub parent: Option<String>,
    pub cwd: Option<String>,
}

/// The thread of the rollout at `path`; `None` for a file that is not one.
pub fn rollout_thread(path: &Path) -> Option<RolloutThread> {
    let thread = threads::read_head(path)?;
    Some(RolloutThread {
        id: thread.id,
        parent: thread.parent,
        cwd: thread.cwd,
    })
}

/// How many sub-agent rollouts name the session at `path` as their parent,
/// looked for where [`import`] looks (the day folders the session ran on).
pub fn sub_agent_count(path: &Path) -> usize {
    let Some(id) = threads::read_head(path).and_then(|t| t.id) else {
        return 0;
    };
    let until = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(|t| chrono::DateTime::<chrono::Utc>::from(t).timestamp_millis());
    threads::heads_near(path, until)
        .iter()
        .filter(|h| h.thread.parent.as_deref() == Some(id.as_str()))
        .count()
}

/// Imports a Codex rollout with its sub-agents' rollouts.
pub fn import(path: &Path) -> Result<Imported, ImportError> {
    import_with(path, &mut Files::new(Reading::ToEnd), Ending::Closed).map(Imported::into_owned)
}

/// A Codex session read as it is written: each rollout is fed only what it
/// gained since the last read.
pub struct CodexLive {
    path: PathBuf,
    files: Files,
    signature: Signature,
}

impl CodexLive {
    pub fn new(path: &Path) -> CodexLive {
        CodexLive {
            path: path.to_path_buf(),
            files: Files::new(Reading::Growing),
            signature: Signature::default(),
        }
    }
}

impl Live for CodexLive {
    fn read_more(&mut self) -> Result<Grew, ImportError> {
        // Sub-agents' rollouts may be in other day folders, even in one made
        // after the session started (`sessions/YYYY/MM/DD`: the month's
        // folder changes when a day's is made).
        let day = self.path.parent();
        let month = day.and_then(Path::parent);
        let now = Signature::of(&self.path)
            .with_files(self.files.fed.keys().map(PathBuf::as_path))
            .with_files(day.into_iter().chain(month));
        if now == self.signature {
            return Ok(Grew::No);
        }
        self.signature = now;
        Ok(Grew::Yes)
    }

    fn snapshot(&mut self, ending: Ending) -> Result<Imported<SharedEvent>, ImportError> {
        import_with(&self.path, &mut self.files, ending)
    }
}

fn import_with(
    path: &Path,
    files: &mut Files,
    ending: Ending,
) -> Result<Imported<SharedEvent>, ImportError> {
    let mut report = Report::default();
    let main = files.read(path, Lane::Session, ending, &mut report)?;
    let mut ctx = Ctx {
        heads: threads::heads_near(path, main.last_ts),
        timeline: Timeline::default(),
        report,
        next_sub: 0,
        child_model: None,
        files,
        ending,
    };
    let main_lane = ctx.timeline.add_lane(AgentId::Main);
    if let Some(id) = main.thread.id.clone() {
        ctx.seen(&id);
    }
    ctx.adopt(&main, AgentId::Main, main_lane, 0);
    let Converter { buf, thread, .. } = main;
    let session = thread.id.clone().unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let model = thread
        .model
        .or(ctx.child_model.take())
        .unwrap_or_else(|| "unknown".into());
    ctx.timeline.fill(main_lane, buf);
    let started = thread.started.or(ctx.timeline.first_ts());
    let header = header(
        Format::Codex,
        path,
        session,
        started,
        thread.cwd.unwrap_or_default(),
        model,
    );
    let Ctx {
        timeline, report, ..
    } = ctx;
    Ok(report.into_imported(Format::Codex, header, timeline.merge()))
}

/// The rollouts of a session, each read once and then fed what it gains.
struct Files {
    reading: Reading,
    fed: HashMap<PathBuf, Fed<Converter>>,
}

impl Files {
    fn new(reading: Reading) -> Files {
        Files {
            reading,
            fed: HashMap::new(),
        }
    }

    /// The rollout at `path` as a lane, with what reading it found added to
    /// `report`.
    fn read(
        &mut self,
        path: &Path,
        lane: Lane,
        ending: Ending,
        report: &mut Report,
    ) -> Result<Converter, ImportError> {
        let fed = match self.fed.entry(path.to_path_buf()) {
            Entry::Occupied(fed) => fed.into_mut(),
            Entry::Vacant(slot) => slot.insert(Fed::open(path, Converter::new(lane))?),
        };
        fed.feed(self.reading, |conv, text, report| {
            conv.line(&object(text)?, report);
            Ok(())
        })?;
        report.absorb(&fed.report);
        let conv = match self.reading {
            // Read once: nothing is kept for later.
            Reading::ToEnd => match self.fed.remove(path) {
                Some(fed) => fed.conv,
                None => Converter::new(lane),
            },
            Reading::Growing => fed.conv.clone(),
        };
        Ok(conv.finish(ending))
    }
}

struct Ctx<'f> {
    files: &'f mut Files,
    ending: Ending,
    /// The rollouts near the session, by their first lines.
    heads: Vec<Head>,
    timeline: Timeline,
    report: Report,
    next_sub: u32,
    child_model: Option<String>,
}

/// A child to give a lane: the call that spawned it and its rollout, either
/// of which may be missing.
struct Link<'a> {
    spawn: Option<&'a Spawn>,
    head: Option<Head>,
}

impl Ctx<'_> {
    /// Marks a thread as shown, so a rollout naming an ancestor is not read again.
    fn seen(&mut self, id: &str) {
        self.heads.retain(|h| h.thread.id.as_deref() != Some(id));
    }

    /// Gives each sub-agent of `parent` a lane in the timeline, depth first.
    fn adopt(&mut self, parent: &Converter, agent: AgentId, lane: usize, depth: usize) {
        let mut links = Vec::new();
        let id = parent.thread.id.as_deref();
        for spawn in &parent.spawns {
            let head = match spawn.thread.as_deref() {
                Some(t) => self.take(|h| h.thread.id.as_deref() == Some(t)),
                // No output named it (the session ended mid-call): the first
                // child of this thread that started after the call.
                None if !spawn.failed && spawn.result_ts.is_none() => self.take(|h| {
                    h.thread.parent.is_some()
                        && h.thread.parent.as_deref() == id
                        && h.thread.started >= spawn.ts
                }),
                None => None,
            };
            if head.is_none()
                && (spawn.failed || spawn.thread.is_none() && spawn.result_ts.is_some())
            {
                // The call failed (a depth limit, a bad argument): nothing ran.
                continue;
            }
            links.push(Link {
                spawn: Some(spawn),
                head,
            });
        }
        while let Some(head) =
            id.and_then(|id| self.take(|h| h.thread.parent.as_deref() == Some(id)))
        {
            links.push(Link {
                spawn: None,
                head: Some(head),
            });
        }
        for link in links {
            self.next_sub += 1;
            let sub = AgentId::Sub(self.next_sub);
            let sub_lane = self.timeline.add_lane(sub);
            let child = self.load(&link, sub);
            if let Some(conv) = &child {
                self.child_model = self.child_model.take().or(conv.thread.model.clone());
                if depth + 1 < MAX_DEPTH {
                    self.adopt(conv, sub, sub_lane, depth + 1);
                } else if !conv.spawns.is_empty() {
                    self.report.notes.push(format!(
                        "{sub}: sub-agents deeper than {MAX_DEPTH} levels are not followed"
                    ));
                }
            }
            let thread = link
                .head
                .as_ref()
                .and_then(|h| h.thread.id.clone())
                .or_else(|| link.spawn.and_then(|s| s.thread.clone()));
            let start = match link.spawn {
                Some(spawn) => Some(spawn.call_idx),
                None => {
                    let started = child.as_ref().and_then(|c| c.buf.first_ts());
                    self.report.notes.push(format!(
                        "{sub} (thread {}) was spawned by no spawn_agent call of {agent}",
                        thread.as_deref().unwrap_or("?")
                    ));
                    started.and_then(|t| {
                        parent.buf.events.iter().rposition(|e| {
                            e.as_ref().and_then(Pending::ts).is_some_and(|ts| ts <= t)
                        })
                    })
                }
            };
            let wait = thread.as_deref().and_then(|t| {
                let nickname = child.as_ref().and_then(|c| c.thread.nickname.clone());
                parent.waits.iter().find_map(|w| {
                    w.ended
                        .iter()
                        .find(|(key, _)| key == t || nickname.as_deref() == Some(key.as_str()))
                        .map(|(_, done)| (w.idx, done.clone()))
                })
            });
            let wait_final = wait.as_ref().map(|(_, d)| d);
            let buf = child_lane(agent, &link, child, wait_final, self.ending);
            self.timeline.fill(sub_lane, buf);
            if let Some(idx) = start {
                self.timeline.start_after(sub_lane, lane, idx);
            }
            if let Some((idx, _)) = wait {
                self.timeline.end_before(sub_lane, lane, idx);
            }
        }
    }

    fn take(&mut self, fits: impl Fn(&Head) -> bool) -> Option<Head> {
        let i = self.heads.iter().position(fits)?;
        let head = self.heads.remove(i);
        if let Some(id) = head.thread.id.clone() {
            self.seen(&id);
        }
        Some(head)
    }

    /// Reads a child's rollout; a missing or unreadable one is a note.
    fn load(&mut self, link: &Link, sub: AgentId) -> Option<Converter> {
        let Some(head) = &link.head else {
            let thread = link.spawn.and_then(|s| s.thread.as_deref()).unwrap_or("?");
            self.report.notes.push(format!(
                "{sub} (thread {thread}): no rollout of this sub-agent was found beside the session"
            ));
            return None;
        };
        match self
            .files
            .read(&head.path, Lane::Child, self.ending, &mut self.report)
        {
            Ok(conv) => {
                self.report.children_loaded += 1;
                Some(conv)
            }
            Err(e) => {
                self.report.notes.push(format!("{sub}: {e}"));
                None
            }
        }
    }
}

/// A child's lane: its start, its rollout (if found), its end.
fn child_lane(
    parent: AgentId,
    link: &Link,
    child: Option<Converter>,
    wait: Option<&Final>,
    session: Ending,
) -> LaneBuf {
    let spawn = link.spawn;
    let input = spawn.map(|s| &s.input).unwrap_or(&serde_json::Value::Null);
    let thread = link.head.as_ref().map(|h| &h.thread);
    let found = child.is_some();
    let (mut buf, prompt, model, ending, last_ts) = match child {
        Some(c) => (c.buf, c.prompt, c.thread.model, c.ending, c.last_ts),
        None => (LaneBuf::default(), None, None, None, None),
    };
    let prompt = first_str(input, &["prompt"]).map(String::from).or(prompt);
    let start_ts = spawn.and_then(|s| s.ts).or(buf.first_ts());
    let nickname = thread.and_then(|t| t.nickname.clone());
    let description =
        nickname.unwrap_or_else(|| first_words(prompt.as_deref().unwrap_or_default()));
    let stats = buf.stats();
    let mut head = vec![Pending::new(
        start_ts,
        EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
            parent,
            parent_call_id: spawn.map(|s| s.call_id.clone()).unwrap_or_default(),
            profile: thread
                .and_then(|t| t.role.clone())
                .or_else(|| first_str(input, &["subagent_type"]).map(String::from))
                .unwrap_or_else(|| "default".into()),
            model: "main".into(),
            model_name: model
                .or_else(|| first_str(input, &["model"]).map(String::from))
                .unwrap_or_default(),
            description,
            prompt: prompt.clone().unwrap_or_default(),
            max_steps: None,
            token_budget: None,
            context_budget: None,
            color: None,
        })),
    )];
    let end_ts = last_ts
        .or(buf.last_ts())
        .or(spawn.and_then(|s| s.result_ts))
        .or(start_ts);
    // While the session is written, a child that has not ended is running,
    // and one whose rollout is not there yet may still start.
    let running = session == Ending::Open && ending.is_none() && wait.is_none();
    if !found {
        head.push(Pending::new(
            start_ts,
            EventKind::UserMessage {
                text: prompt.unwrap_or_default(),
            },
        ));
    }
    buf.prepend(head);
    if running {
        return buf;
    }
    if !found {
        buf.push(
            end_ts,
            EventKind::Error {
                message: "no rollout of this sub-agent was found in the sessions folder".into(),
            },
        );
    }
    let reason = match (&ending, wait) {
        (_, Some(Final::Errored(_))) | (Some(convert::Ending::Failed(_)), _) => {
            TerminalReason::ModelError
        }
        (Some(convert::Ending::Aborted), _) => TerminalReason::Interrupted,
        // Without its rollout, only the parent's `wait` can tell it ended.
        (None, None) if !found => TerminalReason::Interrupted,
        _ => TerminalReason::Completed,
    };
    let summary = match (ending, wait) {
        (Some(convert::Ending::Completed(Some(last))), _) if !last.trim().is_empty() => last,
        (_, Some(Final::Completed(text) | Final::Errored(text))) if !text.trim().is_empty() => {
            text.clone()
        }
        (Some(convert::Ending::Failed(message)), _) => message,
        _ => stats.final_text.clone().unwrap_or_else(|| match found {
            true => "the sub-agent ended without an answer".to_string(),
            false => "no rollout of this sub-agent was found".to_string(),
        }),
    };
    let elapsed_ms = elapsed_ms(start_ts, end_ts);
    buf.push(
        end_ts,
        EventKind::TurnEnd {
            reason,
            steps: stats.steps,
            usage: stats.usage,
        },
    );
    buf.push(
        end_ts,
        EventKind::SubagentEnd {
            reason,
            summary,
            steps: stats.steps,
            tool_usage: Box::new(stats.tool_usage),
            usage: stats.usage,
            elapsed_ms,
        },
    );
    buf
}

/// The first words of a prompt, for a label.
fn first_words(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let words: Vec<&str> = line.split_whitespace().take(8).collect();
    words.join(" ")
}
