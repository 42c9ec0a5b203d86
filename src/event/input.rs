//! A tool call's arguments as the JSON text they came as, parsed only when
//! something looks inside.
//!
//! Most of the calls a session holds are never looked into again: a trace
//! writes them out, `--print --json` copies them, a follower keeps them for
//! its next look. Kept as a parsed [`Value`], the small object of a typical
//! call (`{"pattern":"fn main"}`) costs a hash table, a vector of entries and a
//! string per key and value, some 300 bytes; kept as its text it costs its
//! length. A reader that wants the value gets it through `Deref`, parsed on
//! its first look and kept from then on.

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The JSON arguments of a tool call.
pub struct ToolInput {
    /// Whole, valid JSON: made by serde_json from a value or checked by it.
    text: Box<RawValue>,
    /// The text parsed, once something looked inside.
    value: OnceLock<Box<Value>>,
}

impl ToolInput {
    /// Arguments already checked as JSON (a borrowed part of a line being
    /// read): copied as text, compact as brood writes JSON, whatever spacing
    /// the writer of the line used. Arguments nested deeper than
    /// [`ToolInput::MAX_DEPTH`] are `null`: a reader that can refuse the
    /// line (see [`ToolInput::fits`]) should.
    pub fn from_raw(raw: &RawValue) -> ToolInput {
        if !ToolInput::fits(raw.get()) {
            return ToolInput::from(Value::Null);
        }
        let text = match compact(raw.get()) {
            None => raw.to_owned(),
            // Removing the spaces between tokens of valid JSON leaves valid
            // JSON; checking it again costs only what was spaced.
            Some(tight) => RawValue::from_string(tight).unwrap_or_else(|_| raw.to_owned()),
        };
        ToolInput {
            text,
            value: OnceLock::new(),
        }
    }

    /// The deepest that arguments may nest. serde_json reads JSON no deeper
    /// than 128 levels, and a line that carries arguments (a trace's event,
    /// a Claude Code message) holds them a few levels down: text any deeper
    /// could be written out but never read back.
    pub const MAX_DEPTH: usize = 100;

    /// Whether valid JSON nests no deeper than [`ToolInput::MAX_DEPTH`].
    pub fn fits(json: &str) -> bool {
        let mut depth = 0usize;
        let mut fits = true;
        walk(json.as_bytes(), |_, b, outside| {
            match (outside, b) {
                (true, b'[' | b'{') => depth += 1,
                (true, b']' | b'}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            fits = depth <= ToolInput::MAX_DEPTH;
            match fits {
                true => Walk::On,
                false => Walk::Stop,
            }
        });
        fits
    }

    /// The arguments as compact JSON text.
    pub fn text(&self) -> &str {
        self.text.get()
    }

    /// The arguments parsed, for a reader that keeps a value of its own.
    pub fn to_value(&self) -> Value {
        (**self).clone()
    }

    /// Changes the arguments through their value; the text follows.
    pub fn modify(&mut self, change: impl FnOnce(&mut Value)) {
        let mut value = self.to_value();
        change(&mut value);
        *self = ToolInput::from(value);
    }

    fn parsed(&self) -> &Value {
        // The text is valid JSON by construction; a value too deeply nested
        // for the parser is the one way it could still fail, and then it
        // reads as nothing rather than as a panic.
        self.value
            .get_or_init(|| Box::new(serde_json::from_str(self.text.get()).unwrap_or(Value::Null)))
    }
}

impl From<Value> for ToolInput {
    fn from(value: Value) -> ToolInput {
        // Serializing a value cannot fail: its map keys are strings.
        let text = serde_json::value::to_raw_value(&value).unwrap_or_else(|_| null_text());
        ToolInput {
            text,
            value: OnceLock::new(),
        }
    }
}

/// Walks valid JSON byte by byte, telling `each` whether a byte lies outside
/// every string (where tokens, nesting and the spaces between them are).
fn walk(json: &[u8], mut each: impl FnMut(usize, u8, bool) -> Walk) {
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in json.iter().enumerate() {
        let outside = !in_string;
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (_, _, b'"') => in_string = !in_string,
            _ => {}
        }
        if let Walk::Stop = each(i, b, outside) {
            return;
        }
    }
}

enum Walk {
    On,
    Stop,
}

/// `json` without the whitespace between its tokens; `None` when it has none.
fn compact(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut tight: Option<Vec<u8>> = None;
    walk(bytes, |i, b, outside| {
        let between = outside && matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        match (between, &mut tight) {
            (true, None) => tight = Some(bytes[..i].to_vec()),
            (false, Some(tight)) => tight.push(b),
            (true, Some(_)) | (false, None) => {}
        }
        Walk::On
    });
    // Only ASCII bytes were left out, so the rest is still UTF-8.
    tight.and_then(|bytes| String::from_utf8(bytes).ok())
}

fn null_text() -> Box<RawValue> {
    RawValue::NULL.to_owned()
}

impl Deref for ToolInput {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.parsed()
    }
}

