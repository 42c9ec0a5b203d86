//! What the slash commands do: each one typed in the composer (see
//! `slash.rs` for their table, parsing and completion) becomes actions for
//! the app and changes to `Ui`, like a key. `/copy`, `/export` and `/mouse`
//! reach outside the screen through the actions they return.

use super::keys::Action;
use super::selection;
use super::slash::SlashCommand;
use super::state::State;
use super::ui::{MouseMode, Overlay, Ui};
use crate::event::{ModelSlot, Op};

/// A slash command typed in the composer.
pub(super) fn run_command(
    command: SlashCommand,
    args: &str,
    state: &State,
    ui: &mut Ui,
) -> Vec<Action> {
    match command {
        SlashCommand::Help => {
            ui.open(Overlay::Help);
            Vec::new()
        }
        // The session compacts after the turn that runs, if one does.
        SlashCommand::Compact => vec![Action::Send(Op::Compact)],
        SlashCommand::Cost => {
            ui.say(cost_line(state));
            Vec::new()
        }
        SlashCommand::Model => {
            let (slot, name) = match args.split_once(char::is_whitespace) {
                Some(("light", name)) => (ModelSlot::Light, name.trim()),
                _ => (ModelSlot::Main, args),
            };
            if name.is_empty() || name.contains(char::is_whitespace) {
                ui.say("/model NAME, or /model light NAME".into());
                return Vec::new();
            }
            vec![Action::Send(Op::SetModel {
                slot,
                name: name.to_string(),
            })]
        }
        SlashCommand::Copy => match last_answer(state) {
            Some(text) => vec![Action::Copy {
                what: "the last answer".into(),
                text,
            }],
            None => {
                ui.say("nothing to copy yet: no answer so far".into());
                Vec::new()
            }
        },
        SlashCommand::Export => {
            let (path, replace) = export_path(args, state);
            vec![Action::Export {
                path,
                markdown: super::export::markdown(state),
                replace,
            }]
        }
        SlashCommand::Mouse => toggle_mouse(ui),
        // A turn that runs would be cut short: the user stops it first.
        SlashCommand::Clear | SlashCommand::Resume if state.busy() => {
            ui.say("brood is working: Esc interrupts it, then /clear or /resume".into());
            Vec::new()
        }
        SlashCommand::Clear => vec![Action::Switch(super::app::Next::NewSession)],
        SlashCommand::Resume => vec![Action::Switch(super::app::Next::Resume(
            Some(args.trim().to_string()).filter(|id| !id.is_empty()),
        ))],
        SlashCommand::Agents => {
            ui.overlay = Some(Overlay::Agents);
            ui.overlay_scroll.to_top();
            Vec::new()
        }
        SlashCommand::Diff => {
            ui.overlay = Some(Overlay::Diffs);
            ui.overlay_scroll.to_top();
            Vec::new()
        }
        SlashCommand::Quit => vec![Action::Quit],
    }
}

/// `y`: what the viewer shows, else the selected cell's output, else the
/// last answer.
pub(super) fn copy(state: &State, ui: &mut Ui) -> Vec<Action> {
    let index = match ui.overlay {
        Some(Overlay::Output(index)) => Some(index),
        _ => selection::selected_entry(state, ui),
    };
    let shown = index
        .and_then(|i| state.entries.get(i))
        .and_then(|entry| super::viewer::shown(&entry.kind))
        .map(|shown| (shown.describe(), shown.text.to_string()));
    match shown.or_else(|| last_answer(state).map(|text| ("the last answer".into(), text))) {
        Some((what, text)) => vec![Action::Copy { what, text }],
        None => {
            ui.say(
                "nothing to copy yet: select a cell or message (↑↓) or wait for an answer".into(),
            );
            Vec::new()
        }
    }
}

/// The parent's last answer, if it gave one.
fn last_answer(state: &State) -> Option<String> {
    state.entries.iter().rev().find_map(|e| match &e.kind {
        super::state::EntryKind::Assistant { text, .. } if !text.trim().is_empty() => {
            Some(text.to_string())
        }
        _ => None,
    })
}

/// Where `/export [FILE]` writes: the file named (relative to the
/// workspace), or `brood-SESSION.md` in the workspace, never over a file
/// that is there unless it was named.
fn export_path(args: &str, state: &State) -> (std::path::PathBuf, bool) {
    let cwd = std::path::Path::new(&state.info.cwd);
    match args.trim() {
        "" => (cwd.join(format!("brood-{}.md", state.info.session)), false),
        named => (cwd.join(named), true),
    }
}

/// F2 or `/mouse`: the mouse goes to the terminal, whose own selection then
/// works, or back to brood.
pub(super) fn toggle_mouse(ui: &mut Ui) -> Vec<Action> {
    ui.mouse = match ui.mouse {
        MouseMode::Panes => MouseMode::Terminal,
        MouseMode::Terminal => MouseMode::Panes,
    };
    ui.say(
        match ui.mouse {
            MouseMode::Terminal => "mouse: the terminal's (select text to copy); F2 gives it back",
            MouseMode::Panes => "mouse: brood's (the wheel scrolls the panes)",
        }
        .into(),
    );
    vec![Action::Mouse(ui.mouse)]
}

/// `/cost`: the session's cost by agent, where their models have a price.
fn cost_line(state: &State) -> String {
    let usd = crate::protocol::price::usd;
    let mut parts = vec![format!(
        "main {}",
        state.main.cost.map_or_else(|| "-".into(), usd)
    )];
    parts.extend(
        state
            .children
            .iter()
            .filter_map(|c| c.cost.map(|cost| format!("{} {}", c.id, usd(cost)))),
    );
    let tokens: u64 = state.main.tokens + state.children.iter().map(|c| c.tokens).sum::<u64>();
    match state.total_cost() {
        Some(total) => format!(
            "cost {} ({}) · {} tokens",
            usd(total),
            parts.join(" · "),
            crate::text::tokens(tokens)
        ),
        None => format!(
            "no price is known for these models: {} tokens",
            crate::text::tokens(tokens)
        ),
    }
}
