//! The transcript overlay: everything one child said and did, in full: its
//! prompt, its messages (markdown), each tool call with its input and the whole
//! result. The rows are built once per (child, transcript length, width), since
//! a transcript only grows; the streaming text is added per frame.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use super::cells::STREAM_CURSOR;
use super::hidden::Hidden;
use super::text::{cut, indent, wrap};
use super::{ViewCache, between_bars, markdown, missing, overlay_block};
use crate::event::AgentId;
use crate::tui::state::{Child, ChildStatus, State, TranscriptItem};
use crate::tui::theme::Theme;
use crate::tui::ui::Ui;

/// The rows of the transcript shown last, and what they were built from.
#[derive(Default)]
pub(super) struct TranscriptCache {
    key: Option<(AgentId, usize, usize, bool)>,
    lines: Vec<Line<'static>>,
}

pub(super) fn render(
    frame: &mut Frame<'_>,
    area: Rect,
    state: &State,
    id: AgentId,
    ui: &mut Ui,
    cache: &mut ViewCache,
    theme: &Theme,
) {
    // A transcript wants the room.
    let rect = between_bars(area);
    let Some(child) = state.child(id) else {
        let what = format!("{id} is not in this session");
        missing(frame, rect, format!(" {id} "), &what, theme);
        return;
    };
    let block = Block::bordered()
        .title(title(child, rect.width as usize, theme))
        .border_style(theme.focus());
    let inner = block.inner(rect);
    if inner.width == 0 || inner.height == 0 {
        overlay_block(frame, rect, block);
        return;
    }
    let width = inner.width as usize;
    let key = (id, child.transcript.len(), width, ui.thinking);
    let cached = &mut cache.transcript;
    if cached.key != Some(key) {
        cached.lines = lines(child, width, ui.thinking, theme);
        cached.key = Some(key);
    }
    let stream: Vec<Line<'static>> = if child.streaming.is_empty() {
        Vec::new()
    } else {
        let mut rows = markdown(
            child.streaming.trim_end(),
            width.saturating_sub(2).max(1),
            theme,
        );
        match rows.last_mut() {
            Some(last) => last.spans.push(Span::styled(STREAM_CURSOR, theme.agent())),
            None => rows.push(Line::from(Span::styled(STREAM_CURSOR, theme.agent()))),
        }
        indent(rows, vec![Span::raw("  ")], "  ")
    };
    let height = inner.height as usize;
    let total = cached.lines.len() + stream.len();
    let first = ui.overlay_scroll.clamp(total, height);
    // Where the transcript is: the rows above and below, then the keys.
    let hidden = Hidden::of_window(total, first, height, |_| false, |_| false);
    let mut footer = hidden.border(theme).map(|l| l.spans).unwrap_or_default();
    let keys = match hidden.is_empty() {
        true => " Esc close ",
        false => "· Esc close · ↑↓ PgUp PgDn scroll ",
    };
    footer.push(Span::styled(keys, theme.dim()));
    overlay_block(
        frame,
        rect,
        block.title_bottom(Line::from(footer).right_aligned()),
    );
    let buf = frame.buffer_mut();
    for (row, line) in cached
        .lines
        .iter()
        .chain(stream.iter())
        .skip(first)
        .take(height)
        .enumerate()
    {
        buf.set_line(inner.x, inner.y + row as u16, line, inner.width);
    }
}

/// ` sub-1 explore · find auth entry points · completed `
fn title(child: &Child, width: usize, theme: &Theme) -> Line<'static> {
    let (state, style) = match (child.status, child.reason) {
        (ChildStatus::Running, _) => ("running", theme.focus()),
        (ChildStatus::Done, reason) => (reason.map_or("done", |r| r.as_str()), theme.success()),
        (ChildStatus::Failed, reason) => (reason.map_or("failed", |r| r.as_str()), theme.error()),
    };
    let fixed = child.id.to_string().len() + child.profile.len() + state.len() + 12;
    Line::from(vec![
        Span::styled(
            format!(" {}", child.id),
            theme.child(child.color.as_deref()),
        ),
        Span::raw(format!(" {} · ", child.profile)),
        Span::raw(cut(&child.description, width.saturating_sub(fixed).max(4))),
        Span::raw(" · "),
        Span::styled(state.to_string(), style),
        Span::raw(" "),
    ])
}

/// All rows of a transcript.
fn lines(child: &Child, width: usize, thinking: bool, theme: &Theme) -> Vec<Line<'static>> {
    let body = width.saturating_sub(2).max(1);
    let mut out = Vec::new();
    for item in &child.transcript {
        match item {
            TranscriptItem::Prompt(text) => {
                out.push(Line::from(Span::styled("prompt", theme.user())));
                out.extend(indent(
                    wrap(text.trim_end(), body, theme.text()),
                    vec![Span::raw("  ")],
                    "  ",
                ));
                out.push(Line::default());
            }
            TranscriptItem::Told(text) => {
                out.push(Line::from(vec![
                    Span::styled("you", theme.user()),
                    Span::styled(", while it ran", theme.dim()),
                ]));
                out.extend(indent(
                    wrap(text.trim_end(), body, theme.text()),
                    vec![Span::raw("  ")],
                    "  ",
                ));
                out.push(Line::default());
            }
            TranscriptItem::Assistant(text) => {
                out.push(Line::from(Span::styled(
                    child.id.to_string(),
                    theme.agent(),
                )));
                out.extend(indent(
                    markdown(text.trim_end(), body, theme),
                    vec![Span::raw("  ")],
                    "  ",
                ));
                out.push(Line::default());
            }
            TranscriptItem::ToolCall { name, label, .. } => {
                let call = vec![
                    Span::styled("→ ", theme.dim()),
                    Span::styled(format!("{name} "), theme.bold()),
                    Span::raw(label.clone()),
                ];
                out.push(super::text::cut_spans(call, width));
            }
            TranscriptItem::ToolResult {
                name,
                content,
                is_error,
            } => {
                let (mark, style) = if *is_error {
                    ("✗ ", theme.error())
                } else {
                    ("✓ ", theme.success())
                };
                out.push(Line::from(vec![
                    Span::styled(mark, style),
                    Span::styled(format!("{name} result"), theme.dim()),
                ]));
                let text_style = if *is_error {
                    theme.error()
                } else {
                    theme.dim()
                };
                out.extend(indent(
                    wrap(content.trim_end(), body, text_style),
                    vec![Span::raw("  ")],
                    "  ",
                ));
                out.push(Line::default());
            }
            // Dimmed, and folded to a line unless `r` shows it.
            TranscriptItem::Thinking(text) if thinking => out.extend(indent(
                wrap(text, body, theme.dim()),
                vec![Span::styled("✻ ", theme.dim())],
                "  ",
            )),
            TranscriptItem::Thinking(text) => out.push(Line::from(Span::styled(
                format!(
                    "✻ thought for {} · r shows it",
                    crate::text::count(text.lines().count() as u64, "line")
                ),
                theme.dim(),
            ))),
            TranscriptItem::Note(text) => {
                let style = if text.starts_with("error") {
                    theme.error()
                } else {
                    theme.dim()
                };
                out.extend(indent(
                    wrap(text.trim_end(), body, style),
                    vec![Span::styled("· ", style)],
                    "  ",
                ));
            }
        }
    }
    out
}