impl Clone for ToolInput {
    /// Copies the text only: a copy parses again if it is looked into.
    fn clone(&self) -> ToolInput {
        ToolInput {
            text: self.text.clone(),
            value: OnceLock::new(),
        }
    }
}

impl PartialEq for ToolInput {
    /// Equal values are equal arguments, however their texts were spaced.
    fn eq(&self, other: &ToolInput) -> bool {
        self.text() == other.text() || **self == **other
    }
}

impl fmt::Debug for ToolInput {
    /// As the value it holds, so a debug print reads as it always did.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for ToolInput {
    /// The JSON text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl Serialize for ToolInput {
    /// The text as it is: a trace line or a `--json` line copies it.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolInput {
    /// An event is read through serde's buffering of tagged enums, which
    /// cannot hand out raw text: the value is read and written again as text.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(ToolInput::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_value_say_the_same() {
        let input = ToolInput::from(json!({"pattern": "fn main", "path": "src"}));
        assert_eq!(input.text(), r#"{"pattern":"fn main","path":"src"}"#);
        assert_eq!(input["pattern"], "fn main");
        assert_eq!(input.get("path").and_then(Value::as_str), Some("src"));
    }

    #[test]
    fn equal_values_with_other_spacing_are_equal_inputs() {
        let raw: Box<RawValue> = serde_json::from_str(r#"{ "a" : [1, 2] }"#).unwrap();
        let spaced = ToolInput::from_raw(&raw);
        assert_eq!(spaced.text(), r#"{"a":[1,2]}"#);
        assert_eq!(spaced, ToolInput::from(json!({"a": [1, 2]})));
        assert_ne!(spaced, ToolInput::from(json!({"a": [2, 1]})));
    }

    #[test]
    fn spaces_between_tokens_go_and_spaces_in_strings_stay() {
        let raw: Box<RawValue> = serde_json::from_str(
            "{\n  \"cmd\" : \"ls  -a\\\" x\",\t\"n\": [ 1 , {\"k\" :\r\n\"é \"} ]\n}",
        )
        .unwrap();
        let input = ToolInput::from_raw(&raw);
        assert_eq!(input.text(), r#"{"cmd":"ls  -a\" x","n":[1,{"k":"é "}]}"#);
        assert_eq!(input["cmd"], "ls  -a\" x");
        let tight: Box<RawValue> = serde_json::from_str(r#"{"a":"b c"}"#).unwrap();
        assert_eq!(ToolInput::from_raw(&tight).text(), r#"{"a":"b c"}"#);
    }

    #[test]
    fn arguments_too_deep_to_read_back_are_never_kept_as_text() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let max = ToolInput::MAX_DEPTH;
        assert!(ToolInput::fits(&nest(max)));
        assert!(!ToolInput::fits(&nest(max + 1)));
        // Brackets inside strings are text, not nesting.
        assert!(ToolInput::fits(&format!(
            r#"{{"a":"{}"}}"#,
            "[".repeat(500)
        )));
        let deep: Box<RawValue> = serde_json::from_str(&nest(100_000)).unwrap();
        let input = ToolInput::from_raw(&deep);
        assert_eq!(input.text(), "null");
        let ok: Box<RawValue> = serde_json::from_str(&nest(max)).unwrap();
        let input = ToolInput::from_raw(&ok);
        assert_eq!(input.text(), nest(max));
        assert!(input.is_array(), "and it reads back as a value");
    }

    #[test]
    fn a_change_through_the_value_changes_the_text() {
        let mut input = ToolInput::from(json!({"command": "echo sk-secret"}));
        assert_eq!(input["command"], "echo sk-secret");
        input.modify(|v| v["command"] = json!("echo [redacted]"));
        assert_eq!(input.text(), r#"{"command":"echo [redacted]"}"#);
        assert_eq!(input["command"], "echo [redacted]");
    }

    #[test]
    fn serializing_copies_the_text_and_reading_takes_any_json() {
        let raw: Box<RawValue> = serde_json::from_str(r#"{"b":1,"a":"\u00e9"}"#).unwrap();
        let input = ToolInput::from_raw(&raw);
        assert_eq!(
            serde_json::to_string(&input).unwrap(),
            r#"{"b":1,"a":"\u00e9"}"#
        );
        let back: ToolInput = serde_json::from_str(r#"[1, "two", null]"#).unwrap();
        assert_eq!(back.text(), r#"[1,"two",null]"#);
        assert_eq!(*back, json!([1, "two", null]));
    }

    #[test]
    fn a_copy_parses_for_itself() {
        let input = ToolInput::from(json!({"n": 1}));
        assert_eq!(input["n"], 1);
        let copy = input.clone();
        assert_eq!(copy.text(), input.text());
        assert_eq!(copy["n"], 1);
    }
}
