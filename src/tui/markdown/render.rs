//! The block renderer: what each pulldown-cmark event does to the open
//! containers, the inline style stack and the current block's spans.
//! Separate from `blocks.rs`, which places a finished block in the output,
//! so the event handling reads on its own.

use std::mem;

use pulldown_cmark::{BlockQuoteKind, CodeBlockKind, Event, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::table::Table;
use crate::tui::highlight::sanitize_into;
use crate::tui::theme::{ColorMode, Theme};

/// A block that prefixes the lines of the blocks inside it.
#[derive(Debug)]
pub(super) enum Container {
    /// `│ ` before every line.
    Quote,
    /// A list item: its marker on its first line, then as many spaces.
    Item {
        marker: String,
        width: usize,
        used: bool,
    },
}

pub(super) struct Code {
    pub(super) lang: Option<String>,
    pub(super) text: String,
}

struct Link {
    url: String,
    text: String,
}

/// Bullets by nesting depth, so nested lists read apart without indentation
/// guides.
const BULLETS: [&str; 3] = ["•", "◦", "‣"];

pub(super) struct Renderer<'t> {
    pub(super) theme: &'t Theme,
    pub(super) width: usize,
    pub(super) out: Vec<Line<'static>>,
    /// The current block's inline content; `"\n"` spans are hard breaks.
    pub(super) inline: Vec<Span<'static>>,
    /// Inline styles, innermost last; never empty.
    styles: Vec<Style>,
    pub(super) containers: Vec<Container>,
    /// Open lists, innermost last: the next number, or `None` for bullets.
    lists: Vec<Option<u64>>,
    links: Vec<Link>,
    code: Option<Code>,
    table: Option<Table>,
    /// A block ended: the next one starts after a blank line.
    pub(super) need_blank: bool,
}

impl<'t> Renderer<'t> {
    pub(super) fn new(width: usize, theme: &'t Theme) -> Self {
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

    pub(super) fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        if let Some(code) = self.code.take() {
            self.code_block(code);
        }
        self.out
    }

    pub(super) fn event(&mut self, event: Event<'_>) {
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
}
