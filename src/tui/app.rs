//! The render task: it `select!`s over terminal input, bus events and a spinner
//! tick that exists only while something runs; it applies events to the state and
//! draws when something changed, at most once every 16 ms, and not at all when
//! nothing happens.

use std::time::{Duration, Instant};

use crossterm::event::{Event as InputEvent, EventStream, KeyCode, KeyEventKind, KeyModifiers};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::keys::{self, Action};
pub use super::replay::Pace;
use super::replay::{Player, ReplayKey, replay_key};
use super::state::State;
use super::terminal::{self, TerminalError};
use super::theme::Theme;
use super::ui::Ui;
use super::ui::{Focus, MouseMode};
use super::view::{ViewCache, render};
use super::{clipboard, export};
use crate::event::{AgentId, Event, EventKind, Op};
use crate::protocol::{Loaded, Remembered, SessionInfo};

/// The shortest time between two frames (about 60 frames a second).
const FRAME: Duration = Duration::from_millis(16);
/// How often the screen looks at the side warning (see `SessionInfo::side_warning`).
const SIDE_CHECK: Duration = Duration::from_secs(1);
/// Spinner speed while something runs.
const TICK: Duration = Duration::from_millis(100);
/// Events applied between two looks at the keyboard, so a flood of events never
/// makes the keys feel stuck.
const EVENT_BATCH: usize = 4096;

/// What the workbench talks to: the session's events in, `Op`s out. The
/// session task itself runs elsewhere; the screen never sees it.
pub struct Link<Done> {
    pub events: mpsc::UnboundedReceiver<Event>,
    pub ops: mpsc::UnboundedSender<Op>,
    /// Cancelled when the screen quits, to stop the turn and its children.
    pub shutdown: CancellationToken,
    /// Completes when the session task has written its last events.
    pub done: Done,
}

/// A saved session to play: the reader's feed and how to name it.
pub struct Recording {
    pub source: mpsc::Receiver<Loaded>,
    /// `file · format`, for the replay bar.
    pub label: String,
    pub exit: ReplayExit,
    /// Recorded for `brood replay`, live for `brood watch`.
    pub pace: Pace,
}

/// How a replay ends early on purpose (benchmarks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayExit {
    /// Until the user quits.
    OnQuit,
    /// Right after the first frame that shows the session (an event applied)
    /// is drawn; the time to it goes to stderr.
    AfterFirstFrame,
}

/// What comes after a live session's workbench.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// The user quit.
    Quit,
    /// `/clear`: a new session in the same workspace; this one stays resumable.
    NewSession,
    /// `/resume [ID]`: that saved session, or the picker without an id.
    Resume(Option<String>),
}

/// Runs the workbench on a live session until the user quits or switches
/// sessions. `first_prompt` is sent at once (the demo's question); `note` is
/// said on the status line at start (where the last session went). It starts
/// from what an earlier session left in `remembered`, and returns what comes
/// next with what to remember now.
pub async fn run<Done: Future>(
    link: Link<Done>,
    info: SessionInfo,
    first_prompt: Option<String>,
    note: Option<String>,
    remembered: Remembered,
) -> Result<(Next, Remembered), TerminalError> {
    let Link {
        events,
        ops,
        shutdown,
        done,
    } = link;
    let mut guard = terminal::enter()?;
    if let Some(prompt) = first_prompt {
        let _ = ops.send(Op::UserMessage(prompt));
    }
    let mut app = App::new(info, remembered);
    if let Some(note) = note {
        app.ui.say(note);
    }
    let mut feed = Feed::Live {
        events,
        ops: ops.clone(),
    };
    let result = app.event_loop(&mut guard, &mut feed).await;
    // Quit: stop the turn and its children, let the session write its last
    // events, then give the terminal back (the guard's drop).
    let _ = ops.send(match result {
        Ok(Exit::Quit | Exit::FirstFrame | Exit::Switch(_)) | Err(_) => Op::Quit,
        Ok(Exit::Signal) => Op::Terminate,
    });
    shutdown.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(3), done).await;
    drop(guard);
    result.map(|exit| {
        let next = match exit {
            Exit::Switch(next) => next,
            Exit::Quit | Exit::Signal | Exit::FirstFrame => Next::Quit,
        };
        (next, app.remembered())
    })
}

