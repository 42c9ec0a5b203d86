//! Reading JSONL one line at a time, and the small lenient accessors every
//! importer uses on foreign JSON, whose fields may be missing or of another type.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{BadLine, ImportError, Report};
use crate::trace::line::{self, LineRead};

/// How a file's lines are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Once, to the end: a last line cut off mid-write is dropped.
    ToEnd,
    /// As it grows: a last line without its newline waits for the rest.
    Growing,
}

/// A file read so far into a converter `C`, fed what the file gains.
pub(crate) struct Fed<C> {
    lines: JsonLines,
    pub conv: C,
    /// Bad lines and skipped types found in it so far.
    pub report: Report,
}

impl<C> Fed<C> {
    pub fn open(path: &Path, conv: C) -> Result<Self, ImportError> {
        Ok(Fed {
            lines: JsonLines::open(path)?,
            conv,
            report: Report::default(),
        })
    }

    /// Gives the text of every new line to `line`, which parses and takes
    /// it; a line it cannot parse is a bad line.
    pub fn feed(
        &mut self,
        reading: Reading,
        mut line: impl FnMut(&mut C, &[u8], &mut Report) -> serde_json::Result<()>,
    ) -> Result<(), ImportError> {
        let Fed {
            lines,
            conv,
            report,
        } = self;
        lines.each(reading, report, |text, report| line(conv, text, report))
    }
}

/// What each open file reads at a time. A follower keeps a reader open on
/// the session file and on every subagent transcript (40 in a big session),
/// each holding its buffer for as long as it follows: 64 KiB keeps those
/// buffers to a few MB in all, and costs a whole read of a 37 MB session a
/// few hundred more `read` calls than 256 KiB did.
const READ_BUFFER_BYTES: usize = 64 * 1024;

/// Streams the lines of a JSONL file. Lines are read as bytes, so a line
/// that is not UTF-8 is one bad line, not an I/O failure of the whole import.
///
/// A line's text is handed out to be parsed by whoever reads it
/// ([`JsonLines::each`]), so an importer can read typed fields borrowed from
/// the line ([`super::lax`]) instead of building a [`Value`] of all of it.
pub(crate) struct JsonLines {
    path: PathBuf,
    reader: BufReader<File>,
    buf: Vec<u8>,
    line_no: usize,
    /// Bytes of a last line read without its newline, while the file may
    /// still grow ([`Reading::Growing`]): the rest comes later.
    partial: Vec<u8>,
}

/// A line found by [`JsonLines::advance`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct At {
    /// Its 1-based number.
    pub no: usize,
    /// Whether it ended with a newline (a last line of a finished file may not).
    complete: bool,
}

/// Whether reading goes on after a line that could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Next,
    /// The line was the cut-off end of the file: nothing follows.
    End,
}

impl JsonLines {
    pub fn open(path: &Path) -> Result<Self, ImportError> {
        let file = File::open(path).map_err(|source| ImportError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(JsonLines {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(READ_BUFFER_BYTES, file),
            buf: Vec::new(),
            line_no: 0,
            partial: Vec::new(),
        })
    }

    fn read_line(&mut self) -> Result<LineRead, ImportError> {
        line::read_line(&mut self.reader, &mut self.buf, line::MAX_LINE_BYTES).map_err(|source| {
            ImportError::Io {
                path: self.path.clone(),
                source,
            }
        })
    }

    fn too_long(&mut self, report: &mut Report, bytes: u64) {
        self.line_no += 1;
        report.bad_lines.push(BadLine {
            path: self.path.clone(),
            line: self.line_no,
            error: line::too_long_message(bytes),
        });
    }

    /// Moves to the next line that is not blank, whose text is then
    /// [`JsonLines::text`]; `None` at the end. Reading a file that may still
    /// grow ([`Reading::Growing`]), a last line without its newline is kept
    /// back, not handed out, and read whole once the rest is written: `None`
    /// then means "nothing more yet", and calling again later reads what was
    /// appended. Lines too long to read are bad lines in `report`.
    pub fn advance(
        &mut self,
        reading: Reading,
        report: &mut Report,
    ) -> Result<Option<At>, ImportError> {
        loop {
            let complete = match self.read_line()? {
                LineRead::End => return Ok(None),
                LineRead::TooLong { bytes } => {
                    self.partial.clear();
                    self.too_long(report, bytes);
                    continue;
                }
                LineRead::Line { complete } => complete,
            };
            if reading == Reading::Growing {
                if !complete {
                    self.partial.extend_from_slice(&self.buf);
                    if self.partial.len() > line::MAX_LINE_BYTES {
                        self.partial = Vec::new();
                        self.too_long(report, line::MAX_LINE_BYTES as u64);
                    }
                    return Ok(None);
                }
                if !self.partial.is_empty() {
                    let mut whole = std::mem::take(&mut self.partial);
                    whole.extend_from_slice(&self.buf);
                    self.buf = whole;
                }
            }
            self.line_no += 1;
            if !self.text().is_empty() {
                return Ok(Some(At {
                    no: self.line_no,
                    complete,
                }));
            }
        }
    }

    /// The text of the line [`JsonLines::advance`] moved to, without the
    /// white space around it.
    pub fn text(&self) -> &[u8] {
        self.buf.trim_ascii()
    }

    /// Records that the line `at` could not be parsed: a bad line, or, when
    /// it is the last line of a finished file cut off mid-write, a
    /// truncated file (`report.truncated`), after which nothing follows. A
    /// last line that is whole JSON of the wrong shape (`80000`, not an
    /// object) was not cut off: it is a bad line.
    pub fn reject(&self, at: At, error: &serde_json::Error, report: &mut Report) -> Flow {
        if !at.complete && error.classify() != serde_json::error::Category::Data {
            report.truncated.push(self.path.clone());
            return Flow::End;
        }
        self.bad(report, at.no, error.to_string());
        Flow::Next
    }

    /// Gives the text of each line to `take` until the end (for a growing
    /// file, the end of what is written so far); a line `take` cannot parse
    /// is recorded ([`JsonLines::reject`]).
    pub fn each(
        &mut self,
        reading: Reading,
        report: &mut Report,
        mut take: impl FnMut(&[u8], &mut Report) -> serde_json::Result<()>,
    ) -> Result<(), ImportError> {
        while let Some(at) = self.advance(reading, report)? {
            if let Err(e) = take(self.text(), report)
                && self.reject(at, &e, report) == Flow::End
            {
                break;
            }
        }
        Ok(())
    }

    /// The next line that is a JSON object, as a [`Value`], with its number;
    /// `None` at the end (for a growing file, of what is written so far).
    /// Other lines are bad lines in `report`.
    pub fn next_object(
        &mut self,
        reading: Reading,
        report: &mut Report,
    ) -> Result<Option<(usize, Value)>, ImportError> {
        while let Some(at) = self.advance(reading, report)? {
            match object(self.text()) {
                Ok(value) => return Ok(Some((at.no, value))),
                Err(e) => {
                    if self.reject(at, &e, report) == Flow::End {
                        break;
                    }
                }
            }
        }
        Ok(None)
    }

    /// Records a line that parsed as JSON but cannot be used.
    pub fn bad(&self, report: &mut Report, line: usize, error: impl Into<String>) {
        report.bad_lines.push(BadLine {
            path: self.path.clone(),
            line,
            error: error.into(),
        });
    }
}

/// A line's text as a JSON object; any other value is an error.
pub(crate) fn object(text: &[u8]) -> serde_json::Result<Value> {
    let value: Value = serde_json::from_slice(text)?;
    match value.is_object() {
        true => Ok(value),
        false => Err(<serde_json::Error as serde::de::Error>::custom(
            "not a JSON object",
        )),
    }
}

/// The string at `key`, if it is one.
pub(crate) fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The first of `keys` holding a non-empty string.
pub(crate) fn first_str<'a>(value: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .filter_map(|k| str_at(value, k))
        .find(|s| !s.trim().is_empty())
}

