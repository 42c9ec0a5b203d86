//! The `/diff` overlay: every file the session changed, in the order first
//! changed, each with its changes' diffs in order (whoever made them: the
//! parent or a child). Laid out again only when a change is added or the
//! width changes.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::text::cut_spans;
use super::{View, between_bars, diff, list_overlay};
use crate::event::AgentId;
use crate::tui::theme::Theme;

/// The overlay's rows, and the (changes, width) they were laid out for.
#[derive(Default)]
pub(super) struct DiffsCache {
    key: Option<(usize, usize)>,
    lines: Vec<Line<'static>>,
    files: usize,
}

pub(super) fn render(frame: &mut Frame<'_>, area: Rect, view: &mut View<'_>) {
    let theme = view.theme;
    let rect = between_bars(area);
    let width = rect.width.saturating_sub(2) as usize;
    let cache = &mut view.cache.diffs;
    let key = (view.state.changes.done.len(), width);
    if cache.key != Some(key) {
        let files = view.state.changes.by_file();
        cache.files = files.len();
        cache.lines = lines(&files, width, theme);
        cache.key = Some(key);
    }
    let title = match cache.files {
        0 => " Changes ".to_string(),
        n => format!(" Changes · {} ", crate::text::count(n as u64, "file")),
    };
    let lines = std::mem::take(&mut cache.lines);
    list_overlay(frame, area, title, &lines, view);
    view.cache.diffs.lines = lines;
}

type Files<'a> = [(&'a str, Vec<&'a crate::tui::state::Change>)];

fn lines(files: &Files<'_>, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    if files.is_empty() {
        return vec![Line::from(Span::styled(
            "No file was changed in this session.",
            theme.dim(),
        ))];
    }
    let mut out = Vec::new();
    for (path, changes) in files {
        let added: usize = changes.iter().map(|c| c.diff.added).sum();
        let removed: usize = changes.iter().map(|c| c.diff.removed).sum();
        let mut heading = vec![
            Span::styled((*path).to_string(), theme.heading()),
            Span::raw("  "),
            Span::styled(format!("+{added}"), theme.added()),
            Span::raw(" "),
            Span::styled(format!("−{removed}"), theme.removed()),
        ];
        if changes.len() > 1 {
            heading.push(Span::styled(
                format!(" · {}", crate::text::count(changes.len() as u64, "change")),
                theme.dim(),
            ));
        }
        out.push(cut_spans(heading, width));
        for change in changes {
            let by = match change.agent {
                AgentId::Main => String::new(),
                AgentId::Sub(_) => format!(" by {}", change.agent),
            };
            let mut about = vec![Span::styled(
                format!("  {}{by}  ", change.tool),
                theme.dim(),
            )];
            about.extend(diff::counts(&change.diff, theme));
            out.push(cut_spans(about, width));
            out.extend(
                diff::rows(&change.diff, width.saturating_sub(2).max(1), theme)
                    .into_iter()
                    .map(|row| {
                        let mut spans = vec![Span::raw("  ")];
                        spans.extend(row.spans);
                        Line::from(spans)
                    }),
            );
        }
        out.push(Line::default());
    }
    out.pop();
    out
}
