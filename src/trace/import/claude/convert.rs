//! One Claude Code conversation (the session's own, or one subagent's) turned
//! into one lane of brood events, one line at a time: the importer feeds it a
//! whole file, and a follower of a live session can feed it lines as they are
//! written. User lines are read in `user.rs`, the lines Claude Code writes for
//! itself (commands, notifications, compaction) in `harness.rs`.

use std::collections::HashSet;

use serde_json::Value;

use super::super::Report;
use super::super::live::Ending;
use super::super::timeline::LaneBuf;
use super::blocks::usage_growth;
use super::harness::OpenNote;
use super::tally::{Calls, Counted};
use super::user::Results;
use super::wire::{BlockRef, Line, Message, usage_of};
use super::{Key, key};
use crate::event::{EventKind, TerminalReason, ToolInput, Usage};
use crate::protocol::TASK_TOOL;

/// Claude Code's names for its subagent tool (`Agent` since 2.1).
pub(super) fn is_task_tool(name: &str) -> bool {
    matches!(name, "Task" | "Agent")
}

/// A `Task` call of the session's own lane, with what its result said.
#[derive(Debug, Clone)]
pub(super) struct TaskCall {
    pub call_id: String,
    pub input: ToolInput,
    pub ts: Option<i64>,
    /// Index of the `tool_call` event in the lane.
    pub call_idx: usize,
    pub result: Option<TaskResult>,
}

#[derive(Debug, Clone)]
pub(super) struct TaskResult {
    /// Index of the `tool_result` event in the lane.
    pub idx: usize,
    pub ts: Option<i64>,
    pub text: String,
    pub is_error: bool,
    /// From `toolUseResult`, the result block or line, or the `agentId: …` trailer.
    pub agent_id: Option<String>,
    pub status: Option<String>,
    /// The call only launched a background agent, which goes on after it.
    pub background: bool,
    pub duration_ms: Option<u64>,
    pub usage: Option<Usage>,
}

/// One `tool_use` block: id, name, input, and when its line was written.
pub(super) type ToolUse = (String, String, ToolInput, Option<i64>);

/// An assistant message still receiving lines. Claude Code writes one line per
/// content block, each with the usage counted so far, and may write the results
/// of its first calls before the message's last blocks.
#[derive(Clone)]
pub(super) struct OpenMessage {
    pub id: String,
    pub model: String,
    pub ts: Option<i64>,
    pub text: Vec<String>,
    pub tool_uses: Vec<ToolUse>,
    /// The latest line's usage: the counts grow line by line.
    pub usage: Usage,
    pub stop_reason: String,
}

#[derive(Clone)]
pub(super) struct Turn {
    pub steps: u32,
    pub usage: Usage,
    pub reason: TerminalReason,
}

/// Turns the lines of one conversation into events.
#[derive(Clone)]
pub(super) struct Converter {
    pub buf: LaneBuf,
    /// The session's own lane: it has turns, and its `Task` calls start children.
    pub(super) main: bool,
    pub(super) open: Option<OpenMessage>,
    /// User lines holding results of the open message's calls, shown once the
    /// message is complete (after its calls, as brood's own loop orders them).
    pub(super) held: Vec<(Results, Option<i64>)>,
    /// The usage shown so far per message id.
    pub(super) counted: Counted,
    /// The uuids of the lines read.
    pub(super) seen: HashSet<Key>,
    /// Each call's tool name and time, by call id.
    pub(super) calls: Calls,
    pub(super) step: u32,
    pub(super) turn: Option<Turn>,
    /// The last message asked for no tools: the agent is waiting for the user.
    pub(super) idle: bool,
    pub(super) messages: usize,
    /// Commands and compactions still waiting for the line that answers them.
    pub(super) notes: Vec<OpenNote>,
    pub(super) note_ids: u32,
    /// The first user text: a child's prompt.
    pub prompt: Option<String>,
    pub first_ts: Option<i64>,
    pub model: Option<String>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub agent_id: Option<String>,
    pub tasks: Vec<TaskCall>,
}

impl Converter {
    pub fn new(main: bool) -> Self {
        Converter {
            buf: LaneBuf::default(),
            main,
            open: None,
            held: Vec::new(),
            counted: Counted::default(),
            seen: HashSet::new(),
            calls: Calls::default(),
            step: 0,
            turn: None,
            idle: true,
            messages: 0,
            notes: Vec::new(),
            note_ids: 0,
            prompt: None,
            first_ts: None,
            model: None,
            session_id: None,
            cwd: None,
            agent_id: None,
            tasks: Vec::new(),
        }
    }

