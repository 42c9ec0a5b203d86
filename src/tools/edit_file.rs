//! `edit_file`: replace an exact piece of text in a file. Exact matching (no fuzzy
//! guessing) means an edit lands where the model meant or not at all; the errors
//! say why, so the model can retry with more context.

use std::io::Read;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::place::Place;
use super::util::{blocking, flag, io_error, one_line, optional_str, required_str, special_file};
use super::write_file::write_atomic;
use super::{Tool, ToolContext, ToolError, ToolKind};

/// Files larger than this are not loaded for editing.
const MAX_EDIT_BYTES: u64 = 64 << 20;

/// Replaces exact text in a file.
pub struct EditFileTool;

#[async_trait]
impl Tool for EditFileTool {
    fn name(&self) -> &str {
        "edit_file"
    }

    fn description(&self) -> &str {
        "Replace exact text in a file. `old_text` must match the file exactly, \
         including indentation and line breaks, and must occur exactly once unless \
         `replace_all` is true; include enough surrounding lines to make it unique. \
         Read the file first (without the line-number prefix read_file adds). The \
         edit is written atomically. To create a file, use write_file."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "File to edit, relative to the workspace root."
                },
                "old_text": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The exact text to replace."
                },
                "new_text": {
                    "type": "string",
                    "description": "The text to put in its place."
                },
                "replace_all": {
                    "type": "boolean",
                    "description": "Replace every occurrence (default false: exactly one)."
                }
            },
            "required": ["path", "old_text", "new_text"]
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn summarize(&self, input: &Value) -> String {
        let path = one_line(optional_str(input, "path").unwrap_or("?"), 120);
        match flag(input, "replace_all") {
            true => format!("{path} (all occurrences)"),
            false => path,
        }
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let resolved = ctx.workspace.resolve(required_str(&input, "path")?);
        let old_text = required_str(&input, "old_text")?.to_string();
        let new_text = required_str(&input, "new_text")?.to_string();
        let replace_all = flag(&input, "replace_all");
        let shown = ctx.workspace.display(&resolved.path);
        let place = Place::of(ctx, &resolved);
        blocking(ctx, move || {
            let path = &resolved.path;
            let meta = std::fs::metadata(path).map_err(|err| match err.kind() {
                std::io::ErrorKind::NotFound => ToolError::Failed(format!(
                    "file not found: {shown}; use write_file to create it"
                )),
                _ => io_error(&shown, err),
            })?;
            if meta.is_dir() {
                return Err(ToolError::Failed(format!("{shown} is a directory")));
            }
            special_file(&meta, &shown)?;
            if meta.len() > MAX_EDIT_BYTES {
                return Err(ToolError::Failed(format!(
                    "{shown} is too large to edit ({} bytes)",
                    meta.len()
                )));
            }
            // Read at most the limit, whatever the size said a moment ago.
            let file = place.open_read().map_err(|err| io_error(&shown, err))?;
            special_file(
                &file.metadata().map_err(|err| io_error(&shown, err))?,
                &shown,
            )?;
            let mut bytes = Vec::new();
            file.take(MAX_EDIT_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(|err| io_error(&shown, err))?;
            if bytes.len() as u64 > MAX_EDIT_BYTES {
                return Err(ToolError::Failed(format!(
                    "{shown} grew too large to edit (over {MAX_EDIT_BYTES} bytes)"
                )));
            }
            let content = String::from_utf8(bytes).map_err(|_| {
                ToolError::Failed(format!(
                    "{shown} is not valid UTF-8 text; edit_file only edits text files"
                ))
            })?;
            let (edited, count) = apply_edit(&content, &old_text, &new_text, replace_all)
                .map_err(|problem| ToolError::Failed(problem.message(&shown)))?;
            write_atomic(&place, &shown, edited.as_bytes())?;
            Ok(match count {
                1 => format!("replaced 1 occurrence in {shown}"),
                n => format!("replaced {n} occurrences in {shown}"),
            })
        })
        .await
    }
}

/// Why an edit could not be applied.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum EditProblem {
    EmptyOldText,
    Unchanged,
    NotFound { whitespace_hint: bool },
    Ambiguous(usize),
}

impl EditProblem {
    fn message(&self, shown: &str) -> String {
        match self {
            EditProblem::EmptyOldText => "old_text is empty; give the exact text to replace".into(),
            EditProblem::Unchanged => {
                "old_text and new_text are the same; nothing to change".into()
            }
            EditProblem::NotFound {
                whitespace_hint: false,
            } => format!("old_text not found in {shown}; read the file and copy the text exactly"),
            EditProblem::NotFound {
                whitespace_hint: true,
            } => format!(
                "old_text not found in {shown}, but it would match if whitespace were \
                 ignored; check indentation, trailing spaces and line endings"
            ),
            EditProblem::Ambiguous(n) => format!(
                "old_text matches {n} times in {shown}; add more context or set replace_all"
            ),
        }
    }
}

/// `content` with the edit applied, and how many replacements were made.
pub(super) fn apply_edit(
    content: &str,
    old_text: &str,
    new_text: &str,
    replace_all: bool,
) -> Result<(String, usize), EditProblem> {
    if old_text.is_empty() {
        return Err(EditProblem::EmptyOldText);
    }
    if old_text == new_text {
        return Err(EditProblem::Unchanged);
    }
    let count = content.matches(old_text).count();
    match count {
        0 => Err(EditProblem::NotFound {
            whitespace_hint: matches_ignoring_whitespace(content, old_text),
        }),
        1 => Ok((content.replacen(old_text, new_text, 1), 1)),
        n if replace_all => Ok((content.replace(old_text, new_text), n)),
        n => Err(EditProblem::Ambiguous(n)),
    }
}

/// Whether `needle` occurs in `haystack` once every line of both is trimmed: the
/// usual near miss is indentation or trailing spaces.
fn matches_ignoring_whitespace(haystack: &str, needle: &str) -> bool {
    let squash = |text: &str| text.lines().map(str::trim).collect::<Vec<_>>().join("\n");
    let needle = squash(needle);
    !needle.trim().is_empty() && squash(haystack).contains(&needle)
}
