//! One conversation entry laid out as rows: a user message, an assistant
//! message (markdown), a compact tool cell, a task cell or a notice. Pure: the
//! same entry, width and flags give the same rows, which is what lets the
//! conversation pane cache them per revision and width.

use ratatui::text::{Line, Span};

use super::text::{self, cut, duration, elapsed, first_line, indent, tokens, wrap};
use crate::tui::state::{CallStatus, EntryKind, NoticeLevel, TaskCell, ToolCell};
use crate::tui::theme::Theme;

/// Output rows a collapsed tool cell shows.
const COLLAPSED_OUTPUT: usize = 3;
/// Output rows an expanded tool cell shows at most; beyond it the full text is
/// a scroll of thousands of rows nobody reads in a conversation pane.
const EXPANDED_OUTPUT: usize = 400;
/// Rows of a finished task's summary.
const SUMMARY_ROWS: usize = 2;
/// The assistant's name before its messages, and the indent of its text.
const AGENT_LABEL: &str = "brood";
const AGENT_INDENT: &str = "       ";
const USER_LABEL: &str = "you";
const USER_INDENT: &str = "     ";
/// The cursor at the end of a message still streaming.
pub(super) const STREAM_CURSOR: &str = "▍";

/// What laying out an entry needs besides the entry.
pub(super) struct CellContext<'a> {
    pub theme: &'a Theme,
    /// Columns available.
    pub width: usize,
    /// Whether the entry is not the conversation's first (user messages start a
    /// new turn with a blank row).
    pub after_first: bool,
    /// The tool cell is shown whole.
    pub expanded: bool,
    /// The tool cell is the conversation's selected one (in the focused pane).
    pub selected: bool,
    /// Spinner frame for running calls.
    pub spinner: &'static str,
    pub now_ms: u64,
}

/// Whether the entry's rows change without its revision changing (spinners and
/// live elapsed times): such entries are laid out every frame, not cached. Their
/// height does not change with the spinner, so cached heights stay right.
pub(super) fn is_live(kind: &EntryKind) -> bool {
    match kind {
        EntryKind::Tool(cell) => cell.status == CallStatus::Running,
        EntryKind::Task(task) => task.status == CallStatus::Running,
        EntryKind::User(_)
        | EntryKind::Assistant { .. }
        | EntryKind::Thinking { .. }
        | EntryKind::Notice { .. } => false,
    }
}

/// The call id of a tool or task cell.
pub(super) fn call_id(kind: &EntryKind) -> Option<&str> {
    match kind {
        EntryKind::Tool(cell) => Some(&cell.call_id),
        EntryKind::Task(task) => Some(&task.call_id),
        EntryKind::User(_)
        | EntryKind::Assistant { .. }
        | EntryKind::Thinking { .. }
        | EntryKind::Notice { .. } => None,
    }
}

/// Rows the entry will take, guessed without laying it out: used for entries
/// that have never been on screen, and replaced by the real height once they
/// are.
pub(super) fn estimate_height(
    kind: &EntryKind,
    width: usize,
    after_first: bool,
    expanded: bool,
) -> usize {
    match kind {
        EntryKind::User(t) => {
            usize::from(after_first)
                + text::estimate_rows(t, width.saturating_sub(USER_INDENT.len()))
        }
        EntryKind::Assistant { text: t, .. } => {
            text::estimate_rows(t, width.saturating_sub(AGENT_INDENT.len()))
        }
        EntryKind::Tool(ToolCell {
            diff: Some(diff), ..
        }) => {
            1 + if expanded {
                super::diff::row_count(diff)
            } else {
                0
            }
        }
        EntryKind::Tool(cell) => {
            let lines = cell.output.lines().count();
            let cap = if expanded {
                EXPANDED_OUTPUT
            } else {
                COLLAPSED_OUTPUT
            };
            1 + lines.min(cap) + usize::from(lines > cap)
        }
        EntryKind::Task(task) => 1 + task.summary.as_ref().map_or(0, |_| 1),
        EntryKind::Thinking { text: t, .. } if expanded => {
            text::estimate_rows(t, width.saturating_sub(AGENT_INDENT.len()))
        }
        EntryKind::Thinking { .. } => 1,
        EntryKind::Notice { text: t, .. } => text::estimate_rows(t, width.saturating_sub(9)),
    }
}

