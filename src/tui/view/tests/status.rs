//! The status line says how to quit in every place: each focus, each overlay,
//! an approval, a replay, and at the narrowest screen the layout allows.

use super::fixtures::*;
use super::scenes::*;
use crate::event::AgentId;
use crate::tui::state::State;
use crate::tui::ui::{Focus, Overlay, ReplayBar, Ui};

fn status_line(state: &State, ui: &mut Ui, width: u16) -> String {
    let buf = draw(state, ui, width, 30, &color());
    text(&buf).lines().last().unwrap_or_default().to_string()
}

fn replay_bar() -> ReplayBar {
    ReplayBar {
        position: 10,
        total: 20,
        loading: false,
        recorded_ms: 1_000,
        total_ms: 2_000,
        speed: 1.0,
        playing: true,
        skipped: 0,
        source: "s.jsonl · brood trace".into(),
        pace: crate::tui::ui::Pace::Recorded,
        rewound: None,
    }
}

/// Every place the keys can act on, as a `Ui` and its name.
fn places() -> Vec<(String, Ui)> {
    let mut places = Vec::new();
    let overlays = [
        None,
        Some(Overlay::Help),
        Some(Overlay::Transcript(AgentId::Sub(1))),
    ];
    for replay in [false, true] {
        for focus in Focus::ALL {
            for overlay in overlays {
                let mut ui = Ui::new();
                ui.focus = focus;
                ui.overlay = overlay;
                ui.replay = replay.then(replay_bar);
                let name = format!("replay={replay} {focus:?} {overlay:?}");
                places.push((name, ui));
            }
        }
    }
    places
}

#[test]
fn every_place_shows_how_to_quit_even_at_the_narrowest_width() {
    let state = three_children().state(12_000);
    for width in [60, 100, 130] {
        for (name, mut ui) in places() {
            let line = status_line(&state, &mut ui, width);
            assert!(line.contains(" quit"), "{name} at {width}: {line:?}");
        }
    }
    let asking = approval_from_child().state(5_000);
    for width in [60, 130] {
        let line = status_line(&asking, &mut Ui::new(), width);
        assert!(
            line.contains("Ctrl-D quit"),
            "approval at {width}: {line:?}"
        );
    }
}

#[test]
fn the_quit_key_is_the_one_that_works_here() {
    let state = State::new(info());
    let mut ui = Ui::new();
    assert!(status_line(&state, &mut ui, 100).contains("Ctrl-D quit"));
    // Ctrl-D edits text once something is typed; Ctrl-C twice still quits.
    ui.composer.insert_str("half a question");
    let line = status_line(&state, &mut ui, 100);
    assert!(line.contains("Ctrl-C twice quit"), "{line:?}");
    // A replay quits on q, but q closes an overlay, so there it is Ctrl-D.
    let mut ui = Ui::new();
    ui.replay = Some(replay_bar());
    assert!(status_line(&state, &mut ui, 100).contains("q quit"));
    ui.overlay = Some(Overlay::Help);
    assert!(status_line(&state, &mut ui, 100).contains("Ctrl-D quit"));
}

#[test]
fn commands_that_are_not_confined_are_said_in_red_at_any_width() {
    use crate::sandbox::{Network, SandboxMode, SandboxSummary};
    use ratatui::style::Color;
    for (summary, label) in [
        (
            SandboxSummary {
                mode: SandboxMode::Off,
                network: Network::On,
                enforced_by: None,
                missing: None,
            },
            "SANDBOX OFF",
        ),
        (
            SandboxSummary {
                mode: SandboxMode::WorkspaceWrite,
                network: Network::Off,
                enforced_by: None,
                missing: Some("bubblewrap (`bwrap`) is not installed".into()),
            },
            "NO SANDBOX",
        ),
    ] {
        let mut state = three_children().state(12_000);
        state.info.sandbox = Some(summary);
        for width in [60, 80, 130] {
            let mut ui = Ui::new();
            let buf = draw(&state, &mut ui, width, 30, &color());
            let line = text(&buf).lines().last().unwrap_or_default().to_string();
            let Some(column) = line.find(label) else {
                panic!("{label} missing at {width}: {line:?}");
            };
            let x = line[..column].chars().count() as u16;
            assert_eq!(buf[(x, 29)].fg, Color::Red, "{label} at {width}");
        }
    }
    // Confined, the label is an aside the keys may push out.
    let state = three_children().state(12_000);
    let line = status_line(&state, &mut Ui::new(), 130);
    assert!(line.contains("sandboxed"), "{line:?}");
}

/// While the terminal has the mouse the wheel does not scroll the panes:
/// the status line says so, as a warning, ahead of everything else.
#[test]
fn the_status_line_says_while_the_terminal_has_the_mouse() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.mouse = crate::tui::ui::MouseMode::Terminal;
    let line = status_line(&state, &mut ui, 130);
    assert!(line.contains("mouse: select (F2) · ⠋ running"), "{line}");
    let buf = draw(&state, &mut ui, 130, 30, &color());
    let (x, y) = find(&buf, "mouse: select (F2)").unwrap();
    assert_eq!(
        buf[(x, y)].fg,
        ratatui::style::Color::LightRed,
        "the warning colour"
    );
    ui.mouse = crate::tui::ui::MouseMode::Panes;
    assert!(!status_line(&state, &mut ui, 130).contains("mouse"));
}

/// A telemetry export that cannot send says so on the status line while it
/// fails, in the warning colour, and nothing once it sends again.
#[test]
fn a_failing_side_export_is_a_warning_on_the_status_line_while_it_fails() {
    let state = three_children().state(1_000);
    let mut ui = Ui::new();
    state
        .info
        .side_warning
        .set("telemetry: spans are not reaching the OTLP endpoint".into());
    let buf = draw(&state, &mut ui, 140, 30, &color());
    let line = text(&buf).lines().last().unwrap_or_default().to_string();
    insta::assert_snapshot!("side_warning_status", line);
    assert!(
        line.contains("⚠ telemetry: spans are not reaching the OTLP endpoint"),
        "{line}"
    );
    let (x, y) = find(&buf, "⚠ telemetry").unwrap();
    assert_eq!(Some(buf[(x, y)].fg), color().warning().fg);
    state.info.side_warning.clear();
    assert!(!status_line(&state, &mut ui, 140).contains("telemetry"));
}
