//! `grep`: search file contents with a regex, the way `rg -n` would (ignored,
//! hidden and binary files skipped), reporting `path:line:text`.
//!
//! Every matching line is counted, so the total in the "more matches" marker is
//! exact, but each walker thread keeps only the 200 first hits (by path, then line)
//! it has seen: memory stays bounded however many lines match.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::DirEntry;
use serde_json::{Value, json};

use super::util::{blocking, cut_chars, flag, optional_str, required_str};
use super::walk::{unreadable_note, walk_files, walker};
use super::{Tool, ToolContext, ToolError, ToolKind};
use crate::ident;

/// At most this many matching lines are listed; the rest are counted.
pub(super) const MAX_MATCHES: usize = 200;
/// Matched lines longer than this many characters are cut.
const MAX_LINE_CHARS: usize = 300;

/// Searches file contents with a regular expression.
pub struct GrepTool;

#[async_trait]
impl Tool for GrepTool {
    fn name(&self) -> &str {
        "grep"
    }

    fn description(&self) -> &str {
        "Search file contents with a regular expression (Rust regex syntax, like \
         ripgrep: `fn\\s+main`, `TODO|FIXME`; escape literal braces and dots). Searches \
         the workspace root, or `path` (a folder or a single file), skipping files \
         ignored by .gitignore/.ignore, hidden files and binary files. `glob` limits \
         which files are searched: a pattern without `/` matches file names (\"*.rs\"), \
         one with `/` matches paths relative to the search folder (\"src/**/*.ts\"). \
         Case-sensitive unless case_insensitive is true. Returns `path:line:text` lines \
         sorted by path and line, at most 200, with the total count when there are \
         more. With output_mode \"count\" it lists `path:N` (matching lines per file) \
         instead, most matches first, at most 200 files, with totals. With \
         identifiers true, pattern is words separated by `|` matched on identifier \
         boundaries in any case (`main` finds `fn main`, `runMain`, `main_loop`, \
         `__main__`, not `domains`; `pars*` also finds `parse`, `parsed`, `parser`); \
         with definitions true, only lines that define such a name (`fn`, `def`, \
         `class`, `func`, `struct`, `enum`, `type`, top-level `const`, …). Matches \
         within one line only."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Regular expression to search for."
                },
                "path": {
                    "type": "string",
                    "description": "Folder or file to search; defaults to the workspace root."
                },
                "glob": {
                    "type": "string",
                    "description": "Only search files matching this glob, e.g. \"*.rs\"."
                },
                "case_insensitive": {
                    "type": "boolean",
                    "description": "Ignore case when matching (default false)."
                },
                "identifiers": {
                    "type": "boolean",
                    "description": "pattern is words separated by `|`, matched on identifier boundaries in any case (default false)."
                },
                "definitions": {
                    "type": "boolean",
                    "description": "Only lines defining a name that holds one of the words of pattern; implies identifiers (default false)."
                },
                "output_mode": {
                    "type": "string",
                    "enum": ["content", "count"],
                    "description": "\"content\" (default): matching lines; \"count\": matching lines per file."
                }
            },
            "required": ["pattern"]
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn summarize(&self, input: &Value) -> String {
        let pattern = optional_str(input, "pattern").unwrap_or("?");
        let shown = super::util::one_line(pattern, 60);
        let mut out = match (flag(input, "definitions"), flag(input, "identifiers")) {
            (true, _) => format!("definitions of {shown}"),
            (false, true) => format!("identifiers {shown}"),
            (false, false) => format!("\"{shown}\""),
        };
        if let Some(path) = optional_str(input, "path") {
            out.push_str(&format!(" in {path}"));
        }
        if let Some(glob) = optional_str(input, "glob") {
            out.push_str(&format!(" ({glob})"));
        }
        if flag(input, "case_insensitive") {
            out.push_str(" (ignoring case)");
        }
        if let Ok(OutputMode::Count) = OutputMode::of(input) {
            out.push_str(" (count)");
        }
        out
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let pattern = required_str(&input, "pattern")?.to_string();
        let mode = OutputMode::of(&input)?;
        let words = |pattern: &str| {
            ident::words_pattern(pattern).map_err(|e| ToolError::InvalidInput(e.to_string()))
        };
        // Identifier searches match any case already, and rest on the case of
        // humps (`runMain`), so they ignore case_insensitive.
        let (regex, ignore_case) = match (flag(&input, "definitions"), flag(&input, "identifiers"))
        {
            (true, _) => (ident::definition_pattern(&words(&pattern)?), false),
            (false, true) => (words(&pattern)?, false),
            (false, false) => (pattern.clone(), flag(&input, "case_insensitive")),
        };
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(ignore_case)
            .line_terminator(Some(b'\n'))
            .build(&regex)
            .map_err(|err| ToolError::InvalidInput(format!("invalid regex: {err}")))?;
        let filter = match optional_str(&input, "glob") {
            Some(glob) => Some(FileFilter::new(glob)?),
            None => None,
        };
        let root = match optional_str(&input, "path") {
            Some(path) => ctx.workspace.resolve(path).path,
            None => ctx.workspace.root().to_path_buf(),
        };
        if !root.exists() {
            return Err(ToolError::Failed(format!(
                "not found: {}",
                ctx.workspace.display(&root)
            )));
        }
        let cancel = ctx.cancel.clone();
        let walk_root = root.clone();
        let walked = blocking(ctx, move || {
            let mut searcher = SearcherBuilder::new();
            searcher
                .line_number(true)
                .binary_detection(BinaryDetection::quit(b'\x00'));
            let builder = walker(&walk_root);
            let new_state = || ThreadState::new(matcher.clone(), searcher.build(), mode);
            Ok(walk_files(&builder, &cancel, new_state, |state, entry| {
                if let Some(filter) = &filter
                    && !filter.accepts(entry, &walk_root)
                {
                    return true;
                }
                state.search(entry.path());
                true
            }))
        })
        .await?;
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Interrupted);
        }
        let (mut total, mut files, mut unreadable) = (0u64, 0u64, walked.unreadable);
        let mut hits = Vec::new();
        let mut counts = Vec::new();
        for state in walked.states {
            total += state.total;
            files += state.files;
            unreadable += state.unreadable;
            hits.extend(state.best.into_vec());
            counts.extend(state.counts);
        }
        if total == 0 {
            return Ok(format!(
                "no matches for {pattern}{}",
                unreadable_note(unreadable)
            ));
        }
        if let OutputMode::Count = mode {
            return Ok(count_report(ctx, counts, total, unreadable));
        }
        hits.sort_unstable();
        let mut out = String::new();
        for hit in hits.iter().take(MAX_MATCHES) {
            let path = ctx.workspace.display(&hit.path);
            out.push_str(&format!("{path}:{}:{}\n", hit.line, hit.text));
        }
        let shown = hits.len().min(MAX_MATCHES) as u64;
        if total > shown {
            out.push_str(&format!(
                "[... {} more matches not shown; {total} matching lines in {files} files]\n",
                total - shown
            ));
        }
        out.push_str(&unreadable_note(unreadable));
        Ok(out.trim_end().to_string())
    }
}

