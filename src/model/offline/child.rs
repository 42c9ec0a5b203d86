//! The child's side of the offline driver: three steps, each decided from the
//! history alone, each made of real tool calls the live pane shows.
//!
//! 1. Search: `glob` for files named after the main terms, `grep` for
//!    definitions of any term, `grep` in count mode for how often each file
//!    mentions them, and for entry points `grep` over package manifests' entry
//!    fields.
//! 2. Read the best few files around their best line.
//! 3. Answer with an `ExploreResult` built from what the tools returned: the
//!    best file first, the definition it holds, one or two lines per file. Every
//!    `path:line` is a line a tool really returned.

use serde_json::{Value, json};

use super::manifest::{self, MANIFEST_GLOB, MANIFEST_PATTERN};
use super::query::{Query, Term, Topic};
use super::rank::{self, Found, Ranked};
use super::results::{self, Hit};
use super::words::{self, count};
use super::{Answered, PlannedCall, Reply, answered, assistant_turns, has_tool_results};
use crate::model::{Message, ModelRequest, Role};

/// Files read in step 2.
const FILES_TO_READ: usize = 3;
/// Files named by a manifest read in step 2 at most, beyond the best ones.
const MANIFEST_READS: usize = 3;
/// Lines shown before a file's best line when it is read.
const LINES_BEFORE: u64 = 3;
/// Lines read per file in step 2.
const READ_LIMIT: u64 = 40;
/// Terms whose names the glob of step 1 looks for: the heaviest few, since
/// a name search by substring grows noisy fast.
const NAME_TERMS: usize = 3;
/// Findings (one per file) at most.
const MAX_FINDINGS: usize = 5;
/// Evidence locations at most, and per file.
const MAX_EVIDENCE: usize = 8;
const EVIDENCE_PER_FILE: usize = 2;
/// What the reads of step 2 may bring the context to at most, so the answer
/// of step 3 still fits the explore profile's context budget (16,000) and
/// the three requests together its token budget (32,000).
const READ_UP_TO_TOKENS: u64 = 13_000;
/// What one line read costs, about (a line of code is some 80 characters).
const TOKENS_PER_LINE: u64 = 25;
/// Fewer lines than this per file are not worth a read.
const MIN_READ_LINES: u64 = 8;
/// Characters of a quoted line at most.
const MAX_QUOTE_CHARS: usize = 100;

