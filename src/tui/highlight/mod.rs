//! Syntax highlighting for code blocks, in named ANSI colours.
//!
//! syntect's RGB themes would fight the user's terminal theme and 16-colour
//! terminals, so only its parser is used: each token's scope stack is mapped
//! to a handful of named colours through [`Theme::syntax`], which also makes
//! `NO_COLOR` drop them. Parsing with pure-Rust regexes is slow (tens of µs per
//! line), so work is capped and results are cached, including the parser state
//! after the last complete line, so a code block that grows while it streams
//! is only parsed for its new lines.
//!
//! The parts: `language` finds a fence's syntax, `scopes` maps scopes to
//! colour classes, `cache` keeps and resumes highlighted blocks, `lines`
//! turns parsed tokens into spans, and `sanitize` makes text safe for a
//! terminal cell grid.

mod cache;
mod language;
mod lines;
mod sanitize;
mod scopes;

use std::sync::Arc;

use ratatui::text::Line;

use super::theme::Theme;
use cache::highlight_cached;
use language::find_syntax;
use lines::plain_lines;
pub(crate) use sanitize::sanitize_into;

/// Blocks longer than this render unhighlighted: parsing them would stall a frame.
pub const MAX_HIGHLIGHT_LINES: usize = 2_000;
/// Blocks bigger than this render unhighlighted, for the same reason.
pub const MAX_HIGHLIGHT_BYTES: usize = 200 * 1024;
/// Single lines longer than this (minified files) render unhighlighted: regex
/// work grows with line length and nobody reads such a line's colours.
pub const MAX_HIGHLIGHT_LINE_BYTES: usize = 4 * 1024;
/// Tab stops used when tabs are expanded for display.
pub const TAB_WIDTH: usize = 4;

/// Highlights `code` as `lang` (a fence token such as `rs`, `python`, `sh`, or a
/// file name), one [`Line`] per source line, tabs expanded and control
/// characters removed. Unknown languages and oversized blocks come back as
/// plain text. Never panics.
pub fn highlight_code(code: &str, lang: Option<&str>, theme: &Theme) -> Vec<Line<'static>> {
    highlighted(code, lang, theme).as_ref().clone()
}

/// Like [`highlight_code`], but shares the cached result instead of copying it.
pub(crate) fn highlighted(
    code: &str,
    lang: Option<&str>,
    theme: &Theme,
) -> Arc<Vec<Line<'static>>> {
    let syntax = lang.and_then(find_syntax);
    match syntax {
        Some(syntax) if within_limits(code) => highlight_cached(code, syntax, theme),
        _ => Arc::new(plain_lines(code, theme.text())),
    }
}

fn within_limits(code: &str) -> bool {
    code.len() <= MAX_HIGHLIGHT_BYTES
        && code.bytes().filter(|&b| b == b'\n').count() < MAX_HIGHLIGHT_LINES
}

#[cfg(test)]
mod tests;
