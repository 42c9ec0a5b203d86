//! The output viewer's text and its search: a tool cell's whole output as
//! the viewer shows it (what a terminal would obey made visible), and where
//! a query is found in it. The keys (`selection.rs`) and the view
//! (`view/viewer.rs`) both read these, so a match is where it is drawn.

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
