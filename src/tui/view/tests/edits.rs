//! Edits you can see: a file tool's cell as its diff (collapsed to its
//! counts, expanded on Enter), a tool's whole output in the viewer with a
//! search, and `/diff`'s list of every change.

use crossterm::event::{Event as InputEvent, KeyCode, KeyEvent, KeyModifiers};
use insta::assert_snapshot;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use serde_json::json;

use super::fixtures::*;
use crate::tui::state::State;
use crate::tui::ui::{Focus, Overlay, Selected, Ui};

const CART: &str = "pub fn total(items: &[Item]) -> u32 {\n    let mut sum = 0;\n    for item in items {\n        sum += item.price;\n    }\n    sum\n}\n";

const TEST_OUTPUT: &str = "exit code: 101\nrunning 3 tests\ntest cart::empty ... ok\ntest cart::total ... FAILED\ntest cart::discount ... FAILED\n\nfailures:\n    cart::total: expected 30, got 20\n    cart::discount: expected 27, got 18\n\ntest result: FAILED. 1 passed; 2 failed";

/// The parent writes a file, edits it twice (the second time replacing a
/// line by two), edits a file it never saw, runs the tests; a child edits
/// the same file.
fn edits() -> State {
    let mut s = Script::default();
    s.user(0, MAIN, "make the cart count quantities")
        .call(
            100,
            MAIN,
            "w1",
            "write_file",
            json!({"path": "src/cart.rs", "content": CART}),
        )
        .result(
            150,
            MAIN,
            "w1",
            "write_file",
            "wrote 120 bytes to src/cart.rs (new file)",
            false,
        )
        .call(
            200,
            MAIN,
            "e1",
            "edit_file",
            json!({
                "path": "src/cart.rs",
                "old_text": "        sum += item.price;\n",
                "new_text": "        sum += item.price * item.quantity;\n        count += 1;\n",
            }),
        )
        .result(
            260,
            MAIN,
            "e1",
            "edit_file",
            "replaced 1 occurrence in src/cart.rs",
            false,
        )
        .call(
            300,
            MAIN,
            "e2",
            "edit_file",
            json!({
                "path": "README.md",
                "old_text": "Totals count each item once.",
                "new_text": "Totals count each item by its quantity.",
            }),
        )
        .result(
            340,
            MAIN,
            "e2",
            "edit_file",
            "replaced 1 occurrence in README.md",
            false,
        )
        .call(
            400,
            MAIN,
            "b1",
            "bash",
            json!({"command": "cargo test cart"}),
        )
        .result(2_400, MAIN, "b1", "bash", TEST_OUTPUT, false)
        .start(2_500, 1, "t1", "general", "fix the discount")
        .call(
            2_600,
            sub(1),
            "c1",
            "edit_file",
            json!({
                "path": "src/discount.rs",
                "old_text": "price * 9 / 10",
                "new_text": "price * quantity * 9 / 10",
            }),
        )
        .result(
            2_700,
            sub(1),
            "c1",
            "edit_file",
            "replaced 1 occurrence in src/discount.rs",
            false,
        );
    s.state(3_000)
}

fn no_colour_anywhere(buf: &Buffer) {
    for cell in &buf.content {
        assert_eq!(cell.fg, Color::Reset, "{:?} in colour", cell.symbol());
    }
}

#[test]
fn an_edit_cell_is_one_line_of_its_counts_until_expanded() {
    let state = edits();
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    ui.selected = Some(Selected::Call("e1".into()));
    let buf = draw(&state, &mut ui, 110, 24, &color());
    assert_snapshot!("edit_cells_collapsed", text(&buf));
    assert!(find(&buf, "✓ edit_file src/cart.rs  +2 −1").is_some());
    assert!(find(&buf, "✓ write_file src/cart.rs (").is_some());
    assert!(find(&buf, "@@").is_none(), "no hunk while collapsed");
    assert!(find(&buf, "replaced 1 occurrence").is_none());
    let (fg, modifier) = style_at(&buf, "edit_file src/cart.rs  +2");
    assert!(modifier.contains(Modifier::REVERSED), "the selected cell");
    assert_eq!(fg, Color::Cyan);
    assert_eq!(style_at(&buf, "+2 −1").0, Color::Green);
    assert_eq!(style_at(&buf, "−1").0, Color::Red);
}

