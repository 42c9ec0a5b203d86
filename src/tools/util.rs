//! Small helpers the tools share: reading input fields, cutting text for the model,
//! and running blocking work off the runtime's worker threads.

use serde_json::Value;

use super::{ToolContext, ToolError};

/// A required string field. The schema check has normally caught a missing field
/// already; this still refuses (instead of panicking) if a tool is called directly.
pub(super) fn required_str<'a>(input: &'a Value, field: &str) -> Result<&'a str, ToolError> {
    input
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::InvalidInput(format!("missing required field \"{field}\"")))
}

/// An optional string field; `null` counts as absent (models send it for optional
/// fields they do not use).
pub(super) fn optional_str<'a>(input: &'a Value, field: &str) -> Option<&'a str> {
    input.get(field).and_then(Value::as_str)
}

/// An optional non-negative integer field; `null` counts as absent.
pub(super) fn optional_u64(input: &Value, field: &str) -> Option<u64> {
    input.get(field).and_then(Value::as_u64)
}

/// An optional boolean field, `false` when absent.
pub(super) fn flag(input: &Value, field: &str) -> bool {
    input.get(field).and_then(Value::as_bool).unwrap_or(false)
}

/// The first `max` characters of `text`, and whether anything was cut.
pub(super) fn cut_chars(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (&text[..at], true),
        None => (text, false),
    }
}

/// The last `max` characters of `text`.
pub(super) fn last_chars(text: &str, max: usize) -> &str {
    if max == 0 {
        return "";
    }
    match text.char_indices().rev().nth(max - 1) {
        Some((at, _)) => &text[at..],
        None => text,
    }
}

/// One line for a summary: the first line of `text`, at most `max` characters,
/// with `…` when something was left out.
pub(super) fn one_line(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or("");
    let (cut, was_cut) = cut_chars(first, max);
    if was_cut || first.len() < text.trim_end().len() {
        format!("{cut}…")
    } else {
        cut.to_string()
    }
}

/// Runs `work` on a blocking thread, so a long file walk or read never stalls the
/// runtime's workers. Returns [`ToolError::Interrupted`] as soon as `ctx.cancel`
/// fires; `work` should also poll the token to stop early, since a blocking thread
/// cannot be aborted.
pub(super) async fn blocking<T, F>(ctx: &ToolContext, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    let handle = tokio::task::spawn_blocking(work);
    tokio::select! {
        joined = handle => match joined {
            Ok(result) => result,
            Err(err) => Err(ToolError::Failed(format!("tool task failed: {err}"))),
        },
        () = ctx.cancel.cancelled() => Err(ToolError::Interrupted),
    }
}

/// An error for anything but a regular file or a folder: a FIFO would block the
/// tool forever, a device (`/dev/zero`) never ends, a socket cannot be read.
/// Folders are left to the caller, which says what to do instead.
pub(super) fn special_file(meta: &std::fs::Metadata, shown: &str) -> Result<(), ToolError> {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    let what = if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        return Ok(());
    };
    Err(not_a_file(shown, what))
}

/// The refusal of a special file; `what` is "a FIFO (named pipe)", "a socket"
/// or "a device".
pub(super) fn not_a_file(shown: &str, what: &str) -> ToolError {
    ToolError::Failed(format!(
        "{shown} is {what}, not a regular file; the file tools read and write files only"
    ))
}

/// `err` with the displayed path as context, keeping "not found" readable.
pub(super) fn io_error(shown: &str, err: std::io::Error) -> ToolError {
    match err.kind() {
        std::io::ErrorKind::NotFound => ToolError::Failed(format!("not found: {shown}")),
        _ => ToolError::Io {
            context: shown.to_string(),
            source: err,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_respects_char_boundaries() {
        assert_eq!(cut_chars("héllo", 2), ("hé", true));
        assert_eq!(cut_chars("hé", 2), ("hé", false));
        assert_eq!(last_chars("héllo", 4), "éllo");
        assert_eq!(last_chars("hé", 5), "hé");
        assert_eq!(last_chars("hé", 0), "");
    }

    #[test]
    fn one_line_marks_what_it_leaves_out() {
        assert_eq!(one_line("ls -la", 80), "ls -la");
        assert_eq!(one_line("echo a\necho b", 80), "echo a…");
        assert_eq!(one_line("abcdef", 3), "abc…");
    }
}
