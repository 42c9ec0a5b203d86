//! Assistant markdown as styled, wrapped ratatui lines, and plain text (tool
//! output) wrapped or cut to a width.
//!
//! The caller caches the result per message and width, so this renders the
//! whole text in one pass: pulldown-cmark events drive a small block renderer
//! that collects each block's inline spans and word-wraps them under the
//! prefixes of the containers around it (quote bars, list markers with a
//! hanging indent). Code and tables are never wrapped, only cut with `…`, so
//! they keep their shape. Every style comes from [`Theme`].

use std::mem;

use pulldown_cmark::{
    Alignment, BlockQuoteKind, CodeBlockKind, Event, Options, Parser, Tag, TagEnd,
};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::highlight::{highlighted, sanitize_into};
use super::theme::{ColorMode, Theme};

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

/// A block that prefixes the lines of the blocks inside it.
#[derive(Debug)]
enum Container {
    /// `│ ` before every line.
    Quote,
    /// A list item: its marker on its first line, then as many spaces.
    Item {
        marker: String,
        width: usize,
        used: bool,
    },
}

struct Code {
    lang: Option<String>,
    text: String,
}

struct Link {
    url: String,
    text: String,
}

struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    header_rows: usize,
}

/// Bullets by nesting depth, so nested lists read apart without indentation
/// guides.
const BULLETS: [&str; 3] = ["•", "◦", "‣"];
/// Indentation of code block lines under their label.
const CODE_INDENT: usize = 2;

struct Renderer<'t> {
    theme: &'t Theme,
    width: usize,
    out: Vec<Line<'static>>,
    /// The current block's inline content; `"\n"` spans are hard breaks.
    inline: Vec<Span<'static>>,
    /// Inline styles, innermost last; never empty.
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// Open lists, innermost last: the next number, or `None` for bullets.
    lists: Vec<Option<u64>>,
    links: Vec<Link>,
    code: Option<Code>,
    table: Option<Table>,
    /// A block ended: the next one starts after a blank line.
    need_blank: bool,
}