#[test]
fn an_expanded_edit_cell_shows_its_hunk_numbered_as_in_the_file() {
    let state = edits();
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    ui.selected = Some(Selected::Call("e1".into()));
    ui.expanded.insert("e1".into());
    ui.expanded.insert("e2".into());
    let buf = draw(&state, &mut ui, 110, 40, &color());
    assert_snapshot!("edit_cell_expanded", text(&buf));
    assert!(
        find(&buf, "@@ -1,7 +1,8 @@").is_some(),
        "numbered from the write"
    );
    assert!(find(&buf, "4 -         sum += item.price;").is_some());
    assert!(find(&buf, "4 +         sum += item.price * item.quant").is_some());
    assert!(find(&buf, "5 +         count += 1;").is_some());
    assert_eq!(style_at(&buf, "@@ -1,7").0, Color::Cyan);
    assert!(style_at(&buf, "@@ -1,7").1.contains(Modifier::DIM));
    assert_eq!(
        style_at(&buf, "- Totals count each item once.").0,
        Color::Red
    );
    assert_eq!(
        style_at(&buf, "+ Totals count each item by").0,
        Color::Green
    );
    // The edit of a file the session never saw has no line numbers.
    assert!(find(&buf, "@@ -1 +1 @@").is_some());
    no_colour_anywhere(&draw(&state, &mut ui, 110, 40, &no_color()));
}

fn key(code: KeyCode) -> InputEvent {
    InputEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

#[test]
fn the_viewer_shows_the_whole_output_and_highlights_what_is_searched() {
    let state = edits();
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    let now = std::time::Instant::now();
    let press = |code: KeyCode, ui: &mut Ui| {
        crate::tui::keys::handle(&key(code), &state, ui, now);
    };
    // `o` opens the latest tool cell's output: the tests' run.
    press(KeyCode::Char('o'), &mut ui);
    assert!(matches!(ui.overlay, Some(Overlay::Output(_))));
    press(KeyCode::Char('/'), &mut ui);
    for c in "failed".chars() {
        press(KeyCode::Char(c), &mut ui);
    }
    let typing = text(&draw(&state, &mut ui, 100, 24, &color()));
    assert!(typing.contains("/failed▍"), "{typing}");
    press(KeyCode::Enter, &mut ui);
    press(KeyCode::Char('n'), &mut ui);
    let buf = draw(&state, &mut ui, 100, 24, &color());
    assert_snapshot!("output_viewer_search", text(&buf));
    assert!(find(&buf, "/failed · match 2 of 4").is_some());
    // The second match is the current one, the others are marked.
    let rows: Vec<(u16, Color, Modifier)> = (0..buf.area.height)
        .filter_map(|y| {
            let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            let at = line.find("FAILED")?;
            let x = line[..at].chars().count() as u16;
            Some((y, buf[(x, y)].fg, buf[(x, y)].modifier))
        })
        .collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(rows[1].1, Color::Cyan, "the current match");
    assert!(rows[1].2.contains(Modifier::REVERSED));
    for other in [rows[0], rows[2]] {
        assert_eq!(other.1, Color::Yellow, "another match");
        assert!(other.2.contains(Modifier::REVERSED));
    }
    press(KeyCode::Esc, &mut ui);
    assert_eq!(ui.overlay, None, "Esc closes the viewer");
}

#[test]
fn slash_diff_lists_every_changed_file_with_its_diffs_in_order() {
    let state = edits();
    let mut ui = Ui::new();
    ui.overlay = Some(Overlay::Diffs);
    let buf = draw(&state, &mut ui, 100, 40, &color());
    assert_snapshot!("diff_overlay", text(&buf));
    let shown = text(&buf);
    let order: Vec<usize> = [
        "src/cart.rs  +9 −1 · 2 changes",
        "README.md  +1 −1",
        "src/discount.rs  +1 −1",
    ]
    .iter()
    .map(|s| {
        shown
            .find(s)
            .unwrap_or_else(|| panic!("{s} not in\n{shown}"))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(shown.contains("edit_file by sub-1"));
    assert_eq!(style_at(&buf, "src/cart.rs  +9").0, Color::Cyan);
}

#[test]
fn slash_diff_says_when_nothing_changed() {
    let state = Script::default().state(0);
    let mut ui = Ui::new();
    ui.overlay = Some(Overlay::Diffs);
    let shown = text(&draw(&state, &mut ui, 100, 24, &color()));
    assert!(
        shown.contains("No file was changed in this session."),
        "{shown}"
    );
}

/// A search made before the output changed (a replay went back) never
/// cuts a character or reads past a line.
#[test]
fn stale_matches_are_not_drawn() {
    use crate::tui::viewer::{Find, Match};
    let mut s = Script::default();
    s.user(0, MAIN, "go")
        .call(10, MAIN, "b1", "bash", json!({"command": "echo"}))
        .result(20, MAIN, "b1", "bash", "exit code: 0\nnaïve café", false);
    let state = s.state(30);
    let mut ui = Ui::new();
    ui.overlay = state.entry_of_call("b1").map(Overlay::Output);
    ui.find = Some(Find {
        query: "x".into(),
        matches: vec![
            Match {
                line: 1,
                start: 3,
                end: 4,
            },
            Match {
                line: 1,
                start: 8,
                end: 40,
            },
            Match {
                line: 9,
                start: 0,
                end: 1,
            },
        ],
        current: Some(2),
        reveal: true,
        ..Find::default()
    });
    let shown = text(&draw(&state, &mut ui, 100, 24, &color()));
    assert!(shown.contains("naïve café"), "{shown}");
}
