//! The child's side of the offline driver: three steps, each decided from the
//! history alone. Step 1 lists the files and greps for the prompt's keywords;
//! step 2 reads the two files with the most hits around their first hit; step 3
//! answers with an `ExploreResult` JSON object built from the grep lines, so
//! every `path:line` in it is a line that really contains a keyword.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::words::{self, count};
use super::{PlannedCall, Reply, answered, assistant_turns, has_tool_results};
use crate::model::{Message, ModelRequest, Role};

/// Files read in step 2.
const FILES_TO_READ: usize = 2;
/// Lines shown before the first hit of a file read in step 2.
const LINES_BEFORE: u64 = 5;
/// Lines read per file in step 2.
const READ_LIMIT: u64 = 30;
/// Findings (one per file) at most.
const MAX_FINDINGS: usize = 5;
/// Evidence locations at most.
const MAX_EVIDENCE: usize = 8;
/// Evidence taken from one file before the next files get a turn.
const EVIDENCE_PER_FILE: usize = 3;
/// Past this many input tokens the child answers instead of reading files: half
/// the explore profile's context budget (16,000), so a search with a huge
/// output still ends in an answer rather than a budget stop.
const READ_UNTIL_TOKENS: u64 = 8_000;
/// Characters of a matching line quoted in a finding at most.
const MAX_FINDING_CHARS: usize = 120;
/// What the grep tool appends to a line it cut.
const CUT_MARK: &str = " [...]";

/// The child's next reply, from its history alone.
pub(super) fn respond(request: &ModelRequest) -> Reply {
    let messages = &request.messages;
    let keywords = words::prompt_keywords(&first_prompt(messages));
    if keywords.is_empty() {
        return Reply::text(no_keywords());
    }
    let turns = assistant_turns(messages);
    if turns == 0 {
        return search(&keywords);
    }
    let search = Search::from_history(messages);
    // A text message after the first (the contract checker's correction, or a
    // hook) asks for the answer again, whatever step this is.
    let corrected = messages
        .last()
        .is_some_and(|m| m.role == Role::User && !has_tool_results(m));
    let room_to_read = request.estimate_input_tokens() <= READ_UNTIL_TOKENS;
    match (&search, turns, corrected) {
        (Search::Done(report), 1, false) if !report.hits.is_empty() && room_to_read => {
            read_best(report)
        }
        _ => Reply::text(final_answer(&keywords, &search)),
    }
}

/// The text of the task prompt: the first user message that is not tool results.
fn first_prompt(messages: &[Message]) -> String {
    messages
        .iter()
        .find(|m| m.role == Role::User && !has_tool_results(m))
        .map(Message::text)
        .unwrap_or_default()
}

fn search(keywords: &[String]) -> Reply {
    Reply {
        text: format!("Searching for {}.", keywords.join(", ")),
        calls: vec![
            PlannedCall {
                name: "glob",
                input: json!({"pattern": "**/*"}),
            },
            PlannedCall {
                name: "grep",
                input: json!({"pattern": words::any_of_pattern(keywords)}),
            },
        ],
    }
}

fn read_best(report: &GrepReport) -> Reply {
    let files = report.ranked();
    let best = &files[..files.len().min(FILES_TO_READ)];
    let names: Vec<&str> = best.iter().map(|f| f.path).collect();
    let calls = best
        .iter()
        .map(|file| PlannedCall {
            name: "read_file",
            input: json!({
                "path": file.path,
                "offset": file.first_line().saturating_sub(LINES_BEFORE).max(1),
                "limit": READ_LIMIT,
            }),
        })
        .collect();
    Reply {
        text: format!("Reading {} around the first matches.", names.join(" and ")),
        calls,
    }
}

/// What the grep call of step 1 came to.
#[derive(Debug, Clone, PartialEq)]
enum Search {
    /// No grep result in the history.
    Missing,
    /// The grep call returned an error (denied, interrupted, bad input).
    Failed(String),
    Done(GrepReport),
}

impl Search {
    /// The latest grep result in `messages`.
    fn from_history(messages: &[Message]) -> Search {
        let latest = messages
            .iter()
            .rev()
            .filter(|m| has_tool_results(m))
            .flat_map(|m| answered(messages, m).into_iter().rev())
            .find(|a| a.name == "grep");
        match latest {
            None => Search::Missing,
            Some(a) if a.is_error => Search::Failed(a.content.trim().to_string()),
            Some(a) => Search::Done(GrepReport::parse(a.content)),
        }
    }
}

