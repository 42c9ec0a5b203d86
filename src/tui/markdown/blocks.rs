//! How a finished block lands in the output: under the prefixes of the
//! containers around it (quote bars, list markers with a hanging indent),
//! after a blank line when one is due, wrapped (prose) or cut (code, rules,
//! tables). Separate from `render.rs`, which decides what the blocks are.

use std::mem;

use ratatui::text::{Line, Span};

use super::render::{Code, Container, Renderer};
use super::table::{Table, layout_table};
use super::width::{cut_spans, fit_prefix};
use super::wrap::wrap_spans;
use crate::tui::highlight::{highlighted, sanitize_into};
use crate::tui::theme::ColorMode;

/// Indentation of code block lines under their label.
const CODE_INDENT: usize = 2;

impl Renderer<'_> {
    /// Wraps the pending inline content as one block under the current prefixes.
    pub(super) fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let spans = mem::take(&mut self.inline);
        self.blank_if_needed();
        let (first, rest) = self.prefixes();
        wrap_spans(&spans, self.width, first, rest, &mut self.out);
        self.mark_markers_used();
    }

    /// Emits pre-laid-out lines (code, rules, tables) under the current
    /// prefixes plus `indent` spaces, cutting each at the width.
    pub(super) fn emit_block<'a, S: AsRef<[Span<'a>]>>(
        &mut self,
        lines: impl IntoIterator<Item = S>,
        indent: usize,
    ) {
        let mut lines = lines.into_iter().peekable();
        if lines.peek().is_none() {
            return;
        }
        self.blank_if_needed();
        let (mut first, mut rest) = self.prefixes();
        first.push(Span::raw(" ".repeat(indent)));
        rest.push(Span::raw(" ".repeat(indent)));
        let (first, first_width) = fit_prefix(first, self.width);
        let (rest, rest_width) = fit_prefix(rest, self.width);
        for (i, body) in lines.enumerate() {
            let (prefix, used) = if i == 0 {
                (&first, first_width)
            } else {
                (&rest, rest_width)
            };
            let (body, _) = cut_spans(body.as_ref(), self.width - used, true);
            let mut spans = prefix.clone();
            spans.extend(body);
            self.out.push(Line::from(spans));
            self.mark_markers_used();
        }
    }

    /// The prefixes of a block's first line and of its other lines.
    fn prefixes(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::with_capacity(self.containers.len());
        let mut rest = Vec::with_capacity(self.containers.len());
        for container in &self.containers {
            match container {
                Container::Quote => {
                    first.push(Span::styled("│ ", self.theme.dim()));
                    rest.push(Span::styled("│ ", self.theme.dim()));
                }
                Container::Item {
                    marker,
                    width,
                    used,
                } => {
                    let pad = " ".repeat(*width);
                    first.push(if *used {
                        Span::raw(pad.clone())
                    } else {
                        Span::raw(marker.clone())
                    });
                    rest.push(Span::raw(pad));
                }
            }
        }
        (first, rest)
    }

    fn mark_markers_used(&mut self) {
        for container in &mut self.containers {
            if let Container::Item { used, .. } = container {
                *used = true;
            }
        }
    }

    /// Separates blocks by one blank line, keeping the quote bars around it.
    pub(super) fn blank_if_needed(&mut self) {
        if !mem::take(&mut self.need_blank) || self.out.is_empty() {
            return;
        }
        let (_, mut spans) = self.prefixes();
        while spans
            .last()
            .is_some_and(|s| s.content.trim_end().is_empty())
        {
            spans.pop();
        }
        if let Some(last) = spans.last_mut() {
            last.content = last.content.trim_end().to_owned().into();
        }
        let (spans, _) = cut_spans(&spans, self.width, false);
        self.out.push(Line::from(spans));
    }

    /// Columns left for a block's content after its first-line prefix.
    fn available(&self) -> usize {
        let (first, _) = self.prefixes();
        self.width - fit_prefix(first, self.width).1
    }

    pub(super) fn rule(&mut self) {
        self.flush();
        let rule = Span::styled("─".repeat(self.available()), self.theme.dim());
        self.emit_block([[rule]], 0);
        self.need_blank = true;
    }

    /// A fenced block: its language on a label line, then its highlighted
    /// lines, indented and cut at the width.
    pub(super) fn code_block(&mut self, code: Code) {
        if let Some(lang) = &code.lang {
            let mut label = String::new();
            sanitize_into(&mut label, lang, &mut 0);
            // Without colour, dimming still tells the label from the code.
            let style = match self.theme.mode {
                ColorMode::Color => self.theme.code(),
                ColorMode::NoColor => self.theme.dim(),
            };
            self.emit_block([[Span::styled(label, style)]], 0);
        }
        let lines = highlighted(&code.text, code.lang.as_deref(), self.theme);
        self.emit_block(lines.iter().map(|line| line.spans.as_slice()), CODE_INDENT);
    }

    pub(super) fn table(&mut self, table: Table) {
        let lines = layout_table(&table, self.available(), self.theme);
        self.emit_block(lines, 0);
    }
}
