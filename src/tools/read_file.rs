//! `read_file`: a window of a text file with line numbers, like `cat -n`. Reads
//! through a buffer and stops at the window's end, so a huge file costs no more
//! memory than the lines shown.

use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::place::Place;
use super::util::{blocking, cut_chars, io_error, optional_u64, required_str, special_file};
use super::{Tool, ToolContext, ToolError, ToolKind};

/// Lines shown when no `limit` is given, and at most.
pub(super) const MAX_LINES: u64 = 2000;
/// Characters of output at most, whatever the line count.
pub(super) const MAX_CHARS: usize = 50_000;
/// A line longer than this many characters is cut.
pub(super) const MAX_LINE_CHARS: usize = 2000;
/// Bytes looked at to decide that a file is binary, as git does.
const SNIFF_BYTES: u64 = 8192;
/// How far past the window the remaining lines are counted exactly.
const COUNT_AHEAD_BYTES: u64 = 32 << 20;

/// Reads a text file with line numbers.
pub struct ReadFileTool;

#[async_trait]
impl Tool for ReadFileTool {
    fn name(&self) -> &str {
        "read_file"
    }

    fn description(&self) -> &str {
        "Read a text file. Returns its lines numbered like `cat -n` (line number, tab, \
         text). Paths are relative to the workspace root. Shows at most 2000 lines or \
         50,000 characters per call; when the file goes on, the output ends with a \
         marker telling the `offset` to continue from. `offset` is the 1-based line to \
         start at, `limit` the number of lines. Lines over 2000 characters are cut. \
         Binary files are refused; for folders use glob."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "File to read, relative to the workspace root."
                },
                "offset": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "1-based line number to start at (default 1)."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "How many lines to read (default and maximum 2000)."
                }
            },
            "required": ["path"]
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn summarize(&self, input: &Value) -> String {
        let path = input.get("path").and_then(Value::as_str).unwrap_or("?");
        let offset = optional_u64(input, "offset");
        match (offset, optional_u64(input, "limit")) {
            (None, None) => path.to_string(),
            (offset, Some(limit)) => {
                let first = offset.unwrap_or(1);
                let last = first.saturating_add(limit.saturating_sub(1));
                format!("{path} {first}-{last}")
            }
            (Some(first), None) => format!("{path} {first}-"),
        }
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let resolved = ctx.workspace.resolve(required_str(&input, "path")?);
        let shown = ctx.workspace.display(&resolved.path);
        let place = Place::of(ctx, &resolved);
        let offset = optional_u64(&input, "offset").unwrap_or(1).max(1);
        let limit = optional_u64(&input, "limit")
            .unwrap_or(MAX_LINES)
            .clamp(1, MAX_LINES);
        blocking(ctx, move || {
            read_window(&resolved.path, &place, &shown, offset, limit)
        })
        .await
    }
}

