//! Text handling of the offline driver: cutting a question into parts, reading
//! a part back out of a task prompt, and cutting text to length. No model means
//! these rules are all the "understanding" there is, so they are kept simple
//! and predictable.

use super::query::{Query, query};

/// Parts a question is split into at most (one explore subagent each).
pub(super) const MAX_PARTS: usize = 3;
/// Characters of a task's description at most.
const MAX_DESCRIPTION_CHARS: usize = 40;

/// Where a question is cut into parts. Matched case-insensitively.
const SEPARATORS: &[&str] = &["?", ";", ",", "\n", ". ", "!", " and ", " also ", " then "];

/// One part of a question, with what it is searched by.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Part {
    /// The part as the user wrote it, trimmed of spaces and punctuation.
    pub text: String,
    pub query: Query,
}

impl Part {
    /// A short label for the task: the part itself, capitalised, cut at a word
    /// boundary to at most 40 characters.
    pub fn description(&self) -> String {
        let mut label = cut_words(&self.text, MAX_DESCRIPTION_CHARS);
        if let Some(first) = label.chars().next() {
            let upper: String = first.to_uppercase().collect();
            label.replace_range(..first.len_utf8(), &upper);
        }
        label
    }
}

/// Cuts a question into at most [`MAX_PARTS`] parts that each have search
/// terms; extra parts are merged into the last one. A question with no terms at
/// all has no parts.
pub(super) fn split_question(question: &str) -> Vec<Part> {
    let mut pieces: Vec<String> = split_on_separators(question)
        .into_iter()
        .filter(|piece| !query(piece).is_empty())
        .collect();
    if pieces.len() > MAX_PARTS {
        let tail = pieces.split_off(MAX_PARTS - 1).join(", ");
        pieces.push(tail);
    }
    if pieces.is_empty() {
        pieces.push(tidy(question));
    }
    pieces
        .into_iter()
        .map(|text| Part {
            query: query(&text),
            text,
        })
        .filter(|part| !part.query.is_empty())
        .collect()
}

/// The pieces between separators, tidied, empty ones dropped.
fn split_on_separators(text: &str) -> Vec<String> {
    // ASCII lowercasing keeps byte offsets, so positions found in `lower` are
    // valid in `text`.
    let lower = text.to_ascii_lowercase();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < text.len() {
        let found = SEPARATORS.iter().find(|sep| lower[at..].starts_with(**sep));
        match found {
            Some(sep) => {
                pieces.push(tidy(&text[start..at]));
                at += sep.len();
                start = at;
            }
            None => {
                at += lower[at..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    pieces.push(tidy(&text[start..]));
    pieces.retain(|p| !p.is_empty());
    pieces
}

/// Trims spaces and trailing punctuation a part should not carry into a prompt.
fn tidy(text: &str) -> String {
    text.trim()
        .trim_end_matches(['.', '?', '!', ',', ';', ':'])
        .trim()
        .to_string()
}

/// What a task prompt asks to be searched: the part in its `… for: PART.`
/// sentence when the offline parent wrote it, else the whole prompt.
pub(super) fn prompt_query(prompt: &str) -> Query {
    const LABEL: &str = " for: ";
    let part = prompt
        .split_once(LABEL)
        .map(|(_, rest)| rest.split(". Terms:").next().unwrap_or(rest));
    match part.map(query).filter(|q| !q.is_empty()) {
        Some(found) => found,
        None => query(prompt),
    }
}

/// `text` cut to at most `max` characters, ending in `…` when cut.
pub(super) fn cut(text: &str, max: usize) -> String {
    match text.chars().count() > max {
        true => {
            let kept: String = text.chars().take(max.saturating_sub(1)).collect();
            format!("{}…", kept.trim_end())
        }
        false => text.to_string(),
    }
}

/// Like [`cut`], but at the last word boundary that fits when there is one.
fn cut_words(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    let kept = match kept.rfind(' ') {
        Some(space) if space > 0 => &kept[..space],
        Some(_) | None => kept.as_str(),
    };
    format!("{}…", kept.trim_end())
}

/// "1 match" / "3 matches".
pub(super) fn count(n: u64, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        _ => format!("{n} {many}"),
    }
}
