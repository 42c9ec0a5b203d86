//! A session far bigger than a screen: a frame must lay out only the entries
//! it shows, whatever the scroll position.

use super::fixtures::*;
use super::scenes::*;
use crate::tui::ui::Ui;

#[test]
fn a_huge_session_lays_out_only_what_is_visible() {
    let mut s = Script::default();
    for i in 0..25_000u64 {
        s.user(i * 10, MAIN, &format!("question {i}")).say(
            i * 10 + 5,
            MAIN,
            &format!("answer {i}\n\nsecond paragraph\n\nthird paragraph"),
            0,
            usage(10, 10),
        );
    }
    for n in 1..=50u32 {
        let id = format!("t{n}");
        s.call(
            300_000,
            MAIN,
            &id,
            "task",
            task_input(&format!("look at part {n}"), "explore"),
        )
        .start(300_000, n, &id, "explore", &format!("look at part {n}"))
        .call(
            300_100,
            sub(n),
            &format!("c{n}"),
            "glob",
            serde_json::json!({"pattern": "**/*.rs"}),
        );
    }
    let state = s.state(310_000);
    assert_eq!(state.children.len(), 50);
    let mut ui = Ui::new();
    ui.selected_child = 49;
    let mut cache = test_cache();
    let buf = draw_with(&state, &mut ui, &mut cache, 200, 60, &color());
    let conv = &cache.conversation;
    assert!(conv.total() >= 100_000, "{} rows in all", conv.total());
    let first = conv.layouts;
    assert!(
        first < 60,
        "one frame laid out {first} of {} entries",
        state.entries.len()
    );
    assert!(
        find(&buf, "[sub-50] ⠋ glob").is_some(),
        "the last child is selected and live"
    );
    assert!(
        find(&buf, "sub-50 explore").is_some(),
        "the list scrolled to the selection"
    );

    // The same frame again lays out only the live cells.
    draw_with(&state, &mut ui, &mut cache, 200, 60, &color());
    let again = cache.conversation.layouts - first;
    assert!(again <= 50, "a repeated frame laid out {again}");

    // Jump to the top, then into the middle: still only what is visible.
    ui.conversation.to_top();
    let before = cache.conversation.layouts;
    let buf = draw_with(&state, &mut ui, &mut cache, 200, 60, &color());
    assert!(find(&buf, "you  question 0").is_some());
    assert!(cache.conversation.layouts - before < 60);
    ui.conversation.down(80_000);
    let before = cache.conversation.layouts;
    let buf = draw_with(&state, &mut ui, &mut cache, 200, 60, &color());
    assert!(
        find(&buf, "you  question 1").is_some(),
        "somewhere in the middle"
    );
    assert!(cache.conversation.layouts - before < 60);
}
