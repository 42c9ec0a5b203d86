//! Taking the terminal and giving it back. Every way out — a normal quit, an
//! error, a panic — restores it: raw mode off, main screen back, mouse and paste
//! modes off, cursor shown. A panic restores the terminal before the message is
//! printed, so the message is readable and the shell is usable.

use std::io::{self, Stdout, Write};
use std::sync::Once;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
    disable_raw_mode, enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::backend::CrosstermBackend;
use ratatui::{Frame, Terminal};

pub type Term = Terminal<CrosstermBackend<Stdout>>;

#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    #[error(
        "the workbench needs a terminal, and stdout is not one\n\
         `brood run PROMPT` prints a session instead."
    )]
    NotATerminal,
    #[error("cannot set up the terminal: {0}")]
    Setup(#[source] io::Error),
    #[error("cannot draw: {0}")]
    Draw(#[source] io::Error),
}

/// The terminal while brood owns it; dropping it gives it back.
pub struct TerminalGuard {
    pub terminal: Term,
}

static PANIC_HOOK: Once = Once::new();

/// Enters raw mode and the alternate screen, with mouse and bracketed paste.
pub fn enter() -> Result<TerminalGuard, TerminalError> {
    use std::io::IsTerminal;
    if !io::stdout().is_terminal() {
        return Err(TerminalError::NotATerminal);
    }
    install_panic_hook();
    enable_raw_mode().map_err(TerminalError::Setup)?;
    let mut stdout = io::stdout();
    if let Err(e) = execute!(
        stdout,
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    ) {
        restore();
        return Err(TerminalError::Setup(e));
    }
    match Terminal::new(CrosstermBackend::new(stdout)) {
        Ok(mut terminal) => {
            let _ = terminal.clear();
            Ok(TerminalGuard { terminal })
        }
        Err(e) => {
            restore();
            Err(TerminalError::Setup(e))
        }
    }
}

impl TerminalGuard {
    /// Draws one frame inside a synchronized update (mode 2026), so a terminal
    /// that knows the mode shows the whole frame at once, never half of it.
    /// Terminals that do not know it ignore the two sequences.
    pub fn draw(&mut self, render: impl FnOnce(&mut Frame)) -> Result<(), TerminalError> {
        queue!(self.terminal.backend_mut(), BeginSynchronizedUpdate)
            .map_err(TerminalError::Draw)?;
        let drawn = self.terminal.draw(render).map(|_| ());
        // Ended even when the frame failed, so the terminal never stays paused.
        let ended = execute!(self.terminal.backend_mut(), EndSynchronizedUpdate);
        drawn.and(ended).map_err(TerminalError::Draw)
    }
}

impl TerminalGuard {
    /// Mouse reports on (brood scrolls the pane under the pointer) or off
    /// (the terminal's own selection works).
    pub fn mouse(&mut self, on: bool) -> Result<(), TerminalError> {
        let backend = self.terminal.backend_mut();
        match on {
            true => execute!(backend, EnableMouseCapture),
            false => execute!(backend, DisableMouseCapture),
        }
        .map_err(TerminalError::Draw)
    }

    /// Writes a control sequence brood made itself (OSC 52) between frames.
    pub fn send_sequence(&mut self, sequence: &str) -> Result<(), TerminalError> {
        let backend = self.terminal.backend_mut();
        backend
            .write_all(sequence.as_bytes())
            .and_then(|()| backend.flush())
            .map_err(TerminalError::Draw)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
        let _ = self.terminal.show_cursor();
    }
}

/// Puts the terminal back as the shell expects it. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let mut stdout = io::stdout();
    let _ = execute!(
        stdout,
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = stdout.flush();
}

/// Restores the terminal before the default panic message is printed.
fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