/// Plays a recording in the same workbench, with the replay's controls in
/// place of the composer, until the user quits; returns what to remember,
/// as [`run`] does.
pub async fn replay(
    info: SessionInfo,
    recording: Recording,
    remembered: Remembered,
) -> Result<Remembered, TerminalError> {
    let started = Instant::now();
    let mut guard = terminal::enter()?;
    let mut app = App::new(info.clone(), remembered);
    app.ui.focus = Focus::Conversation;
    let mut feed = Feed::Replay {
        player: Box::new(Player::new(info, recording.pace)),
        source: Some(recording.source),
        label: recording.label,
        exit: recording.exit,
        last_tick: Instant::now(),
    };
    let exit = app.event_loop(&mut guard, &mut feed).await?;
    drop(guard);
    if let Exit::FirstFrame = exit {
        eprintln!("first frame after {} ms", started.elapsed().as_millis());
    }
    Ok(app.remembered())
}

/// Where the screen's events come from.
enum Feed {
    /// A running session: its events, and where the keys' `Op`s go.
    Live {
        events: mpsc::UnboundedReceiver<Event>,
        ops: mpsc::UnboundedSender<Op>,
    },
    /// A recording, played by the player at its pace.
    Replay {
        player: Box<Player>,
        /// `None` once the reader is done.
        source: Option<mpsc::Receiver<Loaded>>,
        label: String,
        exit: ReplayExit,
        last_tick: Instant,
    },
}

/// What the next loop turn got.
enum Woke {
    Event(Event),
    Loaded(Loaded),
    SourceDone,
    FeedGone,
}

impl Feed {
    /// The next event of a live session, or item of a recording; pending
    /// forever when there is none to wait for.
    async fn next(&mut self) -> Woke {
        match self {
            Feed::Live { events, .. } => match events.recv().await {
                Some(event) => Woke::Event(event),
                None => Woke::FeedGone,
            },
            Feed::Replay {
                source: Some(source),
                ..
            } => match source.recv().await {
                Some(loaded) => Woke::Loaded(loaded),
                None => Woke::SourceDone,
            },
            Feed::Replay { source: None, .. } => std::future::pending().await,
        }
    }

    /// How often the screen ticks while something moves.
    fn tick(&self) -> Duration {
        match self {
            Feed::Live { .. } => TICK,
            Feed::Replay { .. } => FRAME,
        }
    }
}

/// Why the event loop ended.
enum Exit {
    /// The user quit, or the screen went away.
    Quit,
    /// SIGTERM or SIGHUP.
    Signal,
    /// A replay asked to stop after its first frame (benchmarks).
    FirstFrame,
    /// Another session next (`/clear`, `/resume`).
    Switch(Next),
}

struct App {
    state: State,
    ui: Ui,
    cache: ViewCache,
    theme: Theme,
}

/// What the loop does after an input.
enum Flow {
    Continue,
    Exit(Exit),
}

impl App {
    fn new(info: SessionInfo, remembered: Remembered) -> App {
        let mut ui = Ui::new();
        ui.split = remembered.split;
        App {
            state: State::new(info),
            ui,
            cache: ViewCache::new(),
            theme: Theme::from_env(),
        }
    }

    /// What the next session starts from.
    fn remembered(&self) -> Remembered {
        Remembered {
            split: self.ui.split,
        }
    }

