//! Lanes of timestamped events, one per agent, merged into one event stream.
//!
//! Foreign transcripts keep each agent in its own file or chain, so the importer
//! builds one lane per agent and merges them by timestamp: a replay then shows
//! children running side by side, as they did. Two orders matter more than the
//! clocks, because the reducer depends on them and clocks of different files
//! can disagree: a child's lane starts only after the parent's call that started
//! it, and the parent's result of that call comes only after the child's lane has
//! ended. Both are gates in the merge, not timestamp fixes.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use crate::event::{AgentId, Event, EventKind, TerminalReason, Usage};

/// An event before it has its `seq`: when it happened (if known) and what.
///
/// What happened is shared, not owned: a live import copies its lanes at
/// every look and hands on what the copy adds, so copying a lane must cost
/// a pointer per event, not the event's text. A converter that changes an
/// event it already made goes through [`Arc::make_mut`], which leaves the copy
/// handed on as it was.
///
/// A lane holds one per event of its agent, so its time is a [`Moment`]:
/// 16 bytes an event, not the 24 of an `Option<i64>` beside the pointer.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    at: Moment,
    pub kind: Arc<EventKind>,
}

impl Pending {
    pub fn new(ts: Option<i64>, kind: EventKind) -> Pending {
        Pending {
            at: Moment::new(ts),
            kind: Arc::new(kind),
        }
    }

    /// When the event happened, if known.
    pub fn ts(&self) -> Option<i64> {
        self.at.get()
    }
}

/// A time in milliseconds, if known, in one word: what an importer keeps per
/// event or per call of a session it follows, where an `Option<i64>` would
/// take two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Moment(i64);

impl Moment {
    /// No time (no real time is that far back).
    const NONE: i64 = i64::MIN;

    pub fn new(ts: Option<i64>) -> Moment {
        Moment(ts.unwrap_or(Moment::NONE))
    }

    pub fn get(self) -> Option<i64> {
        (self.0 != Moment::NONE).then_some(self.0)
    }
}

/// A merged event whose content is still shared with the lanes it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedEvent {
    pub seq: u64,
    pub t_ms: u64,
    pub agent: AgentId,
    pub kind: Arc<EventKind>,
}

impl SharedEvent {
    /// Whether this is the event `agent` had as `kind`: its content shared
    /// (the same `Arc`) or equal.
    pub fn is(&self, agent: AgentId, kind: &Arc<EventKind>) -> bool {
        self.agent == agent && (Arc::ptr_eq(&self.kind, kind) || self.kind == *kind)
    }

    /// The event as it is stored and shown; moved out when no lane holds it
    /// any more, copied otherwise.
    pub fn into_event(self) -> Event {
        Event {
            seq: self.seq,
            t_ms: self.t_ms,
            agent: self.agent,
            kind: Arc::unwrap_or_clone(self.kind),
        }
    }

    /// A copy of the event, its content copied.
    pub fn to_event(&self) -> Event {
        Event {
            seq: self.seq,
            t_ms: self.t_ms,
            agent: self.agent,
            kind: (*self.kind).clone(),
        }
    }
}

/// Events a look's finishing may add to a lane copy without it growing.
const LOOK_ROOM: usize = 64;

/// One agent's events in order. A slot may be emptied later (`None`) when an
/// importer takes back a provisional event; emptied slots keep the indices of
/// the others stable for the gates.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaneBuf {
    pub events: Vec<Option<Pending>>,
}

impl LaneBuf {
    /// Appends an event; returns its index.
    pub fn push(&mut self, ts: Option<i64>, kind: EventKind) -> usize {
        self.events.push(Some(Pending::new(ts, kind)));
        self.events.len() - 1
    }