/// The child's next reply, from its history alone.
pub(super) fn respond(request: &ModelRequest) -> Reply {
    let messages = &request.messages;
    let query = words::prompt_query(&first_prompt(messages));
    if query.is_empty() {
        return Reply::text(no_terms());
    }
    let turns = assistant_turns(messages);
    if turns == 0 {
        return search(&query);
    }
    let history = History::read(messages);
    // A text message after the first (the contract checker's correction, or a
    // hook) asks for the answer again, whatever step this is.
    let corrected = messages
        .last()
        .is_some_and(|m| m.role == Role::User && !has_tool_results(m));
    let ranked = rank::rank(&query, &history.found);
    let entries = manifest::entry_files(&history.found.manifest);
    let room = READ_UP_TO_TOKENS.saturating_sub(request.estimate_input_tokens());
    match (turns, corrected, history.failure.as_deref()) {
        (1, false, None) if !(ranked.is_empty() && entries.is_empty()) => {
            match read_best(&ranked, &entries, room) {
                Some(reads) => reads,
                None => Reply::text(final_answer(&query, &ranked, &history)),
            }
        }
        _ => Reply::text(final_answer(&query, &ranked, &history)),
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

fn search(query: &Query) -> Reply {
    let mut by_weight: Vec<&Term> = query.terms.iter().collect();
    by_weight.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    let named: Vec<&str> = by_weight
        .into_iter()
        .take(NAME_TERMS)
        .map(|t| t.stem.as_deref().unwrap_or(&t.word))
        .collect();
    let alternatives = match named.as_slice() {
        [one] => one.to_string(),
        many => format!("{{{}}}", many.join(",")),
    };
    let words = query.words_input();
    let mut calls = vec![
        PlannedCall {
            name: "glob",
            input: json!({"pattern": format!("**/*{alternatives}*"), "case_insensitive": true}),
        },
        PlannedCall {
            name: "grep",
            input: json!({"pattern": words, "definitions": true}),
        },
        // The definitions in the files named after the main terms, which in a
        // big tree may sort past the first grep's 200 lines.
        PlannedCall {
            name: "grep",
            input: json!({
                "pattern": words,
                "definitions": true,
                "glob": format!("*{alternatives}*"),
            }),
        },
        PlannedCall {
            name: "grep",
            input: json!({
                "pattern": words,
                "identifiers": true,
                "output_mode": "count",
            }),
        },
    ];
    if query.topic == Topic::Entry {
        calls.push(PlannedCall {
            name: "grep",
            input: json!({"pattern": MANIFEST_PATTERN, "glob": MANIFEST_GLOB}),
        });
    }
    let listed: Vec<&str> = query.words().collect();
    Reply {
        text: format!(
            "Searching file names, definitions and mentions of {}.",
            listed.join(", ")
        ),
        calls,
    }
}

/// Reads the best files around their best line, and the files package
/// manifests name as entry points that no search found (a manifest may name a
/// file that mentions none of the terms, or one that does not exist).
/// The lines per file shrink to what `room` (tokens) allows; with no room for
/// a useful read there is none (`None`), and the child answers from its search.
fn read_best(ranked: &[Ranked], entries: &[String], room: u64) -> Option<Reply> {
    let best = &ranked[..ranked.len().min(FILES_TO_READ)];
    let extra = entries
        .iter()
        .filter(|e| !ranked.iter().any(|r| &r.path == *e))
        .take(MANIFEST_READS);
    let files = (best.len() + extra.clone().count()) as u64;
    let limit = (room / TOKENS_PER_LINE / files.max(1)).min(READ_LIMIT);
    if limit < MIN_READ_LINES {
        return None;
    }
    let mut calls: Vec<PlannedCall> = best
        .iter()
        .map(|file| PlannedCall {
            name: "read_file",
            input: json!({
                "path": file.path,
                "offset": file.best_line().unwrap_or(1).saturating_sub(LINES_BEFORE).max(1),
                "limit": limit,
            }),
        })
        .collect();
    let mut names: Vec<&str> = best.iter().map(|f| f.path.as_str()).collect();
    for entry in extra {
        calls.push(PlannedCall {
            name: "read_file",
            input: json!({"path": entry, "limit": limit}),
        });
        names.push(entry);
    }
    Some(Reply {
        text: format!("Reading {}.", names.join(", ")),
        calls,
    })
}

/// What the tools of steps 1 and 2 returned.
#[derive(Debug, Default)]
struct History {
    found: Found,
    /// Lines read in step 2: (path, line, text).
    read: Vec<Hit>,
    /// The first search that failed (denied, interrupted, bad input).
    failure: Option<String>,
    /// Whether any search ran at all.
    searched: bool,
}

impl History {
    fn read(messages: &[Message]) -> History {
        let mut history = History::default();
        for message in messages.iter().filter(|m| has_tool_results(m)) {
            for result in answered(messages, message) {
                history.take(&result);
            }
        }
        history
    }

    fn take(&mut self, result: &Answered<'_>) {
        let field = |name: &str| result.input.get(name).and_then(Value::as_str);
        if result.is_error {
            if result.name != "read_file" && self.failure.is_none() {
                self.failure = Some(result.content.trim().to_string());
            }
            return;
        }
        match (result.name, field("output_mode"), field("glob")) {
            ("glob", _, _) => {
                self.searched = true;
                self.found.names = results::glob_paths(result.content);
            }
            ("grep", Some("count"), _) => {
                self.searched = true;
                self.found.mentions = results::grep_counts(result.content);
            }
            ("grep", _, Some(MANIFEST_GLOB)) => {
                self.found.manifest = results::grep_lines(result.content)
            }
            ("grep", _, _) => {
                self.searched = true;
                for hit in results::grep_lines(result.content) {
                    if !self.found.definitions.contains(&hit) {
                        self.found.definitions.push(hit);
                    }
                }
            }
            ("read_file", _, _) => {
                let Some(path) = field("path") else {
                    return;
                };
                self.found.read.push(path.to_string());
                self.read
                    .extend(
                        results::read_lines(result.content)
                            .into_iter()
                            .map(|(line, text)| Hit {
                                path: path.to_string(),
                                line,
                                text: text.to_string(),
                            }),
                    );
            }
            _ => {}
        }
    }
}

/// The `ExploreResult` JSON for what the search found.
fn final_answer(query: &Query, ranked: &[Ranked], history: &History) -> String {
    let listed: Vec<&str> = query.words().collect();
    let listed = listed.join(", ");
    let result = match (&history.failure, history.searched, ranked.is_empty()) {
        (Some(error), _, _) => explore_json(
            "partial",
            format!("Could not search for {listed}: {}", words::cut(error, 200)),
            Vec::new(),
            Vec::new(),
            vec![format!("The search for {listed} did not run.")],
        ),
        (None, false, _) => explore_json(
            "partial",
            format!("Could not search for {listed}: the search returned nothing."),
            Vec::new(),
            Vec::new(),
            vec![format!("The search for {listed} did not run.")],
        ),
        (None, true, true) => explore_json(
            "partial",
            format!("Found nothing matching {listed} in this workspace."),
            Vec::new(),
            Vec::new(),
            vec![format!(
                "No file names, definitions or mentions of {listed}."
            )],
        ),
        (None, true, false) => found(query, ranked, history),
    };
    serde_json::to_string_pretty(&result).unwrap_or_else(|_| result.to_string())
}

fn found(query: &Query, ranked: &[Ranked], history: &History) -> Value {
    let top = &ranked[..ranked.len().min(MAX_FINDINGS)];
    let matchers: Vec<regex::Regex> = query
        .terms
        .iter()
        .filter_map(|t| regex::Regex::new(&t.pattern()).ok())
        .collect();
    let lines: Vec<Vec<Hit>> = top
        .iter()
        .map(|file| evidence_lines(file, history, &matchers))
        .collect();
    let evidence: Vec<String> = lines
        .iter()
        .flatten()
        .take(MAX_EVIDENCE)
        .map(|h| format!("{}:{}", h.path, h.line))
        .collect();
    let findings = top
        .iter()
        .zip(&lines)
        .map(|(file, lines)| finding(file, lines.first()))
        .collect();
    let others: Vec<String> = top[1..]
        .iter()
        .take(2)
        .map(|f| format!("`{}`", f.path))
        .collect();
    let mut summary = lead(&top[0], lines[0].first());
    if !others.is_empty() {
        summary.push_str(&format!(" Next: {}.", others.join(", ")));
    }
    let mut unresolved = Vec::new();
    if top[0].defined.is_empty() {
        unresolved.push(format!(
            "No definition named after {} was found; this ranks file names and mentions.",
            query.words().take(3).collect::<Vec<_>>().join(", ")
        ));
    }
    let status = match top[0].defined.is_empty() && top[0].named_after.is_none() {
        true => "partial",
        false => "completed",
    };
    explore_json(status, summary, findings, evidence, unresolved)
}

/// The lines that show why `file` ranks: its best definitions, the manifest
/// line naming it, else the first line read from it that mentions a term.
fn evidence_lines(file: &Ranked, history: &History, matchers: &[regex::Regex]) -> Vec<Hit> {
    let mut lines: Vec<Hit> = file
        .definitions
        .iter()
        .take(EVIDENCE_PER_FILE)
        .cloned()
        .collect();
    let mentions = || {
        history
            .read
            .iter()
            .filter(|h| h.path == file.path)
            .filter(|h| matchers.iter().any(|m| m.is_match(&h.text)))
    };
    // Code over comments and a `#!` line, when the file has both.
    let mention = mentions()
        .find(|h| !crate::ident::is_comment(&h.text))
        .or_else(|| mentions().next());
    // A file a manifest names may mention no term: its first line of code.
    let first_code = || {
        history
            .read
            .iter()
            .filter(|h| h.path == file.path)
            .find(|h| !h.text.trim().is_empty() && !crate::ident::is_comment(&h.text))
    };
    if lines.is_empty()
        && let Some(line) = mention.or_else(first_code)
    {
        lines.push(line.clone());
    }
    if let Some(manifest) = &file.named_by
        && lines.len() < EVIDENCE_PER_FILE
    {
        lines.push(manifest.clone());
    }
    lines
}

/// "`src/main.rs` defines `main` (line 240: `fn main() -> ExitCode {`)."
fn lead(file: &Ranked, line: Option<&Hit>) -> String {
    let quoted = line.map(|h| format!(" (line {}: `{}`)", h.line, quote(&h.text)));
    let quoted = quoted.unwrap_or_default();
    match (file.defined.first(), &file.named_by, &file.named_after) {
        (Some(name), Some(manifest), _) => format!(
            "`{}` defines `{name}`{quoted} and is the entry that `{}` names.",
            file.path, manifest.path
        ),
        (Some(name), None, _) => format!("`{}` defines `{name}`{quoted}.", file.path),
        (None, Some(manifest), _) => format!(
            "`{}` is the entry that `{}` names{quoted}.",
            file.path, manifest.path
        ),
        (None, None, Some(term)) => format!(
            "`{}` is named after `{term}` and has {}{quoted}.",
            file.path,
            count(file.mentions, "matching line", "matching lines")
        ),
        (None, None, None) => format!(
            "`{}` has the most matching lines ({}){quoted}.",
            file.path, file.mentions
        ),
    }
}

/// `src/main.rs: defines main — fn main() -> ExitCode {`.
fn finding(file: &Ranked, line: Option<&Hit>) -> String {
    let mut why: Vec<String> = Vec::new();
    if !file.defined.is_empty() {
        let names: Vec<&str> = file.defined.iter().take(3).map(String::as_str).collect();
        why.push(format!("defines {}", names.join(", ")));
    }
    if let Some(manifest) = &file.named_by {
        why.push(format!("named by {}", manifest.path));
    }
    if let Some(term) = &file.named_after {
        why.push(format!("named after {term}"));
    }
    if file.mentions > 0 {
        why.push(count(file.mentions, "matching line", "matching lines"));
    }
    let mut out = format!("{}: {}", file.path, why.join("; "));
    if let Some(line) = line {
        out.push_str(&format!(" — {}", quote(&line.text)));
    }
    out
}

fn quote(text: &str) -> String {
    words::cut(text.trim(), MAX_QUOTE_CHARS)
}

fn no_terms() -> String {
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
