use serde_json::json;

use super::*;
use crate::tui::diff::{Before, Numbers};

const MAIN: AgentId = AgentId::Main;

fn write(changes: &mut Changes, id: &str, path: &str, content: &str, result: &str) {
    changes.call(
        MAIN,
        id,
        "write_file",
        &json!({"path": path, "content": content}),
    );
    changes.result(MAIN, id, "write_file", false, result);
}

fn edit(changes: &mut Changes, id: &str, old: &str, new: &str) -> Arc<FileDiff> {
    let input = json!({"path": "a.rs", "old_text": old, "new_text": new});
    changes
        .call(MAIN, id, "edit_file", &input)
        .expect("an edit's diff")
}

#[test]
fn an_edit_of_a_file_the_session_wrote_is_numbered_as_in_the_file() {
    let mut changes = Changes::default();
    write(
        &mut changes,
        "w1",
        "a.rs",
        "one\ntwo\nthree\n",
        "wrote 14 bytes to a.rs (new file)",
    );
    let diff = edit(&mut changes, "e1", "three", "3");
    assert_eq!(diff.numbers, Numbers::File);
    assert_eq!(diff.hunks[0].header(), "@@ -1,3 +1,3 @@");
    changes.result(
        MAIN,
        "e1",
        "edit_file",
        false,
        "replaced 1 occurrence in a.rs",
    );
    // The next edit is against the edited content.
    let next = edit(&mut changes, "e2", "one\n", "");
    assert_eq!(next.numbers, Numbers::File);
    assert_eq!(
        next.hunks[0].lines.last().map(|l| l.text.as_str()),
        Some("3")
    );
}

#[test]
fn an_edit_of_an_unknown_file_is_the_diff_of_its_pieces() {
    let mut changes = Changes::default();
    let diff = edit(&mut changes, "e1", "a\nb", "a\nc");
    assert_eq!(diff.numbers, Numbers::Piece);
    assert_eq!((diff.added, diff.removed), (1, 1));
}

#[test]
fn only_applied_changes_count_and_a_command_forgets_what_files_held() {
    let mut changes = Changes::default();
    write(
        &mut changes,
        "w1",
        "a.rs",
        "x\n",
        "wrote 2 bytes to a.rs (new file)",
    );
    edit(&mut changes, "e1", "x", "y");
    changes.result(MAIN, "e1", "edit_file", true, "old_text not found in a.rs");
    assert_eq!(changes.done.len(), 1, "the failed edit is no change");
    changes.call(
        MAIN,
        "b1",
        "bash",
        &json!({"command": "sed -i s/x/z/ a.rs"}),
    );
    changes.result(MAIN, "b1", "bash", false, "exit code: 0");
    let after = edit(&mut changes, "e2", "z", "w");
    assert_eq!(after.numbers, Numbers::Piece, "a.rs may hold anything now");
}

#[test]
fn a_write_over_a_file_never_seen_says_its_lines_only_look_added() {
    let mut changes = Changes::default();
    changes.call(
        MAIN,
        "w1",
        "write_file",
        &json!({"path": "a.rs", "content": "new\n"}),
    );
    let result = "wrote 4 bytes to a.rs (overwrote existing file)";
    let shown = changes.result(MAIN, "w1", "write_file", false, result);
    assert_eq!(
        shown.map(|d| d.before),
        Some(Before::Unseen),
        "the cell is told"
    );
    assert_eq!(changes.done[0].diff.before, Before::Unseen);
    // Written again: now the session knows what it replaces.
    write(
        &mut changes,
        "w2",
        "a.rs",
        "newer\n",
        "wrote 6 bytes to a.rs (overwrote existing file)",
    );
    assert_eq!(changes.done[1].diff.before, Before::Known);
    assert_eq!(
        (changes.done[1].diff.added, changes.done[1].diff.removed),
        (1, 1)
    );
}

#[test]
fn claude_codes_edit_and_a_childs_edit_are_changes_too() {
    let mut changes = Changes::default();
    let input = json!({"file_path": "b.rs", "old_string": "a", "new_string": "b"});
    let child = AgentId::Sub(2);
    assert!(changes.call(child, "c1", "Edit", &input).is_some());
    changes.result(child, "c1", "Edit", false, "ok");
    let files = changes.by_file();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].0, "b.rs");
    assert_eq!(files[0].1[0].agent, child);
}

/// Each tool's own field names: brood's `edit_file` called with Claude
/// Code's names fails, and its cell must not show a change it never made.
#[test]
fn a_call_with_another_tool_s_field_names_proposes_no_change() {
    let mut changes = Changes::default();
    let borrowed = json!({"path": "a.rs", "old_string": "a", "new_string": "b"});
    assert!(changes.call(MAIN, "e1", "edit_file", &borrowed).is_none());
    let borrowed = json!({"file_path": "a.rs", "old_text": "a", "new_text": "b"});
    assert!(changes.call(MAIN, "e2", "Edit", &borrowed).is_none());
    let own = json!({"file_path": "a.rs", "old_string": "a", "new_string": "b"});
    assert!(changes.call(MAIN, "e3", "Edit", &own).is_some());
}