    /// The one loop: terminal input, the feed, a tick that exists only while
    /// something moves, and signals; it draws when something changed, at most
    /// once every 16 ms, and not at all when nothing happens.
    async fn event_loop(
        &mut self,
        guard: &mut terminal::TerminalGuard,
        feed: &mut Feed,
    ) -> Result<Exit, TerminalError> {
        let mut input = EventStream::new();
        let stop = crate::signals::stop_requested(crate::signals::Listen::WithoutCtrlC);
        tokio::pin!(stop);
        let mut dirty = true;
        let mut last_draw: Option<Instant> = None;
        let mut tick = tokio::time::interval(feed.tick());
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        // Work beside the turns (the telemetry export) changes its warning
        // on a thread of its own, with no event: looked at once a second.
        let mut side = tokio::time::interval(SIDE_CHECK);
        side.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut side_seen = self.state.info.side_warning.get();
        loop {
            let now = Instant::now();
            let due = last_draw.map_or(now, |t| t + FRAME);
            if dirty && now >= due {
                if let Feed::Replay { player, label, .. } = feed {
                    self.ui.replay = Some(player.bar(label));
                }
                self.draw(guard)?;
                last_draw = Some(now);
                dirty = false;
                // The first frame that shows the session: an event applied,
                // or the whole (empty) file read.
                if let Feed::Replay {
                    exit: ReplayExit::AfterFirstFrame,
                    player,
                    ..
                } = feed
                    && (player.position() > 0 || !player.loading)
                {
                    return Ok(Exit::FirstFrame);
                }
            }
            let animating = match feed {
                Feed::Live { .. } => self.state.busy() || self.ui.flash.is_some(),
                Feed::Replay { player, .. } => {
                    player.playing || player.loading || self.state.busy()
                }
            };
            if !animating && let Feed::Replay { last_tick, .. } = feed {
                *last_tick = Instant::now();
            }
            let live = matches!(feed, Feed::Live { .. });
            tokio::select! {
                woke = feed.next() => {
                    match woke {
                        Woke::FeedGone => return Ok(Exit::Quit),
                        Woke::Event(event) => self.take_events(event, feed),
                        Woke::Loaded(loaded) => self.take_loaded(loaded, feed),
                        Woke::SourceDone => {
                            if let Feed::Replay { player, source, .. } = feed {
                                *source = None;
                                player.loading = false;
                            }
                        }
                    }
                    dirty = true;
                }
                input_event = input.next() => {
                    let Some(Ok(input_event)) = input_event else { return Ok(Exit::Quit) };
                    if let Flow::Exit(exit) = self.input(&input_event, feed, guard) {
                        return Ok(exit);
                    }
                    dirty = true;
                }
                _ = tick.tick(), if animating => {
                    self.ui.spinner = self.ui.spinner.wrapping_add(1);
                    self.expire_flash();
                    if let Feed::Replay { player, last_tick, .. } = feed {
                        let now = Instant::now();
                        let wall = now - *last_tick;
                        *last_tick = now;
                        player.advance(wall, &mut self.state);
                    }
                    dirty = true;
                }
                _ = side.tick(), if live => {
                    let said = self.state.info.side_warning.get();
                    if said != side_seen {
                        side_seen = said;
                        dirty = true;
                    }
                }
                _ = tokio::time::sleep_until(due.into()), if dirty => {}
                _ = &mut stop => return Ok(Exit::Signal),
            }
        }
    }

    /// A live event and the others already queued, without a frame between.
    fn take_events(&mut self, first: Event, feed: &mut Feed) {
        let Feed::Live { events, ops } = feed else {
            return;
        };
        self.apply(&first, ops);
        for _ in 0..EVENT_BATCH {
            match events.try_recv() {
                Ok(event) => self.apply(&event, ops),
                Err(_) => break,
            }
        }
    }

    /// A recording's item and the others already read.
    fn take_loaded(&mut self, first: Loaded, feed: &mut Feed) {
        let Feed::Replay {
            player,
            source: Some(source),
            ..
        } = feed
        else {
            return;
        };
        player.receive(first, &mut self.state);
        while let Ok(more) = source.try_recv() {
            player.receive(more, &mut self.state);
        }
    }