/// One `path:line:text` line of grep output.
#[derive(Debug, Clone, PartialEq)]
struct Hit {
    path: String,
    line: u64,
    text: String,
}

impl Hit {
    /// Parses `path:line:text`, where the path is everything before the first
    /// `:<digits>:`. Markers and notes do not parse.
    fn parse(line: &str) -> Option<Hit> {
        for (colon, _) in line.match_indices(':') {
            let rest = &line[colon + 1..];
            let digits = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            if colon == 0 || digits == 0 || !rest[digits..].starts_with(':') {
                continue;
            }
            let number = rest[..digits].parse().ok()?;
            return Some(Hit {
                path: line[..colon].to_string(),
                line: number,
                text: rest[digits + 1..].to_string(),
            });
        }
        None
    }

    /// The matching line as quoted in a finding.
    fn quote(&self) -> String {
        let text = self.text.strip_suffix(CUT_MARK).unwrap_or(&self.text);
        words::cut(text.trim(), MAX_FINDING_CHARS)
    }

    fn location(&self) -> String {
        format!("{}:{}", self.path, self.line)
    }
}

/// The grep output, parsed.
#[derive(Debug, Clone, PartialEq)]
struct GrepReport {
    /// In grep's order: by path, then line.
    hits: Vec<Hit>,
    /// From the "more matches" marker when the output was cut: all matching
    /// lines and the files they are in.
    totals: Option<(u64, u64)>,
}

/// The hits of one file.
struct FileHits<'a> {
    path: &'a str,
    hits: Vec<&'a Hit>,
}

impl FileHits<'_> {
    fn first_line(&self) -> u64 {
        self.hits.first().map_or(1, |h| h.line)
    }
}

impl GrepReport {
    fn parse(output: &str) -> GrepReport {
        GrepReport {
            hits: output.lines().filter_map(Hit::parse).collect(),
            totals: output.lines().find_map(parse_marker),
        }
    }

    /// Files by number of hits, most first; ties by path.
    fn ranked(&self) -> Vec<FileHits<'_>> {
        let mut by_path: BTreeMap<&str, Vec<&Hit>> = BTreeMap::new();
        for hit in &self.hits {
            by_path.entry(hit.path.as_str()).or_default().push(hit);
        }
        let mut files: Vec<FileHits<'_>> = by_path
            .into_iter()
            .map(|(path, hits)| FileHits { path, hits })
            .collect();
        files.sort_by_key(|f| (Reverse(f.hits.len()), f.path));
        files
    }

    /// Matching lines and files: the marker's totals when grep cut its output,
    /// else what was listed.
    fn totals(&self, files: usize) -> (u64, u64) {
        self.totals
            .unwrap_or((self.hits.len() as u64, files as u64))
    }
}

/// `[... 12 more matches not shown; 212 matching lines in 9 files]` → (212, 9).
fn parse_marker(line: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix("[... ")?.split_once("; ")?.1;
    let (total, rest) = rest.split_once(" matching lines in ")?;
    let files = rest.strip_suffix(" files]")?;
    Some((total.parse().ok()?, files.parse().ok()?))
}

/// The `ExploreResult` JSON for what the search found.
fn final_answer(keywords: &[String], search: &Search) -> String {
    let listed = keywords.join(", ");
    let not_searched = || -> Vec<String> {
        keywords
            .iter()
            .map(|k| format!("\"{k}\" was not searched for."))
            .collect()
    };
    let result = match search {
        Search::Missing => explore_json(
            "partial",
            format!("Could not search for {listed}: the search returned nothing."),
            Vec::new(),
            Vec::new(),
            not_searched(),
        ),
        Search::Failed(error) => explore_json(
            "partial",
            format!("Could not search for {listed}: {}", words::cut(error, 200)),
            Vec::new(),
            Vec::new(),
            not_searched(),
        ),
        Search::Done(report) if report.hits.is_empty() => explore_json(
            "partial",
            format!("Found nothing matching {listed} in this workspace."),
            Vec::new(),
            Vec::new(),
            keywords
                .iter()
                .map(|k| format!("No matches for \"{k}\"."))
                .collect(),
        ),
        Search::Done(report) => found(keywords, report),
    };
    serde_json::to_string_pretty(&result).unwrap_or_else(|_| result.to_string())
}