    /// A copy to finish for a look at a conversation still being written.
    ///
    /// It leaves out what only later lines read: the uuids seen, the usage
    /// counted per message and the calls made. In a big session those maps
    /// are most of what a whole copy would cost, and finishing needs none of
    /// them: the open message's calls go into the copy's own `calls` when it
    /// is flushed, and the results held back are results of those calls.
    pub(super) fn peek(&self) -> Converter {
        Converter {
            buf: self.buf.copy_for_look(),
            main: self.main,
            open: self.open.clone(),
            held: self.held.clone(),
            counted: Counted::default(),
            seen: HashSet::new(),
            calls: Calls::default(),
            step: self.step,
            turn: self.turn.clone(),
            idle: self.idle,
            messages: self.messages,
            notes: self.notes.clone(),
            note_ids: self.note_ids,
            prompt: self.prompt.clone(),
            first_ts: self.first_ts,
            model: self.model.clone(),
            session_id: self.session_id.clone(),
            cwd: self.cwd.clone(),
            agent_id: self.agent_id.clone(),
            tasks: self.tasks.clone(),
        }
    }

    /// Takes one line of the conversation; types other than `user`, `assistant`
    /// and `system` are counted in `report`.
    pub fn line(&mut self, line: Line<'_>, report: &mut Report) {
        let kind = match line.kind() {
            "assistant" => Kind::Assistant,
            "user" => Kind::User,
            "system" => Kind::System,
            other => {
                report.skip(other);
                return;
            }
        };
        // Claude Code may log a message twice (resumed sessions); once is enough.
        if let Some(uuid) = line.uuid.get()
            && !self.seen.insert(key(uuid))
        {
            report.skip(format!("{} (repeated uuid)", line.kind()));
            return;
        }
        let ts = line.timestamp.ms();
        self.first_ts = self.first_ts.or(ts);
        for (field, slot) in [
            (&line.session_id, &mut self.session_id),
            (&line.cwd, &mut self.cwd),
            (&line.agent_id, &mut self.agent_id),
        ] {
            if slot.is_none() {
                *slot = field.owned();
            }
        }
        match kind {
            Kind::Assistant => self.assistant(&line, ts, report),
            Kind::User => self.user(line, ts, report),
            Kind::System => self.system(&line, ts, report),
        }
    }

    fn assistant(&mut self, line: &Line<'_>, ts: Option<i64>, report: &mut Report) {
        let message = line.message.get();
        let blocks = line.content().blocks();
        // The model speaks: no command output is coming any more.
        self.close_notes();
        if line.is_api_error.0 {
            self.flush();
            let text = blocks.iter().filter_map(BlockRef::text).collect::<Vec<_>>();
            self.buf.push(
                ts,
                EventKind::Error {
                    message: text.join("\n"),
                },
            );
            return;
        }
        let id = message
            .and_then(|m| m.id.filled())
            .or_else(|| line.uuid.get())
            .unwrap_or_default()
            .to_string();
        if self.open.as_ref().is_some_and(|m| m.id != id) {
            self.flush();
        }
        if self.open.is_none() && self.counted.contains(key(&id)) {
            self.late_blocks(&id, message, &blocks, ts, report);
            return;
        }
        let open = self.open.get_or_insert_with(|| OpenMessage {
            id,
            model: message
                .and_then(|m| m.model.get())
                .unwrap_or_default()
                .to_string(),
            ts,
            text: Vec::new(),
            tool_uses: Vec::new(),
            usage: Usage::default(),
            stop_reason: String::new(),
        });
        for block in &blocks {
            match block.kind() {
                "text" => open.text.extend(block.text().map(String::from)),
                "tool_use" => open.tool_uses.extend(tool_use(block, ts)),
                other => report.skip(format!("block:{other}")),
            }
        }
        if let Some(usage) = message.and_then(|m| usage_of(&m.usage)) {
            open.usage = usage;
        }
        if let Some(stop) = message.and_then(|m| m.stop_reason.get()) {
            open.stop_reason = stop.to_string();
        }
    }

    /// Blocks of a message already shown (something other than its own tool
    /// results came in between): their text and calls, and the usage the
    /// message grew by since it was shown, so every message counts once, at
    /// its last line's value.
    fn late_blocks(
        &mut self,
        id: &str,
        message: Option<&Message<'_>>,
        blocks: &[BlockRef<'_, '_>],
        ts: Option<i64>,
        report: &mut Report,
    ) {
        let mut text = Vec::new();
        let mut calls = Vec::new();
        for block in blocks {
            match block.kind() {
                "text" => text.extend(block.text().map(String::from)),
                "tool_use" => calls.extend(tool_use(block, ts)),
                other => report.skip(format!("block:{other}")),
            }
        }
        let mut growth = Usage::default();
        if let (Some(now), Some(counted)) = (
            message.and_then(|m| usage_of(&m.usage)),
            self.counted.get(key(id)),
        ) {
            growth = usage_growth(&now, &counted);
            self.counted.insert(key(id), now);
        }
        let text = text.join("\n\n");
        if text.is_empty() && calls.is_empty() && growth == Usage::default() {
            return;
        }
        if !text.is_empty() {
            self.buf
                .push(ts, EventKind::TextDelta { text: text.clone() });
        }
        // Calls alone need no message: the one shown already announced them.
        if !text.is_empty() || growth != Usage::default() {
            self.buf.push(
                ts,
                EventKind::AssistantMessage {
                    text,
                    tool_calls: calls.len(),
                    usage: growth,
                    stop_reason: message
                        .and_then(|m| m.stop_reason.get())
                        .unwrap_or_default()
                        .to_string(),
                },
            );
        }
        if let Some(turn) = &mut self.turn {
            turn.usage.add(&growth);
        }
        self.idle &= calls.is_empty();
        for (id, name, input, ts) in calls {
            self.call(id, name, input, ts);
        }
    }

