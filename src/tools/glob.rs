//! `glob`: find files by name pattern, the way `fd --glob` would (ignored and hidden
//! files skipped), listing paths relative to the workspace root.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use globset::GlobBuilder;
use serde_json::{Value, json};

use super::util::{blocking, flag, optional_str, required_str};
use super::walk::{unreadable_note, walk_files, walker};
use super::{Tool, ToolContext, ToolError, ToolKind};

/// At most this many paths are listed; the rest are counted.
pub(super) const MAX_RESULTS: usize = 200;

/// Finds files whose path matches a glob pattern.
pub struct GlobTool;

#[async_trait]
impl Tool for GlobTool {
    fn name(&self) -> &str {
        "glob"
    }

    fn description(&self) -> &str {
        "Find files by glob pattern. The pattern is matched against each file's path \
         relative to the search folder: `*` matches within one path segment, `**` across \
         folders, so `*.rs` finds only top-level files and `**/*.rs` finds them at any \
         depth; `src/**/test_*.py` and `**/*.{ts,tsx}` work too. Skips files ignored by \
         .gitignore/.ignore and hidden files, like fd. Returns matching file paths \
         (relative to the workspace root), sorted, at most 200. Use grep to search \
         file contents."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Glob pattern, e.g. \"**/*.rs\" or \"src/*/mod.rs\"."
                },
                "path": {
                    "type": "string",
                    "description": "Folder to search in; defaults to the workspace root."
                },
                "case_insensitive": {
                    "type": "boolean",
                    "description": "Ignore case when matching (default false)."
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
        let mut out = match optional_str(input, "path") {
            Some(path) => format!("{pattern} in {path}"),
            None => pattern.to_string(),
        };
        if flag(input, "case_insensitive") {
            out.push_str(" (ignoring case)");
        }
        out
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let pattern = required_str(&input, "pattern")?;
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern).to_string();
        let root = match optional_str(&input, "path") {
            Some(path) => ctx.workspace.resolve(path).path,
            None => ctx.workspace.root().to_path_buf(),
        };
        let shown_root = ctx.workspace.display(&root);
        if !root.is_dir() {
            return Err(ToolError::Failed(if root.exists() {
                format!("{shown_root} is a file, not a folder; glob searches folders")
            } else {
                format!("folder not found: {shown_root}")
            }));
        }
        let matcher = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .case_insensitive(flag(&input, "case_insensitive"))
            .build()
            .map_err(|err| ToolError::InvalidInput(format!("invalid glob pattern: {err}")))?
            .compile_matcher();
        let absolute = Path::new(&pattern).is_absolute();
        let cancel = ctx.cancel.clone();
        let walk_root = root.clone();
        let walked = blocking(ctx, move || {
            let builder = walker(&walk_root);
            Ok(walk_files(&builder, &cancel, Vec::new, |found, entry| {
                let path = entry.path();
                let candidate = match absolute {
                    true => path,
                    false => path.strip_prefix(&walk_root).unwrap_or(path),
                };
                if matcher.is_match(candidate) {
                    found.push(path.to_path_buf());
                }
                true
            }))
        })
        .await?;
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Interrupted);
        }
        let mut found: Vec<PathBuf> = walked.states.into_iter().flatten().collect();
        if found.is_empty() {
            let place = match shown_root.as_str() {
                "." => String::new(),
                other => format!(" in {other}"),
            };
            return Ok(format!(
                "no files match {pattern}{place}{}",
                unreadable_note(walked.unreadable)
            ));
        }
        found.sort_unstable();
        let mut out = String::new();
        for path in found.iter().take(MAX_RESULTS) {
            out.push_str(&ctx.workspace.display(path));
            out.push('\n');
        }
        if found.len() > MAX_RESULTS {
            out.push_str(&format!(
                "[... {} more matches not shown; narrow the pattern]\n",
                found.len() - MAX_RESULTS
            ));
        }
        out.push_str(&unreadable_note(walked.unreadable));
        Ok(out.trim_end().to_string())
    }
}
