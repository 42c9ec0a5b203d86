//! The `task` tool's words, shared by the agent that runs it and every reader
//! that shows it (the screen, the printers, the importers of other tools'
//! sessions): its name, the label of a call, and the text of its result.

use serde_json::Value;

/// The only tool that starts a subagent.
pub const TASK_TOOL: &str = "task";

/// Characters of a prompt used as a call's label when it has no description.
const LABEL_CHARS: usize = 60;

/// A label made from the start of the prompt when the model gave none.
pub fn first_words(prompt: &str) -> String {
    let line = prompt.lines().next().unwrap_or_default();
    match line.char_indices().nth(LABEL_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

/// The text of a `task` result: the envelope's `text` (the child's summary, or
/// why it failed), or the content itself when it is not an envelope.
pub fn envelope_text(content: &str) -> String {
    serde_json::from_str::<Value>(content)
        .ok()
        .and_then(|v| v.get("text").and_then(|t| t.as_str()).map(String::from))
        .unwrap_or_else(|| content.to_string())
}

/// `explore: find auth entry points`: a task call for people. A free function so
/// printers without a launcher (replay) label calls the same way.
pub fn summarize_task(input: &Value) -> String {
    let profile = input["subagent_type"].as_str().unwrap_or("explore");
    let label = match input["description"].as_str() {
        Some(d) if !d.trim().is_empty() => d.trim().to_string(),
        _ => first_words(input["prompt"].as_str().unwrap_or_default()),
    };
    format!("{profile}: {label}")
}
