//! Assistant markdown as styled, wrapped ratatui lines, and plain text (tool
//! output) wrapped or cut to a width.
//!
//! The caller caches the result per message and width, so this renders the
//! whole text in one pass: pulldown-cmark events drive a small block renderer
//! that collects each block's inline spans and word-wraps them under the
//! prefixes of the containers around it (quote bars, list markers with a
//! hanging indent). Code and tables are never wrapped, only cut with `…`, so
//! they keep their shape. Every style comes from [`Theme`].
//!
//! The parts: `render` turns pulldown-cmark events into blocks and their
//! inline spans, `blocks` places a finished block under its containers'
//! prefixes, `table` lays out tables, `width` measures and cuts spans by
//! display width, and `wrap` word-wraps them.

mod blocks;
mod render;
mod table;
mod width;
mod wrap;

use pulldown_cmark::{Options, Parser};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::highlight::sanitize_into;
use super::theme::Theme;
use render::Renderer;
use width::cut_spans;
use wrap::wrap_spans;

/// Renders markdown to lines at most `width` display columns wide (a width of
/// 0 is treated as 1). Never panics; half-written markdown from a stream
/// renders as CommonMark reads it, so an unclosed fence is code to the end.
pub fn render_markdown(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    let mut renderer = Renderer::new(usize::from(width).max(1), theme);
    for event in Parser::new_ext(text, options) {
        renderer.event(event);
    }
    renderer.finish()
}

/// What to do with a line wider than the width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    /// Word-wrap, continuing under the line's own indentation.
    Wrap,
    /// Cut at the width and end with `…`.
    Cut,
}

/// Lays out plain text (tool output) in one style: each source line wrapped or
/// cut to `width` columns (0 is treated as 1). Leading indentation is kept,
/// and wrapped continuations hang under it; tabs are expanded, escape
/// sequences dropped, and a carriage return shows only what was written after
/// it, as a terminal would. Empty text gives no lines.
pub fn wrap_plain(text: &str, width: u16, style: Style, overflow: Overflow) -> Vec<Line<'static>> {
    let width = usize::from(width).max(1);
    let mut out = Vec::new();
    let mut buf = String::new();
    for raw in text.lines() {
        let visible = raw.rsplit('\r').find(|s| !s.is_empty()).unwrap_or_default();
        buf.clear();
        sanitize_into(&mut buf, visible, &mut 0);
        let body = buf.trim_start_matches(' ');
        let indent = buf.len() - body.len();
        match overflow {
            Overflow::Cut => {
                let (spans, _) = cut_spans(&[Span::styled(buf.as_str(), style)], width, true);
                out.push(Line::from(spans));
            }
            Overflow::Wrap => {
                let first = vec![Span::styled(" ".repeat(indent), style)];
                let rest = if indent * 2 <= width {
                    first.clone()
                } else {
                    Vec::new()
                };
                wrap_spans(&[Span::styled(body, style)], width, first, rest, &mut out);
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "../markdown_tests.rs"]
mod tests;