/// Lines `offset..offset+limit` of the file at `path`, numbered; `shown` names it
/// in messages. The path is looked at for a clear message; the file read is
/// the one opened at `place`.
fn read_window(
    path: &Path,
    place: &Place,
    shown: &str,
    offset: u64,
    limit: u64,
) -> Result<String, ToolError> {
    let meta = std::fs::metadata(path).map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound => ToolError::Failed(format!("file not found: {shown}")),
        _ => io_error(shown, err),
    })?;
    if meta.is_dir() {
        return Err(ToolError::Failed(format!(
            "{shown} is a directory, not a file; use glob to list its files"
        )));
    }
    special_file(&meta, shown)?;
    // O_NONBLOCK: should the path have become a FIFO since, opening it does not
    // wait for a writer; the check on the open file then refuses it.
    let mut file = place.open_read().map_err(|err| io_error(shown, err))?;
    special_file(&file.metadata().map_err(|err| io_error(shown, err))?, shown)?;
    let mut head = Vec::new();
    (&mut file)
        .take(SNIFF_BYTES)
        .read_to_end(&mut head)
        .map_err(|err| io_error(shown, err))?;
    if head.is_empty() {
        return Ok("(empty file)".to_string());
    }
    if head.contains(&0) {
        return Err(ToolError::Failed(format!(
            "{shown} is a binary file ({} bytes); not shown",
            meta.len()
        )));
    }
    let mut reader = BufReader::with_capacity(64 << 10, Cursor::new(head).chain(file));
    let io = |err| io_error(shown, err);

    let mut line = Vec::new();
    let mut number = 0u64;
    while number + 1 < offset {
        match read_line_capped(&mut reader, &mut line, 0).map_err(io)? {
            Some(_) => number += 1,
            None => {
                return Err(ToolError::InvalidInput(format!(
                    "offset {offset} is past the end of {shown}, which has {number} lines"
                )));
            }
        }
    }

    let mut out = String::new();
    let cap_bytes = MAX_LINE_CHARS * 4 + 4;
    while number + 1 < offset.saturating_add(limit) {
        let Some(total_len) = read_line_capped(&mut reader, &mut line, cap_bytes).map_err(io)?
        else {
            break;
        };
        let text = line_text(&line, total_len);
        let numbered = format!("{:>6}\t{text}\n", number + 1);
        if !out.is_empty() && out.len() + numbered.len() > MAX_CHARS {
            // Leave this line for the next call.
            return Ok(out + &continues(&mut reader, shown, true, number + 1)?);
        }
        out.push_str(&numbered);
        number += 1;
    }
    if out.is_empty() {
        return Err(ToolError::InvalidInput(format!(
            "offset {offset} is past the end of {shown}, which has {number} lines"
        )));
    }
    if reader.fill_buf().map_err(io)?.is_empty() {
        return Ok(out.trim_end_matches('\n').to_string());
    }
    Ok(out + &continues(&mut reader, shown, false, number + 1)?)
}

/// The marker after a window that does not reach the end of the file. `pending`
/// says a line was already read but not shown. Counts the remaining lines exactly unless
/// that would mean reading very far.
fn continues(
    reader: &mut impl BufRead,
    shown: &str,
    pending: bool,
    next: u64,
) -> Result<String, ToolError> {
    let mut lines = u64::from(pending);
    let mut scanned = 0u64;
    let mut last = b'\n';
    loop {
        let buf = reader.fill_buf().map_err(|err| io_error(shown, err))?;
        if buf.is_empty() {
            break;
        }
        if scanned >= COUNT_AHEAD_BYTES {
            return Ok(format!(
                "[... file continues: more than {lines} more lines; read on with offset={next}]"
            ));
        }
        lines += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        if let Some(&byte) = buf.last() {
            last = byte;
        }
        scanned += buf.len() as u64;
        let len = buf.len();
        reader.consume(len);
    }
    if last != b'\n' {
        lines += 1;
    }
    Ok(format!(
        "[... file continues: {lines} more lines; read on with offset={next}]"
    ))
}

/// Reads one line into `line` (without its ending), keeping at most `cap` bytes of
/// it; the rest is skipped, never stored. Returns the line's full length in bytes,
/// or `None` at the end of the file.
fn read_line_capped(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Option<usize>> {
    line.clear();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        any = true;
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..at], true),
            None => (buf, false),
        };
        let room = cap.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        total += chunk.len();
        let used = chunk.len() + usize::from(found);
        reader.consume(used);
        if found {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if line.len() == total && line.last() == Some(&b'\r') {
        line.pop();
        total = total.saturating_sub(1);
    }
    Ok(Some(total))
}

/// A line as shown: decoded lossily, cut at [`MAX_LINE_CHARS`] with a marker.
fn line_text(kept: &[u8], total_len: usize) -> String {
    let decoded = String::from_utf8_lossy(kept);
    let (shown, cut) = cut_chars(&decoded, MAX_LINE_CHARS);
    if !cut && kept.len() == total_len {
        return shown.to_string();
    }
    let more = total_len.saturating_sub(shown.len());
    format!("{shown} [... line cut: {more} more bytes]")
}
