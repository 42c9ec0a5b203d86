//! Text handling of the offline driver: turning a question into search keywords
//! and parts, reading the keywords back out of a task prompt, and escaping them
//! for a regex. No model means these rules are all the "understanding" there is,
//! so they are kept simple and predictable.

/// Keywords searched for per part at most: more make the regex match nearly
/// every line and the summary unreadable.
pub(super) const MAX_KEYWORDS: usize = 6;
/// Parts a question is split into at most (one explore subagent each).
pub(super) const MAX_PARTS: usize = 3;
/// Characters of a task's description at most.
const MAX_DESCRIPTION_CHARS: usize = 40;

/// English words that say nothing about where to look in code.
#[rustfmt::skip]
const STOPWORDS: &[&str] = &[
    "about", "above", "after", "again", "against", "all", "also", "among", "and", "any", "are",
    "because", "been", "before", "being", "below", "between", "both", "but", "can", "cannot",
    "could", "did", "does", "doing", "done", "down", "during", "each", "either", "else", "even",
    "ever", "every", "few", "for", "from", "further", "had", "has", "have", "having", "her",
    "here", "hers", "herself", "him", "himself", "his", "how", "however", "into", "its", "itself",
    "just", "like", "many", "may", "might", "mine", "more", "most", "much", "must", "myself",
    "neither", "nor", "not", "now", "off", "once", "only", "other", "others", "ought", "our",
    "ours", "ourselves", "out", "over", "own", "same", "shall", "she", "should", "since", "some",
    "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there",
    "these", "they", "this", "those", "though", "through", "too", "under", "until", "upon", "very",
    "was", "were", "what", "whatever", "when", "whenever", "where", "wherever", "whether", "which",
    "while", "who", "whom", "whose", "why", "will", "with", "within", "without", "would", "yet",
    "you", "your", "yours", "yourself", "yourselves",
];

/// Words common in questions about code that would match everything or nothing.
#[rustfmt::skip]
const GENERIC_WORDS: &[&str] = &[
    "always", "anything", "know", "need", "never", "something", "stuff", "thing", "things", "want",
    "code", "codebase", "defined", "explain", "file", "find", "handle", "handled", "handles",
    "handling", "happen", "happens", "implemented", "located", "look", "please", "project", "repo",
    "repository", "show", "tell", "used", "using", "work", "working", "works", "workspace",
    "point", "loaded", "load", "loading",
];

/// Question words and what code calls them: "where is the entry point" is
/// answered by `main`, "configuration" by `config` (which also matches the long
/// form).
const ALIASES: &[(&str, &str)] = &[
    ("entry", "main"),
    ("entrypoint", "main"),
    ("configuration", "config"),
    ("configure", "config"),
    ("settings", "config"),
    ("authentication", "auth"),
    ("authorization", "auth"),
    ("login", "login"),
];

/// Where a question is cut into parts. Matched case-insensitively.
const SEPARATORS: &[&str] = &["?", ";", ",", "\n", ". ", "!", " and ", " also ", " then "];

/// One part of a question, with the keywords it is searched by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Part {
    /// The part as the user wrote it, trimmed of spaces and punctuation.
    pub text: String,
    pub keywords: Vec<String>,
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

/// The search keywords of `text`, in order of first appearance: lowercase words
/// of letters, digits and `_` of three characters or more, without stopwords
/// and generic words. A plain plural is folded to its singular ("tokens" →
/// "token") so the substring search also finds the singular.
pub(super) fn keywords(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let word = word.to_lowercase();
        if word.chars().count() < 3 || is_ignored(&word) {
            continue;
        }
        let word = singular(&word);
        let word = ALIASES
            .iter()
            .find(|(from, _)| *from == word)
            .map_or(word, |(_, to)| to.to_string());
        if is_ignored(&word) || out.contains(&word) {
            continue;
        }
        out.push(word);
        if out.len() == MAX_KEYWORDS {
            break;
        }
    }
    out
}

fn is_ignored(word: &str) -> bool {
    STOPWORDS.contains(&word) || GENERIC_WORDS.contains(&word)
}

/// "queries" → "query", "tokens" → "token"; leaves "process", "status",
/// "analysis", "alias" and short words alone.
fn singular(word: &str) -> String {
    let chars = word.chars().count();
    if chars > 4
        && let Some(stem) = word.strip_suffix("ies")
    {
        return format!("{stem}y");
    }
    let keeps_s = ["ss", "us", "is", "as", "os"]
        .iter()
        .any(|end| word.ends_with(end));
    match word.strip_suffix('s') {
        Some(stem) if chars >= 5 && !keeps_s => stem.to_string(),
        Some(_) | None => word.to_string(),
    }
}

/// Cuts a question into at most [`MAX_PARTS`] parts that each have keywords;
/// extra parts are merged into the last one. A question with no keywords at all
/// has no parts.
pub(super) fn split_question(question: &str) -> Vec<Part> {
    let mut pieces: Vec<String> = split_on_separators(question)
        .into_iter()
        .filter(|piece| !keywords(piece).is_empty())
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
            keywords: keywords(&text),
            text,
        })
        .filter(|part| !part.keywords.is_empty())
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

/// The keywords named in a task prompt's `Keywords: a, b.` part, or, when there
/// is none (a prompt not written by the offline parent), those of the whole
/// prompt.
pub(super) fn prompt_keywords(prompt: &str) -> Vec<String> {
    let named = named_keywords(prompt);
    match named.is_empty() {
        true => keywords(prompt),
        false => named,
    }
}

fn named_keywords(prompt: &str) -> Vec<String> {
    const LABEL: &str = "keywords:";
    let lower = prompt.to_ascii_lowercase();
    let Some(at) = lower.rfind(LABEL) else {
        return Vec::new();
    };
    let rest = &prompt[at + LABEL.len()..];
    let line = rest.lines().next().unwrap_or_default();
    let list = line.split(". ").next().unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    for item in list.split(',') {
        let item = item
            .trim()
            .trim_end_matches('.')
            .trim_matches(['"', '\'', '`'])
            .trim()
            .to_lowercase();
        if !item.is_empty() && !out.contains(&item) {
            out.push(item);
        }
        if out.len() == MAX_KEYWORDS {
            break;
        }
    }
    out
}

/// Escapes every character the regex syntax gives a meaning to, like
/// `regex::escape`, so a keyword is searched for literally.
pub(super) fn escape_regex(text: &str) -> String {
    const META: &str = "\\.+*?()|[]{}^$#&-~";
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if META.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The case-insensitive pattern that matches any of `keywords`.
pub(super) fn any_of_pattern(keywords: &[String]) -> String {
    let alternatives: Vec<String> = keywords.iter().map(|k| escape_regex(k)).collect();
    format!("(?i)({})", alternatives.join("|"))
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
