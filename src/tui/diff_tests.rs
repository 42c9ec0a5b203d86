use super::*;

/// A hunk written as `diff -u` would, line numbers aside.
fn unified(hunks: &[Hunk]) -> String {
    let mut out = String::new();
    for hunk in hunks {
        out.push_str(&hunk.header());
        out.push('\n');
        for line in &hunk.lines {
            out.push(mark(line.sign));
            out.push_str(&line.text);
            out.push('\n');
        }
    }
    out
}

#[test]
fn an_insertion_is_added_lines_between_their_context() {
    let old = "a\nb\nc\n";
    let new = "a\nb\nnew\nc\n";
    let diff = FileDiff::new(old, new, Numbers::File);
    assert_eq!((diff.added, diff.removed), (1, 0));
    assert_eq!(unified(&diff.hunks), "@@ -1,3 +1,4 @@\n a\n b\n+new\n c\n");
    let added = &diff.hunks[0].lines[2];
    assert_eq!((added.old, added.new), (None, Some(3)));
}

#[test]
fn a_deletion_is_removed_lines_numbered_in_the_old_text() {
    let diff = FileDiff::new("a\nb\nc\n", "a\nc\n", Numbers::File);
    assert_eq!((diff.added, diff.removed), (0, 1));
    assert_eq!(unified(&diff.hunks), "@@ -1,3 +1,2 @@\n a\n-b\n c\n");
    let removed = &diff.hunks[0].lines[1];
    assert_eq!((removed.old, removed.new), (Some(2), None));
    let after = &diff.hunks[0].lines[2];
    assert_eq!((after.old, after.new), (Some(3), Some(2)));
}

#[test]
fn a_replacement_shows_the_old_lines_then_the_new() {
    let diff = FileDiff::new(
        "fn a() {\n    1\n}\n",
        "fn a() {\n    2\n    3\n}\n",
        Numbers::File,
    );
    assert_eq!((diff.added, diff.removed), (2, 1));
    assert_eq!(
        unified(&diff.hunks),
        "@@ -1,3 +1,4 @@\n fn a() {\n-    1\n+    2\n+    3\n }\n"
    );
}

#[test]
fn a_new_file_is_every_line_added_from_an_empty_side() {
    let diff = FileDiff::new("", "one\ntwo\n", Numbers::File);
    assert_eq!((diff.added, diff.removed), (2, 0));
    assert_eq!(unified(&diff.hunks), "@@ -0,0 +1,2 @@\n+one\n+two\n");
}

#[test]
fn crlf_lines_diff_by_their_text_and_carry_no_carriage_return() {
    let diff = FileDiff::new("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", Numbers::File);
    assert_eq!((diff.added, diff.removed), (1, 1));
    assert_eq!(unified(&diff.hunks), "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    assert!(diff.hunks[0].lines.iter().all(|l| !l.text.contains('\r')));
}

#[test]
fn far_apart_changes_are_separate_hunks_with_three_lines_of_context() {
    let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
    let new: String = (1..=20)
        .map(|n| match n {
            2 => "two\n".to_string(),
            18 => "eighteen\n".to_string(),
            n => format!("{n}\n"),
        })
        .collect();
    let diff = FileDiff::new(&old, &new, Numbers::File);
    let headers: Vec<String> = diff.hunks.iter().map(Hunk::header).collect();
    assert_eq!(headers, ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"]);
    let second = &diff.hunks[1].lines;
    assert_eq!(second.first().map(|l| l.text.as_str()), Some("15"));
    assert_eq!(second.last().map(|l| l.text.as_str()), Some("20"));
}

#[test]
fn equal_texts_have_no_hunks() {
    let diff = FileDiff::new("same\n", "same\n", Numbers::Piece);
    assert!(diff.hunks.is_empty());
    assert_eq!((diff.added, diff.removed), (0, 0));
}

#[test]
fn a_huge_rewrite_is_every_old_line_removed_and_every_new_one_added() {
    let old: String = (0..MAX_COMPARED).map(|n| format!("{n}\n")).collect();
    let new = format!("{old}extra\n");
    let diff = FileDiff::new(&old, &new, Numbers::File);
    assert_eq!((diff.added, diff.removed), (MAX_COMPARED + 1, MAX_COMPARED));
}