impl<'t> Renderer<'t> {
    fn new(width: usize, theme: &'t Theme) -> Self {
        Renderer {
            theme,
            width,
            out: Vec::new(),
            inline: Vec::new(),
            styles: vec![theme.text()],
            containers: Vec::new(),
            lists: Vec::new(),
            links: Vec::new(),
            code: None,
            table: None,
            need_blank: false,
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        if let Some(code) = self.code.take() {
            self.code_block(code);
        }
        self.out
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) | Event::InlineMath(code) | Event::DisplayMath(code) => {
                self.inline_code(&code)
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.inline.push(Span::raw("\n")),
            Event::Rule => self.rule(),
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock | Tag::FootnoteDefinition(_) => self.flush(),
            Tag::DefinitionList | Tag::DefinitionListTitle | Tag::DefinitionListDefinition => {
                self.flush()
            }
            Tag::MetadataBlock(_) => self.flush(),
            Tag::Heading { .. } => {
                self.flush();
                self.push_style(self.theme.heading());
            }
            Tag::BlockQuote(kind) => {
                self.flush();
                // The blank line before a quote is outside it, without a bar.
                self.blank_if_needed();
                self.containers.push(Container::Quote);
                self.push_style(self.theme.dim());
                if let Some(kind) = kind {
                    self.alert_label(kind);
                }
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().map(str::to_owned)
                    }
                    CodeBlockKind::Indented => None,
                };
                self.code = Some(Code {
                    lang,
                    text: String::new(),
                });
            }
            Tag::List(start) => {
                self.flush();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = self.next_marker();
                let width = marker.width();
                self.containers.push(Container::Item {
                    marker,
                    width,
                    used: false,
                });
            }
            Tag::Table(aligns) => {
                self.flush();
                self.table = Some(Table {
                    aligns,
                    rows: Vec::new(),
                    header_rows: 0,
                });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(table) = &mut self.table {
                    table.rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Superscript | Tag::Subscript => self.push_style(Style::new()),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push(Link {
                    url: dest_url.into_string(),
                    text: String::new(),
                });
                self.push_style(self.theme.focus().add_modifier(Modifier::UNDERLINED));
            }
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock | TagEnd::FootnoteDefinition => self.end_block(),
            TagEnd::DefinitionList | TagEnd::DefinitionListTitle => self.end_block(),
            TagEnd::DefinitionListDefinition | TagEnd::MetadataBlock(_) => self.end_block(),
            TagEnd::Heading(_) => {
                self.end_block();
                self.pop_style();
            }
            TagEnd::BlockQuote(_) => {
                self.end_block();
                self.containers.pop();
                self.pop_style();
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.code_block(code);
                }
                self.need_blank = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                // A nested list of a tight item runs on with its parent's items.
                let in_item = self
                    .containers
                    .iter()
                    .any(|c| matches!(c, Container::Item { .. }));
                self.need_blank |= !in_item;
            }
            TagEnd::Item => self.end_item(),
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.table(table);
                }
                self.need_blank = true;
            }
            TagEnd::TableHead => {
                if let Some(table) = &mut self.table {
                    table.header_rows = table.rows.len();
                }
            }
            TagEnd::TableRow => {}
            TagEnd::TableCell => {
                let cell = mem::take(&mut self.inline);
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.push(cell);
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Superscript | TagEnd::Subscript => self.pop_style(),
            TagEnd::Link | TagEnd::Image => self.end_link(),
        }
    }

    fn end_block(&mut self) {
        self.flush();
        self.need_blank = true;
    }

    /// Closes an item; an empty one still shows its marker.
    fn end_item(&mut self) {
        self.flush();
        if let Some(Container::Item { used: false, .. }) = self.containers.last() {
            self.emit_block([Vec::<Span<'static>>::new()], 0);
        }
        self.containers.pop();
    }

    /// Ends a link: the URL follows in parentheses unless the text already is it.
    fn end_link(&mut self) {
        self.pop_style();
        let Some(link) = self.links.pop() else { return };
        let shown = link.text.trim();
        let bare = link.url.strip_prefix("mailto:").unwrap_or(&link.url);
        if !link.url.is_empty() && shown != link.url && shown != bare {
            let style = self.style().patch(self.theme.dim());
            self.push_text(&format!(" ({})", link.url), style);
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, style: Style) {
        self.styles.push(self.style().patch(style));
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(code) = &mut self.code {
            code.text.push_str(text);
            return;
        }
        if let Some(link) = self.links.last_mut() {
            link.text.push_str(text);
        }
        self.push_text(text, self.style());
    }

    /// Inline code in the code style; under `NO_COLOR` that style is plain,
    /// so the backticks stay to tell code from prose.
    fn inline_code(&mut self, code: &str) {
        let style = self.style().patch(self.theme.code());
        match self.theme.mode {
            ColorMode::Color => self.push_text(code, style),
            ColorMode::NoColor => self.push_text(&format!("`{code}`"), style),
        }
    }

    /// Appends text to the current block, made safe for the terminal; line
    /// feeds (from HTML) become hard breaks.
    fn push_text(&mut self, text: &str, style: Style) {
        for (i, part) in text.split('\n').enumerate() {
            if i > 0 {
                self.inline.push(Span::raw("\n"));
            }
            if !part.is_empty() {
                let mut clean = String::with_capacity(part.len());
                sanitize_into(&mut clean, part, &mut 0);
                self.inline.push(Span::styled(clean, style));
            }
        }
    }

    fn next_marker(&mut self) -> String {
        let depth = self.lists.len().saturating_sub(1);
        match self.lists.last_mut() {
            Some(Some(number)) => {
                let marker = format!("{number}. ");
                *number = number.saturating_add(1);
                marker
            }
            _ => format!("{} ", BULLETS[depth % BULLETS.len()]),
        }
    }

    /// The title line of a GitHub alert (`> [!NOTE]`).
    fn alert_label(&mut self, kind: BlockQuoteKind) {
        let label = match kind {
            BlockQuoteKind::Note => "Note",
            BlockQuoteKind::Tip => "Tip",
            BlockQuoteKind::Important => "Important",
            BlockQuoteKind::Warning => "Warning",
            BlockQuoteKind::Caution => "Caution",
        };
        let style = self.style().patch(self.theme.bold());
        self.push_text(label, style);
        self.flush();
    }

    /// Wraps the pending inline content as one block under the current prefixes.
    fn flush(&mut self) {
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
    fn emit_block<'a, S: AsRef<[Span<'a>]>>(
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
    fn blank_if_needed(&mut self) {
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

    fn rule(&mut self) {
        self.flush();
        let rule = Span::styled("─".repeat(self.available()), self.theme.dim());
        self.emit_block([[rule]], 0);
        self.need_blank = true;
    }

    /// A fenced block: its language on a label line, then its highlighted
    /// lines, indented and cut at the width.
    fn code_block(&mut self, code: Code) {
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

    fn table(&mut self, table: Table) {
        let lines = layout_table(&table, self.available(), self.theme);
        self.emit_block(lines, 0);
    }
}

/// Lays a table out in columns separated by ` │ `, the header bold and ruled
/// off. Columns too wide for `available` are narrowed from the widest down,
/// their cells cut with `…`.
fn layout_table(table: &Table, available: usize, theme: &Theme) -> Vec<Vec<Span<'static>>> {
    let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in &table.rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(spans_width(cell));
        }
    }
    let budget = available.saturating_sub(3 * columns.saturating_sub(1));
    if widths.iter().sum::<usize>() > budget && budget >= columns {
        let cap = water_level(&widths, budget);
        widths.iter_mut().for_each(|w| *w = (*w).min(cap));
    }
    let mut lines = Vec::with_capacity(table.rows.len() + 1);
    for (r, row) in table.rows.iter().enumerate() {
        let header = r < table.header_rows;
        let mut spans = Vec::new();
        for (i, &width) in widths.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" │ ", theme.dim()));
            }
            let cell = row.get(i).map(Vec::as_slice).unwrap_or_default();
            let (mut content, used) = cut_spans(cell, width, true);
            if header {
                content
                    .iter_mut()
                    .for_each(|s| s.style = s.style.patch(theme.bold()));
            }
            let align = table.aligns.get(i).copied().unwrap_or(Alignment::None);
            let last = i + 1 == widths.len();
            pad_cell(&mut spans, content, width - used, align, last);
        }
        lines.push(spans);
        if header && r + 1 == table.header_rows {
            let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
            lines.push(vec![Span::styled(rule.join("─┼─"), theme.dim())]);
        }
    }
    lines
}

