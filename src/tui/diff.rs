//! Line diffs of what a file tool changed, in unified hunks: the edit cells in
//! the conversation and the `/diff` overlay draw these. Lines are split the
//! way `str::lines` does, so a CRLF file diffs by its text and a carriage
//! return never reaches the screen.

use similar::{Algorithm, DiffOp};

/// Unchanged lines kept around each change.
pub const CONTEXT: usize = 3;
/// Lines (old and new together) beyond which the two sides are not searched
/// for common lines: the whole old text is shown removed and the new added,
/// so a huge rewrite costs a frame nothing.
const MAX_COMPARED: usize = 20_000;

/// What a line of a hunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    Context,
    Added,
    Removed,
}

/// One line of a hunk, with its numbers in the old and the new text (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub sign: Sign,
    pub old: Option<usize>,
    pub new: Option<usize>,
    pub text: String,
}

/// A run of changes and their context: `@@ -old_start,old_len +new_start,new_len @@`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: usize,
    pub old_len: usize,
    pub new_start: usize,
    pub new_len: usize,
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    /// `@@ -12,4 +12,5 @@`, as `diff -u` writes it (an empty side starts at 0).
    pub fn header(&self) -> String {
        let side = |start: usize, len: usize| match len {
            0 => format!("{},0", start.saturating_sub(1)),
            1 => start.to_string(),
            n => format!("{start},{n}"),
        };
        format!(
            "@@ -{} +{} @@",
            side(self.old_start, self.old_len),
            side(self.new_start, self.new_len)
        )
    }
}

/// Whether the line numbers are the file's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbers {
    /// Numbered as in the file.
    File,
    /// The diff is of a piece of the file (an edit's old and new text), whose
    /// place in the file the session does not know: no numbers are shown.
    Piece,
}

/// What the file held before the change, as far as the session knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Before {
    /// Known: the diff is against it (or the file is new).
    Known,
    /// A write replaced a file whose content is in no event: every line
    /// shows as added.
    Unseen,
}

/// A change to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    pub hunks: Vec<Hunk>,
    pub added: usize,
    pub removed: usize,
    pub numbers: Numbers,
    pub before: Before,
}

impl FileDiff {
    /// The diff from `old` to `new`.
    pub fn new(old: &str, new: &str, numbers: Numbers) -> FileDiff {
        let hunks = hunks(old, new, CONTEXT);
        let count = |sign: Sign| {
            hunks
                .iter()
                .flat_map(|h| &h.lines)
                .filter(|l| l.sign == sign)
                .count()
        };
        FileDiff {
            added: count(Sign::Added),
            removed: count(Sign::Removed),
            hunks,
            numbers,
            before: Before::Known,
        }
    }
}

/// The hunks that turn `old` into `new`, each change with `context`
/// unchanged lines around it; hunks whose context would touch are one.
pub fn hunks(old: &str, new: &str, context: usize) -> Vec<Hunk> {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let ops = if old_lines.len() + new_lines.len() > MAX_COMPARED {
        vec![
            DiffOp::Delete {
                old_index: 0,
                old_len: old_lines.len(),
                new_index: 0,
            },
            DiffOp::Insert {
                old_index: old_lines.len(),
                new_index: 0,
                new_len: new_lines.len(),
            },
        ]
    } else {
        similar::capture_diff_slices(Algorithm::Myers, &old_lines, &new_lines)
    };
    let groups = similar::group_diff_ops(ops, context);
    groups
        .iter()
        .map(|group| hunk(group, &old_lines, &new_lines))
        .collect()
}

fn hunk(ops: &[DiffOp], old: &[&str], new: &[&str]) -> Hunk {
    let mut lines = Vec::new();
    for op in ops {
        let (_, old_range, new_range) = op.as_tag_tuple();
        match op {
            DiffOp::Equal { .. } => {
                for (i, j) in old_range.zip(new_range) {
                    lines.push(line(Sign::Context, Some(i + 1), Some(j + 1), old[i]));
                }
            }
            // A replacement reads as its old lines, then its new ones.
            DiffOp::Delete { .. } | DiffOp::Insert { .. } | DiffOp::Replace { .. } => {
                for i in old_range {
                    lines.push(line(Sign::Removed, Some(i + 1), None, old[i]));
                }
                for j in new_range {
                    lines.push(line(Sign::Added, None, Some(j + 1), new[j]));
                }
            }
        }
    }
    let side_len = |sign: Sign| {
        lines
            .iter()
            .filter(|l| l.sign == sign || l.sign == Sign::Context)
            .count()
    };
    let (old_first, new_first) = ops.first().map_or((0, 0), |op| {
        let (_, o, n) = op.as_tag_tuple();
        (o.start, n.start)
    });
    Hunk {
        old_start: old_first + 1,
        old_len: side_len(Sign::Removed),
        new_start: new_first + 1,
        new_len: side_len(Sign::Added),
        lines,
    }
}

fn line(sign: Sign, old: Option<usize>, new: Option<usize>, text: &str) -> DiffLine {
    DiffLine {
        sign,
        old,
        new,
        text: text.to_string(),
    }
}

/// The tag a line's sign is written with.
pub fn mark(sign: Sign) -> char {
    match sign {
        Sign::Context => ' ',
        Sign::Added => '+',
        Sign::Removed => '-',
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