/// What a search lists: the matching lines, or how many lines match per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutputMode {
    Content,
    Count,
}

impl OutputMode {
    fn of(input: &Value) -> Result<Self, ToolError> {
        match optional_str(input, "output_mode") {
            None | Some("content") => Ok(OutputMode::Content),
            Some("count") => Ok(OutputMode::Count),
            Some(other) => Err(ToolError::InvalidInput(format!(
                "output_mode must be \"content\" or \"count\", not \"{other}\""
            ))),
        }
    }
}

/// `path:N` lines, most matches first (ties by path), at most [`MAX_MATCHES`]
/// files, then a marker with the totals when some were left out.
fn count_report(
    ctx: &ToolContext,
    mut counts: Vec<(Arc<Path>, u64)>,
    total: u64,
    unreadable: usize,
) -> String {
    counts.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut out = String::new();
    for (path, n) in counts.iter().take(MAX_MATCHES) {
        out.push_str(&format!("{}:{n}\n", ctx.workspace.display(path)));
    }
    if counts.len() > MAX_MATCHES {
        out.push_str(&format!(
            "[... {} more files not shown; {total} matching lines in {} files]\n",
            counts.len() - MAX_MATCHES,
            counts.len()
        ));
    }
    out.push_str(&unreadable_note(unreadable));
    out.trim_end().to_string()
}

/// The `glob` input: file names when it has no `/`, relative paths otherwise.
struct FileFilter {
    matcher: GlobMatcher,
    by_name: bool,
}

impl FileFilter {
    fn new(glob: &str) -> Result<Self, ToolError> {
        let glob = glob.strip_prefix("./").unwrap_or(glob);
        let matcher = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|err| ToolError::InvalidInput(format!("invalid glob: {err}")))?
            .compile_matcher();
        Ok(FileFilter {
            matcher,
            by_name: !glob.contains('/'),
        })
    }

    /// A file named explicitly as `path` is always searched, as rg does.
    fn accepts(&self, entry: &DirEntry, root: &Path) -> bool {
        let path = entry.path();
        if entry.depth() == 0 {
            return true;
        }
        match self.by_name {
            true => self.matcher.is_match(entry.file_name()),
            false => self
                .matcher
                .is_match(path.strip_prefix(root).unwrap_or(path)),
        }
    }
}