/// Adds a cell's content with `spare` columns of padding placed by its
/// alignment; the last column gets no trailing padding.
fn pad_cell(
    spans: &mut Vec<Span<'static>>,
    content: Vec<Span<'static>>,
    spare: usize,
    align: Alignment,
    last: bool,
) {
    let before = match align {
        Alignment::Right => spare,
        Alignment::Center => spare / 2,
        Alignment::None | Alignment::Left => 0,
    };
    if before > 0 {
        spans.push(Span::raw(" ".repeat(before)));
    }
    spans.extend(content);
    if !last && spare > before {
        spans.push(Span::raw(" ".repeat(spare - before)));
    }
}

/// The largest column cap that fits `budget`: narrowing only the widest
/// columns keeps the short ones (numbers, flags) whole.
fn water_level(widths: &[usize], budget: usize) -> usize {
    let (mut low, mut high) = (1, widths.iter().copied().max().unwrap_or(1));
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if widths.iter().map(|&w| w.min(mid)).sum::<usize>() <= budget {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}

const ZWJ: char = '\u{200d}';

/// Splits text into user-perceived characters, as `(start, end, width)`: a
/// base character with the zero-width marks after it (accents, variation
/// selectors) and ZWJ-joined followers, measured as ratatui measures them, so
/// wrapping never separates an emoji from its modifiers.
fn clusters(text: &str) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        let rest = text.get(pos..)?;
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        let mut end = first.len_utf8();
        let mut joined = first == ZWJ;
        for (i, c) in chars {
            let zero_width = c.width() == Some(0);
            if !(zero_width || (joined && !c.is_control())) {
                break;
            }
            end = i + c.len_utf8();
            joined = c == ZWJ;
        }
        let width = if end == first.len_utf8() {
            first.width().unwrap_or(0)
        } else {
            rest.get(..end).map_or(0, UnicodeWidthStr::width)
        };
        let start = pos;
        pos += end;
        Some((start, pos, width))
    })
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(Span::width).sum()
}

/// Copies spans cut to `max` columns; with `ellipsis`, a cut ends in `…`.
/// Stops reading as soon as the cut is certain, so a 100 KB line costs no more
/// than a short one. Returns the spans and their width.
fn cut_spans(spans: &[Span<'_>], max: usize, ellipsis: bool) -> (Vec<Span<'static>>, usize) {
    let limit = if ellipsis { max.saturating_sub(1) } else { max };
    let mut cut = None;
    let mut total = 0;
    'scan: for (i, span) in spans.iter().enumerate() {
        for (start, _, width) in clusters(&span.content) {
            if cut.is_none() && total + width > limit {
                cut = Some((i, start, total));
            }
            total += width;
            if total > max {
                break 'scan;
            }
        }
    }
    let owned = |s: &Span<'_>, text: &str| Span::styled(text.to_owned(), s.style);
    let Some((at, byte, width)) = cut.filter(|_| total > max) else {
        return (spans.iter().map(|s| owned(s, &s.content)).collect(), total);
    };
    let mut out: Vec<Span<'static>> = spans
        .iter()
        .take(at)
        .map(|s| owned(s, &s.content))
        .collect();
    let Some(span) = spans.get(at) else {
        return (out, width);
    };
    let mut head = span.content.get(..byte).unwrap_or_default();
    let mut width = width;
    if ellipsis {
        // `long …` reads worse than `long…`.
        let trimmed = head.trim_end_matches(' ');
        width -= head.len() - trimmed.len();
        head = trimmed;
    }
    if !head.is_empty() {
        out.push(owned(span, head));
    }
    if ellipsis && max > 0 {
        match out.last_mut() {
            Some(last) if last.style == span.style => last.content.to_mut().push('…'),
            _ => out.push(Span::styled("…", span.style)),
        }
        return (out, width + 1);
    }
    (out, width)
}

/// A prefix that leaves at least one column for text, cut if need be.
fn fit_prefix(mut prefix: Vec<Span<'static>>, width: usize) -> (Vec<Span<'static>>, usize) {
    prefix.retain(|span| !span.content.is_empty());
    let used = spans_width(&prefix);
    if used < width {
        (prefix, used)
    } else {
        cut_spans(&prefix, width.saturating_sub(1), false)
    }
}

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
fn wrap_spans(
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

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
