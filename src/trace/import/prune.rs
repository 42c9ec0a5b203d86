//! Parsing a foreign line without building what the importer never reads.
//!
//! Most of a Claude Code session's bytes can be in fields brood does not show:
//! `toolUseResult` repeats a tool's output (a Read's whole file, an Edit's
//! `originalFile` and patch, a Bash call's stdout), and `file-history-snapshot`
//! lines carry backups. Building those as [`Value`]s (every string unescaped
//! and allocated, every object a map) is most of the cost of reading such a
//! file; here they are scanned past by the parser instead, and only the named
//! parts are kept.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// What to keep of a line's top-level fields; a field not named is kept whole.
#[derive(Debug)]
pub(crate) struct Prune {
    pub fields: &'static [(&'static str, Keep)],
}

/// How much of one top-level field is kept.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Keep {
    /// Nothing: the field is left out.
    Nothing,
    /// Of an object, only these keys (each whole); any other value whole.
    Only(&'static [&'static str]),
}

impl Prune {
    /// Every field kept: a plain parse.
    pub const NONE: Prune = Prune { fields: &[] };

    /// Parses one line of JSON text, leaving out what `self` names.
    pub fn parse(&'static self, text: &[u8]) -> serde_json::Result<Value> {
        if self.fields.is_empty() {
            return serde_json::from_slice(text);
        }
        let mut de = serde_json::Deserializer::from_slice(text);
        let value = Line(self).deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    }

    fn keep(&self, key: &str) -> Option<Keep> {
        self.fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, keep)| *keep)
    }
}

/// A whole line: an object's fields pruned, any other value parsed as is.
struct Line(&'static Prune);

impl<'de> DeserializeSeed<'de> for Line {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(Pruning {
            pick: |key: &str| match self.0.keep(key) {
                None => Pick::Whole,
                Some(Keep::Nothing) => Pick::Skip,
                Some(Keep::Only(keys)) => Pick::Only(keys),
            },
        })
    }
}

/// What becomes of one key of the object being read.
enum Pick {
    Whole,
    Skip,
    Only(&'static [&'static str]),
}

/// A value as [`Value`] would read it, except that an object's keys go
/// through `pick`.
struct Pruning<F> {
    pick: F,
}

/// One field's value, read as its [`Pick`] says.
struct Field(Pick);

impl<'de> DeserializeSeed<'de> for Field {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<Value>, D::Error> {
        match self.0 {
            Pick::Whole => serde::Deserialize::deserialize(de).map(Some),
            Pick::Skip => <IgnoredAny as serde::Deserialize>::deserialize(de).map(|_| None),
            Pick::Only(keys) => de
                .deserialize_any(Pruning {
                    pick: move |key: &str| match keys.contains(&key) {
                        true => Pick::Whole,
                        false => Pick::Skip,
                    },
                })
                .map(Some),
        }
    }
}

impl<'de, F: Fn(&str) -> Pick> Visitor<'de> for Pruning<F> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let pick = (self.pick)(&key);
            if let Some(value) = map.next_value_seed(Field(pick))? {
                out.insert(key, value);
            }
        }
        Ok(Value::Object(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(value) = seq.next_element::<Value>()? {
            out.push(value);
        }
        Ok(Value::Array(out))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static THIN: Prune = Prune {
        fields: &[
            ("toolUseResult", Keep::Only(&["agentId", "status"])),
            ("snapshot", Keep::Nothing),
        ],
    };

    #[test]
    fn named_fields_are_thinned_or_left_out_and_the_rest_is_whole() {
        let line = br#"{"type":"user","toolUseResult":{"agentId":"a1","status":"completed","file":{"content":"big\nfile"},"stdout":"x"},"snapshot":{"trackedFileBackups":{"a":1}},"message":{"content":[{"type":"tool_result","content":"big\nfile"}]},"n":-3,"f":1.5,"b":true,"z":null}"#;
        let value = THIN.parse(line).unwrap();
        assert_eq!(
            value,
            json!({
                "type": "user",
                "toolUseResult": {"agentId": "a1", "status": "completed"},
                "message": {"content": [{"type": "tool_result", "content": "big\nfile"}]},
                "n": -3, "f": 1.5, "b": true, "z": null
            })
        );
    }

    #[test]
    fn a_thinned_field_that_is_not_an_object_is_kept_as_it_is() {
        let value = THIN
            .parse(br#"{"toolUseResult":"Error: file not found","snapshot":[1,2]}"#)
            .unwrap();
        assert_eq!(value, json!({"toolUseResult": "Error: file not found"}));
        assert_eq!(THIN.parse(b"[1,\"a\"]").unwrap(), json!([1, "a"]));
    }

    #[test]
    fn bad_json_is_an_error_wherever_it_is() {
        for bad in [
            &br#"{"toolUseResult":{"file":{"content":"unterminated}}"#[..],
            br#"{"snapshot":[1,}"#,
            br#"{"a":1} trailing"#,
            br#"{"toolUseResult":{"status":"ok"}"#,
        ] {
            assert!(THIN.parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
