//! A model's tool-call arguments on any text: the OpenAI-compatible stream's
//! `parse_arguments`, then the registry's schema check of the result for
//! every built-in tool, and its summary. No panic; the arguments are an
//! object or the raw text kept as it came; and input the check lets through
//! is what the tool's `run` relies on: an object holding every `required`
//! field (not `null`), each field it declares of the declared type, in its
//! `enum`, bounds and length.
#![no_main]

use std::sync::LazyLock;

use brood::model::ToolSpec;
use brood::model::openai::stream::parse_arguments;
use brood::tools::{CallError, ToolRegistry};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

static REGISTRY: LazyLock<(ToolRegistry, Vec<ToolSpec>)> = LazyLock::new(|| {
    let registry = ToolRegistry::base();
    let specs = registry.specs();
    (registry, specs)
});

fuzz_target!(|data: &[u8]| {
    let raw = String::from_utf8_lossy(data);
    let input = parse_arguments(&raw);
    match &input {
        Value::Object(map) => {
            if raw.trim().is_empty() {
                assert!(map.is_empty(), "no arguments became {input}");
            }
        }
        Value::String(kept) => assert_eq!(kept, &*raw, "the raw arguments were changed"),
        other => panic!("arguments parsed to a non-object: {other}"),
    }
    let (registry, specs) = &*REGISTRY;
    for spec in specs {
        let _ = registry.summarize(&spec.name, &input);
        if registry.validate(&spec.name, &input).is_ok() {
            fits(&spec.name, &spec.input_schema, &input);
        }
    }
    assert!(matches!(
        registry.validate("no_such_tool", &input),
        Err(CallError::UnknownTool { .. })
    ));
});

/// Asserts that `input` fits the top level of `schema`.
fn fits(tool: &str, schema: &Value, input: &Value) {
    let Value::Object(map) = input else {
        panic!("{tool} accepted a non-object: {input}");
    };
    let present = |name: &str| map.get(name).filter(|v| !v.is_null());
    for name in schema["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap_or_default();
        assert!(
            present(name).is_some(),
            "{tool} accepted {input} without its required {name:?}"
        );
    }
    let properties = schema["properties"].as_object().into_iter().flatten();
    for (name, field) in properties {
        let Some(value) = present(name) else { continue };
        if let Some(ty) = field["type"].as_str() {
            assert!(
                has_type(value, ty),
                "{tool} accepted {name} = {value}, not {ty}"
            );
        }
        if let Some(options) = field["enum"].as_array() {
            assert!(options.contains(value), "{tool} accepted {name} = {value}");
        }
        if let (Some(n), Some(min)) = (value.as_f64(), field["minimum"].as_f64()) {
            assert!(n >= min, "{tool} accepted {name} = {value} under {min}");
        }
        if let (Some(n), Some(max)) = (value.as_f64(), field["maximum"].as_f64()) {
            assert!(n <= max, "{tool} accepted {name} = {value} over {max}");
        }
        if let (Some(text), Some(min)) = (value.as_str(), field["minLength"].as_u64()) {
            assert!(
                text.chars().count() as u64 >= min,
                "{tool} accepted {name} = {value}, shorter than {min}"
            );
        }
    }
}

/// JSON Schema's types; a whole number written as a float (`3.0`) is an
/// integer too.
fn has_type(value: &Value, ty: &str) -> bool {
    match (ty, value) {
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        ("number", Value::Number(_)) => true,
        ("string", Value::String(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("array", Value::Array(_)) => true,
        ("object", Value::Object(_)) => true,
        ("null", Value::Null) => true,
        _ => false,
    }
}
