//! MyCodeAgent sessions: traces (`memory/traces/trace-<session>.jsonl`, lines
//! `{ts, session_id, step, event, payload}`) and transcripts (see
//! `transcript.rs`), told apart by their lines.
//!
//! The trace's shape follows MyCodeAgent's public code: `TraceLogger`
//! (`extensions/tracing/logger.py`; once `core/context_engine/trace_logger.py`),
//! the runtime loop that emits the events (`runtime/loop.py`, `runtime/events.py`,
//! `tools/orchestrator.py`) and the subagent launcher (`runtime/subagents.py`).
//! Its sanitizer masks every payload value under `tool_call_id`, `call_id` and
//! `session_id` as `***`; the ids are taken back from the transcript (see
//! `ids.rs`).
//!
//! What is mapped:
//!
//! - `run_start` {input} / `user_input` / `user_message` {text} → `user_message`
//!   (once when both carry the same text); it starts a turn;
//! - `model_output` / `llm_response` / `assistant_message` → `model_request`
//!   (the line's `step`), `text_delta` and `assistant_message` (text from
//!   `content`, `text` or `raw`; `usage`; the number of `tool_calls`);
//! - `tool_call` → `tool_call` (`args` given as a JSON string are parsed; a
//!   masked or missing id is the transcript's, else made up); `tool_result` →
//!   `tool_result` (`is_error` from the result's status or `error`; without an
//!   id it answers the open call of its tool whose arguments its envelope's
//!   `context.params_input` repeats, else the oldest); a `tool_lifecycle` that
//!   failed without a result (bad arguments, a tool that raised) → an error
//!   `tool_result`;
//! - the completion gate sending the agent back (`completion_gate_verdict`
//!   {verdict: fail, blocking_feedback}, and the `message_written` {role: user,
//!   metadata.source: completion_gate} it becomes) → one `hook_continue` in the
//!   agent's lane: the runtime, not the person, spoke (MyCodeAgent's own name
//!   for it is the `stop_hook_blocking` transition), so it is neither a prompt
//!   nor the start of a turn;
//! - `error` → `error`; `terminal` {reason} sets the turn's end reason
//!   (`completion_gate_blocked` is a contract violation); `finish`, `run_end`,
//!   `session_end` and `session_summary` end the turn;
//! - `subagent_started` (also `subagent_start`, `subagent_spawned`)
//!   {child_session_id, profile, model, max_steps, total_token_budget,
//!   context_token_budget} → a child lane `sub-N` (numbered in the order the
//!   starts are met, depth first) whose events come from
//!   `trace-<child_session_id>.jsonl` in the same folder, read the same way
//!   (recursively). It is tied to the `Task` call named by `tool_call_id`, or
//!   else the latest `Task` call of that lane without a child or a result, or
//!   else a `task` call made up for it (the verification agent the completion
//!   gate can run has none); the task's description and prompt come from that
//!   call's arguments. `subagent_completed` / `subagent_failed` (also
//!   `subagent_end`, `subagent_finished`) {terminal_reason, tool_usage,
//!   elapsed_ms, error} end the lane; without one the lane ends `interrupted`. A
//!   missing child file, a cycle, or a depth past 16 gives a lane with the
//!   prompt, an `error` event and a note, not a failure.
//!
//! Every other event (`subagent_requested`, `context_build`,
//! `state_transition`, other `message_written`, `system_messages`,
//! `prompt_assembly`, `tool_schema`, `tool_batch_*`, …) is counted in
//! `skipped`.

mod children;
mod ids;
mod lane;
mod transcript;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::lines::{JsonLines, Reading, first_str, str_at, timestamp_ms, u64_at};
use super::timeline::Timeline;
use super::{Format, ImportError, Imported, Report, header};
use crate::event::AgentId;
use children::ChildRec;
use ids::CallIds;
use lane::FileLane;

/// How deep children of children are followed.
const MAX_DEPTH: usize = 16;

/// Which of MyCodeAgent's two files a session is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `memory/traces/trace-<session>.jsonl`: diagnostics, with tokens.
    Trace,
    /// `memory/transcripts/transcript-<session>.jsonl`: the durable facts.
    Transcript,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Trace => "trace",
            Kind::Transcript => "transcript",
        }
    }
}

