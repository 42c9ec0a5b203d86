//! The workbench replay's loader: a thread that reads the source and sends what
//! it finds to the screen while the screen already plays, so the first frame
//! never waits for the file.

use std::thread::JoinHandle;

use tokio::sync::mpsc;

use super::ReplayError;
use super::source::{Item, Rewound, Source};
use crate::protocol::{Loaded, SessionInfo};

/// Messages that may wait for the screen. The screen drains the channel at
/// every wake-up, so this bound only matters if it stalls; it keeps a stalled
/// screen from letting the loader run ahead without limit.
pub const LOADER_QUEUE: usize = 65_536;

/// Context window shown on the parent's gauge: traces do not record it.
const REPLAY_CONTEXT_WINDOW: u64 = 200_000;

/// A running loader.
pub struct Loader {
    pub receiver: mpsc::Receiver<Loaded>,
    /// Ends with the read error, if the file failed part-way; `Ok` at its end
    /// or when the screen stopped listening.
    pub handle: JoinHandle<Result<(), ReplayError>>,
}

/// Starts reading `source` on its own thread.
pub fn spawn_loader(mut source: Source) -> Loader {
    let (sender, receiver) = mpsc::channel(LOADER_QUEUE);
    let handle = std::thread::spawn(move || {
        loop {
            let loaded = match source.next_item()? {
                Some(Item::Event(event)) => Loaded::Event(Box::new(event)),
                Some(Item::Rewind { keep, why }) => Loaded::Rewind {
                    keep,
                    why: match why {
                        Rewound::Revised => None,
                        Rewound::Truncated | Rewound::Replaced => Some(why.to_string()),
                    },
                },
                Some(Item::Skipped(bad)) => Loaded::Skipped {
                    line: bad.line,
                    error: match &bad.file {
                        Some(file) => format!("{}: {}", file.display(), bad.error),
                        None => bad.error,
                    },
                },
                None => {
                    let truncated_tail = source.truncated_tail();
                    let _ = sender.blocking_send(Loaded::Done { truncated_tail });
                    return Ok(());
                }
            };
            if sender.blocking_send(loaded).is_err() {
                // The screen was closed: nobody wants the rest.
                return Ok(());
            }
        }
    });
    Loader { receiver, handle }
}

/// What the workbench's title and gauges show about a replayed session.
pub fn session_info(source: &Source) -> SessionInfo {
    let header = source.header();
    SessionInfo {
        provider: header.provider.clone(),
        model: header.model.clone(),
        light_model: header.light_model.clone(),
        session: header.session.clone(),
        trace_path: Some(source.path().display().to_string()),
        cwd: header.cwd.clone(),
        context_window: REPLAY_CONTEXT_WINDOW,
        sandbox: header.sandbox.clone(),
        instructions: header.instructions.clone(),
        mcp: Vec::new(),
        prices: Default::default(),
        agents: Vec::new(),
        side_warning: Default::default(),
    }
}
