//! The parent's side of the offline driver: plan one `task` per part of the
//! question, then assemble the children's answers. The final answer only
//! repeats what the children reported; a failed child is shown as failed.

use serde_json::{Map, Value, json};

use super::words::{self, Part};
use super::{Answered, PlannedCall, Reply, answered, has_tool_results};
use crate::model::{Message, ModelRequest, Role};

/// Every reply starts with this, so nobody mistakes it for a model's answer.
const LABEL: &str = "Offline demo driver (no LLM):";
/// Evidence locations shown per part at most.
const MAX_EVIDENCE: usize = 4;
/// Characters of a failure's reason shown at most.
const MAX_REASON_CHARS: usize = 300;
/// Terms named in the "nothing matched" line at most.
const MAX_LISTED_TERMS: usize = 6;
/// The tool that starts a subagent.
const TASK: &str = "task";

/// The parent's next reply, from its history alone.
pub(super) fn respond(request: &ModelRequest) -> Reply {
    let Some(last) = request.messages.last() else {
        return Reply::text(format!("{LABEL} there is no question to answer."));
    };
    match last.role {
        Role::Assistant => Reply::text(format!("{LABEL} there is no new question to answer.")),
        Role::User if has_tool_results(last) => assemble(&request.messages, last),
        Role::User => {
            let can_delegate = request.tools.iter().any(|t| t.name == TASK);
            plan(&last.text(), can_delegate)
        }
    }
}

/// One `task` per part of `question`, or a direct answer when there is nothing
/// to search for or no way to delegate.
fn plan(question: &str, can_delegate: bool) -> Reply {
    let parts = words::split_question(question);
    if parts.is_empty() {
        return Reply::text(format!(
            "{LABEL} I can only search this folder for the names and terms in a \
             question, and yours has none I can use. Ask about something in the \
             code, for example \"Where is the config parsed, and how are errors \
             reported?\""
        ));
    }
    if !can_delegate {
        return Reply::text(format!(
            "{LABEL} I answer by delegating to explore subagents, and the task tool \
             is not available to this agent."
        ));
    }
    let text = match parts.len() {
        1 => format!("{LABEL} I'll explore 1 part of the question."),
        n => format!("{LABEL} I'll explore {n} parts of the question in parallel."),
    };
    Reply {
        text,
        calls: parts.iter().map(task_call).collect(),
    }
}

fn task_call(part: &Part) -> PlannedCall {
    let prompt = format!(
        "Explore this workspace for: {}. Terms: {}. Return file:line evidence.",
        part.text,
        part.query.words().collect::<Vec<_>>().join(", ")
    );
    PlannedCall {
        name: TASK,
        input: json!({
            "prompt": prompt,
            "description": part.description(),
            "subagent_type": "explore",
        }),
    }
}

/// What one child reported.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Answered {
        summary: String,
        evidence: Vec<String>,
        /// Whether it found anything at all.
        found: bool,
    },
    Failed {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
struct ChildReport {
    heading: String,
    /// `sub-1, explore, completed`: who answered and how it ended.
    provenance: String,
    outcome: Outcome,
}

/// The final answer from the results in `last`.
fn assemble(messages: &[Message], last: &Message) -> Reply {
    let results = answered(messages, last);
    let reports: Vec<ChildReport> = results
        .iter()
        .filter(|a| a.name == TASK)
        .enumerate()
        .map(|(i, a)| report(a, i))
        .collect();
    if reports.is_empty() {
        return Reply::text(format!(
            "{LABEL} the tool calls are done. Ask a question about this folder and I \
             will send explore subagents to look."
        ));
    }
    let question = last_question(messages);
    let terms: Vec<String> = words::split_question(&question)
        .iter()
        .flat_map(|part| part.query.words().map(String::from).collect::<Vec<_>>())
        .fold(Vec::new(), |mut all, word| {
            if !all.contains(&word) {
                all.push(word);
            }
            all
        });
    Reply::text(compose(&reports, &terms))
}

/// The most recent text the user sent (not tool results).
fn last_question(messages: &[Message]) -> String {
    messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User && !has_tool_results(m))
        .map(Message::text)
        .unwrap_or_default()
}

