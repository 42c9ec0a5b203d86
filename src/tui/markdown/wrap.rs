//! Word wrapping of styled spans under a first-line and a continuation
//! prefix. Separate from the renderer: plain text (`wrap_plain`) and
//! markdown blocks both wrap through it.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::width::{clusters, fit_prefix};

/// Byte ranges of the source spans forming one word or one gap between words.
#[derive(Default)]
struct Run {
    /// `(span index, start, end, width)`, adjacent ranges merged.
    parts: Vec<(usize, usize, usize, usize)>,
    width: usize,
}

impl Run {
    fn add(&mut self, span: usize, start: usize, end: usize, width: usize) {
        match self.parts.last_mut() {
            Some(last) if last.0 == span && last.2 == start => {
                last.2 = end;
                last.3 += width;
            }
            _ => self.parts.push((span, start, end, width)),
        }
        self.width += width;
    }

    fn clear(&mut self) {
        self.parts.clear();
        self.width = 0;
    }
}

/// Word-wraps styled spans to `width` columns into `out`, the first line after
/// `first` and the others after `rest` (both cut to leave a column for text).
/// Breaks at spaces and around wide (CJK) characters; a word wider than a line
/// is split between characters. A `"\n"` in the text is a hard break.
pub(super) fn wrap_spans(
    spans: &[Span<'_>],
    width: usize,
    first: Vec<Span<'static>>,
    rest: Vec<Span<'static>>,
    out: &mut Vec<Line<'static>>,
) {
    let mut sink = Sink::new(
        out,
        width,
        fit_prefix(first, width),
        fit_prefix(rest, width),
    );
    let mut word = Run::default();
    let mut gap = Run::default();
    for (i, span) in spans.iter().enumerate() {
        let text: &str = &span.content;
        for (start, end, w) in clusters(text) {
            match text.as_bytes().get(start) {
                Some(b'\n') => {
                    sink.place(&word, &gap, spans);
                    word.clear();
                    gap.clear();
                    sink.newline();
                }
                Some(b' ') => {
                    if !word.parts.is_empty() {
                        sink.place(&word, &gap, spans);
                        word.clear();
                        gap.clear();
                    }
                    gap.add(i, start, end, w);
                }
                _ if w >= 2 => {
                    if !word.parts.is_empty() {
                        sink.place(&word, &gap, spans);
                        word.clear();
                        gap.clear();
                    }
                    word.add(i, start, end, w);
                    sink.place(&word, &gap, spans);
                    word.clear();
                    gap.clear();
                }
                _ => word.add(i, start, end, w),
            }
        }
    }
    sink.place(&word, &gap, spans);
    sink.finish();
}

/// Collects wrapped output lines, each behind its prefix.
struct Sink<'o> {
    out: &'o mut Vec<Line<'static>>,
    width: usize,
    first: (Vec<Span<'static>>, usize),
    rest: (Vec<Span<'static>>, usize),
    spans: Vec<Span<'static>>,
    used: usize,
    on_first: bool,
    emitted: bool,
}

impl<'o> Sink<'o> {
    fn new(
        out: &'o mut Vec<Line<'static>>,
        width: usize,
        first: (Vec<Span<'static>>, usize),
        rest: (Vec<Span<'static>>, usize),
    ) -> Self {
        Sink {
            out,
            width,
            first,
            rest,
            spans: Vec::new(),
            used: 0,
            on_first: true,
            emitted: false,
        }
    }

    /// Columns for text on the current line.
    fn available(&self) -> usize {
        self.width
            - if self.on_first {
                self.first.1
            } else {
                self.rest.1
            }
    }

    /// Places a word after its gap: on this line if both fit, else on the next,
    /// split across lines only when it fits on none.
    fn place(&mut self, word: &Run, gap: &Run, src: &[Span<'_>]) {
        if word.parts.is_empty() {
            return;
        }
        let lead = if self.used == 0 { 0 } else { gap.width };
        if self.used + lead + word.width <= self.available() {
            if lead > 0 {
                self.push_run(gap, src);
            }
            self.push_run(word, src);
        } else if word.width <= self.width - self.rest.1 {
            self.newline();
            self.push_run(word, src);
        } else {
            self.split_run(word, src);
        }
    }

    fn push_run(&mut self, run: &Run, src: &[Span<'_>]) {
        for &(i, start, end, width) in &run.parts {
            if let Some(span) = src.get(i) {
                self.push(
                    span.content.get(start..end).unwrap_or_default(),
                    span.style,
                    width,
                );
            }
        }
    }

    /// Hard-splits an over-long word between characters, starting on a fresh
    /// line. A wide character on a one-column line shows as `…`.
    fn split_run(&mut self, run: &Run, src: &[Span<'_>]) {
        if self.used > 0 {
            self.newline();
        }
        for &(i, start, end, _) in &run.parts {
            let Some(span) = src.get(i) else { continue };
            let text = span.content.get(start..end).unwrap_or_default();
            for (s, e, w) in clusters(text) {
                if self.used + w > self.available() && self.used > 0 {
                    self.newline();
                }
                if w > self.available() {
                    self.push("…", span.style, 1);
                } else {
                    self.push(text.get(s..e).unwrap_or_default(), span.style, w);
                }
            }
        }
    }

    fn push(&mut self, text: &str, style: Style, width: usize) {
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.spans.push(Span::styled(text.to_owned(), style)),
        }
        self.used += width;
    }

    fn newline(&mut self) {
        let prefix = if self.on_first {
            &self.first.0
        } else {
            &self.rest.0
        };
        let mut spans = Vec::with_capacity(prefix.len() + self.spans.len());
        spans.extend(prefix.iter().cloned());
        spans.append(&mut self.spans);
        self.out.push(Line::from(spans));
        self.used = 0;
        self.on_first = false;
        self.emitted = true;
    }

    fn finish(mut self) {
        if self.used > 0 || !self.spans.is_empty() || !self.emitted {
            self.newline();
        }
    }
}
