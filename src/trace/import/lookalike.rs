//! What a file that brood cannot read looks like, so the message names the
//! closest thing ("a Codex CLI rollout", "plain text") instead of a parser's
//! complaint about a missing field.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use serde_json::Value;

/// Bytes looked at, at most.
const MAX_BYTES: u64 = 1024 * 1024;
/// Non-empty lines looked at, at most.
const MAX_LINES: usize = 20;

/// The closest thing a file looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookalike {
    /// Records typed `session_meta`, `response_item`, `event_msg`, `turn_context`.
    CodexRollout,
    /// A Gemini CLI chat: a JSON document with `sessionId` and `messages`, or
    /// the JSON Lines of newer versions, whose first line has `sessionId` and
    /// `projectHash`.
    GeminiChat,
    /// Chat messages with roles, one a line (MyCodeAgent's real transcripts,
    /// facts with an `event_type`, are read).
    MyCodeAgentTranscript,
    /// A `format` field that is not brood's.
    OtherTrace,
    JsonLines,
    JsonDocument,
    Text,
    Binary,
}

impl Lookalike {
    /// Words for the error: "it looks like …".
    pub fn describe(self) -> &'static str {
        match self {
            Lookalike::CodexRollout => "a Codex CLI rollout: `brood replay FILE` reads it",
            Lookalike::GeminiChat => "a Gemini CLI chat, which brood does not read yet",
            Lookalike::MyCodeAgentTranscript => {
                "chat messages (a role and content a line), which brood does not read"
            }
            Lookalike::OtherTrace => "a trace of another format (its `format` is not brood-trace)",
            Lookalike::JsonLines => "JSON Lines, but of none of these formats",
            Lookalike::JsonDocument => "a JSON document, but of none of these formats",
            Lookalike::Text => "plain text, not JSON Lines",
            Lookalike::Binary => "binary data, not text",
        }
    }
}

/// What the file at `path` looks like; `None` when it cannot be read.
pub fn lookalike(path: &Path) -> Option<Lookalike> {
    let file = File::open(path).ok()?;
    let mut reader = BufReader::new(file.take(MAX_BYTES));
    let mut head = Vec::new();
    reader.read_to_end(&mut head).ok()?;
    if head.contains(&0) || std::str::from_utf8(&head).is_err() && head.len() < MAX_BYTES as usize {
        return Some(Lookalike::Binary);
    }
    let text = String::from_utf8_lossy(&head);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut json_lines = 0;
    for line in lines.iter().take(MAX_LINES) {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        json_lines += 1;
        if let Some(found) = line_lookalike(&value) {
            return Some(found);
        }
    }
    // A document over several lines (a pretty-printed chat), or one value.
    if lines.len() > 1
        && let Ok(document) = serde_json::from_str::<Value>(text.trim())
    {
        return Some(document_lookalike(&document));
    }
    // One line: an object is a JSON line unless it is a whole chat.
    if let [line] = lines.as_slice()
        && let Ok(document) = serde_json::from_str::<Value>(line)
    {
        let kind = document_lookalike(&document);
        if !document.is_object() || kind == Lookalike::GeminiChat {
            return Some(kind);
        }
    }
    Some(match json_lines {
        0 => Lookalike::Text,
        _ => Lookalike::JsonLines,
    })
}

/// What one JSON line gives away.
fn line_lookalike(value: &Value) -> Option<Lookalike> {
    let kind = value.get("type").and_then(Value::as_str);
    if matches!(
        kind,
        Some("session_meta" | "response_item" | "event_msg" | "turn_context")
    ) && value.get("payload").is_some()
    {
        return Some(Lookalike::CodexRollout);
    }
    if value.get("sessionId").is_some()
        && (value.get("projectHash").is_some() || value.get("$set").is_some())
    {
        return Some(Lookalike::GeminiChat);
    }
    if value.get("format").is_some() {
        return Some(Lookalike::OtherTrace);
    }
    if value.get("role").and_then(Value::as_str).is_some()
        && (value.get("content").is_some() || value.get("tool_calls").is_some())
    {
        return Some(Lookalike::MyCodeAgentTranscript);
    }
    None
}

/// What a whole JSON document gives away.
fn document_lookalike(document: &Value) -> Lookalike {
    match document {
        Value::Object(map) if map.contains_key("sessionId") && map.contains_key("messages") => {
            Lookalike::GeminiChat
        }
        _ => Lookalike::JsonDocument,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(name: &str, content: &[u8]) -> Option<Lookalike> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        lookalike(&path)
    }

    #[test]
    fn each_kind_of_stranger_is_named() {
        let codex = br#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"a","cwd":"/x"}}
{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user"}}
"#;
        assert_eq!(look("rollout.jsonl", codex), Some(Lookalike::CodexRollout));
        let gemini =
            br#"{"sessionId":"s","projectHash":"p","messages":[{"type":"user","content":"hi"}]}"#;
        assert_eq!(look("chat.json", gemini), Some(Lookalike::GeminiChat));
        let gemini_lines = br#"{"sessionId":"s","projectHash":"p","startTime":"2026-05-22T14:59:00Z","kind":"main"}
{"id":"m1","timestamp":"2026-05-22T14:59:01Z","type":"user","content":[{"text":"hi"}]}
"#;
        assert_eq!(
            look("session-2026-05-22T14-59-d98cf9e7.jsonl", gemini_lines),
            Some(Lookalike::GeminiChat)
        );
        let transcript = b"{\"role\":\"user\",\"content\":\"find it\"}\n{\"role\":\"assistant\",\"content\":\"ok\"}\n";
        assert_eq!(
            look("t.jsonl", transcript),
            Some(Lookalike::MyCodeAgentTranscript)
        );
        assert_eq!(
            look("o.jsonl", b"{\"format\": 3}\n"),
            Some(Lookalike::OtherTrace)
        );
        assert_eq!(
            look("j.jsonl", b"{\"a\":1}\n{\"b\":2}\n"),
            Some(Lookalike::JsonLines)
        );
        assert_eq!(look("d.json", b"[1, 2, 3]"), Some(Lookalike::JsonDocument));
        assert_eq!(look("n.txt", b"hello\nworld\n"), Some(Lookalike::Text));
        assert_eq!(look("b.bin", b"\x00\x01\x02\xff"), Some(Lookalike::Binary));
    }
}
