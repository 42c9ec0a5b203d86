//! Ranking files the way an engineer would skim a search: a definition of the
//! thing asked about counts far more than a mention, a file or folder named
//! after it counts too, and source folders count more than tests, benches,
//! examples, docs, changelogs, fixtures, generated and vendored files.
//!
//! Every file any of the searches found is scored: the names glob listed, the
//! definition lines, the per-file mention counts (all matching files, not the
//! first 200 lines) and, for entry points, the files package manifests name.

use std::collections::BTreeMap;

use regex::Regex;

use super::manifest::{self, Entry};
use super::query::{Query, Term, Topic};
use super::results::Hit;
use crate::ident::{Definition, definitions};

/// What a definition of a term counts, times the term's weight.
const DEFINITION: f64 = 10.0;
/// What a file named after a term counts, times the term's weight.
const FILE_NAME: f64 = 8.0;
/// What a folder on the path named after a term counts, times its weight.
const FOLDER_NAME: f64 = 3.0;
/// The extra factor when the name is the term itself (`main.rs`, `fn main`).
const EXACT: f64 = 1.5;
/// Asked about errors: what a type definition counts, and a function's.
const ERROR_TYPE: f64 = 1.5;
const ERROR_FUNCTION: f64 = 0.6;
/// A term in a name but not at its end (`config` in `ConfigError`) counts
/// this share: the name is of something else.
const NOT_HEAD: f64 = 0.6;
/// Each further definition of the same term in one file counts this share.
const FURTHER_DEFINITION: f64 = 0.3;
/// Definitions of one term counted per file at most.
const DEFINITIONS_COUNTED: usize = 5;
/// Mentions count `MENTION × ln(1 + n)`: many mentions help, but never as
/// much as a definition.
const MENTION: f64 = 1.5;
/// What the searches found, as the tools reported it.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// Paths whose file or folder name matched (from glob).
    pub names: Vec<String>,
    /// Definition lines (from grep).
    pub definitions: Vec<Hit>,
    /// Matching lines per file (from grep's count mode).
    pub mentions: Vec<(String, u64)>,
    /// Entry fields of package manifests (from grep).
    pub manifest: Vec<Hit>,
    /// Files read successfully (from read_file): a file a manifest names may
    /// have shown up nowhere else.
    pub read: Vec<String>,
}

/// A file and why it ranks where it does.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Ranked {
    pub path: String,
    pub score: f64,
    /// The definition lines of the file, best first.
    pub definitions: Vec<Hit>,
    /// The manifest line naming this file as an entry point, if any.
    pub named_by: Option<Hit>,
    /// What the file defines or is named after, for the answer.
    pub defined: Vec<String>,
    pub mentions: u64,
    pub named_after: Option<String>,
}

impl Ranked {
    /// The line that best shows why this file ranks: its best definition.
    pub fn best_line(&self) -> Option<u64> {
        self.definitions.first().map(|h| h.line)
    }
}

/// One compiled term.
struct Matcher<'a> {
    term: &'a Term,
    weight: f64,
    re: Regex,
}

/// Scores every file in `found` for `query`, best first; ties by path.
pub(super) fn rank(query: &Query, found: &Found) -> Vec<Ranked> {
    let matchers: Vec<Matcher> = query
        .terms
        .iter()
        .filter_map(|t| {
            Some(Matcher {
                term: t,
                weight: t.weight,
                re: Regex::new(&t.pattern()).ok()?,
            })
        })
        .collect();
    let entries = manifest::entries(&found.manifest);
    let mut files: BTreeMap<&str, Ranked> = BTreeMap::new();
    let paths = found
        .names
        .iter()
        .map(String::as_str)
        .chain(found.definitions.iter().map(|h| h.path.as_str()))
        .chain(found.mentions.iter().map(|(p, _)| p.as_str()))
        .chain(found.read.iter().map(String::as_str));
    for path in paths {
        files.entry(path).or_insert_with(|| Ranked {
            path: path.to_string(),
            score: 0.0,
            definitions: Vec::new(),
            named_by: None,
            defined: Vec::new(),
            mentions: 0,
            named_after: None,
        });
    }
    for (path, n) in &found.mentions {
        if let Some(file) = files.get_mut(path.as_str()) {
            file.mentions = *n;
        }
    }
    let mut scored: Vec<Ranked> = files
        .into_values()
        .map(|mut file| {
            let hits: Vec<&Hit> = found
                .definitions
                .iter()
                .filter(|h| h.path == file.path)
                .collect();
            let mut score = definition_score(&matchers, &hits, query.topic, &mut file);
            score += name_score(&matchers, &mut file);
            score += MENTION * (1.0 + file.mentions as f64).ln();
            let named_by = entries
                .iter()
                .filter(|entry| entry.target == file.path)
                .fold(None, |best: Option<&Entry>, entry| match best {
                    Some(b) if b.weight() >= entry.weight() => Some(b),
                    Some(_) | None => Some(entry),
                });
            // What the manifest says is not weighed by where the file sits.
            let declared = named_by.map_or(0.0, Entry::weight);
            file.named_by = named_by.map(|entry| entry.line.clone());
            file.score = score * path_factor(&file.path, query.topic) + declared;
            file
        })
        .filter(|file| file.score > 0.0)
        .collect();
    scored.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
    });
    for file in scored.iter().take(8) {
        tracing::debug!(
            score = file.score,
            path = %file.path,
            defined = ?file.defined,
            mentions = file.mentions,
            named_after = ?file.named_after,
            "offline ranking"
        );
    }
    scored
}