/// Imports a MyCodeAgent trace or transcript with its children's.
pub fn import(path: &Path) -> Result<Imported, ImportError> {
    let kind = match transcript::is_transcript(path)? {
        true => Kind::Transcript,
        false => Kind::Trace,
    };
    let mut ctx = Ctx {
        dir: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        timeline: Timeline::default(),
        report: Report::default(),
        visited: HashSet::new(),
        next_sub: 0,
        child_model: None,
    };
    ctx.visited.insert(identity(path));
    let main_lane = ctx.timeline.add_lane(AgentId::Main);
    let main = ctx.read(kind, path, AgentId::Main, main_lane, 0)?;
    let session = main.session_id.clone().unwrap_or_else(|| {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        ["trace-", "transcript-"]
            .iter()
            .find_map(|p| stem.strip_prefix(p))
            .map(String::from)
            .unwrap_or(stem)
    });
    let model = main
        .model
        .clone()
        .or(ctx.child_model.take())
        .unwrap_or_else(|| "unknown".into());
    let cwd = main
        .cwd
        .clone()
        .or_else(|| project_of(path))
        .unwrap_or_default();
    ctx.timeline.fill(main_lane, main.buf);
    let mut header = header(
        Format::MyCodeAgent,
        path,
        session,
        ctx.timeline.first_ts(),
        cwd,
        model,
    );
    if kind == Kind::Transcript {
        header.note = Some(format!(
            "imported from MyCodeAgent transcript {}",
            path.display()
        ));
        ctx.report.notes.push(
            "a MyCodeAgent transcript records no token counts (its trace-<session>.jsonl does)"
                .into(),
        );
    }
    let Ctx {
        timeline, report, ..
    } = ctx;
    Ok(Imported {
        format: Format::MyCodeAgent,
        header,
        events: timeline.merge_owned(),
        bad_lines: report.bad_lines,
        skipped: report.skipped,
        children_loaded: report.children_loaded,
        notes: report.notes,
        truncated: report.truncated,
    })
}

struct Ctx {
    dir: PathBuf,
    timeline: Timeline,
    report: Report,
    /// Files already read, so a child naming an ancestor is not read again.
    visited: HashSet<PathBuf>,
    next_sub: u32,
    child_model: Option<String>,
}

impl Ctx {
    /// Reads one file of either kind into a lane.
    fn read(
        &mut self,
        kind: Kind,
        path: &Path,
        agent: AgentId,
        lane_index: usize,
        depth: usize,
    ) -> Result<FileLane, ImportError> {
        match kind {
            Kind::Trace => self.load(path, agent, lane_index, depth),
            Kind::Transcript => self.load_transcript(path, agent, lane_index, depth),
        }
    }

    /// Reads one trace file into a lane; its children's lanes go straight into
    /// the timeline.
    fn load(
        &mut self,
        path: &Path,
        agent: AgentId,
        lane_index: usize,
        depth: usize,
    ) -> Result<FileLane, ImportError> {
        let mut lines = JsonLines::open(path)?;
        let mut lane = FileLane::new(agent);
        let mut children: Vec<ChildRec> = Vec::new();
        let mut ids_sought = false;
        while let Some((no, line)) = lines.next_object(Reading::ToEnd, &mut self.report)? {
            let Some(event) = str_at(&line, "event") else {
                lines.bad(&mut self.report, no, "no \"event\" name");
                continue;
            };
            let ts = timestamp_ms(line.get("ts"));
            let payload = line.get("payload").unwrap_or(&serde_json::Value::Null);
            if lane.session_id.is_none() {
                lane.session_id = str_at(&line, "session_id").map(String::from);
            }
            if !ids_sought {
                ids_sought = true;
                self.find_ids(&mut lane, path)?;
            }
            if lane.cwd.is_none() {
                lane.cwd =
                    first_str(payload, &["cwd", "project_root", "working_dir"]).map(String::from);
            }
            match event {
                "run_start" => lane.user(
                    ts,
                    first_str(payload, &["input", "text"]).unwrap_or_default(),
                ),
                "user_input" | "user_message" => lane.user(
                    ts,
                    first_str(payload, &["text", "content", "input"]).unwrap_or_default(),
                ),
                "model_output" | "llm_response" | "assistant_message" => {
                    lane.model_output(ts, u64_at(&line, "step"), payload)
                }
                "tool_call" => lane.tool_call(ts, payload),
                "tool_result" => {
                    let call_id = lane.tool_result(ts, payload);
                    children::result_arrived(&mut lane, &mut children, &call_id);
                }
                "error" => lane.error(ts, payload),
                "completion_gate_verdict" => {
                    if str_at(payload, "verdict").is_some_and(|v| v.eq_ignore_ascii_case("fail")) {
                        let text = first_str(payload, &["blocking_feedback"])
                            .unwrap_or("Completion blocked by runtime gate.");
                        lane.hook_continue(ts, text);
                    }
                }
                "message_written" if gate_message(payload) => {
                    lane.hook_continue(ts, first_str(payload, &["content"]).unwrap_or_default())
                }
                // A call that failed before it had a result (bad arguments, a
                // tool that raised) gets no `tool_result`, only this.
                "tool_lifecycle" if unanswered_failure(payload) => {
                    let inner = payload.get("payload").unwrap_or(&serde_json::Value::Null);
                    let error = first_str(inner, &["error"]).unwrap_or("the tool failed");
                    let result = serde_json::json!({
                        "tool": first_str(payload, &["tool_name"]),
                        "result": {"status": "error", "text": error},
                    });
                    let call_id = lane.tool_result(ts, &result);
                    children::result_arrived(&mut lane, &mut children, &call_id);
                }
                "terminal" => lane.terminal(payload),
                "finish" | "run_end" | "session_end" | "session_summary" => lane.end_turn(ts),
                "subagent_start" | "subagent_started" | "subagent_spawned" => {
                    let child = self.start_child(Kind::Trace, &mut lane, ts, payload, depth)?;
                    children.push(child);
                }
                "subagent_end" | "subagent_finished" | "subagent_completed" | "subagent_failed" => {
                    let failed = event == "subagent_failed";
                    if !children::end_child(&mut lane, &mut children, ts, payload, failed) {
                        self.report.notes.push(format!(
                            "{}:{no}: {event} for a subagent that never started",
                            path.display()
                        ));
                    }
                }
                other => self.report.skip(other),
            }
        }
        lane.end_turn(lane.buf.last_ts());
        for child in children {
            child.finish(&mut self.timeline, &mut lane, lane_index);
        }
        Ok(lane)
    }

