//! A small JSON-schema checker for tool input: just the parts our tool schemas use
//! (`type`, `properties`, `required`, `enum`, `minimum`, `maximum`, `minLength`,
//! `items`). Its messages name the field and the problem, because the model reads
//! them and has to fix its call.
//!
//! Deliberately lenient in two ways models rely on: unknown extra fields are
//! allowed, and `null` for an optional field counts as leaving it out.

use serde_json::Value;

/// Checks `input` against `schema`; the error is one sentence for the model.
pub fn check(schema: &Value, input: &Value) -> Result<(), String> {
    if !input.is_object() {
        return Err(format!(
            "input must be a JSON object, got {}",
            type_name(input)
        ));
    }
    check_value(schema, input, None)
}

/// The JSON type of `value` as schemas spell it (`integer` for whole numbers).
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integer(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "number" => value.is_number(),
        "integer" => matches!(value, Value::Number(n) if is_integer(n)),
        other => type_name(value) == other,
    }
}

/// How to name the value in a message: `field "limit"`, or `input` at the top.
fn subject(field: Option<&str>) -> String {
    match field {
        Some(name) => format!("field \"{name}\""),
        None => "input".to_string(),
    }
}

fn check_value(schema: &Value, value: &Value, field: Option<&str>) -> Result<(), String> {
    check_type(schema, value, field)?;
    check_enum(schema, value, field)?;
    check_bounds(schema, value, field)?;
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            if let Some(required) = schema.get("required").and_then(Value::as_array) {
                for name in required.iter().filter_map(Value::as_str) {
                    if map.get(name).is_none_or(Value::is_null) {
                        return Err(format!(
                            "missing required field \"{}\"",
                            join_field(field, name)
                        ));
                    }
                }
            }
            if let Some(properties) = properties {
                for (name, sub_schema) in properties {
                    match map.get(name) {
                        None | Some(Value::Null) => {}
                        Some(sub_value) => {
                            check_value(sub_schema, sub_value, Some(&join_field(field, name)))?
                        }
                    }
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    let name = format!("{}[{i}]", field.unwrap_or("input"));
                    check_value(item_schema, item, Some(&name))?;
                }
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => Ok(()),
    }
}

fn join_field(parent: Option<&str>, name: &str) -> String {
    match parent {
        Some(parent) => format!("{parent}.{name}"),
        None => name.to_string(),
    }
}

fn check_type(schema: &Value, value: &Value, field: Option<&str>) -> Result<(), String> {
    let allowed: Vec<&str> = match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    if allowed.iter().any(|ty| has_type(value, ty)) {
        return Ok(());
    }
    let article = |ty: &str| match ty {
        "integer" | "array" | "object" => format!("an {ty}"),
        _ => format!("a {ty}"),
    };
    let expected: Vec<String> = allowed.iter().map(|ty| article(ty)).collect();
    Err(format!(
        "{} must be {}, got {}",
        subject(field),
        expected.join(" or "),
        type_name(value)
    ))
}

fn check_enum(schema: &Value, value: &Value, field: Option<&str>) -> Result<(), String> {
    let Some(options) = schema.get("enum").and_then(Value::as_array) else {
        return Ok(());
    };
    if options.contains(value) {
        return Ok(());
    }
    let listed: Vec<String> = options.iter().map(Value::to_string).collect();
    Err(format!(
        "{} must be one of {}, got {}",
        subject(field),
        listed.join(", "),
        value
    ))
}

fn check_bounds(schema: &Value, value: &Value, field: Option<&str>) -> Result<(), String> {
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            return Err(format!(
                "{} must be at least {min}, got {value}",
                subject(field)
            ));
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            return Err(format!(
                "{} must be at most {max}, got {value}",
                subject(field)
            ));
        }
    }
    if let Some(text) = value.as_str()
        && let Some(min) = schema.get("minLength").and_then(Value::as_u64)
    {
        let len = text.chars().count() as u64;
        if len < min {
            return Err(match min {
                1 => format!("{} must not be empty", subject(field)),
                _ => format!(
                    "{} must be at least {min} characters long, got {len}",
                    subject(field)
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "all": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "ratio": {"type": "number", "maximum": 1}
            },
            "required": ["path"]
        })
    }

    fn err(input: Value) -> String {
        check(&schema(), &input).unwrap_err()
    }

    #[test]
    fn accepts_valid_input_with_extra_fields_and_nulls() {
        check(&schema(), &json!({"path": "a", "limit": 3, "extra": [1]})).unwrap();
        check(
            &schema(),
            &json!({"path": "a", "limit": null, "ratio": 0.5}),
        )
        .unwrap();
        check(&schema(), &json!({"path": "a", "limit": 3.0})).unwrap();
    }

    #[test]
    fn messages_name_the_field_and_the_problem() {
        assert_eq!(err(json!({})), "missing required field \"path\"");
        assert_eq!(
            err(json!({"path": null})),
            "missing required field \"path\""
        );
        assert_eq!(
            err(json!({"path": "a", "limit": "10"})),
            "field \"limit\" must be an integer, got string"
        );
        assert_eq!(
            err(json!({"path": "a", "limit": 1.5})),
            "field \"limit\" must be an integer, got number"
        );
        assert_eq!(
            err(json!({"path": "a", "limit": 0})),
            "field \"limit\" must be at least 1, got 0"
        );
        assert_eq!(err(json!({"path": ""})), "field \"path\" must not be empty");
        assert_eq!(
            err(json!({"path": "a", "mode": "medium"})),
            "field \"mode\" must be one of \"fast\", \"slow\", got \"medium\""
        );
        assert_eq!(
            err(json!({"path": "a", "tags": ["x", 2]})),
            "field \"tags[1]\" must be a string, got integer"
        );
        assert_eq!(
            err(json!({"path": "a", "ratio": 2})),
            "field \"ratio\" must be at most 1, got 2"
        );
        assert_eq!(
            err(json!({"path": "a", "all": "yes"})),
            "field \"all\" must be a boolean, got string"
        );
    }

    #[test]
    fn input_must_be_an_object() {
        assert_eq!(err(json!([1])), "input must be a JSON object, got array");
        assert_eq!(err(json!("x")), "input must be a JSON object, got string");
        assert_eq!(err(Value::Null), "input must be a JSON object, got null");
    }
}