/// Definitions of the terms in `hits`, each term's first counting in full and
/// the next few less; keeps the lines, best first, in `file`.
fn definition_score(matchers: &[Matcher], hits: &[&Hit], topic: Topic, file: &mut Ranked) -> f64 {
    let mut per_term: Vec<Vec<f64>> = vec![Vec::new(); matchers.len()];
    let mut lines: Vec<(f64, &Hit)> = Vec::new();
    let mut names: Vec<(f64, u64, &str)> = Vec::new();
    for hit in hits {
        let mut line_score: f64 = 0.0;
        for (name, kind) in definitions(&hit.text) {
            // A type counts a little more than a function, a value, module or
            // impl half; asked about errors, a type named after one is the
            // answer and a function that mentions one is not.
            let strength = match (topic, kind) {
                (Topic::Errors, Definition::Type) => 1.2 * ERROR_TYPE,
                (Topic::Errors, Definition::Function) => ERROR_FUNCTION,
                (_, Definition::Type) => 1.2,
                (_, Definition::Function) => 1.0,
                (_, Definition::Value) => 0.5,
            };
            for (i, m) in matchers.iter().enumerate() {
                let Some(found) = m.re.find(name) else {
                    continue;
                };
                // The last part of a name is what it is (`AgentIdError` is an
                // error, `ErrorEvent` an event): a term there counts in full.
                let bare = name.trim_end_matches(|c: char| c == '_' || c.is_ascii_digit());
                let head = match found.end() >= bare.len() {
                    true => 1.0,
                    false => NOT_HEAD,
                };
                let exact = match m.term.is_exact(name) {
                    true => EXACT,
                    false => 1.0,
                };
                let value = m.weight * DEFINITION * exact * strength * head;
                per_term[i].push(value);
                line_score += value;
                names.push((value, hit.line, name));
            }
        }
        if line_score > 0.0 {
            lines.push((line_score, hit));
        }
    }
    lines.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.line.cmp(&b.1.line)));
    // Names in the order of their lines' scores, so the first name is the one
    // the best line defines.
    let line_rank = |line: u64| {
        lines
            .iter()
            .position(|(_, h)| h.line == line)
            .unwrap_or(usize::MAX)
    };
    names.sort_by(|a, b| {
        line_rank(a.1)
            .cmp(&line_rank(b.1))
            .then_with(|| b.0.total_cmp(&a.0))
    });
    for (_, _, name) in names {
        if !file.defined.iter().any(|d| d == name) {
            file.defined.push(name.to_string());
        }
    }
    file.definitions = lines.into_iter().map(|(_, h)| h.clone()).collect();
    // The best definition of each term counts in full, the next few less.
    per_term
        .iter_mut()
        .map(|values| {
            values.sort_by(|a, b| b.total_cmp(a));
            values
                .iter()
                .take(DEFINITIONS_COUNTED)
                .enumerate()
                .map(|(n, v)| if n == 0 { *v } else { v * FURTHER_DEFINITION })
                .sum::<f64>()
        })
        .sum()
}

/// The file's own name and its folders' names against the terms.
fn name_score(matchers: &[Matcher], file: &mut Ranked) -> f64 {
    let mut parts: Vec<&str> = file.path.split('/').collect();
    let Some(name) = parts.pop() else {
        return 0.0;
    };
    let stem = name.split('.').next().unwrap_or(name);
    let mut total = 0.0;
    for m in matchers {
        let exact = |s: &str| match m.term.is_exact(s) {
            true => EXACT,
            false => 1.0,
        };
        if m.re.is_match(name) {
            total += m.weight * FILE_NAME * exact(stem);
            file.named_after.get_or_insert_with(|| m.term.word.clone());
            continue;
        }
        let folder = parts
            .iter()
            .filter(|p| m.re.is_match(p))
            .map(|p| exact(p))
            .fold(0.0, f64::max);
        if folder > 0.0 {
            total += m.weight * FOLDER_NAME * folder;
            file.named_after.get_or_insert_with(|| m.term.word.clone());
        }
    }
    total
}