    /// Reads the call ids of the trace's transcript, if it has one, so that
    /// masked ids (`***`) can be taken back.
    fn find_ids(&mut self, lane: &mut FileLane, path: &Path) -> Result<(), ImportError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.strip_prefix("trace-"));
        let found = lane
            .session_id
            .as_deref()
            .into_iter()
            .chain(stem)
            .find_map(|session| ids::transcript_for(dir, session));
        if let Some(transcript) = found {
            lane.ids = Some(CallIds::load(&transcript, &mut self.report)?);
        }
        Ok(())
    }

    /// Opens a child lane and reads the child's file (of the parent's kind)
    /// into it.
    fn start_child(
        &mut self,
        kind: Kind,
        lane: &mut FileLane,
        ts: Option<i64>,
        payload: &serde_json::Value,
        depth: usize,
    ) -> Result<ChildRec, ImportError> {
        self.next_sub += 1;
        let agent = AgentId::Sub(self.next_sub);
        let child_lane = self.timeline.add_lane(agent);
        let mut child = ChildRec::start(lane, agent, child_lane, ts, payload);
        let Some(session) = child.session.clone() else {
            child.problem = Some("its subagent_start names no child_session_id".into());
            return Ok(child);
        };
        let names = match kind {
            Kind::Trace => vec![format!("trace-{session}.jsonl")],
            Kind::Transcript => vec![
                format!("transcript-subagent-{session}.jsonl"),
                format!("transcript-{session}.jsonl"),
            ],
        };
        let candidates: Vec<PathBuf> = names.iter().map(|n| self.dir.join(n)).collect();
        let path = candidates
            .iter()
            .find(|p| p.is_file())
            .or(candidates.first())
            .cloned()
            .unwrap_or_default();
        let word = kind.word();
        let problem = if depth + 1 > MAX_DEPTH {
            Some(format!(
                "children deeper than {MAX_DEPTH} levels are not followed"
            ))
        } else if !path.is_file() {
            Some(format!("its {word} {} was not found", path.display()))
        } else if !self.visited.insert(identity(&path)) {
            Some(format!(
                "its {word} {} was already read (a cycle)",
                path.display()
            ))
        } else {
            match self.read(kind, &path, agent, child_lane, depth + 1) {
                Ok(loaded) => {
                    self.report.children_loaded += 1;
                    self.child_model = self.child_model.take().or(loaded.model.clone());
                    child.lane = Some(loaded);
                    None
                }
                Err(e) => Some(e.to_string()),
            }
        };
        if let Some(problem) = &problem {
            self.report
                .notes
                .push(format!("{agent} (child session {session}): {problem}"));
        }
        child.problem = problem;
        Ok(child)
    }
}

/// A `message_written` that is the completion gate's correction.
fn gate_message(payload: &serde_json::Value) -> bool {
    str_at(payload, "role") == Some("user")
        && payload.get("metadata").and_then(|m| str_at(m, "source")) == Some("completion_gate")
}

/// A `tool_lifecycle` failure for which the trace logged no `tool_result`.
fn unanswered_failure(payload: &serde_json::Value) -> bool {
    let inner = payload.get("payload").unwrap_or(&serde_json::Value::Null);
    str_at(payload, "status") == Some("failed")
        && inner.get("result").is_none()
        && inner.get("result_text").is_none()
}

/// The project a file of MyCodeAgent's `<project>/memory/traces/` (or
/// `memory/transcripts/`) belongs to: the runtime logs no working folder.
fn project_of(path: &Path) -> Option<String> {
    let dir = path.parent()?;
    let memory = dir.parent()?;
    let named = |p: &Path, n: &str| p.file_name().is_some_and(|f| f == n);
    ((named(dir, "traces") || named(dir, "transcripts")) && named(memory, "memory"))
        .then(|| memory.parent())
        .flatten()
        .map(|p| p.display().to_string())
}

/// What makes two paths the same file, as far as the cycle guard cares.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