    /// Emits the open assistant message: request, text, message, its calls (the
    /// order brood's own loop publishes them in), then the results held for it.
    pub(super) fn flush(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let synthetic = open.model == "<synthetic>";
        if !synthetic {
            // A model step after no prompt (a task notification, a command that
            // expands into a prompt, a resumed session) is a turn of its own.
            if self.main && self.turn.is_none() {
                self.start_turn();
            }
            self.step += 1;
            self.buf.push(
                open.ts,
                EventKind::ModelRequest {
                    step: self.step,
                    model: open.model.clone(),
                    messages: self.messages,
                    tools: 0,
                },
            );
            if !open.model.is_empty() {
                self.model.get_or_insert(open.model);
            }
        }
        let text = open.text.join("\n\n");
        if !text.is_empty() {
            self.buf
                .push(open.ts, EventKind::TextDelta { text: text.clone() });
        }
        self.buf.push(
            open.ts,
            EventKind::AssistantMessage {
                text,
                tool_calls: open.tool_uses.len(),
                usage: open.usage,
                stop_reason: open.stop_reason,
            },
        );
        self.messages += 1;
        if let Some(turn) = &mut self.turn {
            turn.steps += u32::from(!synthetic);
            turn.usage.add(&open.usage);
        }
        self.idle = open.tool_uses.is_empty();
        for (id, name, input, ts) in open.tool_uses {
            self.call(id, name, input, ts);
        }
        self.counted.insert(key(&open.id), open.usage);
        for (results, ts) in std::mem::take(&mut self.held) {
            self.results(results, ts);
        }
    }

    pub(super) fn call(
        &mut self,
        call_id: String,
        name: String,
        input: ToolInput,
        ts: Option<i64>,
    ) {
        let task = is_task_tool(&name);
        // The screen draws brood's `task` tool as a task cell; Claude Code's
        // subagent tool is the same thing under another name.
        let name = if task { TASK_TOOL.to_string() } else { name };
        self.calls.add(&call_id, &name, ts);
        // Only a call that starts a child keeps its input beside the event.
        let task_input = (task && self.main).then(|| input.clone());
        let call_idx = self.buf.push(
            ts,
            EventKind::ToolCall {
                call_id: call_id.clone(),
                name,
                input,
                summary: Box::default(),
            },
        );
        if let Some(input) = task_input {
            self.tasks.push(TaskCall {
                call_id,
                input,
                ts,
                call_idx,
                result: None,
            });
        }
    }

    /// Opens a turn of the session's lane, ending the one before.
    pub(super) fn start_turn(&mut self) {
        self.end_turn();
        self.step = 0;
        self.turn = Some(Turn {
            steps: 0,
            usage: Usage::default(),
            reason: TerminalReason::Completed,
        });
    }

    /// Ends the main lane's open turn, if any, when its last event happened
    /// (not when the next user message came: the agent was idle in between).
    pub(super) fn end_turn(&mut self) {
        if let Some(turn) = self.turn.take() {
            self.buf.push(
                self.buf.last_ts(),
                EventKind::TurnEnd {
                    reason: turn.reason,
                    steps: turn.steps,
                    usage: turn.usage,
                },
            );
        }
    }

    /// Ends the turn if the agent had finished it: what Claude Code writes for
    /// itself between turns (a command, a notification) belongs to no turn, and
    /// what it writes during one (a notification mid-turn) changes nothing.
    pub(super) fn settle(&mut self) {
        if self.idle {
            self.end_turn();
        }
    }

    /// Emits what is still open at the end of the file.
    /// Shows what is still open where the file ends. Left open (a file still
    /// being written), the last message is shown but its turn goes on.
    pub fn finish(mut self, ending: Ending) -> Self {
        self.flush();
        self.close_notes();
        if let Ending::Closed = ending {
            self.end_turn();
        }
        self
    }
}

/// The call a `tool_use` block makes (a plain text content makes none).
fn tool_use(block: &BlockRef<'_, '_>, ts: Option<i64>) -> Option<ToolUse> {
    let block = block.block()?;
    Some((
        block.id.get().unwrap_or_default().to_string(),
        block.name.get().unwrap_or("unknown").to_string(),
        block.input.map_or_else(
            || ToolInput::from(Value::Null),
            |args| ToolInput::from_raw(args.0),
        ),
        ts,
    ))
}

/// The line types a conversation takes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Assistant,
    User,
    System,
}
