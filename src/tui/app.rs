//! The render task: it `select!`s over terminal input, bus events and a spinner
//! tick that exists only while something runs; it applies events to the state and
//! draws when something changed, at most once every 16 ms, and not at all when
//! nothing happens.

use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::keys::{self, Action};
use super::state::State;
use super::terminal::{self, TerminalError};
use super::theme::Theme;
use super::ui::Ui;
use super::view::{ViewCache, render};
use crate::event::{AgentId, Event, EventKind, Op};
use crate::protocol::SessionInfo;

/// The shortest time between two frames (about 60 frames a second).
const FRAME: Duration = Duration::from_millis(16);
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

/// Runs the workbench until the user quits. `first_prompt` is sent at once (the
/// demo's question).
pub async fn run<Done: Future>(
    link: Link<Done>,
    info: SessionInfo,
    first_prompt: Option<String>,
) -> Result<(), TerminalError> {
    let Link {
        mut events,
        ops,
        shutdown,
        done,
    } = link;
    let mut guard = terminal::enter()?;
    if let Some(prompt) = first_prompt {
        let _ = ops.send(Op::UserMessage(prompt));
    }
    let mut app = App {
        state: State::new(info),
        ui: Ui::new(),
        cache: ViewCache::new(),
        theme: Theme::from_env(),
    };
    let result = app.event_loop(&mut guard, &mut events, &ops).await;
    // Quit: stop the turn and its children, let the session write its last
    // events, then give the terminal back (the guard's drop).
    let _ = ops.send(match result {
        Ok(Exit::Quit) | Err(_) => Op::Quit,
        Ok(Exit::Signal) => Op::Terminate,
    });
    shutdown.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(3), done).await;
    drop(guard);
    result.map(|_| ())
}

/// Why the event loop ended.
enum Exit {
    /// The user quit, or the screen went away.
    Quit,
    /// SIGTERM or SIGHUP.
    Signal,
}

struct App {
    state: State,
    ui: Ui,
    cache: ViewCache,
    theme: Theme,
}

impl App {
    async fn event_loop(
        &mut self,
        guard: &mut terminal::TerminalGuard,
        events: &mut mpsc::UnboundedReceiver<Event>,
        ops: &mpsc::UnboundedSender<Op>,
    ) -> Result<Exit, TerminalError> {
        let mut input = EventStream::new();
        let stop = crate::signals::stop_requested(crate::signals::Listen::WithoutCtrlC);
        tokio::pin!(stop);
        let mut dirty = true;
        let mut last_draw: Option<Instant> = None;
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            let now = Instant::now();
            let due = last_draw.map_or(now, |t| t + FRAME);
            if dirty && now >= due {
                self.draw(guard)?;
                last_draw = Some(now);
                dirty = false;
            }
            let animating = self.state.busy() || self.ui.flash.is_some();
            tokio::select! {
                event = events.recv() => {
                    let Some(event) = event else { return Ok(Exit::Quit) };
                    self.apply(&event, ops);
                    for _ in 0..EVENT_BATCH {
                        match events.try_recv() {
                            Ok(event) => self.apply(&event, ops),
                            Err(_) => break,
                        }
                    }
                    dirty = true;
                }
                input_event = input.next() => {
                    let Some(Ok(input_event)) = input_event else { return Ok(Exit::Quit) };
                    for action in keys::handle(&input_event, &self.state, &mut self.ui, Instant::now()) {
                        match action {
                            Action::Send(op) => { let _ = ops.send(op); }
                            Action::Quit => return Ok(Exit::Quit),
                        }
                    }
                    dirty = true;
                }
                _ = tick.tick(), if animating => {
                    self.ui.spinner = self.ui.spinner.wrapping_add(1);
                    self.expire_flash();
                    dirty = true;
                }
                _ = tokio::time::sleep_until(due.into()), if dirty => {}
                _ = &mut stop => return Ok(Exit::Signal),
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
    }

    fn draw(&mut self, guard: &mut terminal::TerminalGuard) -> Result<(), TerminalError> {
        let App {
            state,
            ui,
            cache,
            theme,
        } = self;
        guard
            .terminal
            .draw(|frame| render(frame, state, ui, cache, theme))
            .map(|_| ())
            .map_err(TerminalError::Draw)
    }
}
