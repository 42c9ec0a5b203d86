//! The signals that ask brood to stop. Each ends the running turn as an
//! interrupt, so tools kill what they started and the trace ends with
//! `interrupted`, whether the user pressed Ctrl-C, closed the terminal (SIGHUP)
//! or a supervisor sent SIGTERM.

use tokio::signal::unix::{SignalKind, signal};

/// Which signals to wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listen {
    /// SIGINT too: no screen reads Ctrl-C as a key.
    WithCtrlC,
    /// Only SIGTERM and SIGHUP: the workbench's raw terminal turns Ctrl-C into
    /// a key of its own.
    WithoutCtrlC,
}

/// The signal that came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Interrupt,
    Terminate,
    HangUp,
}

/// Waits for the first stop signal. If a handler cannot be installed, that
/// signal keeps its default action (brood ends), which is never worse.
pub async fn stop_requested(listen: Listen) -> Stop {
    let mut term = signal(SignalKind::terminate()).ok();
    let mut hup = signal(SignalKind::hangup()).ok();
    let mut int = match listen {
        Listen::WithCtrlC => signal(SignalKind::interrupt()).ok(),
        Listen::WithoutCtrlC => None,
    };
    async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
        match signal {
            Some(signal) => {
                signal.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    tokio::select! {
        () = next(&mut term) => Stop::Terminate,
        () = next(&mut hup) => Stop::HangUp,
        () = next(&mut int) => Stop::Interrupt,
    }
}
