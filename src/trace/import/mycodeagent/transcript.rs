//! MyCodeAgent transcripts: `memory/transcripts/transcript-<session>.jsonl`,
//! `transcript-subagent-<session>.jsonl` for a child.
//!
//! The transcript is the runtime's durable record, the one `/resume` reads
//! (`runtime/transcript.py`); it is written even when tracing is off. Each line
//! is a fact `{event_id, timestamp, session_id, run_id, step, event_type,
//! payload, schema_version}`, unsanitized, so call ids are real. What is
//! mapped:
//!
//! - `message` {role, content, metadata}: `user` → `user_message` (it starts a
//!   turn), or `hook_continue` when `metadata.source` is `completion_gate`;
//!   `assistant` → `model_request`, `text_delta`, `assistant_message` (the
//!   number of `metadata.tool_calls`); `tool` → the call's result when no
//!   `tool_lifecycle` gave one (a legacy snapshot import);
//! - `tool_lifecycle` {tool_name, tool_call_id, status, args | result | error}:
//!   `requested` → `tool_call`, `completed` / `failed` → `tool_result`;
//! - `terminal` {reason} ends the turn.
//!
//! A transcript has no token counts and no `subagent_*` events: a child is
//! found from its `Task` result, whose `data.child_session_id` names the
//! child's transcript in the same folder; the result's `data.result.tool_usage`
//! and `stats.time_ms` are its end. `state_transition`, `checkpoint` and
//! `started` lifecycles are counted in `skipped`.

use serde_json::{Value, json};

use super::super::lines::{JsonLines, Reading, first_str, str_at, timestamp_ms, u64_at};
use super::children::ChildRec;
use super::lane::FileLane;
use super::{Ctx, Kind};
use crate::event::AgentId;
use crate::trace::import::{ImportError, Report};

/// Lines looked at to tell a transcript from a trace.
const PEEK_LINES: usize = 20;