/// Lays out one entry.
pub(super) fn layout(kind: &EntryKind, cx: &CellContext<'_>) -> Vec<Line<'static>> {
    match kind {
        EntryKind::User(t) => user(t, cx),
        EntryKind::Assistant { text: t, streaming } => assistant(t, *streaming, cx),
        EntryKind::Tool(cell) => tool(cell, cx),
        EntryKind::Task(task) => task_cell(task, cx),
        EntryKind::Thinking { text: t, streaming } => thinking(t, *streaming, cx),
        EntryKind::Notice { level, text: t } => notice(*level, t, cx),
    }
}

/// The model's reasoning, dimmed: folded to one line (how long it is, or
/// while it streams its latest words), or whole once `r` shows it.
fn thinking(t: &str, streaming: bool, cx: &CellContext<'_>) -> Vec<Line<'static>> {
    let style = cx.theme.dim();
    let inner = cx.width.saturating_sub(AGENT_INDENT.len()).max(1);
    let label = vec![Span::styled("✻", style), Span::raw(&AGENT_INDENT[1..])];
    if cx.expanded {
        let body = wrap(t.trim(), inner, style);
        return indent(body, label, AGENT_INDENT);
    }
    let lines = t.trim().lines().count();
    let folded = match streaming {
        true => {
            let latest = t.trim_end().lines().last().unwrap_or_default();
            format!("thinking… {}", latest.trim())
        }
        false => format!(
            "thought for {} · r shows it",
            crate::text::count(lines as u64, "line")
        ),
    };
    let mut spans = label;
    spans.push(Span::styled(cut(&folded, inner), style));
    vec![Line::from(spans)]
}

fn user(t: &str, cx: &CellContext<'_>) -> Vec<Line<'static>> {
    let body = wrap(
        t.trim_end(),
        cx.width.saturating_sub(USER_INDENT.len()),
        cx.theme.text(),
    );
    let label = vec![
        Span::styled(USER_LABEL, label_style(cx.theme.user(), cx)),
        Span::raw(&USER_INDENT[USER_LABEL.len()..]),
    ];
    let mut rows = Vec::with_capacity(body.len() + 1);
    if cx.after_first {
        rows.push(Line::default());
    }
    rows.extend(indent(body, label, USER_INDENT));
    rows
}

fn assistant(t: &str, streaming: bool, cx: &CellContext<'_>) -> Vec<Line<'static>> {
    let inner = cx.width.saturating_sub(AGENT_INDENT.len()).max(1);
    let mut body = super::markdown(t.trim_end(), inner, cx.theme);
    if streaming {
        let cursor = Span::styled(STREAM_CURSOR, cx.theme.agent());
        match body.last_mut() {
            Some(last) if text::line_width(last) < inner => last.spans.push(cursor),
            Some(_) | None => body.push(Line::from(cursor)),
        }
    }
    let label = vec![
        Span::styled(AGENT_LABEL, label_style(cx.theme.agent(), cx)),
        Span::raw(&AGENT_INDENT[AGENT_LABEL.len()..]),
    ];
    indent(body, label, AGENT_INDENT)
}

/// A message's label: reversed while the message is selected.
fn label_style(style: ratatui::style::Style, cx: &CellContext<'_>) -> ratatui::style::Style {
    match cx.selected {
        true => cx.theme.selected(),
        false => style,
    }
}

/// The status glyph of a call, and its style.
pub(super) fn call_glyph(
    status: CallStatus,
    spinner: &'static str,
    theme: &Theme,
) -> Span<'static> {
    match status {
        CallStatus::Running => Span::styled(spinner, theme.focus()),
        CallStatus::Done => Span::styled("✓", theme.success()),
        CallStatus::Failed | CallStatus::Denied => Span::styled("✗", theme.error()),
    }
}

/// `glyph name summary … right`: one row, the summary cut to fit so the right
/// part (duration, `denied`) shows. The first `keep` spans of the middle
/// (`task sub-3 `) come before the right part: when both do not fit, the
/// right part's last spans go (tokens, then time), then its first is cut.
fn header(
    glyph: Span<'static>,
    mut middle: Vec<Span<'static>>,
    mut right: Vec<Span<'static>>,
    keep: usize,
    cx: &CellContext<'_>,
) -> Line<'static> {
    let widths =
        |spans: &[Span<'static>]| -> usize { spans.iter().map(|s| text::width(&s.content)).sum() };
    let kept = 2 + widths(&middle[..keep.min(middle.len())]);
    while right.len() > 1 && kept + widths(&right) > cx.width {
        right.pop();
    }
    if let Some(first) = right.first_mut()
        && kept + widths(std::slice::from_ref(first)) > cx.width
    {
        let room = cx.width.saturating_sub(kept);
        *first = Span::styled(cut(&first.content, room), first.style);
    }
    let fixed: usize = 2 + widths(&right);
    let mut room = cx.width.saturating_sub(fixed);
    let mut spans = vec![glyph, Span::raw(" ")];
    for span in middle.drain(..) {
        let w = text::width(&span.content);
        if w <= room {
            room -= w;
            spans.push(span);
        } else {
            if room > 0 {
                spans.push(Span::styled(cut(&span.content, room), span.style));
            }
            room = 0;
        }
    }
    spans.extend(right);
    Line::from(spans)
}

fn tool(cell: &ToolCell, cx: &CellContext<'_>) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let summary = cell.label.clone();
    let mut right = Vec::new();
    match cell.status {
        CallStatus::Running => {}
        CallStatus::Done | CallStatus::Failed => {
            // A command that failed says how, beside its time.
            if let Some(code) =
                crate::protocol::exit_code(&cell.name, &cell.output).filter(|c| *c != 0)
            {
                right.push(Span::styled(format!("  exit {code}"), theme.error()));
            }
            if let Some(ms) = cell.duration_ms {
                right.push(Span::styled(format!("  {}", duration(ms)), theme.dim()));
            }
        }
        CallStatus::Denied => right.push(Span::styled("  denied", theme.error())),
    }
    // A file tool's cell says what it changes, always in view.
    if let Some(diff) = cell.diff.as_deref() {
        let mut counts = vec![Span::raw("  ")];
        counts.extend(super::diff::counts(diff, theme));
        right.splice(0..0, counts);
    }
    let name_style = match cx.selected {
        true => theme.selected(),
        false => theme.bold(),
    };
    let middle = vec![
        Span::styled(cell.name.clone(), name_style),
        Span::raw(" "),
        Span::raw(summary),
    ];
    let mut rows = vec![header(
        call_glyph(cell.status, cx.spinner, theme),
        middle,
        right,
        1,
        cx,
    )];
    let style = match cell.status {
        CallStatus::Failed | CallStatus::Denied => theme.error(),
        CallStatus::Running | CallStatus::Done => theme.dim(),
    };
    let inner = cx.width.saturating_sub(2).max(1);
    if let Some(diff) = cell.diff.as_deref() {
        if cx.expanded {
            let mut body = super::diff::rows(diff, inner, theme);
            let rest = body.len().saturating_sub(EXPANDED_OUTPUT);
            body.truncate(EXPANDED_OUTPUT);
            rows.extend(indent_all(body.into_iter()));
            if rest > 0 {
                rows.push(more(rest, "rows", theme));
            }
        }
        // What it changed is the diff; why it did not, the output.
        if matches!(cell.status, CallStatus::Running | CallStatus::Done) {
            return rows;
        }
    }
    let source = cell.output.trim_end();
    if source.is_empty() {
        return rows;
    }
    if cx.expanded {
        let wrapped = text::wrap(source, inner, style);
        let shown = wrapped.len().min(EXPANDED_OUTPUT);
        let rest = wrapped.len() - shown;
        rows.extend(indent_all(wrapped.into_iter().take(shown)));
        if rest > 0 {
            rows.push(more(rest, "rows", theme));
        }
    } else {
        let mut lines = source.lines();
        let shown = lines
            .by_ref()
            .take(COLLAPSED_OUTPUT)
            .map(|l| text::cut_line(l, inner, style));
        rows.extend(indent_all(shown));
        let rest = lines.count();
        if rest > 0 {
            rows.push(more(rest, "lines", theme));
        }
    }
    rows
}

/// Output rows under a tool cell's header, two columns in.
fn indent_all(rows: impl Iterator<Item = Line<'static>>) -> impl Iterator<Item = Line<'static>> {
    rows.map(|row| {
        let mut spans = Vec::with_capacity(row.spans.len() + 1);
        spans.push(Span::raw("  "));
        spans.extend(row.spans);
        Line::from(spans)
    })
}

fn more(n: usize, what: &str, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::raw("  "),
        Span::styled(format!("… +{n} {what}"), theme.dim()),
    ])
}

fn task_cell(task: &TaskCell, cx: &CellContext<'_>) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let mut middle = vec![Span::styled("task ", theme.bold())];
    if let Some(child) = task.child {
        middle.push(Span::styled(format!("{child} "), theme.agent()));
    }
    middle.push(Span::styled(format!("{}  ", task.profile), theme.dim()));
    middle.push(Span::raw(task.description.clone()));
    let mut right = Vec::new();
    match task.status {
        CallStatus::Running => {
            let ms = cx.now_ms.saturating_sub(task.started_ms);
            right.push(Span::styled(format!("  {}", elapsed(ms)), theme.dim()));
        }
        CallStatus::Done | CallStatus::Failed => {
            if task.status == CallStatus::Failed {
                let reason = task.reason.map_or("failed", |r| r.as_str());
                right.push(Span::styled(format!("  {reason}"), theme.error()));
            }
            if let Some(ms) = task.elapsed_ms {
                right.push(Span::styled(format!("  {}", elapsed(ms)), theme.dim()));
            }
            if let Some(n) = task.tokens {
                right.push(Span::styled(format!(" · {} tok", tokens(n)), theme.dim()));
            }
        }
        CallStatus::Denied => right.push(Span::styled("  denied", theme.error())),
    }
    // `task sub-3` says which child; the rest may go.
    let keep = 1 + usize::from(task.child.is_some());
    let mut rows = vec![header(
        call_glyph(task.status, cx.spinner, theme),
        middle,
        right,
        keep,
        cx,
    )];
    if task.status != CallStatus::Running
        && let Some(summary) = task.summary.as_deref()
    {
        let style = match task.status {
            CallStatus::Failed | CallStatus::Denied => theme.error(),
            CallStatus::Running | CallStatus::Done => theme.dim(),
        };
        let body = wrap(
            first_line(summary),
            cx.width.saturating_sub(4).max(1),
            style,
        );
        let cut_rows = body.len() > SUMMARY_ROWS;
        let mut body: Vec<Line<'static>> = body.into_iter().take(SUMMARY_ROWS).collect();
        if cut_rows && let Some(last) = body.last_mut() {
            last.spans.push(Span::styled(" …", theme.dim()));
        }
        rows.extend(indent(
            body,
            vec![Span::styled("  └ ", theme.dim())],
            "    ",
        ));
    }
    rows
}

fn notice(level: NoticeLevel, t: &str, cx: &CellContext<'_>) -> Vec<Line<'static>> {
    let (label, style) = match level {
        NoticeLevel::Info => ("· ", cx.theme.dim()),
        NoticeLevel::Warning => ("warning: ", cx.theme.warning()),
        NoticeLevel::Error => ("error: ", cx.theme.error()),
    };
    let body = wrap(
        t.trim_end(),
        cx.width.saturating_sub(label.len()).max(1),
        style,
    );
    let pad: &'static str = &"         "[..label.len()];
    indent(body, vec![Span::styled(label, style)], pad)
}
