//! The workbench's styles. Named ANSI colours only, so the user's terminal theme
//! and 16-colour terminals decide the actual shades; with `NO_COLOR` every style
//! keeps its modifiers (bold, dim, reversed) and loses its colour, and every state
//! is also told by a glyph or a word, so nothing is lost.
//!
//! Text reads on a light background as on a dark one: no text in yellow,
//! white, grey or the light colours that vanish on white ([`LOST_ON_LIGHT`]),
//! nor in black or dark grey, which vanish on black ([`LOST_ON_DARK`]).
//! Warnings are light red (the orange of most palettes); what must catch the
//! eye, the approval dialog's title, is black on yellow, which reads on both.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    Color,
    /// `NO_COLOR` is set: modifiers only.
    NoColor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub mode: ColorMode,
}

impl Theme {
    pub fn new(mode: ColorMode) -> Self {
        Theme { mode }
    }

    /// Colour unless `NO_COLOR` is set (any non-empty value, per no-color.org).
    pub fn from_env() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme::new(if no_color {
            ColorMode::NoColor
        } else {
            ColorMode::Color
        })
    }

    fn fg(&self, color: Color) -> Style {
        match self.mode {
            ColorMode::Color => Style::default().fg(color),
            ColorMode::NoColor => Style::default(),
        }
    }

    /// Plain text.
    pub fn text(&self) -> Style {
        Style::default()
    }

    /// Focused borders, the selected row, links.
    pub fn focus(&self) -> Style {
        self.fg(Color::Cyan)
    }

    /// The selected row of a list: reversed, so it shows without colour too.
    pub fn selected(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::REVERSED)
    }

    pub fn success(&self) -> Style {
        self.fg(Color::Green)
    }

    /// Errors, failures and denials.
    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// Warnings and budgets past 75 %.
    pub fn warning(&self) -> Style {
        self.fg(Color::LightRed)
    }

    /// What must catch the eye on any background: black on yellow, bold;
    /// reversed without colour.
    pub fn alert(&self) -> Style {
        match self.mode {
            ColorMode::Color => Style::default().fg(Color::Black).bg(Color::Yellow),
            ColorMode::NoColor => Style::default().add_modifier(Modifier::REVERSED),
        }
        .add_modifier(Modifier::BOLD)
    }

    /// The agent's own voice: its name before its messages.
    pub fn agent(&self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    /// A child's id, in the color its profile asks for: Claude Code's agent
    /// colors, or the agents' own when there is none or it is unknown.
    pub fn child(&self, color: Option<&str>) -> Style {
        let named = match color.map(|c| c.trim().to_ascii_lowercase()).as_deref() {
            Some("red") => Color::Red,
            Some("blue") => Color::Blue,
            Some("green") => Color::Green,
            // Yellow text is lost on a light background.
            Some("yellow") => Color::LightRed,
            Some("purple" | "magenta") => Color::Magenta,
            Some("orange") => Color::LightRed,
            Some("pink") => Color::LightMagenta,
            Some("cyan") => Color::Cyan,
            Some(_) | None => return self.agent(),
        };
        self.fg(named).add_modifier(Modifier::BOLD)
    }

    /// The user's name before their messages.
    pub fn user(&self) -> Style {
        self.fg(Color::Blue).add_modifier(Modifier::BOLD)
    }

    /// Secondary text: timings, counts, hints.
    pub fn dim(&self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }

    pub fn bold(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    /// Inline code and code blocks' frame.
    pub fn code(&self) -> Style {
        self.fg(Color::Cyan)
    }

    pub fn heading(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// A gauge's fill for a share of its limit: green, light red (a warning)
    /// past 75 %, red past 90 %.
    pub fn gauge(&self, ratio: f64) -> Style {
        if ratio >= 0.9 {
            self.fg(Color::Red)
        } else if ratio >= 0.75 {
            self.warning()
        } else {
            self.fg(Color::Green)
        }
    }

    /// A diff's added lines and count.
    pub fn added(&self) -> Style {
        self.fg(Color::Green)
    }

    /// A diff's removed lines and count (red, not bold: there may be many).
    pub fn removed(&self) -> Style {
        self.fg(Color::Red)
    }

    /// A diff's `@@` hunk headers.
    pub fn hunk(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::DIM)
    }

    /// A search's matches; the current one is [`Theme::selected`].
    pub fn found(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::REVERSED)
    }

    /// A syntax-highlighting colour; `None` under `NO_COLOR`.
    pub fn syntax(&self, color: Color) -> Style {
        self.fg(color)
    }
}

/// Colours that vanish as text on a light background.
pub const LOST_ON_LIGHT: [Color; 6] = [
    Color::Yellow,
    Color::LightYellow,
    Color::White,
    Color::Gray,
    Color::LightGreen,
    Color::LightCyan,
];

/// Colours that vanish as text on a dark background.
pub const LOST_ON_DARK: [Color; 2] = [Color::Black, Color::DarkGray];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_keeps_modifiers_and_drops_colours() {
        let plain = Theme::new(ColorMode::NoColor);
        assert_eq!(plain.error().fg, None);
        assert!(plain.error().add_modifier.contains(Modifier::BOLD));
        assert!(plain.selected().add_modifier.contains(Modifier::REVERSED));
        let colored = Theme::new(ColorMode::Color);
        assert_eq!(colored.error().fg, Some(Color::Red));
        assert_eq!(colored.gauge(0.5).fg, Some(Color::Green));
        assert_eq!(colored.gauge(0.8).fg, Some(Color::LightRed));
        assert_eq!(colored.gauge(0.95).fg, Some(Color::Red));
    }
}
