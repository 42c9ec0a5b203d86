//! Reading the tools' text back: what `grep`, `grep` in count mode, `glob` and
//! `read_file` returned, parsed from exactly the text a model would read.

/// A tool's "more results" marker or note: never a result line.
fn is_note(line: &str) -> bool {
    line.starts_with("[... ") || line.starts_with('(') || line.starts_with("no ")
}

/// One `path:line:text` line of grep output.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Hit {
    pub path: String,
    pub line: u64,
    pub text: String,
}

/// What the grep tool appends to a line it cut.
const CUT_MARK: &str = " [...]";

impl Hit {
    /// Parses `path:line:text`, where the path is everything before the first
    /// `:<digits>:`. Markers and notes do not parse.
    pub fn parse(line: &str) -> Option<Hit> {
        if is_note(line) {
            return None;
        }
        for (colon, _) in line.match_indices(':') {
            let rest = &line[colon + 1..];
            let digits = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            if colon == 0 || digits == 0 || !rest[digits..].starts_with(':') {
                continue;
            }
            let number = rest[..digits].parse().ok()?;
            let text = &rest[digits + 1..];
            return Some(Hit {
                path: line[..colon].to_string(),
                line: number,
                text: text.strip_suffix(CUT_MARK).unwrap_or(text).to_string(),
            });
        }
        None
    }
}

/// Every `path:line:text` line of grep's content output.
pub(super) fn grep_lines(output: &str) -> Vec<Hit> {
    output.lines().filter_map(Hit::parse).collect()
}

/// Every `path:N` line of grep's count output.
pub(super) fn grep_counts(output: &str) -> Vec<(String, u64)> {
    output
        .lines()
        .filter(|line| !is_note(line))
        .filter_map(|line| {
            let (path, n) = line.rsplit_once(':')?;
            Some((path.to_string(), n.trim().parse().ok()?))
        })
        .filter(|(path, _)| !path.is_empty())
        .collect()
}

/// The paths glob listed.
pub(super) fn glob_paths(output: &str) -> Vec<String> {
    output
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty() && !is_note(line))
        .map(String::from)
        .collect()
}

/// The numbered lines read_file returned: `   12\ttext`.
pub(super) fn read_lines(output: &str) -> Vec<(u64, &str)> {
    output
        .lines()
        .filter_map(|line| {
            let (number, text) = line.split_once('\t')?;
            Some((number.trim().parse().ok()?, text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grep_lines_parse_with_colons_in_paths_and_text() {
        let hit = Hit::parse("src/a:b.rs:12:let x = \"y:3:z\";").unwrap();
        assert_eq!(hit.path, "src/a:b.rs");
        assert_eq!(hit.line, 12);
        assert_eq!(hit.text, "let x = \"y:3:z\";");
        assert_eq!(Hit::parse("no matches for (?i)(auth)"), None);
        assert_eq!(Hit::parse("(2 paths could not be read)"), None);
        let marker = "[... 12 more matches not shown; 212 matching lines in 9 files]";
        assert_eq!(Hit::parse(marker), None);
    }

    #[test]
    fn counts_globs_and_reads_parse() {
        let counts = grep_counts(
            "src/main.rs:12\na:b.rs:3\n[... 1 more files not shown; 16 matching lines in 3 files]",
        );
        assert_eq!(counts, [("src/main.rs".into(), 12), ("a:b.rs".into(), 3)]);
        assert_eq!(glob_paths("a.rs\nsrc/b.rs\n"), ["a.rs", "src/b.rs"]);
        assert!(glob_paths("no files match **/*x*").is_empty());
        assert_eq!(
            read_lines("     9\tfn main() {\n    10\t}\n"),
            [(9, "fn main() {"), (10, "}")]
        );
    }
}
