//! Reading JSONL one line at a time, and the small lenient accessors every
//! importer uses on foreign JSON, whose fields may be missing or of another type.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::prune::Prune;
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
    pub fn open(path: &Path, conv: C, prune: &'static Prune) -> Result<Self, ImportError> {
        Ok(Fed {
            lines: JsonLines::open(path, prune)?,
            conv,
            report: Report::default(),
        })
    }

    /// Gives every new JSON object line to `line`; other values are bad lines.
    pub fn feed(
        &mut self,
        reading: Reading,
        mut line: impl FnMut(&mut C, &Value, &mut Report),
    ) -> Result<(), ImportError> {
        loop {
            let next = match reading {
                Reading::ToEnd => self.lines.next_value(&mut self.report)?,
                Reading::Growing => self.lines.next_growing(&mut self.report)?,
            };
            let Some((no, value)) = next else {
                return Ok(());
            };
            if !value.is_object() {
                self.lines.bad(&mut self.report, no, "not a JSON object");
                continue;
            }
            line(&mut self.conv, &value, &mut self.report);
        }
    }
}

/// What each open file reads at a time. A follower keeps a reader open on
/// the session file and on every subagent transcript (40 in a big session),
/// each holding its buffer for as long as it follows: 64 KiB keeps those
/// buffers to a few MB in all, and costs a whole read of a 37 MB session a
/// few hundred more `read` calls than 256 KiB did.
const READ_BUFFER_BYTES: usize = 64 * 1024;

/// Streams the JSON values of a JSONL file. Lines are read as bytes, so a line
/// that is not UTF-8 is one bad line, not an I/O failure of the whole import.
pub(crate) struct JsonLines {
    path: PathBuf,
    reader: BufReader<File>,
    buf: Vec<u8>,
    line_no: usize,
    /// Bytes of a last line read without its newline, while the file may
    /// still grow ([`JsonLines::next_growing`]): the rest comes later.
    partial: Vec<u8>,
    /// What of each line is not built ([`Prune::NONE`]: nothing left out).
    prune: &'static Prune,
}

impl JsonLines {
    pub fn open(path: &Path, prune: &'static Prune) -> Result<Self, ImportError> {
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
            prune,
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

    /// Like [`JsonLines::next_value`], for a file still being written: at
    /// the end, a last line without its newline is kept back, not dropped, and
    /// read whole once the rest is written. `None` means "nothing more yet";
    /// calling again later reads what was appended.
    pub fn next_growing(
        &mut self,
        report: &mut Report,
    ) -> Result<Option<(usize, Value)>, ImportError> {
        loop {
            let read = self.read_line()?;
            match read {
                LineRead::End => return Ok(None),
                LineRead::Line { complete: false } => {
                    self.partial.extend_from_slice(&self.buf);
                    if self.partial.len() > line::MAX_LINE_BYTES {
                        self.partial = Vec::new();
                        self.line_no += 1;
                        report.bad_lines.push(BadLine {
                            path: self.path.clone(),
                            line: self.line_no,
                            error: line::too_long_message(line::MAX_LINE_BYTES as u64),
                        });
                    }
                    return Ok(None);
                }
                LineRead::TooLong { bytes } => {
                    self.partial.clear();
                    self.line_no += 1;
                    report.bad_lines.push(BadLine {
                        path: self.path.clone(),
                        line: self.line_no,
                        error: line::too_long_message(bytes),
                    });
                }
                LineRead::Line { complete: true } => {
                    self.line_no += 1;
                    let mut whole = std::mem::take(&mut self.partial);
                    let text = if whole.is_empty() {
                        self.buf.trim_ascii()
                    } else {
                        whole.extend_from_slice(&self.buf);
                        self.buf = whole;
                        self.buf.trim_ascii()
                    };
                    if text.is_empty() {
                        continue;
                    }
                    match self.prune.parse(text) {
                        Ok(value) => return Ok(Some((self.line_no, value))),
                        Err(e) => report.bad_lines.push(BadLine {
                            path: self.path.clone(),
                            line: self.line_no,
                            error: e.to_string(),
                        }),
                    }
                }
            }
        }
    }

    /// The next value with its 1-based line number; `None` at the end. Bad lines
    /// go to `report`; a cut-off last line is noted in `report.truncated` only.
    pub fn next_value(
        &mut self,
        report: &mut Report,
    ) -> Result<Option<(usize, Value)>, ImportError> {
        loop {
            let read = self.read_line()?;
            let complete = match read {
                LineRead::End => return Ok(None),
                LineRead::TooLong { bytes } => {
                    self.line_no += 1;
                    report.bad_lines.push(BadLine {
                        path: self.path.clone(),
                        line: self.line_no,
                        error: line::too_long_message(bytes),
                    });
                    continue;
                }
                LineRead::Line { complete } => complete,
            };
            self.line_no += 1;
            let text = self.buf.trim_ascii();
            if text.is_empty() {
                continue;
            }
            match self.prune.parse(text) {
                Ok(value) => return Ok(Some((self.line_no, value))),
                Err(_) if !complete => {
                    // Without its newline this is the last line, cut off mid-write.
                    report.truncated.push(self.path.clone());
                    return Ok(None);
                }
                Err(e) => report.bad_lines.push(BadLine {
                    path: self.path.clone(),
                    line: self.line_no,
                    error: e.to_string(),
                }),
            }
        }
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
        Value::Number(n) => {
            let f = n.as_f64()?;
            // Seconds until the year 33658; anything bigger is milliseconds.
            Some(if f.abs() < 1e12 {
                (f * 1000.0) as i64
            } else {
                f as i64
            })
        }
        Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => None,
    }
}

fn parse_time(s: &str) -> Option<i64> {
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
        let mut lines = JsonLines::open(&path, &Prune::NONE).unwrap();
        let mut report = Report::default();
        let (no, first) = lines.next_growing(&mut report).unwrap().unwrap();
        assert_eq!((no, first["a"].as_i64()), (1, Some(1)));
        assert!(lines.next_growing(&mut report).unwrap().is_none());
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"2}\n{\"c\":3}\n").unwrap();
        let (no, second) = lines.next_growing(&mut report).unwrap().unwrap();
        assert_eq!((no, second["b"].as_i64()), (2, Some(2)));
        let (no, third) = lines.next_growing(&mut report).unwrap().unwrap();
        assert_eq!((no, third["c"].as_i64()), (3, Some(3)));
        assert!(report.bad_lines.is_empty() && report.truncated.is_empty());
    }
}