fn compose(reports: &[ChildReport], keywords: &[String]) -> String {
    let summaries = match reports.len() {
        1 => "1 subagent's summary".to_string(),
        n => format!("{n} subagents' summaries"),
    };
    let mut out =
        format!("{LABEL} this answer is assembled from {summaries}; no model wrote any of it.\n");
    let failed = reports
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed { .. }))
        .count();
    let found = reports
        .iter()
        .any(|r| matches!(r.outcome, Outcome::Answered { found: true, .. }));
    if !found {
        out.push('\n');
        out.push_str(&match (failed, keywords.is_empty()) {
            (0, true) => "Nothing in this folder matched the question's terms.".to_string(),
            (0, false) => format!(
                "Nothing in this folder matched the question's terms ({}).",
                listed(keywords)
            ),
            (n, _) => format!(
                "No subagent found evidence; {n} of {} failed.",
                reports.len()
            ),
        });
        out.push('\n');
    }
    for report in reports {
        out.push('\n');
        out.push_str(&section(report));
    }
    out.trim_end().to_string()
}

/// At most [`MAX_LISTED_TERMS`] terms, then `…`.
fn listed(terms: &[String]) -> String {
    let mut shown: Vec<&str> = terms
        .iter()
        .take(MAX_LISTED_TERMS)
        .map(String::as_str)
        .collect();
    if terms.len() > MAX_LISTED_TERMS {
        shown.push("…");
    }
    shown.join(", ")
}

fn section(report: &ChildReport) -> String {
    let mut out = format!("### {}\n", report.heading);
    match &report.outcome {
        Outcome::Answered {
            summary, evidence, ..
        } => {
            out.push_str(summary.trim());
            out.push('\n');
            for location in evidence {
                out.push_str(&format!("- `{location}`\n"));
            }
        }
        Outcome::Failed { reason } => {
            out.push_str(&format!(
                "**Failed**, so this part has no answer: {}\n",
                reason.trim()
            ));
        }
    }
    if !report.provenance.is_empty() {
        // A blank line first, or markdown would fold it into the last list item.
        out.push_str(&format!("\n*{}*\n", report.provenance));
    }
    out
}

/// Reads one `task` result. Anything unexpected (an error result, text that is
/// not a JSON envelope, a status other than `completed`) is a failure; a
/// failed child's envelope (an error result) still says why, in words.
fn report(result: &Answered<'_>, index: usize) -> ChildReport {
    let envelope = match serde_json::from_str::<Value>(result.content) {
        Ok(Value::Object(map)) => Some(map),
        Ok(_) | Err(_) => None,
    };
    let heading = text_field(result.input.as_object(), "description")
        .or_else(|| text_field(envelope.as_ref(), "child_id"))
        .unwrap_or_else(|| format!("Task {}", index + 1));
    let Some(envelope) = envelope else {
        return ChildReport {
            heading,
            provenance: String::new(),
            outcome: Outcome::Failed {
                reason: words::cut(result.content.trim(), MAX_REASON_CHARS),
            },
        };
    };
    let provenance = ["child_id", "profile", "terminal_reason"]
        .iter()
        .filter_map(|key| text_field(Some(&envelope), key))
        .collect::<Vec<_>>()
        .join(", ");
    let status = text_field(Some(&envelope), "status");
    let outcome = match (status.as_deref(), result.is_error) {
        (Some("completed"), false) => answered_outcome(&envelope),
        (Some(_) | None, _) => Outcome::Failed {
            reason: failure_reason(&envelope),
        },
    };
    ChildReport {
        heading,
        provenance,
        outcome,
    }
}

fn answered_outcome(envelope: &Map<String, Value>) -> Outcome {
    let result = envelope.get("result").and_then(Value::as_object);
    let summary = text_field(result, "summary")
        .or_else(|| text_field(Some(envelope), "text"))
        .unwrap_or_else(|| "(the subagent gave no summary)".to_string());
    let evidence: Vec<String> = result
        .and_then(|r| r.get("evidence"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let found = match result {
        Some(r) => {
            !evidence.is_empty() || r.get("status").and_then(Value::as_str) == Some("completed")
        }
        None => text_field(Some(envelope), "text").is_some(),
    };
    Outcome::Answered {
        summary,
        evidence: evidence.into_iter().take(MAX_EVIDENCE).collect(),
        found,
    }
}

/// `terminal_reason: error`, from whichever of the two the envelope has.
fn failure_reason(envelope: &Map<String, Value>) -> String {
    let terminal = text_field(Some(envelope), "terminal_reason");
    let error = text_field(Some(envelope), "error").or_else(|| text_field(Some(envelope), "text"));
    let reason = match (terminal, error) {
        (Some(t), Some(e)) => format!("{t}: {e}"),
        (Some(t), None) => t,
        (None, Some(e)) => e,
        (None, None) => "no reason given".to_string(),
    };
    words::cut(&reason, MAX_REASON_CHARS)
}

/// A non-empty string field of `map`.
fn text_field(map: Option<&Map<String, Value>>, key: &str) -> Option<String> {
    map?.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
}