/// A count at `key`: a non-negative integer, or a number or numeric string.
pub(crate) fn u64_at(value: &Value, key: &str) -> Option<u64> {
    match value.get(key)? {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => None,
    }
}

pub(crate) fn bool_at(value: &Value, key: &str) -> bool {
    value.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// A timestamp as milliseconds since the epoch: RFC 3339 text (with or without
/// a zone; MyCodeAgent writes `isoformat() + "Z"`), or a number of seconds or
/// milliseconds.
pub(crate) fn timestamp_ms(value: Option<&Value>) -> Option<i64> {
    match value? {
        Value::String(s) => parse_time(s.trim()),
        Value::Number(n) => Some(ms_from_number(n.as_f64()?)),
        Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => None,
    }
}

/// A time given as a number: seconds until the year 33658, anything bigger
/// milliseconds.
pub(crate) fn ms_from_number(f: f64) -> i64 {
    if f.abs() < 1e12 {
        (f * 1000.0) as i64
    } else {
        f as i64
    }
}

/// RFC 3339 text, or a naive time taken as UTC, as milliseconds.
pub(crate) fn parse_time(s: &str) -> Option<i64> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Some(t.timestamp_millis());
    }
    // A naive time (no zone) is taken as UTC.
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(s, f).ok())
        .map(|t| t.and_utc().timestamp_millis())
}

/// Text for people from any JSON: strings as they are, other values as JSON.
pub(crate) fn display(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_) => value.to_string(),
    }
}

#[cfg(test)]
mod growing_tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_line_written_in_two_parts_is_read_once_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":").unwrap();
        let mut lines = JsonLines::open(&path).unwrap();
        let mut report = Report::default();
        let next = |lines: &mut JsonLines, report: &mut Report| {
            lines.next_object(Reading::Growing, report).unwrap()
        };
        let (no, first) = next(&mut lines, &mut report).unwrap();
        assert_eq!((no, first["a"].as_i64()), (1, Some(1)));
        assert!(next(&mut lines, &mut report).is_none());
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"2}\n{\"c\":3}\n").unwrap();
        let (no, second) = next(&mut lines, &mut report).unwrap();
        assert_eq!((no, second["b"].as_i64()), (2, Some(2)));
        let (no, third) = next(&mut lines, &mut report).unwrap();
        assert_eq!((no, third["c"].as_i64()), (3, Some(3)));
        assert!(report.bad_lines.is_empty() && report.truncated.is_empty());
    }

    #[test]
    fn a_last_line_without_newline_is_cut_off_only_when_it_is_not_whole_json() {
        let dir = tempfile::tempdir().unwrap();
        let read = |text: &str| {
            let path = dir.path().join("s.jsonl");
            std::fs::write(&path, text).unwrap();
            let mut lines = JsonLines::open(&path).unwrap();
            let mut report = Report::default();
            let mut values = 0;
            while lines
                .next_object(Reading::ToEnd, &mut report)
                .unwrap()
                .is_some()
            {
                values += 1;
            }
            let bad: Vec<(usize, String)> = report
                .bad_lines
                .iter()
                .map(|b| (b.line, b.error.clone()))
                .collect();
            (values, bad, report.truncated.len())
        };
        assert_eq!(read("{\"a\":1}\n{\"b\":"), (1, vec![], 1));
        assert_eq!(
            read("{\"a\":1}\n80000"),
            (1, vec![(2, "not a JSON object".to_string())], 0)
        );
    }
}