    /// Appends an event made elsewhere (a lane's synthesized end).
    pub fn push_pending(&mut self, pending: Pending) -> usize {
        self.events.push(Some(pending));
        self.events.len() - 1
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Pending> {
        self.events.iter().flatten()
    }

    pub fn first_ts(&self) -> Option<i64> {
        self.iter().find_map(Pending::ts)
    }

    pub fn last_ts(&self) -> Option<i64> {
        self.iter().filter_map(Pending::ts).next_back()
    }

    /// A copy to finish for a look at a lane still being written, with room
    /// for the few events finishing adds: a copy of exactly its length would
    /// double on the first of them, and in a big session that doubled copy
    /// was the biggest thing a follower held at its peak.
    pub fn copy_for_look(&self) -> LaneBuf {
        let mut events = Vec::with_capacity(self.events.len() + LOOK_ROOM);
        events.extend_from_slice(&self.events);
        LaneBuf { events }
    }

    /// Puts events in front of the lane (a child's start and prompt).
    pub fn prepend(&mut self, events: Vec<Pending>) {
        let rest = std::mem::take(&mut self.events);
        self.events = events.into_iter().map(Some).chain(rest).collect();
    }

    /// What a `subagent_end` reports about a lane: its steps, tokens and tools.
    pub fn stats(&self) -> LaneStats {
        let mut stats = LaneStats::default();
        for pending in self.iter() {
            match &*pending.kind {
                EventKind::ModelRequest { .. } => stats.steps += 1,
                EventKind::AssistantMessage { text, usage, .. } => {
                    stats.usage.add(usage);
                    if !text.trim().is_empty() {
                        stats.final_text = Some(text.clone());
                    }
                }
                EventKind::ToolCall { name, .. } => {
                    *stats.tool_usage.entry(name.clone()).or_default() += 1
                }
                EventKind::UserMessage { .. }
                | EventKind::PromptContext { .. }
                | EventKind::Resumed { .. }
                | EventKind::Compacted { .. }
                | EventKind::ThinkingDelta { .. }
                | EventKind::Thinking { .. }
                | EventKind::ModelChanged { .. }
                | EventKind::TextDelta { .. }
                | EventKind::ApprovalRequested(_)
                | EventKind::PermissionDecision { .. }
                | EventKind::ToolResult { .. }
                | EventKind::HookContinue { .. }
                | EventKind::Steer { .. }
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
        stats
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LaneStats {
    pub steps: u32,
    pub usage: Usage,
    pub tool_usage: BTreeMap<String, u32>,
    /// The last non-empty assistant text.
    pub final_text: Option<String>,
}

struct Lane {
    agent: AgentId,
    buf: LaneBuf,
    /// Starts only once this (lane, event) has been emitted.
    after: Option<(usize, usize)>,
}

/// All lanes of an import and the gates between them.
#[derive(Default)]
pub(crate) struct Timeline {
    lanes: Vec<Lane>,
    /// (lane, event) waits until every listed lane has been emitted completely.
    waits: HashMap<(usize, usize), Vec<usize>>,
}

impl Timeline {
    /// Reserves a lane (its events come later with [`Timeline::fill`]).
    pub fn add_lane(&mut self, agent: AgentId) -> usize {
        self.lanes.push(Lane {
            agent,
            buf: LaneBuf::default(),
            after: None,
        });
        self.lanes.len() - 1
    }

    pub fn fill(&mut self, lane: usize, buf: LaneBuf) {
        if let Some(l) = self.lanes.get_mut(lane) {
            l.buf = buf;
        }
    }

    /// `child` begins only after event `event` of lane `parent` (the call).
    pub fn start_after(&mut self, child: usize, parent: usize, event: usize) {
        if let Some(l) = self.lanes.get_mut(child) {
            l.after = Some((parent, event));
        }
    }

    /// Event `event` of lane `parent` (the call's result) waits for `child` to end.
    pub fn end_before(&mut self, child: usize, parent: usize, event: usize) {
        self.waits.entry((parent, event)).or_default().push(child);
    }

    /// The earliest timestamp of any lane.
    pub fn first_ts(&self) -> Option<i64> {
        self.lanes.iter().filter_map(|l| l.buf.first_ts()).min()
    }

    /// Merges the lanes into one stream: `seq` from 1, `t_ms` from the earliest
    /// timestamp and never decreasing. Among the lanes allowed to go next, the
    /// one whose next event is earliest goes; a tie goes to the earlier lane (the
    /// parent). Events without a timestamp go as soon as they are allowed.
    pub fn merge_owned(self) -> Vec<Event> {
        self.merge()
            .into_iter()
            .map(SharedEvent::into_event)
            .collect()
    }

    /// [`Timeline::merge_owned`], each event's content still shared with
    /// whatever else holds it (a live import's lanes).
    pub fn merge(self) -> Vec<SharedEvent> {
        let t0 = self.first_ts().unwrap_or(0);
        let Timeline { mut lanes, waits } = self;
        let total: usize = lanes.iter().map(|l| l.buf.events.len()).sum();
        let mut pos = vec![0usize; lanes.len()];
        let mut events = Vec::with_capacity(total);
        let mut last_t = 0u64;
        // A lane is done once nothing but emptied slots is left of it.
        let mut done = vec![false; lanes.len()];
        // The lanes that have started and have events left, in lane order (a
        // tie goes to the earlier lane). Only those are looked at for each
        // event: a session's children that have not started yet, or have
        // finished, cost nothing.
        let mut active: Vec<usize> = Vec::new();
        // The lanes still to start, with events left, by the lane they wait
        // on, in the order they start (that lane's position only grows).
        let mut waiting: HashMap<usize, VecDeque<(usize, usize)>> = HashMap::new();
        for (i, lane) in lanes.iter().enumerate() {
            done[i] = !skip_emptied(&lane.buf, &mut pos[i]);
            match lane.after {
                _ if done[i] => {}
                Some((parent, event)) if parent < lanes.len() => {
                    waiting.entry(parent).or_default().push_back((event, i))
                }
                Some(_) | None => active.push(i),
            }
        }
        for starts in waiting.values_mut() {
            starts.make_contiguous().sort_unstable();
        }
        // Only a parent's lane has events that wait (its calls' results).
        let mut gated = vec![false; lanes.len()];
        for &(lane, _) in waits.keys() {
            if let Some(g) = gated.get_mut(lane) {
                *g = true;
            }
        }
        loop {
            active.retain(|&i| {
                done[i] = !skip_emptied(&lanes[i].buf, &mut pos[i]);
                !done[i]
            });
            // A lane starts once the event it waits on has gone.
            for (&parent, starts) in waiting.iter_mut() {
                while let Some(&(event, lane)) = starts.front() {
                    if pos[parent] <= event {
                        break;
                    }
                    starts.pop_front();
                    start(&mut active, lane);
                }
            }
            if active.is_empty() && waiting.values().all(VecDeque::is_empty) {
                break;
            }
            let mut best: Option<(i64, usize)> = None;
            for &i in &active {
                let Some(Some(head)) = lanes[i].buf.events.get(pos[i]) else {
                    continue;
                };
                let blocked = gated[i]
                    && waits.get(&(i, pos[i])).is_some_and(|children| {
                        children
                            .iter()
                            .any(|&c| c != i && !done.get(c).copied().unwrap_or(true))
                    });
                if blocked {
                    continue;
                }
                let key = head.ts().unwrap_or(i64::MIN);
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, i));
                }
            }
            // Gates can only deadlock on inconsistent links; then time
            // decides, among every lane with events left, started or not.
            let pick = best.map(|(_, i)| i).or_else(|| {
                let unstarted = waiting.values().flatten().map(|&(_, i)| i);
                active
                    .iter()
                    .copied()
                    .chain(unstarted)
                    .filter_map(|i| match lanes[i].buf.events.get(pos[i]) {
                        Some(Some(p)) => Some((p.ts().unwrap_or(i64::MIN), i)),
                        _ => None,
                    })
                    .min()
                    .map(|(_, i)| i)
            });
            let Some(i) = pick else { break };
            emit(&mut lanes[i], pos[i], t0, &mut last_t, &mut events);
            pos[i] += 1;
            // A lane that went while it waited (time decided) still waits,
            // unless it has nothing left.
            if active.binary_search(&i).is_err() && !skip_emptied(&lanes[i].buf, &mut pos[i]) {
                done[i] = true;
                for starts in waiting.values_mut() {
                    starts.retain(|&(_, lane)| lane != i);
                }
            }
        }
        events
    }
}

/// Sends out event `at` of `lane`, taken out of its slot (an event goes out
/// once), with the next `seq` and its time from `t0`, never before `last_t`.
fn emit(lane: &mut Lane, at: usize, t0: i64, last_t: &mut u64, events: &mut Vec<SharedEvent>) {
    if let Some(pending) = lane.buf.events.get_mut(at).and_then(Option::take) {
        let t = pending
            .ts()
            .map_or(*last_t, |ts| ts.saturating_sub(t0).max(0) as u64);
        *last_t = (*last_t).max(t);
        events.push(SharedEvent {
            seq: events.len() as u64 + 1,
            t_ms: *last_t,
            agent: lane.agent,
            kind: pending.kind,
        });
    }
}

/// Moves `pos` past the emptied slots of `buf`; whether an event is left.
fn skip_emptied(buf: &LaneBuf, pos: &mut usize) -> bool {
    while buf.events.get(*pos).is_some_and(Option::is_none) {
        *pos += 1;
    }
    *pos < buf.events.len()
}

/// Puts `lane` among the `active` ones, in lane order.
fn start(active: &mut Vec<usize>, lane: usize) {
    if let Err(at) = active.binary_search(&lane) {
        active.insert(at, lane);
    }
}

/// Milliseconds from `start` to `end`; 0 when either is unknown or they are
/// out of order.
pub(crate) fn elapsed_ms(start: Option<i64>, end: Option<i64>) -> u64 {
    match (start, end) {
        (Some(start), Some(end)) => end.saturating_sub(start).max(0) as u64,
        _ => 0,
    }
}

/// A terminal reason from a foreign status word ("completed", "failed",
/// "max_steps", "cancelled"…). Unknown words count as completed unless they
/// speak of an error.
pub(crate) fn reason_from(status: &str) -> TerminalReason {
    let s = status.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    match s.as_str() {
        "" | "completed" | "complete" | "ok" | "success" | "succeeded" | "done" | "finished"
        | "end_turn" | "stop" => TerminalReason::Completed,
        "max_steps" | "max_turns" | "max_iterations" | "step_limit" => TerminalReason::MaxSteps,
        "token_budget" | "max_tokens" => TerminalReason::TokenBudget,
        "cost_budget" => TerminalReason::CostBudget,
        "context_budget" | "context_overflow" | "context_length" => TerminalReason::ContextBudget,
        "contract_violation" => TerminalReason::ContractViolation,
        "interrupted" | "cancelled" | "canceled" | "aborted" | "stopped" | "killed" => {
            TerminalReason::Interrupted
        }
        other if other.contains("interrupt") || other.contains("cancel") => {
            TerminalReason::Interrupted
        }
        other if other.contains("error") || other.contains("fail") || other.contains("timeout") => {
            TerminalReason::ModelError
        }
        _ => TerminalReason::Completed,
    }
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;
