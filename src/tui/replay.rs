//! Replay's player: a recorded event stream re-applied to the same reducer and
//! drawn by the same views (through the workbench's one loop, `app::replay`), at
//! its recorded pace or faster, with stepping and seeking. Events
//! arrive from a loader while the replay already plays, so a huge trace shows its
//! first frame at once. Going back is fast because the state is checkpointed
//! every so many events: a seek restores the nearest checkpoint before the target
//! and applies only the events after it.

use std::time::Duration;

use super::keymap::{self, Command, Place};
use super::state::{Checkpoint, State};
use super::ui::ReplayBar;
use crate::event::{Event, EventKind};
use crate::protocol::{Loaded, SessionInfo};

/// Playback speeds, slowest to fastest.
pub const SPEEDS: [f64; 9] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
/// Events between checkpoints (at first; the spacing doubles to keep their count
/// bounded on huge traces).
const CHECKPOINT_EVERY: usize = 5_000;
const MAX_CHECKPOINTS: usize = 8;
/// A silence longer than this in the recording plays as this long, so replays
/// do not sit still while the recorded person was away.
pub const MAX_GAP_MS: u64 = 3_000;

/// Events in fixed-size chunks: a long trace grows without the vector being
/// copied into one twice as large, which would briefly hold both copies.
#[derive(Default)]
struct Events {
    chunks: Vec<Vec<Event>>,
    len: usize,
}

/// Events per chunk.
const CHUNK: usize = 8192;