fn found(keywords: &[String], report: &GrepReport) -> Value {
    let files = report.ranked();
    let (total, file_count) = report.totals(files.len());
    let top = files.first().map_or("", |f| f.path);
    let top_hits = files.first().map_or(0, |f| f.hits.len());
    let place = match file_count {
        1 => format!("in 1 file, `{top}`"),
        n => format!("in {n} files; most in `{top}` ({top_hits})"),
    };
    let summary = format!(
        "Found {} for {} {place}.",
        count(total, "match", "matches"),
        keywords.join(", ")
    );
    let findings = files
        .iter()
        .take(MAX_FINDINGS)
        .filter_map(|f| f.hits.first())
        .map(|h| format!("{}: {}", h.path, h.quote()))
        .collect();
    explore_json(
        "completed",
        summary,
        findings,
        evidence(&files),
        unmatched(keywords, report, total),
    )
}

/// Up to [`MAX_EVIDENCE`] locations, best files first: a few from each file in
/// rank order, then more from the best files if there is room.
fn evidence(files: &[FileHits<'_>]) -> Vec<String> {
    let mut taken = vec![0usize; files.len()];
    let mut left = MAX_EVIDENCE;
    for cap in [EVIDENCE_PER_FILE, usize::MAX] {
        for (file, taken) in files.iter().zip(taken.iter_mut()) {
            let more = file.hits.len().min(cap).saturating_sub(*taken).min(left);
            *taken += more;
            left -= more;
        }
    }
    files
        .iter()
        .zip(taken)
        .flat_map(|(file, n)| file.hits.iter().take(n).map(|h| h.location()))
        .collect()
}

/// The keywords no listed line contains.
fn unmatched(keywords: &[String], report: &GrepReport, total: u64) -> Vec<String> {
    let shown = report.hits.len() as u64;
    keywords
        .iter()
        .filter(|k| {
            !report
                .hits
                .iter()
                .any(|h| h.text.to_lowercase().contains(k.as_str()))
        })
        .map(|k| match total > shown {
            true => format!(
                "\"{k}\" is not in the {shown} matching lines shown (of {total}); it may be in the rest."
            ),
            false => format!("No matches for \"{k}\"."),
        })
        .collect()
}

fn no_keywords() -> String {
    let result = explore_json(
        "partial",
        "The task named nothing to search for.".to_string(),
        Vec::new(),
        Vec::new(),
        vec!["Which names or terms should be searched for?".to_string()],
    );
    serde_json::to_string_pretty(&result).unwrap_or_else(|_| result.to_string())
}

fn explore_json(
    status: &str,
    summary: String,
    findings: Vec<String>,
    evidence: Vec<String>,
    unresolved: Vec<String>,
) -> Value {
    json!({
        "status": status,
        "summary": summary,
        "findings": findings,
        "evidence": evidence,
        "unresolved_questions": unresolved,
    })
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
        assert_eq!(parse_marker(marker), Some((212, 9)));
    }

    #[test]
    fn files_rank_by_hits_then_path_and_evidence_spreads_over_them() {
        let mut output = String::new();
        for line in 1..=10 {
            output.push_str(&format!("z.rs:{line}:auth\n"));
        }
        output.push_str("b.rs:4:auth\na.rs:7:auth\n");
        output.push_str("[... 5 more matches not shown; 17 matching lines in 4 files]");
        let report = GrepReport::parse(&output);
        let ranked: Vec<&str> = report.ranked().iter().map(|f| f.path).collect();
        assert_eq!(ranked, ["z.rs", "a.rs", "b.rs"]);
        let evidence = evidence(&report.ranked());
        assert_eq!(
            evidence,
            [
                "z.rs:1", "z.rs:2", "z.rs:3", "z.rs:4", "z.rs:5", "z.rs:6", "a.rs:7", "b.rs:4"
            ]
        );
        let answer = found(&["auth".to_string(), "zebra".to_string()], &report);
        assert_eq!(
            answer["summary"],
            "Found 17 matches for auth, zebra in 4 files; most in `z.rs` (10)."
        );
        let unresolved = answer["unresolved_questions"][0]
            .as_str()
            .unwrap_or_default();
        assert!(unresolved.contains("may be in the rest"), "{unresolved}");
    }

    #[test]
    fn keywords_are_escaped_for_the_regex() {
        let pattern = words::any_of_pattern(&["a.b".to_string(), "c|d(".to_string()]);
        assert_eq!(pattern, r"(?i)(a\.b|c\|d\()");
    }
}
