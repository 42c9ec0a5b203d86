use proptest::prelude::*;
use serde_json::Value;
use serde_json::value::RawValue;

use super::*;
use crate::trace::import::lax::Raw;

/// What the fast reader makes of `text` as a `Value`, `None` when declined.
fn fast(text: &str) -> Option<Value> {
    read::<Value>(text.as_bytes()).ok()
}

#[test]
fn a_line_of_every_kind_of_value_is_taken() {
    let line = r#" {"s":"plain","e":"a\n\"b\"\\ \u00e9 \ud83d\ude00","n":[0,7,-3,18446744073709551615],
        "t":true,"f":false,"z":null,"o":{"deep":[[{}],[]]},"k\u0041":"v"} "#;
    assert_eq!(fast(line), serde_json::from_str::<Value>(line).ok());
    assert!(fast(line).is_some());
}

#[test]
fn numbers_it_cannot_give_as_serde_json_does_are_declined_where_read() {
    for line in [
        r#"{"n":1.5}"#,
        r#"{"n":1e3}"#,
        r#"{"n":-0}"#,
        r#"{"n":18446744073709551616}"#,
    ] {
        assert_eq!(fast(line), None, "{line}");
        assert!(serde_json::from_str::<Value>(line).is_ok(), "{line}");
    }
    // Scanned past, they are only checked.
    let skipped = read::<serde::de::IgnoredAny>(br#"{"n":[1.5,1e3,-0,-2.5E-7]}"#);
    assert!(skipped.is_ok());
}

#[test]
fn what_serde_json_refuses_is_declined() {
    for line in [
        "{\"n\":01}",
        "{\"n\":1.}",
        "{\"n\":1e}",
        "{\"n\":-}",
        "{\"a\":1,}",
        "{\"a\":1 \"b\":2}",
        "[1,]",
        "[,1]",
        "[,]",
        "[1,,2]",
        "{,\"a\":1}",
        "{\"a\":1,,\"b\":2}",
        "{\"a\":[,1]}",
        "{\"a\":1} x",
        "{\"a\":tru}",
        "{a:1}",
        "{\"a\" 1}",
        "{\"a\":\"\u{1}\"}",
        "{\"a\":[}",
        "",
    ] {
        assert!(
            read::<serde::de::IgnoredAny>(line.as_bytes()).is_err(),
            "{line:?}"
        );
        assert!(fast(line).is_none(), "{line:?}");
        assert!(serde_json::from_str::<Value>(line).is_err(), "{line:?}");
    }
    // Bytes that are not UTF-8, even where only scanned past.
    assert!(read::<serde::de::IgnoredAny>(b"{\"a\":\"\xff\"}").is_err());
}

#[test]
fn nesting_deeper_than_it_takes_is_declined() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(fast(&deep(MAX_DEPTH)).is_some());
    assert!(fast(&deep(MAX_DEPTH + 1)).is_none());
    assert!(read::<serde::de::IgnoredAny>(deep(MAX_DEPTH + 1).as_bytes()).is_err());
}

#[test]
fn a_value_asked_for_as_written_is_the_text_serde_json_gives() {
    let value = br#"{ "a" : [1, "x\"y"] }"#;
    let Raw(fast) = read::<Raw>(value).unwrap();
    let slow: &RawValue = serde_json::from_slice(value).unwrap();
    assert_eq!(fast.get(), r#"{ "a" : [1, "x\"y"] }"#);
    assert_eq!(fast.get(), slow.get());
    // As a field, it ends where its value ends.
    let Raw(field) = read::<Raw>(br#"[1,2] "#).unwrap();
    assert_eq!(field.get(), "[1,2]");
}

/// JSON values of every kind but fractions, with strings that are hard to
/// scan.
fn values() -> impl Strategy<Value = Value> {
    let text = prop_oneof![
        "[a-z]{0,12}",
        Just("a\"b\\c\nd\te\u{1}f/é😀".to_owned()),
        "[a-z\"\\\\\n\u{7f}é]{0,80}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        (i64::MIN + 1..0).prop_map(Value::from),
        text.clone().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(("[a-z\"\\\\]{0,6}", inner), 0..8)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn values_read_as_serde_json_reads_them(value in values(), pretty in any::<bool>()) {
        let text = match pretty {
            true => serde_json::to_string_pretty(&value).unwrap(),
            false => serde_json::to_string(&value).unwrap(),
        };
        prop_assert_eq!(fast(&text), Some(value));
    }

    #[test]
    fn a_damaged_line_is_declined_or_read_as_serde_json_reads_it(
        value in values(),
        at in any::<prop::sample::Index>(),
        edit in 0..3u8,
        byte in prop::sample::select(b"{}[]\",:\\ 0-.eEu\x01xtn".to_vec()),
    ) {
        let mut bytes = serde_json::to_vec(&value).unwrap();
        let at = at.index(bytes.len() + 1);
        match edit {
            0 => bytes.insert(at, byte),
            1 if at < bytes.len() => { bytes.remove(at); }
            _ if at < bytes.len() => bytes[at] = byte,
            _ => bytes.push(byte),
        }
        let slow = serde_json::from_slice::<Value>(&bytes).ok();
        if let Ok(read) = read::<Value>(&bytes) {
            prop_assert_eq!(Some(read), slow);
        }
        let skipped = read::<serde::de::IgnoredAny>(&bytes).is_ok();
        let slow_skipped = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok();
        prop_assert!(!skipped || slow_skipped);
    }
}

#[test]
fn a_damaged_value_asked_for_as_written_is_never_handed_out() {
    for damaged in [
        &br#"{"a":[1,]}"#[..],
        br#"{"a" 1}"#,
        br#"[1 2]"#,
        b"{\"a\":\"\x01\"}",
    ] {
        assert!(read::<Raw>(damaged).is_err(), "{damaged:?}");
        assert!(
            serde_json::from_slice::<&RawValue>(damaged).is_err(),
            "{damaged:?}"
        );
    }
}