/// One matching line kept for output; ordered by path, then line.
struct Hit {
    path: Arc<Path>,
    line: u64,
    text: String,
}

impl Hit {
    fn key(&self) -> (&Path, u64) {
        (&self.path, self.line)
    }
}

impl PartialEq for Hit {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Hit {}

impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Hit {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// One walker thread's searcher, buffers and results; reused for every file so a
/// big walk does not allocate per file.
struct ThreadState {
    matcher: RegexMatcher,
    searcher: Searcher,
    /// The first hits seen so far, largest on top so it can be evicted.
    best: BinaryHeap<Hit>,
    /// Lines of the file being searched: (line number, text).
    file_hits: Vec<(u64, String)>,
    mode: OutputMode,
    /// In count mode, every matching file with its number of matching lines.
    counts: Vec<(Arc<Path>, u64)>,
    total: u64,
    files: u64,
    unreadable: usize,
}

impl ThreadState {
    fn new(matcher: RegexMatcher, searcher: Searcher, mode: OutputMode) -> Self {
        ThreadState {
            matcher,
            searcher,
            best: BinaryHeap::new(),
            file_hits: Vec::new(),
            mode,
            counts: Vec::new(),
            total: 0,
            files: 0,
            unreadable: 0,
        }
    }

    fn search(&mut self, path: &Path) {
        self.file_hits.clear();
        // Hits that sort after the current worst kept hit can never be shown;
        // in count mode no line is shown at all.
        let bound = match self.best.len() >= MAX_MATCHES {
            true => self.best.peek().map(|hit| (&*hit.path, hit.line)),
            false => None,
        };
        let mut sink = FileSink {
            path,
            keep: match self.mode {
                OutputMode::Content => Keep::Before(bound),
                OutputMode::Count => Keep::None,
            },
            hits: &mut self.file_hits,
            count: 0,
            binary: false,
        };
        let searched = self.searcher.search_path(&self.matcher, path, &mut sink);
        let (count, binary) = (sink.count, sink.binary);
        if searched.is_err() {
            self.unreadable += 1;
            return;
        }
        if binary || count == 0 {
            return;
        }
        self.total += count;
        self.files += 1;
        if let OutputMode::Count = self.mode {
            self.counts.push((Arc::from(path), count));
        }
        if self.file_hits.is_empty() {
            return;
        }
        let shared: Arc<Path> = Arc::from(path);
        for (line, text) in self.file_hits.drain(..) {
            let hit = Hit {
                path: Arc::clone(&shared),
                line,
                text,
            };
            if self.best.len() < MAX_MATCHES {
                self.best.push(hit);
            } else if self.best.peek().is_some_and(|worst| hit < *worst) {
                self.best.pop();
                self.best.push(hit);
            }
        }
    }
}

/// Collects one file's matches; counts all of them, keeps the text of those that
/// could still be among the first [`MAX_MATCHES`].
struct FileSink<'a> {
    path: &'a Path,
    keep: Keep<'a>,
    hits: &'a mut Vec<(u64, String)>,
    count: u64,
    binary: bool,
}

/// Which matching lines of a file are worth keeping the text of.
#[derive(Clone, Copy)]
enum Keep<'a> {
    /// None: only the count is wanted.
    None,
    /// Those before this (path, line), or all while nothing bounds them yet.
    Before(Option<(&'a Path, u64)>),
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.count += 1;
        let line = mat.line_number().unwrap_or(0);
        let wanted = match self.keep {
            Keep::None => false,
            Keep::Before(bound) => {
                self.hits.len() < MAX_MATCHES && bound.is_none_or(|bound| (self.path, line) < bound)
            }
        };
        if wanted {
            self.hits.push((line, line_text(mat.bytes())));
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        // A NUL byte: treat the whole file as binary and report none of it.
        self.binary = true;
        Ok(false)
    }
}

/// The matched line as shown: no line ending, at most [`MAX_LINE_CHARS`] chars.
fn line_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    // Decode only what can be shown (4 bytes per char at most), not a megabyte line.
    let head = &bytes[..bytes.len().min(MAX_LINE_CHARS * 4 + 4)];
    let decoded = String::from_utf8_lossy(head);
    let (shown, cut) = cut_chars(&decoded, MAX_LINE_CHARS);
    match cut || head.len() < bytes.len() {
        true => format!("{shown} [...]"),
        false => shown.to_string(),
    }
}
