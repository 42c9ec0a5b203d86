//! One source line at a time through syntect's parser, into styled spans:
//! tokens coloured by their class, neighbours of one style merged, tabs
//! expanded. Separate from the cache, which decides which lines to parse.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference};

use super::MAX_HIGHLIGHT_LINE_BYTES;
use super::language::syntaxes;
use super::sanitize::{sanitize_into, strip_controls};
use super::scopes::classify_token;
use crate::tui::theme::Theme;

/// syntect's parser plus the scope stack it drives.
#[derive(Clone)]
pub(super) struct Parser {
    state: ParseState,
    stack: ScopeStack,
    /// Set after a parse error: the rest of the block renders plain.
    failed: bool,
    buf: String,
}

impl Parser {
    pub(super) fn new(syntax: &SyntaxReference) -> Self {
        Parser {
            state: ParseState::new(syntax),
            stack: ScopeStack::new(),
            failed: false,
            buf: String::new(),
        }
    }

    /// Highlights one source line (without its `\n`).
    pub(super) fn line(&mut self, raw: &str, theme: &Theme) -> Line<'static> {
        let text = strip_controls(raw.strip_suffix('\r').unwrap_or(raw));
        let text = text.as_ref();
        if self.failed || text.len() > MAX_HIGHLIGHT_LINE_BYTES {
            return plain_line(text, theme.text());
        }
        self.buf.clear();
        self.buf.push_str(text);
        self.buf.push('\n');
        let Ok(ops) = self.state.parse_line(&self.buf, syntaxes()) else {
            self.failed = true;
            return plain_line(text, theme.text());
        };
        let mut out = LineBuilder::default();
        let mut from = 0;
        for (at, op) in &ops {
            let at = (*at).min(text.len());
            if at > from {
                let token = text.get(from..at).unwrap_or_default();
                out.push(
                    token,
                    classify_token(self.stack.as_slice(), token).style(theme),
                );
                from = at;
            }
            if self.stack.apply(op).is_err() {
                self.failed = true;
                break;
            }
        }
        let token = text.get(from..).unwrap_or_default();
        out.push(
            token,
            classify_token(self.stack.as_slice(), token).style(theme),
        );
        out.finish()
    }
}

/// Builds a line from styled pieces, merging neighbours of the same style and
/// expanding tabs against the running column.
#[derive(Default)]
struct LineBuilder {
    spans: Vec<Span<'static>>,
    col: usize,
}

impl LineBuilder {
    fn push(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => {
                sanitize_into(last.content.to_mut(), text, &mut self.col)
            }
            _ => {
                let mut content = String::with_capacity(text.len());
                sanitize_into(&mut content, text, &mut self.col);
                self.spans.push(Span::styled(content, style));
            }
        }
    }

    fn finish(self) -> Line<'static> {
        Line::from(self.spans)
    }
}

fn plain_line(text: &str, style: Style) -> Line<'static> {
    let mut out = LineBuilder::default();
    out.push(text, style);
    out.finish()
}

pub(super) fn plain_lines(code: &str, style: Style) -> Vec<Line<'static>> {
    code.lines().map(|line| plain_line(line, style)).collect()
}
