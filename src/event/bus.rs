//! The [`EventBus`]: numbers each event, replaces secrets by `[redacted]`,
//! and hands it to every recorder and subscriber under one lock, so all see
//! one order. Separate from the vocabulary, which readers use without it.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::mpsc;

use super::{AgentId, Event, EventKind};

/// A subscriber that must see every event synchronously, before `publish` returns,
/// such as the trace writer: once `publish` has returned the event is written, so
/// a killed process still leaves it on disk.
pub trait Recorder: Send {
    fn record(&mut self, event: &Event) -> Result<(), String>;

    /// Makes everything recorded so far durable (called at the end of a turn).
    fn sync(&mut self) -> Result<(), String> {
        Ok(())
    }
}

struct BusInner {
    next_seq: u64,
    /// Values (API keys) replaced by `[redacted]` in every event before delivery.
    secrets: Vec<String>,
    subscribers: Vec<mpsc::UnboundedSender<Event>>,
    recorders: Vec<Box<dyn Recorder>>,
    recorder_error: Option<String>,
}

/// Fan-out of events to every subscriber, in one global order.
///
/// Sequence numbers are assigned and the event is handed to every subscriber under
/// one lock, so all subscribers see the same order. Subscriber channels are
/// unbounded: a slow reader (a renderer that coalesces frames) makes its queue
/// grow, it never makes an event disappear.
#[derive(Clone)]
pub struct EventBus {
    inner: Arc<Mutex<BusInner>>,
    started: Instant,
    /// Added to every `t_ms`: a resumed session's clock goes on from where
    /// its trace's did.
    base_ms: u64,
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new()
    }
}

impl EventBus {
    pub fn new() -> Self {
        EventBus {
            inner: Arc::new(Mutex::new(BusInner {
                next_seq: 1,
                secrets: Vec::new(),
                subscribers: Vec::new(),
                recorders: Vec::new(),
                recorder_error: None,
            })),
            started: Instant::now(),
            base_ms: 0,
        }
    }

    /// A bus that goes on from a trace: its first event is number
    /// `next_seq`, at `base_ms`.
    pub fn continuing(next_seq: u64, base_ms: u64) -> Self {
        let bus = EventBus {
            base_ms,
            ..EventBus::new()
        };
        bus.lock().next_seq = next_seq.max(1);
        bus
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BusInner> {
        // A panic while holding the lock cannot leave BusInner half-updated in a way
        // that matters (worst case one subscriber missed one event), so keep going.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new receiver of every event published from now on.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<Event> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.lock().subscribers.push(tx);
        rx
    }

    /// Values that must never reach a subscriber: the trace, the screen or stdout.
    /// Values shorter than 8 characters are ignored (no real key is that short,
    /// and redacting them would mangle ordinary text).
    pub fn set_secrets(&self, secrets: Vec<String>) {
        self.lock().secrets = secrets.into_iter().filter(|s| s.len() >= 8).collect();
    }

    /// `text` with every secret replaced by `[redacted]`: for tool results on
    /// their way back to the model, so a key a command managed to print (the
    /// sandbox off, say) is still never sent to the provider.
    pub fn redact(&self, text: String) -> String {
        let inner = self.lock();
        if !inner.secrets.iter().any(|s| text.contains(s.as_str())) {
            return text;
        }
        inner.secrets.iter().fold(text, |text, secret| {
            text.replace(secret.as_str(), "[redacted]")
        })
    }

    /// Adds a synchronous recorder (see [`Recorder`]).
    pub fn add_recorder(&self, recorder: Box<dyn Recorder>) {
        self.lock().recorders.push(recorder);
    }

    /// The first error any recorder reported, if one did.
    pub fn recorder_error(&self) -> Option<String> {
        self.lock().recorder_error.clone()
    }

    /// Syncs every recorder; the first error is kept like a recording error.
    pub fn sync(&self) -> Result<(), String> {
        let mut inner = self.lock();
        let mut failed = None;
        for recorder in inner.recorders.iter_mut() {
            if let Err(e) = recorder.sync() {
                failed.get_or_insert(e);
            }
        }
        match failed {
            Some(e) => {
                inner.recorder_error.get_or_insert(e.clone());
                Err(e)
            }
            None => Ok(()),
        }
    }

    /// Milliseconds since the session began (for a resumed one, since the
    /// start of its trace, the time it was closed left out).
    pub fn elapsed_ms(&self) -> u64 {
        self.base_ms + self.started.elapsed().as_millis() as u64
    }

    /// Publishes one event, stamping it with the next sequence number and the time.
    pub fn publish(&self, agent: AgentId, mut kind: EventKind) -> Event {
        let t_ms = self.elapsed_ms();
        let mut inner = self.lock();
        if !inner.secrets.is_empty() {
            kind.redact(&inner.secrets);
        }
        let event = Event {
            seq: inner.next_seq,
            t_ms,
            agent,
            kind,
        };
        inner.next_seq += 1;
        self.deliver(&mut inner, &event);
        event
    }

    /// Re-publishes an event that already has its `seq` and `t_ms` (replay).
    pub fn republish(&self, event: Event) {
        let mut inner = self.lock();
        inner.next_seq = inner.next_seq.max(event.seq + 1);
        self.deliver(&mut inner, &event);
    }

    fn deliver(&self, inner: &mut BusInner, event: &Event) {
        let mut failed = None;
        for recorder in inner.recorders.iter_mut() {
            if let Err(e) = recorder.record(event) {
                failed.get_or_insert(e);
            }
        }
        if let Some(e) = failed {
            tracing::error!("recorder failed: {e}");
            inner.recorder_error.get_or_insert(e);
        }
        // A closed receiver just stops receiving; the others still get everything.
        inner
            .subscribers
            .retain(|tx| tx.send(event.clone()).is_ok());
    }
}