/// Folders whose files are seldom the answer, unless tests are asked about.
const AUXILIARY_FOLDERS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "__tests__",
    "spec",
    "specs",
    "testdata",
    "fixtures",
    "fixture",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
    "example",
    "examples",
    "doc",
    "docs",
    "documentation",
    "vendor",
    "vendored",
    "third_party",
    "node_modules",
    "generated",
    "gen",
    "dist",
    "build",
    "target",
    "site-packages",
    "migrations",
    "e2e",
    "mocks",
    "mock",
    "assets",
    "screenshots",
    "scripts",
    "typings",
];
/// Whether a folder of that name holds tests, docs, tools or the like
/// (`xtask*` is the Rust convention for a project's build tools).
pub(super) fn is_auxiliary_folder(name: &str) -> bool {
    AUXILIARY_FOLDERS.contains(&name) || name.starts_with("xtask")
}

/// Folders that hold a project's own source.
const SOURCE_FOLDERS: &[&str] = &[
    "src", "lib", "cmd", "crates", "pkg", "app", "internal", "source",
];
/// Extensions of files that are not code.
const TEXT_EXTENSIONS: &[&str] = &[
    "md", "markdown", "rst", "txt", "adoc", "html", "htm", "css", "svg", "csv", "lock", "json",
    "yaml", "yml", "toml", "ini", "cfg", "xml", "log", "snap", "map",
];

/// How much a file's place counts: tests, benches, docs and the like far
/// less than the project's own source.
fn path_factor(path: &str, topic: Topic) -> f64 {
    let lower = path.to_lowercase();
    let mut parts: Vec<&str> = lower.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    let extension = name.rsplit_once('.').map_or("", |(_, ext)| ext);
    let auxiliary = parts.iter().any(|p| is_auxiliary_folder(p))
        || is_test_file(name)
        || is_changelog(name)
        || name.contains(".min.")
        || name.contains("generated")
        || name.ends_with(".pb.go")
        || name.ends_with(".d.ts")
        || is_tool_config(name);
    let wants_tests = topic == Topic::Tests
        && (is_test_file(name)
            || parts
                .iter()
                .any(|p| ["test", "tests", "__tests__", "spec", "specs", "e2e"].contains(p)));
    let mut factor = match (wants_tests, auxiliary) {
        (true, _) => 1.5,
        (false, true) => 0.2,
        (false, false) => 1.0,
    };
    if parts.iter().any(|p| SOURCE_FOLDERS.contains(p)) {
        factor *= 1.3;
    }
    if TEXT_EXTENSIONS.contains(&extension) || (extension.is_empty() && !name.starts_with('.')) {
        factor *= 0.4;
    }
    factor
}

fn is_test_file(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name);
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem == "tests"
        || stem == "test"
        || stem == "conftest"
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// The configuration of a development tool (`eslint.config.js`,
/// `vite.config.ts`, `jest.config.cjs`), not of the project itself.
fn is_tool_config(name: &str) -> bool {
    let mut parts = name.rsplit('.');
    let (Some(extension), Some(config), Some(_tool)) = (parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    config == "config" && ["js", "mjs", "cjs", "ts", "mts", "cts"].contains(&extension)
}

fn is_changelog(name: &str) -> bool {
    ["changelog", "changes", "history", "news", "releases"]
        .iter()
        .any(|n| name.starts_with(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::offline::query::query;

    fn hit(path: &str, line: u64, text: &str) -> Hit {
        Hit {
            path: path.into(),
            line,
            text: text.into(),
        }
    }

    #[test]
    fn a_definition_and_a_name_beat_many_mentions_and_source_beats_tests() {
        let q = query("where is the entry point");
        let found = Found {
            names: vec!["src/main.rs".into(), "tests/main_test.rs".into()],
            definitions: vec![
                hit("src/main.rs", 40, "fn main() {"),
                hit("tests/main_test.rs", 3, "fn main_works() {"),
            ],
            mentions: vec![
                ("docs/guide.md".into(), 90),
                ("src/main.rs".into(), 2),
                ("tests/main_test.rs".into(), 12),
            ],
            manifest: Vec::new(),
            read: Vec::new(),
        };
        let ranked = rank(&q, &found);
        let order: Vec<&str> = ranked.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(
            order,
            ["src/main.rs", "tests/main_test.rs", "docs/guide.md"]
        );
        assert_eq!(ranked[0].best_line(), Some(40));
        assert_eq!(ranked[0].defined, ["main"]);
    }

    #[test]
    fn tests_docs_typings_and_tool_configs_weigh_less_than_source() {
        let source = path_factor("src/config.rs", Topic::Code);
        for other in [
            "tests/config.rs",
            "docs/config.md",
            "typings/index.d.ts",
            "eslint.config.js",
            "CHANGELOG.md",
            "xtask-lint/src/main.rs",
        ] {
            assert!(path_factor(other, Topic::Code) < source / 2.0, "{other}");
        }
        assert!(path_factor("tests/config.rs", Topic::Tests) > source);
        assert!(!is_tool_config("config.js"));
    }
}