/// Whether the file's first readable line is a transcript fact (`event_type`)
/// rather than a trace event (`event`).
pub(super) fn is_transcript(path: &std::path::Path) -> Result<bool, ImportError> {
    let mut lines = JsonLines::open(path)?;
    let mut scratch = Report::default();
    for _ in 0..PEEK_LINES {
        let Some((_, line)) = lines.next_object(Reading::ToEnd, &mut scratch)? else {
            break;
        };
        if str_at(&line, "event").is_some() {
            return Ok(false);
        }
        if str_at(&line, "event_type").is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

impl Ctx {
    /// Reads one transcript into a lane; its children's lanes go straight into
    /// the timeline.
    pub(super) fn load_transcript(
        &mut self,
        path: &std::path::Path,
        agent: AgentId,
        lane_index: usize,
        depth: usize,
    ) -> Result<FileLane, ImportError> {
        let mut lines = JsonLines::open(path)?;
        let mut lane = FileLane::new(agent);
        let mut children: Vec<ChildRec> = Vec::new();
        // What each assistant message said it would call, by id.
        let mut planned: Vec<(String, String, Value)> = Vec::new();
        while let Some((no, line)) = lines.next_object(Reading::ToEnd, &mut self.report)? {
            let Some(kind) = str_at(&line, "event_type") else {
                lines.bad(&mut self.report, no, "no \"event_type\"");
                continue;
            };
            let ts = timestamp_ms(line.get("timestamp"));
            let payload = line.get("payload").unwrap_or(&Value::Null);
            if lane.session_id.is_none() {
                lane.session_id = str_at(&line, "session_id").map(String::from);
            }
            let metadata = payload.get("metadata").unwrap_or(&Value::Null);
            let content = first_str(payload, &["content"]).unwrap_or_default();
            match (kind, str_at(payload, "role")) {
                ("message", Some("user")) => {
                    if str_at(metadata, "source") == Some("completion_gate") {
                        lane.hook_continue(ts, content);
                    } else {
                        lane.user(ts, content);
                    }
                }
                ("message", Some("assistant")) => {
                    let calls = metadata.get("tool_calls").cloned().unwrap_or(json!([]));
                    for call in calls.as_array().into_iter().flatten() {
                        if let (Some(id), Some(name)) = (str_at(call, "id"), str_at(call, "name")) {
                            let args = call.get("arguments").cloned().unwrap_or(Value::Null);
                            planned.push((id.into(), name.into(), args));
                        }
                    }
                    let output = json!({"content": content, "tool_calls": calls});
                    lane.model_output(ts, u64_at(&line, "step"), &output);
                }
                ("message", Some("tool")) => {
                    let Some(id) = first_str(metadata, &["tool_call_id"]) else {
                        self.report.skip("tool message without a call id");
                        continue;
                    };
                    if lane.has_call(id) && !lane.is_open(id) {
                        continue; // its lifecycle gave the result already
                    }
                    let name = first_str(metadata, &["tool_name"]).unwrap_or("unknown");
                    if !lane.has_call(id) {
                        let args = planned
                            .iter()
                            .find(|(p, _, _)| p == id)
                            .map_or(Value::Null, |(_, _, a)| a.clone());
                        lane.tool_call(
                            ts,
                            &json!({"tool": name, "args": args, "tool_call_id": id}),
                        );
                    }
                    let result = serde_json::from_str::<Value>(content)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({"text": content}));
                    children.extend(self.finished_call(&mut lane, id, name, result, ts, depth)?);
                }
                ("message", role) => self
                    .report
                    .skip(format!("message ({})", role.unwrap_or("no role"))),
                ("tool_lifecycle", _) => {
                    let (Some(id), Some(name)) = (
                        first_str(payload, &["tool_call_id"]),
                        first_str(payload, &["tool_name"]),
                    ) else {
                        lines.bad(&mut self.report, no, "a tool_lifecycle without its call");
                        continue;
                    };
                    let status = str_at(payload, "status").unwrap_or_default();
                    let call =
                        json!({"tool": name, "args": payload.get("args"), "tool_call_id": id});
                    match status {
                        "requested" if !lane.has_call(id) => lane.tool_call(ts, &call),
                        "completed" | "failed" if lane.is_open(id) || !lane.has_call(id) => {
                            if !lane.has_call(id) {
                                lane.tool_call(ts, &call);
                            }
                            let result = payload.get("result").cloned().unwrap_or_else(|| {
                                let text = first_str(payload, &["error", "result_text"])
                                    .unwrap_or("the tool failed");
                                json!({"status": if status == "failed" { "error" } else { "success" }, "text": text})
                            });
                            let child =
                                self.finished_call(&mut lane, id, name, result, ts, depth)?;
                            children.extend(child);
                        }
                        other => self.report.skip(format!("tool_lifecycle {other}")),
                    }
                }
                ("terminal", _) => {
                    lane.terminal(payload);
                    lane.end_turn(ts);
                }
                (other, _) => self.report.skip(other),
            }
        }
        lane.end_turn(lane.buf.last_ts());
        for child in children {
            child.finish(&mut self.timeline, &mut lane, lane_index);
        }
        Ok(lane)
    }

    /// A call's result; a `Task` result naming its child's session opens the
    /// child's lane, read from the child's transcript.
    fn finished_call(
        &mut self,
        lane: &mut FileLane,
        id: &str,
        name: &str,
        result: Value,
        ts: Option<i64>,
        depth: usize,
    ) -> Result<Option<ChildRec>, ImportError> {
        lane.tool_result(
            ts,
            &json!({"tool": name, "tool_call_id": id, "result": result}),
        );
        let data = result.get("data").unwrap_or(&Value::Null);
        let Some(session) = first_str(data, &["child_session_id"]) else {
            return Ok(None);
        };
        if !name.eq_ignore_ascii_case("task") {
            return Ok(None);
        }
        let stats = result.get("stats").unwrap_or(&Value::Null);
        let start = json!({
            "child_session_id": session,
            "tool_call_id": id,
            "profile": first_str(data, &["profile"]),
            "model": first_str(stats, &["model"]),
        });
        let call_ts = lane.call_ts(id);
        let mut child = self.start_child(Kind::Transcript, lane, call_ts, &start, depth)?;
        let answer = data.get("result").unwrap_or(&Value::Null);
        let status = first_str(data, &["status"])
            .or_else(|| first_str(&result, &["status"]))
            .unwrap_or("completed");
        let failed = status == "error" || status == "failed";
        let end = json!({
            "status": status,
            "tool_usage": answer.get("tool_usage"),
            "duration_ms": u64_at(stats, "time_ms"),
        });
        child.ended(ts, end, failed);
        Ok(Some(child))
    }
}
