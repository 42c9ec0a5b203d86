//! The registry: names, order, replacement, validation messages and summaries.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::tools::{CallError, Tool, ToolContext, ToolError, ToolKind, ToolRegistry};

/// A stand-in tool that shadows `grep`, to check replacement.
struct FakeGrep;

#[async_trait]
impl Tool for FakeGrep {
    fn name(&self) -> &str {
        "grep"
    }
    fn description(&self) -> &str {
        "fake"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn summarize(&self, _: &Value) -> String {
        "fake".into()
    }
    async fn run(&self, _: Value, _: &ToolContext) -> Result<String, ToolError> {
        Ok("fake".into())
    }
}

#[test]
fn base_has_the_six_tools_in_order_with_kinds() {
    let registry = ToolRegistry::base();
    assert_eq!(
        registry.names(),
        [
            "bash",
            "read_file",
            "write_file",
            "edit_file",
            "glob",
            "grep"
        ]
    );
    let kind = |name| registry.get(name).unwrap().kind();
    assert_eq!(kind("bash"), ToolKind::Exec);
    assert_eq!(kind("read_file"), ToolKind::Read);
    assert_eq!(kind("write_file"), ToolKind::Write);
    assert_eq!(kind("edit_file"), ToolKind::Write);
    assert_eq!(kind("glob"), ToolKind::Read);
    assert_eq!(kind("grep"), ToolKind::Read);
    assert!(ToolRegistry::empty().names().is_empty());
}

#[test]
fn specs_carry_descriptions_and_object_schemas() {
    let specs = ToolRegistry::base().specs();
    assert_eq!(specs.len(), 6);
    for spec in specs {
        assert!(spec.description.len() > 80, "{} is undocumented", spec.name);
        assert_eq!(spec.input_schema["type"], "object", "{}", spec.name);
        for required in spec.input_schema["required"].as_array().unwrap() {
            let field = required.as_str().unwrap();
            assert!(
                spec.input_schema["properties"].get(field).is_some(),
                "{}: required {field} has no property",
                spec.name
            );
        }
    }
}

#[test]
fn register_replaces_in_place_and_retain_narrows() {
    let mut registry = ToolRegistry::base();
    registry.register(Arc::new(FakeGrep));
    assert_eq!(registry.names().len(), 6);
    assert_eq!(registry.get("grep").unwrap().description(), "fake");
    registry.retain(|name| matches!(name, "read_file" | "glob" | "grep"));
    assert_eq!(registry.names(), ["read_file", "glob", "grep"]);
    assert!(registry.get("bash").is_none());
    let mut empty = ToolRegistry::empty();
    empty.register(Arc::new(FakeGrep));
    assert_eq!(empty.names(), ["grep"]);
}

#[test]
fn validate_names_the_field_and_the_problem() {
    let registry = ToolRegistry::base();
    registry
        .validate("read_file", &json!({"path": "a", "surprise": 1}))
        .unwrap();
    let message = |name: &str, input: Value| registry.validate(name, &input).unwrap_err();
    assert_eq!(
        message("read_file", json!({})),
        CallError::InvalidInput("missing required field \"path\"".into())
    );
    assert_eq!(
        message("read_file", json!({"path": "a", "limit": "10"})).to_string(),
        "invalid input: field \"limit\" must be an integer, got string"
    );
    assert_eq!(
        message("bash", json!(["ls"])).to_string(),
        "invalid input: input must be a JSON object, got array"
    );
    assert_eq!(
        message(
            "edit_file",
            json!({"path": "a", "old_text": 1, "new_text": ""})
        )
        .to_string(),
        "invalid input: field \"old_text\" must be a string, got integer"
    );
    assert_eq!(
        message("bash", json!({"command": "ls", "timeout_ms": 0})).to_string(),
        "invalid input: field \"timeout_ms\" must be at least 1, got 0"
    );
}

#[test]
fn unknown_tool_lists_the_available_ones() {
    let mut registry = ToolRegistry::base();
    registry.retain(|name| name != "bash");
    let err = registry
        .validate("bash", &json!({"command": "ls"}))
        .unwrap_err();
    match &err {
        CallError::UnknownTool { name, available } => {
            assert_eq!(name, "bash");
            assert_eq!(available.len(), 5);
        }
        CallError::InvalidInput(other) => panic!("wrong error: {other}"),
    }
    assert_eq!(
        err.to_string(),
        "unknown tool \"bash\"; available tools: read_file, write_file, edit_file, glob, grep"
    );
}

#[test]
fn summaries_are_one_short_line() {
    let registry = ToolRegistry::base();
    let summary = |name: &str, input: Value| registry.summarize(name, &input);
    assert_eq!(
        summary("bash", json!({"command": "cargo test\necho done"})),
        "cargo test…"
    );
    let long = "x".repeat(200);
    assert_eq!(
        summary("bash", json!({"command": long})).chars().count(),
        81
    );
    assert_eq!(
        summary("read_file", json!({"path": "src/a.rs"})),
        "src/a.rs"
    );
    assert_eq!(
        summary(
            "read_file",
            json!({"path": "a.rs", "offset": 10, "limit": 20})
        ),
        "a.rs 10-29"
    );
    assert_eq!(
        summary("read_file", json!({"path": "a.rs", "limit": 120})),
        "a.rs 1-120"
    );
    assert_eq!(
        summary("write_file", json!({"path": "a.txt", "content": "hello"})),
        "a.txt (5 bytes)"
    );
    assert_eq!(
        summary(
            "edit_file",
            json!({"path": "a.rs", "old_text": "x", "new_text": "y"})
        ),
        "a.rs"
    );
    assert_eq!(summary("glob", json!({"pattern": "**/*.rs"})), "**/*.rs");
    assert_eq!(
        summary("glob", json!({"pattern": "*.rs", "path": "src"})),
        "*.rs in src"
    );
    assert_eq!(
        summary("grep", json!({"pattern": "fn main", "path": "src/"})),
        "\"fn main\" in src/"
    );
    assert_eq!(
        summary("task", json!({"prompt": "look"})),
        r#"{"prompt":"look"}"#
    );
    // Summaries never panic on malformed input.
    for name in registry.names() {
        let _ = summary(&name, json!([1, 2]));
    }
}
