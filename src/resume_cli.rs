//! The edges of resuming a session: the picker a bare `--resume` opens, the
//! earlier events shown before the live ones, and what is said at the seam.

use std::path::PathBuf;

use anyhow::Context;

/// A bare `--resume`: the workspace's saved sessions to pick from, newest
/// first; `None` when the person left the list.
pub(crate) fn pick_session(workspace: Option<PathBuf>) -> anyhow::Result<Option<PathBuf>> {
    use brood::tui::picker::{Picked, Picker, PickerRow};
    let workspace = match workspace {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let here = brood::session::resume::of_workspace(&workspace);
    let listing = brood::replay::list_traces(&brood::replay::traces_dir()?)?;
    let rows: Vec<PickerRow> = listing
        .sessions
        .iter()
        .filter(|s| here(&s.header))
        .map(|s| PickerRow {
            path: s.path.clone(),
            id: s.header.session.clone(),
            started: brood::text::short_time(&s.header.started_at),
            first_prompt: s.first_prompt.clone().unwrap_or_default(),
            turns: s.turns,
            children: s.children,
            tokens: s.tokens,
        })
        .collect();
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let shown = match home.as_deref().and_then(|h| workspace.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => workspace.display().to_string(),
    };
    if rows.is_empty() {
        return Err(brood::session::resume::ResumeError::NoSession { workspace }.into());
    }
    match brood::tui::picker::pick(Picker::new(shown, rows))? {
        Picked::Session(path) => Ok(Some(path)),
        Picked::Cancelled => Ok(None),
    }
}

/// `N messages` when `earlier` ends with a resumed session's seam.
pub(crate) fn resumed_history(earlier: &[brood::event::Event]) -> Option<String> {
    match earlier.last().map(|e| &e.kind) {
        Some(brood::event::EventKind::Resumed { messages, .. }) => {
            Some(brood::text::count(*messages as u64, "message"))
        }
        _ => None,
    }
}

/// The bus's events with a resumed session's earlier ones first, so the
/// screen shows the conversation so far before what comes now.
pub(crate) fn with_earlier(
    earlier: Vec<brood::event::Event>,
    mut live: tokio::sync::mpsc::UnboundedReceiver<brood::event::Event>,
) -> tokio::sync::mpsc::UnboundedReceiver<brood::event::Event> {
    if earlier.is_empty() {
        return live;
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    for event in earlier {
        let _ = tx.send(event);
    }
    tokio::spawn(async move {
        while let Some(event) = live.recv().await {
            if tx.send(event).is_err() {
                break;
            }
        }
    });
    rx
}