impl Events {
    fn push(&mut self, event: Event) {
        if self.chunks.last().is_none_or(|c| c.len() == CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        if let Some(chunk) = self.chunks.last_mut() {
            chunk.push(event);
            self.len += 1;
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Option<&Event> {
        self.chunks.get(index / CHUNK)?.get(index % CHUNK)
    }

    fn t_ms(&self, index: usize) -> u64 {
        self.get(index).map_or(0, |e| e.t_ms)
    }

    fn iter(&self) -> impl DoubleEndedIterator<Item = &Event> {
        self.chunks.iter().flatten()
    }

    /// Keeps the first `keep` events.
    fn truncate(&mut self, keep: usize) {
        if keep >= self.len {
            return;
        }
        self.chunks.truncate(keep.div_ceil(CHUNK));
        if let Some(last) = self.chunks.last_mut() {
            last.truncate(keep - (keep - 1) / CHUNK * CHUNK);
        }
        self.len = keep;
    }
}

/// How events are played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// At the recorded pace times the speed (`brood replay`).
    Recorded,
    /// Each as soon as it comes (`brood watch`): the session is being written.
    Live,
}

/// The replay's position and clock, separate from the terminal so it is tested
/// on its own.
pub struct Player {
    pace: Pace,
    events: Events,
    /// Events applied to the state: the position.
    applied: usize,
    checkpoints: Vec<(usize, Checkpoint)>,
    checkpoint_every: usize,
    info: SessionInfo,
    pub playing: bool,
    speed_index: usize,
    /// Playback time (recorded milliseconds, gaps capped) reached so far.
    clock_ms: f64,
    pub loading: bool,
    pub skipped: usize,
    pub truncated_tail: bool,
    /// Why the followed file last had to be read again from its start.
    rewound: Option<String>,
}

impl Player {
    pub fn new(info: SessionInfo, pace: Pace) -> Self {
        Player {
            pace,
            events: Events::default(),
            applied: 0,
            checkpoints: vec![(0, State::new(info.clone()).checkpoint())],
            checkpoint_every: CHECKPOINT_EVERY,
            info,
            playing: true,
            speed_index: 2,
            clock_ms: 0.0,
            loading: true,
            skipped: 0,
            truncated_tail: false,
            rewound: None,
        }
    }

    /// Takes what the reader found; a rewind puts `state` back to before the
    /// events it takes back.
    pub fn receive(&mut self, loaded: Loaded, state: &mut State) {
        match loaded {
            Loaded::Event(event) => self.events.push(*event),
            Loaded::Skipped { .. } => self.skipped += 1,
            Loaded::Rewind { keep, why } => {
                if why.is_some() {
                    self.rewound = why;
                }
                self.checkpoints.retain(|(at, _)| *at <= keep);
                self.events.truncate(keep);
                if self.applied > keep {
                    self.seek(keep, state);
                }
            }
            Loaded::Done { truncated_tail } => {
                self.loading = false;
                self.truncated_tail = truncated_tail;
            }
        }
    }

    pub fn position(&self) -> usize {
        self.applied
    }

    pub fn total(&self) -> usize {
        self.events.len()
    }

    pub fn speed(&self) -> f64 {
        SPEEDS[self.speed_index]
    }

    pub fn faster(&mut self) {
        self.speed_index = (self.speed_index + 1).min(SPEEDS.len() - 1);
    }

    pub fn slower(&mut self) {
        self.speed_index = self.speed_index.saturating_sub(1);
    }

    /// Recorded time of the current position, and of the whole recording so far.
    pub fn times(&self) -> (u64, u64) {
        let first = self.events.t_ms(0);
        let at = match self.applied {
            0 => first,
            n => self.events.t_ms(n - 1),
        };
        let last = self
            .events
            .len()
            .checked_sub(1)
            .map_or(0, |i| self.events.t_ms(i));
        (at - first, last - first)
    }

    /// Moves the clock on by `wall` of real time and applies every event now due.
    /// Returns whether anything was applied.
    pub fn advance(&mut self, wall: Duration, state: &mut State) -> bool {
        if !self.playing {
            return false;
        }
        if let Pace::Live = self.pace {
            let changed = self.applied < self.events.len();
            while self.applied < self.events.len() {
                self.apply_next(state);
            }
            return changed;
        }
        self.clock_ms += wall.as_secs_f64() * 1000.0 * self.speed();
        let mut changed = false;
        while self.applied < self.events.len() {
            let gap = self.gap_before(self.applied);
            if gap > self.clock_ms {
                break;
            }
            self.clock_ms -= gap;
            self.apply_next(state);
            changed = true;
        }
        if self.applied == self.events.len() {
            // Nothing is waiting: the clock must not bank time for events still
            // loading.
            self.clock_ms = 0.0;
            if !self.loading {
                self.playing = false;
            }
        }
        changed
    }

    /// Recorded milliseconds between event `index` and the one before (capped).
    fn gap_before(&self, index: usize) -> f64 {
        if index == 0 {
            return 0.0;
        }
        let gap = self
            .events
            .t_ms(index)
            .saturating_sub(self.events.t_ms(index - 1));
        gap.min(MAX_GAP_MS) as f64
    }

    fn apply_next(&mut self, state: &mut State) {
        if let Some(event) = self.events.get(self.applied) {
            state.apply(event);
            self.applied += 1;
            self.maybe_checkpoint(state);
        }
    }

    fn maybe_checkpoint(&mut self, state: &mut State) {
        let last = self.checkpoints.last().map_or(0, |c| c.0);
        if self.applied < last + self.checkpoint_every {
            return;
        }
        self.checkpoints.push((self.applied, state.checkpoint()));
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            // Keep every other one (always the start) and space new ones wider.
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.checkpoint_every *= 2;
        }
    }

    /// Puts the state at exactly `target` events applied.
    pub fn seek(&mut self, target: usize, state: &mut State) {
        let target = target.min(self.events.len());
        if target < self.applied {
            match self.checkpoints.iter().rev().find(|(at, _)| *at <= target) {
                Some((at, saved)) => {
                    state.restore(saved);
                    self.applied = *at;
                }
                None => {
                    *state = State::new(self.info.clone());
                    self.applied = 0;
                }
            }
        }
        while self.applied < target {
            self.apply_next(state);
        }
        self.clock_ms = 0.0;
    }

    /// The index after the next (or before the previous) subagent start or end.
    pub fn next_subagent_boundary(&self, forward: bool) -> Option<usize> {
        let is_boundary = |e: &Event| {
            matches!(
                e.kind,
                EventKind::SubagentStart(_) | EventKind::SubagentEnd { .. }
            )
        };
        if forward {
            self.events
                .iter()
                .skip(self.applied)
                .position(is_boundary)
                .map(|i| self.applied + i + 1)
        } else {
            // The boundary we are just past does not count: look before it.
            let end = self.applied.saturating_sub(1);
            (0..end)
                .rev()
                .find(|&i| self.events.get(i).is_some_and(is_boundary))
                .map(|i| i + 1)
        }
    }

    pub fn bar(&self, source: &str) -> ReplayBar {
        let (recorded_ms, total_ms) = self.times();
        ReplayBar {
            position: self.applied,
            total: self.events.len(),
            loading: self.loading,
            recorded_ms,
            total_ms,
            speed: self.speed(),
            playing: self.playing,
            skipped: self.skipped,
            source: source.to_string(),
            pace: self.pace,
            rewound: self.rewound.clone(),
        }
    }
}

/// What a replay key did.
pub(super) enum ReplayKey {
    Handled,
    /// Not a replay key: the panes may use it.
    Pass,
    Quit,
}

/// The replay's controls, as the key table binds them.
pub(super) fn replay_key(
    key: &crossterm::event::KeyEvent,
    player: &mut Player,
    state: &mut State,
) -> ReplayKey {
    let Some(command) = keymap::lookup(&[Place::Replay], key) else {
        return ReplayKey::Pass;
    };
    match command {
        Command::PlayPause => {
            if !player.playing && player.position() == player.total() && !player.loading {
                player.seek(0, state);
            }
            player.playing = !player.playing;
        }
        Command::NextChildStart => {
            if let Some(to) = player.next_subagent_boundary(true) {
                player.seek(to, state);
            }
        }
        Command::PreviousChildStart => {
            let to = player.next_subagent_boundary(false).unwrap_or(0);
            player.seek(to, state);
        }
        Command::StepForward => {
            player.playing = false;
            let to = player.position() + 1;
            player.seek(to, state);
        }
        Command::StepBack => {
            player.playing = false;
            let to = player.position().saturating_sub(1);
            player.seek(to, state);
        }
        Command::Faster => player.faster(),
        Command::Slower => player.slower(),
        Command::ReplayStart => player.seek(0, state),
        Command::ReplayEnd => {
            let end = player.total();
            player.seek(end, state);
        }
        Command::QuitReplay => return ReplayKey::Quit,
        _ => return ReplayKey::Pass,
    }
    ReplayKey::Handled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{AgentId, TerminalReason, Usage};
    use crossterm::event::{KeyCode, KeyModifiers};

    fn event(seq: u64, t_ms: u64, agent: AgentId, kind: EventKind) -> Event {
        Event {
            seq,
            t_ms,
            agent,
            kind,
        }
    }

    fn session(children: u32) -> Vec<Event> {
        let mut events = vec![event(
            1,
            0,
            AgentId::Main,
            EventKind::UserMessage { text: "go".into() },
        )];
        let mut seq = 1;
        let mut t = 0;
        for n in 1..=children {
            for kind in [
                EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
                    parent: AgentId::Main,
                    parent_call_id: format!("c{n}"),
                    profile: "explore".into(),
                    model: "main".into(),
                    model_name: "m".into(),
                    description: format!("part {n}"),
                    prompt: "p".into(),
                    max_steps: Some(12),
                    token_budget: None,
                    context_budget: None,
                    color: None,
                })),
                EventKind::TextDelta {
                    text: "thinking".into(),
                },
                EventKind::SubagentEnd {
                    reason: TerminalReason::Completed,
                    summary: "found".into(),
                    steps: 1,
                    tool_usage: Default::default(),
                    usage: Usage::default(),
                    elapsed_ms: 10,
                },
            ] {
                seq += 1;
                t += 100;
                events.push(event(seq, t, AgentId::Sub(n), kind));
            }
        }
        events
    }

    fn loaded(events: &[Event]) -> Player {
        let mut player = Player::new(SessionInfo::default(), Pace::Recorded);
        let mut state = State::new(SessionInfo::default());
        for e in events {
            player.receive(Loaded::Event(Box::new(e.clone())), &mut state);
        }
        player.receive(
            Loaded::Done {
                truncated_tail: false,
            },
            &mut state,
        );
        player
    }

    /// The state after a seek equals the state after applying the same prefix
    /// from scratch, whichever way the seek went.
    #[test]
    fn seeking_back_and_forth_gives_the_same_state_as_a_fresh_apply() {
        let events = session(4_000);
        let mut player = loaded(&events);
        let mut state = State::new(SessionInfo::default());
        player.seek(events.len(), &mut state);
        for target in [11_999, 7, 6_000, 0, 12_001, 3] {
            player.seek(target, &mut state);
            let mut fresh = State::new(SessionInfo::default());
            for e in &events[..target] {
                fresh.apply(e);
            }
            assert_eq!(player.position(), target);
            assert_eq!(state.events, fresh.events, "seek to {target}");
            assert_eq!(
                state.children.len(),
                fresh.children.len(),
                "seek to {target}"
            );
            assert_eq!(state.children, fresh.children, "seek to {target}");
            assert_eq!(state.timeline, fresh.timeline, "seek to {target}");
            assert_eq!(state.entries, fresh.entries, "seek to {target}");
        }
        assert!(player.checkpoints.len() <= MAX_CHECKPOINTS + 1);
    }

    /// Followed live, events apply as they come, and a rewind leaves the
    /// state as if the events taken back had never come, across checkpoints
    /// and chunk borders too.
    #[test]
    fn a_live_rewind_leaves_the_state_of_the_events_kept() {
        let events = session(4_000);
        let mut player = Player::new(SessionInfo::default(), Pace::Live);
        let mut state = State::new(SessionInfo::default());
        for e in &events[..10_000] {
            player.receive(Loaded::Event(Box::new(e.clone())), &mut state);
        }
        assert!(player.advance(Duration::from_millis(1), &mut state));
        assert_eq!(player.position(), 10_000, "live pace waits for nothing");
        for keep in [9_000, 8_192, 8_191, 100] {
            player.receive(Loaded::Rewind { keep, why: None }, &mut state);
            assert_eq!(player.total(), keep);
            let mut fresh = State::new(SessionInfo::default());
            for e in &events[..keep] {
                fresh.apply(e);
            }
            assert_eq!(player.position(), keep);
            assert_eq!(state.events, fresh.events, "rewind to {keep}");
            assert_eq!(state.children, fresh.children, "rewind to {keep}");
            assert_eq!(state.entries, fresh.entries, "rewind to {keep}");
        }
        // What comes again applies on top of what was kept.
        for e in &events[100..200] {
            player.receive(Loaded::Event(Box::new(e.clone())), &mut state);
        }
        player.advance(Duration::from_millis(1), &mut state);
        assert_eq!(player.position(), 200);
        assert_eq!(player.events.get(199), Some(&events[199]));
        assert!(player.playing, "a followed session never ends by itself");
    }

    #[test]
    fn playback_follows_the_recorded_pace_times_the_speed() {
        let events = session(2); // events every 100 ms
        let mut player = loaded(&events);
        let mut state = State::new(SessionInfo::default());
        player.advance(Duration::from_millis(0), &mut state);
        assert_eq!(player.position(), 1, "the first event is due at once");
        player.advance(Duration::from_millis(150), &mut state);
        assert_eq!(player.position(), 2);
        player.faster(); // ×2
        player.advance(Duration::from_millis(100), &mut state);
        assert_eq!(player.position(), 4);
        player.playing = false;
        player.advance(Duration::from_secs(60), &mut state);
        assert_eq!(player.position(), 4, "paused");
        player.playing = true;
        player.advance(Duration::from_secs(60), &mut state);
        assert_eq!(player.position(), events.len());
        assert!(!player.playing, "stops at the end");
    }

    #[test]
    fn long_silences_are_shortened() {
        let events = vec![
            event(
                1,
                0,
                AgentId::Main,
                EventKind::UserMessage { text: "a".into() },
            ),
            event(
                2,
                600_000,
                AgentId::Main,
                EventKind::TextDelta { text: "b".into() },
            ),
        ];
        let mut player = loaded(&events);
        let mut state = State::new(SessionInfo::default());
        player.advance(Duration::from_millis(MAX_GAP_MS + 1), &mut state);
        assert_eq!(player.position(), 2);
    }

    #[test]
    fn keys_step_jump_between_subagents_and_change_speed() {
        let events = session(3);
        let mut player = loaded(&events);
        let mut state = State::new(SessionInfo::default());
        let press = |code, modifiers, player: &mut Player, state: &mut State| {
            replay_key(
                &crossterm::event::KeyEvent::new(code, modifiers),
                player,
                state,
            );
        };
        press(KeyCode::Right, KeyModifiers::NONE, &mut player, &mut state);
        assert_eq!(player.position(), 1);
        assert!(!player.playing, "stepping pauses");
        press(KeyCode::Right, KeyModifiers::SHIFT, &mut player, &mut state);
        assert_eq!(player.position(), 2, "just after sub-1 started");
        assert_eq!(state.children.len(), 1);
        press(KeyCode::Right, KeyModifiers::SHIFT, &mut player, &mut state);
        assert_eq!(player.position(), 4, "just after sub-1 ended");
        press(KeyCode::Left, KeyModifiers::SHIFT, &mut player, &mut state);
        assert_eq!(player.position(), 2, "back to sub-1's start");
        press(KeyCode::Left, KeyModifiers::NONE, &mut player, &mut state);
        assert_eq!(player.position(), 1);
        assert!(state.children.is_empty());
        press(
            KeyCode::Char('G'),
            KeyModifiers::NONE,
            &mut player,
            &mut state,
        );
        assert_eq!(player.position(), events.len());
        press(
            KeyCode::Char('g'),
            KeyModifiers::NONE,
            &mut player,
            &mut state,
        );
        assert_eq!(player.position(), 0);
        for _ in 0..20 {
            press(
                KeyCode::Char('+'),
                KeyModifiers::NONE,
                &mut player,
                &mut state,
            );
        }
        assert_eq!(player.speed(), 64.0);
        for _ in 0..20 {
            press(
                KeyCode::Char('-'),
                KeyModifiers::NONE,
                &mut player,
                &mut state,
            );
        }
        assert_eq!(player.speed(), 0.25);
    }
}
