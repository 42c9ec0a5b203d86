//! The `ExploreResult` contract: an explore child must answer with exactly one
//! JSON object of a fixed shape, so the parent gets a summary and evidence it can
//! rely on instead of free prose. A wrong answer gets one correction naming the
//! error; the second wrong answer ends the child with `contract_violation`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExploreStatus {
    Completed,
    Partial,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExploreResult {
    pub status: ExploreStatus,
    pub summary: String,
    pub findings: Vec<String>,
    /// `path:line` locations.
    pub evidence: Vec<String>,
    pub unresolved_questions: Vec<String>,
}

/// Why an answer does not meet the contract; the text is sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContractError {
    #[error("the answer is wrapped in a markdown code fence; send the bare JSON object")]
    Fenced,
    #[error("the answer is not one JSON object: {0}")]
    NotJson(String),
    #[error("field {field:?}: {problem}")]
    Field {
        field: &'static str,
        problem: String,
    },
}

const LIST_FIELDS: [&str; 3] = ["findings", "evidence", "unresolved_questions"];

/// Checks `text` against the contract.
pub fn parse_explore_result(text: &str) -> Result<ExploreResult, ContractError> {
    let trimmed = text.trim();
    if trimmed.starts_with("```") {
        return Err(ContractError::Fenced);
    }
    let value: Value =
        serde_json::from_str(trimmed).map_err(|e| ContractError::NotJson(e.to_string()))?;
    let Value::Object(map) = &value else {
        return Err(ContractError::NotJson(format!(
            "expected an object, got {}",
            kind(&value)
        )));
    };
    let status = match map.get("status") {
        Some(Value::String(s)) if s == "completed" => ExploreStatus::Completed,
        Some(Value::String(s)) if s == "partial" => ExploreStatus::Partial,
        Some(other) => {
            return Err(field(
                "status",
                format!("must be \"completed\" or \"partial\", got {other}"),
            ));
        }
        None => return Err(field("status", "is missing".into())),
    };
    let summary = match map.get("summary") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err(field("summary", "must not be empty".into())),
        Some(other) => {
            return Err(field(
                "summary",
                format!("must be a string, got {}", kind(other)),
            ));
        }
        None => return Err(field("summary", "is missing".into())),
    };
    let mut lists: [Vec<String>; 3] = Default::default();
    for (name, out) in LIST_FIELDS.iter().zip(lists.iter_mut()) {
        *out = string_list(map.get(*name), name)?;
    }
    let [findings, evidence, unresolved_questions] = lists;
    Ok(ExploreResult {
        status,
        summary,
        findings,
        evidence,
        unresolved_questions,
    })
}

/// The correction message sent after the first invalid answer.
pub fn correction_message(error: &ContractError) -> String {
    format!(
        "Your answer does not meet the result contract: {error}. Reply again with exactly one \
         JSON object and nothing else: {{\"status\": \"completed\" or \"partial\", \"summary\": \
         non-empty string, \"findings\": [strings], \"evidence\": [\"path:line\"], \
         \"unresolved_questions\": [strings]}}."
    )
}

fn string_list(value: Option<&Value>, name: &'static str) -> Result<Vec<String>, ContractError> {
    match value {
        None => Err(field(name, "is missing".into())),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(field(
                    name,
                    format!("item {i} must be a string, got {}", kind(other)),
                )),
            })
            .collect(),
        Some(other) => Err(field(
            name,
            format!("must be a list of strings, got {}", kind(other)),
        )),
    }
}

fn field(field: &'static str, problem: String) -> ContractError {
    ContractError::Field { field, problem }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = r#"{"status":"completed","summary":"Auth is in src/auth.rs.","findings":["login()"],"evidence":["src/auth.rs:12"],"unresolved_questions":[]}"#;

    #[test]
    fn a_valid_answer_parses() {
        let r = parse_explore_result(VALID).unwrap();
        assert_eq!(r.status, ExploreStatus::Completed);
        assert_eq!(r.evidence, ["src/auth.rs:12"]);
        // Surrounding whitespace is fine.
        assert!(parse_explore_result(&format!("\n  {VALID}\n")).is_ok());
    }

    #[test]
    fn each_violation_is_named() {
        let fenced = format!("```json\n{VALID}\n```");
        assert_eq!(parse_explore_result(&fenced), Err(ContractError::Fenced));
        let cases = [
            ("Auth lives in src/auth.rs", "not one JSON object"),
            ("[1, 2]", "expected an object"),
            (
                r#"{"summary":"x","findings":[],"evidence":[],"unresolved_questions":[]}"#,
                "\"status\": is missing",
            ),
            (
                r#"{"status":"done","summary":"x","findings":[],"evidence":[],"unresolved_questions":[]}"#,
                "\"status\": must be",
            ),
            (
                r#"{"status":"partial","summary":" ","findings":[],"evidence":[],"unresolved_questions":[]}"#,
                "\"summary\": must not be empty",
            ),
            (
                r#"{"status":"partial","summary":"x","findings":"a","evidence":[],"unresolved_questions":[]}"#,
                "\"findings\": must be a list",
            ),
            (
                r#"{"status":"partial","summary":"x","findings":[],"evidence":[3],"unresolved_questions":[]}"#,
                "\"evidence\": item 0 must be a string",
            ),
            (
                r#"{"status":"partial","summary":"x","findings":[],"evidence":[]}"#,
                "\"unresolved_questions\": is missing",
            ),
        ];
        for (text, expected) in cases {
            let err = parse_explore_result(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text} → {err}");
        }
        let msg = correction_message(&ContractError::Fenced);
        assert!(msg.contains("code fence") && msg.contains("exactly one JSON object"));
    }
}