    /// One terminal input: the replay's controls first in a replay, then the
    /// key table.
    fn input(
        &mut self,
        input: &InputEvent,
        feed: &mut Feed,
        guard: &mut terminal::TerminalGuard,
    ) -> Flow {
        match feed {
            Feed::Live { ops, .. } => {
                for action in keys::handle(input, &self.state, &mut self.ui, Instant::now()) {
                    match action {
                        Action::Send(op) => {
                            let _ = ops.send(op);
                        }
                        Action::Quit => return Flow::Exit(Exit::Quit),
                        Action::Switch(next) => return Flow::Exit(Exit::Switch(next)),
                        other => self.outside(other, guard),
                    }
                }
                Flow::Continue
            }
            Feed::Replay { player, .. } => {
                if let InputEvent::Key(key) = input
                    && key.kind != KeyEventKind::Release
                {
                    // Ctrl-C and Ctrl-D end a replay from anywhere: there is no
                    // turn to interrupt and nothing typed to lose.
                    if key.modifiers.contains(KeyModifiers::CONTROL)
                        && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d'))
                    {
                        return Flow::Exit(Exit::Quit);
                    }
                    if self.ui.overlay.is_none() {
                        match replay_key(key, player, &mut self.state) {
                            ReplayKey::Quit => return Flow::Exit(Exit::Quit),
                            ReplayKey::Handled => return Flow::Continue,
                            ReplayKey::Pass => {}
                        }
                    }
                }
                let actions = keys::handle(input, &self.state, &mut self.ui, Instant::now());
                if actions.contains(&Action::Quit) {
                    return Flow::Exit(Exit::Quit);
                }
                for action in actions {
                    self.outside(action, guard);
                }
                Flow::Continue
            }
        }
    }

    /// What an action asks of the world outside the screen's state: the
    /// terminal (mouse, clipboard) or a file; how it went is said.
    fn outside(&mut self, action: Action, guard: &mut terminal::TerminalGuard) {
        match action {
            // The session's business, and nothing to send in a replay.
            Action::Send(_) | Action::Quit | Action::Switch(_) => {}
            Action::Mouse(mode) => {
                if let Err(e) = guard.mouse(mode == MouseMode::Panes) {
                    self.ui.say(format!("the mouse mode did not change: {e}"));
                }
            }
            Action::Copy { what, text } => {
                let copy = clipboard::osc52(&text);
                let said = match guard.send_sequence(&copy.sequence) {
                    Err(e) => format!("not copied: {e}"),
                    Ok(()) => format!(
                        "copied {what} ({}{}) · a terminal without OSC 52 ignores it; in tmux: set-clipboard on",
                        crate::text::count(copy.chars as u64, "character"),
                        if copy.cut {
                            ", cut at the terminal's limit"
                        } else {
                            ""
                        },
                    ),
                };
                self.ui.say(said);
            }
            Action::Export {
                path,
                markdown,
                replace,
            } => {
                let said = match export::write(&path, &markdown, replace) {
                    Ok(()) => format!("exported the session to {}", path.display()),
                    Err(e) => format!("not exported: {e}"),
                };
                self.ui.say(crate::text::visible(&said).into_owned());
            }
        }
    }

    fn apply(&mut self, event: &Event, ops: &mpsc::UnboundedSender<Op>) {
        self.state.apply(event);
        // The parent's turn ended: send the next queued prompt.
        if event.agent == AgentId::Main
            && matches!(event.kind, EventKind::TurnEnd { .. })
            && !self.ui.queued.is_empty()
        {
            let next = self.ui.queued.remove(0);
            let _ = ops.send(Op::UserMessage(next));
        }
    }

    fn expire_flash(&mut self) {
        if let Some(at) = self.ui.last_interrupt
            && at.elapsed() > keys::QUIT_WINDOW
        {
            self.ui.flash = None;
            self.ui.last_interrupt = None;
        }
        if let Some(until) = self.ui.flash_until
            && std::time::Instant::now() >= until
        {
            self.ui.flash = None;
            self.ui.flash_until = None;
        }
    }

    fn draw(&mut self, guard: &mut terminal::TerminalGuard) -> Result<(), TerminalError> {
        let App {
            state,
            ui,
            cache,
            theme,
        } = self;
        guard.draw(|frame| render(frame, state, ui, cache, theme))
    }
}
