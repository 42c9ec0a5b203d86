//! The output viewer's text and its search: a tool cell's whole output (or
//! a message's whole text) as the viewer shows it (what a terminal would obey made visible), and where
//! a query is found in it. The keys (`selection.rs`) and the view
//! (`view/viewer.rs`) both read these, so a match is where it is drawn.

use super::state::EntryKind;

/// A search of the viewer's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Find {
    pub query: String,
    /// The query is being typed (after `/`, until Enter).
    pub typing: bool,
    pub matches: Vec<Match>,
    /// The match `n`/`N` went to last.
    pub current: Option<usize>,
    /// The viewer scrolls to the current match at the next frame.
    pub reveal: bool,
}

/// Where a query was found: bytes `start..end` of line `line` of [`lines`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    pub line: usize,
    pub start: usize,
    pub end: usize,
}

/// What the viewer shows of an entry, and what `y` copies: a tool cell's
/// output, or a message's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown<'a> {
    /// The title's first word: the tool, `brood` or `you`.
    pub name: &'a str,
    /// The rest of the title: the call in one line, or what the text is.
    pub label: &'a str,
    pub text: &'a str,
    /// What `y` says it copied.
    pub what: What,
}

/// The kind of text shown, for the note after a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Output,
    Answer,
    Prompt,
}

impl Shown<'_> {
    /// `the output of bash`, `the answer`, `the prompt`.
    pub fn describe(&self) -> String {
        match self.what {
            What::Output => format!("the output of {}", self.name),
            What::Answer => "the answer".into(),
            What::Prompt => "the prompt".into(),
        }
    }
}

/// The viewer's text of an entry: tool cells and messages have one; task
/// cells (their child has a transcript), reasoning and notices do not.
pub fn shown(kind: &EntryKind) -> Option<Shown<'_>> {
    match kind {
        EntryKind::Tool(cell) => Some(Shown {
            name: &cell.name,
            label: &cell.label,
            text: &cell.output,
            what: What::Output,
        }),
        EntryKind::Assistant { text, .. } => Some(Shown {
            name: "brood",
            label: "answer",
            text,
            what: What::Answer,
        }),
        EntryKind::User(text) => Some(Shown {
            name: "you",
            label: "prompt",
            text,
            what: What::Prompt,
        }),
        EntryKind::Task(_) | EntryKind::Thinking { .. } | EntryKind::Notice { .. } => None,
    }
}

/// Columns a tab takes in the viewer.
const TAB: &str = "    ";

/// The viewer's lines of `output`: control characters and escape sequences
/// shown, not obeyed (`text::visible`), tabs as spaces.
pub fn lines(output: &str) -> Vec<String> {
    output
        .trim_end()
        .lines()
        .map(|line| crate::text::visible(line).replace('\t', TAB))
        .collect()
}

/// Every place `query` is in `lines`, in order, ignoring ASCII case; found
/// places do not overlap.
pub fn find(lines: &[String], query: &str) -> Vec<Match> {
    let needle = query.to_ascii_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        // ASCII lowering keeps every byte where it was, so offsets in the
        // lowered line are offsets in the line.
        let hay = line.to_ascii_lowercase();
        let mut from = 0;
        while let Some(at) = hay[from..].find(&needle) {
            let start = from + at;
            let end = start + needle.len();
            found.push(Match {
                line: i,
                start,
                end,
            });
            from = end;
        }
    }
    found
}

impl Find {
    /// Moves to the next match (`forward`) or the previous one, round the
    /// ends.
    pub fn step(&mut self, forward: bool) {
        let n = self.matches.len();
        if n == 0 {
            return;
        }
        self.current = Some(match (self.current, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
        });
        self.reveal = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_viewer_shows_escapes_and_finds_every_match_in_any_case() {
        let text = lines("ok\n\u{1b}[2Jwarning: Warn\tWARN\r\n");
        assert_eq!(text, ["ok", "^[[2Jwarning: Warn    WARN"]);
        let found = find(&text, "warn");
        let at: Vec<_> = found.iter().map(|m| (m.line, m.start, m.end)).collect();
        assert_eq!(at, [(1, 5, 9), (1, 14, 18), (1, 22, 26)]);
        assert!(find(&text, "").is_empty());
        assert!(find(&text, "absent").is_empty());
    }

    #[test]
    fn steps_go_round_the_ends() {
        let mut find = Find {
            matches: vec![
                Match {
                    line: 0,
                    start: 0,
                    end: 1
                };
                3
            ],
            ..Find::default()
        };
        find.step(false);
        assert_eq!(find.current, Some(2));
        find.step(true);
        assert_eq!(find.current, Some(0));
        find.step(true);
        assert_eq!(find.current, Some(1));
        assert!(find.reveal);
    }
}
