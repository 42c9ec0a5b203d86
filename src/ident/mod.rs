//! Words matched the way an engineer reads code: on identifier boundaries,
//! and the lines that define them.
//!
//! `main` should find `main`, `fn main`, `__main__`, `main.rs`, `runMain` and
//! `main_loop`, and not `domains` or `remaining`. A plain substring search gets
//! this wrong in every codebase, so the offline driver builds one regex per
//! term that only matches where an identifier part starts and ends: after a
//! non-alphanumeric character or at a lower-to-upper case hump (`runMain`,
//! `IOError`), and before a non-alphanumeric character or the next hump. A
//! plural `s`/`es` may follow (`errors`, `Errors`).
//!
//! The `grep` tool builds its `identifiers` and `definitions` searches from
//! these patterns, and the offline driver compiles the same ones to classify
//! the lines grep returns; the regex engine is the same, so both agree on
//! what matched.

mod definitions;

pub use definitions::{Definition, definition_pattern, definitions, is_comment};

/// Why a list of words cannot be searched for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WordsError {
    #[error("no words to search for: give words separated by `|`, e.g. \"main|cli\"")]
    Empty,
    #[error(
        "`{0}` is not a word: with identifiers or definitions, the pattern is words of letters, digits and `_` separated by `|` (a trailing `*` also matches verb endings: `pars*`)"
    )]
    NotAWord(String),
}

/// The regex matching any of the `|`-separated `words` on identifier
/// boundaries; a word ending in `*` is a stem matched with a verb's endings
/// (`pars*` → `parse`, `parsed`, `parser`).
pub fn words_pattern(words: &str) -> Result<String, WordsError> {
    let mut parts = Vec::new();
    for word in words.split('|').map(str::trim).filter(|w| !w.is_empty()) {
        let (stem, ending) = match word.strip_suffix('*') {
            Some(stem) => (stem, Ending::Verb),
            None => (word, Ending::Plural),
        };
        if stem.is_empty() || !stem.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(WordsError::NotAWord(word.to_string()));
        }
        parts.push(boundary_pattern(stem, ending));
    }
    match parts.is_empty() {
        true => Err(WordsError::Empty),
        false => Ok(parts.join("|")),
    }
}

/// The regex (Rust syntax, without lookaround) matching `term` on identifier
/// boundaries, whatever its case. `term` is lowercase letters, digits and `_`;
/// anything else is escaped and matched literally.
pub fn term_pattern(term: &str) -> String {
    boundary_pattern(term, Ending::Plural)
}

/// The endings a term may take before its boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// A plural: `error`, `errors`.
    Plural,
    /// The ends of a verb's forms, for a stem: `pars` → `parse`, `parsed`,
    /// `parses`, `parsing`, `parser`.
    Verb,
}

impl Ending {
    fn lower(self) -> &'static str {
        match self {
            Ending::Plural => "(?:s|es)?",
            Ending::Verb => "(?:e|es|ed|d|s|ing|er|ers|e?r)?",
        }
    }

    fn upper(self) -> &'static str {
        match self {
            Ending::Plural => "(?:S|ES)?",
            Ending::Verb => "(?:E|ES|ED|D|S|ING|ER|ERS)?",
        }
    }
}

/// Like [`term_pattern`], with the endings `ending` allows.
pub fn boundary_pattern(term: &str, ending: Ending) -> String {
    let chars: Vec<char> = term.chars().flat_map(char::to_lowercase).collect();
    let Some((&last, head)) = chars.split_last() else {
        return String::new();
    };
    let head: String = head.iter().collect();
    // Where a match may start: after a non-alphanumeric character (any case),
    // or at a hump: an upper-case first letter after a lower-case letter or a
    // digit (`runMain`), or after an upper-case letter when lower-case letters
    // follow (`IOError`).
    let mut starts = vec![format!("(?:^|[^A-Za-z0-9])(?i:{})", escape(&head))];
    let mut head_chars = head.chars();
    if let Some(first) = head_chars.next()
        && first.is_alphabetic()
    {
        let upper: String = first.to_uppercase().collect();
        let rest = escape(head_chars.as_str());
        starts.push(format!("[a-z0-9]{}(?i:{rest})", escape(&upper)));
        starts.push(format!("[A-Z]{}{rest}", escape(&upper)));
    }
    // Where it may end, by the case of the last letter: a lower-case one (and
    // its plural) before anything but a lower-case letter or digit, so a hump
    // ends it (`mainLoop`); an upper-case one before no letter or digit at all
    // (`MAIN_MENU`, not `MAINTAINER`).
    let end = match last.is_alphabetic() {
        true => {
            let upper: String = last.to_uppercase().collect();
            format!(
                "(?:{}{}(?:[^a-z0-9]|$)|{}{}(?:[^A-Za-z0-9]|$))",
                escape(&last.to_string()),
                ending.lower(),
                escape(&upper),
                ending.upper()
            )
        }
        false => format!("{}(?:[^a-z0-9]|$)", escape(&last.to_string())),
    };
    format!("(?:{}){end}", starts.join("|"))
}

/// `text` with every character the regex syntax gives a meaning to escaped.
pub fn escape(text: &str) -> String {
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

/// The identifier parts of `word`, lowercase: `TraceWriter` → `trace`,
/// `writer`; `read_file` → `read`, `file`; `HTTPServer` → `http`, `server`.
pub fn split_identifier(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut parts = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            push_part(&mut parts, &mut current);
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let hump = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if hump {
            push_part(&mut parts, &mut current);
        }
        current.extend(c.to_lowercase());
    }
    push_part(&mut parts, &mut current);
    parts
}

fn push_part(parts: &mut Vec<String>, current: &mut String) {
    if !current.is_empty() {
        parts.push(std::mem::take(current));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn matches(term: &str, text: &str) -> bool {
        Regex::new(&term_pattern(term))
            .map(|re| re.is_match(text))
            .unwrap_or(false)
    }

    #[test]
    fn a_term_matches_on_identifier_boundaries_only() {
        for text in [
            "main",
            "fn main() {",
            "if __name__ == \"__main__\":",
            "src/main.rs",
            "def runMain():",
            "main_loop()",
            "MAIN_MENU",
            "Main.java",
        ] {
            assert!(matches("main", text), "main should match {text:?}");
        }
        for text in ["domains", "remaining", "maintain", "MAINTAINER", "mainly"] {
            assert!(!matches("main", text), "main should not match {text:?}");
        }
    }

    #[test]
    fn humps_and_plurals_count_as_boundaries() {
        assert!(matches("error", "pub enum ModelError {"));
        assert!(matches("error", "class IOError(Exception):"));
        assert!(matches("error", "errors.go"));
        assert!(matches("error", "HTTPErrors"));
        assert!(!matches("error", "terror"));
        assert!(!matches("error", "erroneous"));
        assert!(matches("config", "loadConfig(path)"));
        assert!(matches("config", "CONFIG_PATH"));
        assert!(!matches("config", "reconfigure"));
    }

    #[test]
    fn a_stem_matches_the_forms_of_its_verb() {
        let re = Regex::new(&boundary_pattern("pars", Ending::Verb)).unwrap();
        for text in [
            "parse(x)",
            "parsed",
            "parse_line",
            "Parser",
            "parsing",
            "PARSE",
        ] {
            assert!(re.is_match(text), "{text}");
        }
        assert!(!re.is_match("parsnip"));
        assert!(!re.is_match("sparse"));
    }

    #[test]
    fn identifiers_split_into_their_parts() {
        assert_eq!(split_identifier("TraceWriter"), ["trace", "writer"]);
        assert_eq!(split_identifier("read_file"), ["read", "file"]);
        assert_eq!(split_identifier("HTTPServer"), ["http", "server"]);
        assert_eq!(split_identifier("v2Parser"), ["v2", "parser"]);
        assert_eq!(split_identifier("plain"), ["plain"]);
    }

    #[test]
    fn word_lists_become_one_pattern_and_anything_else_is_refused() {
        let re = Regex::new(&words_pattern("main|pars*").unwrap()).unwrap();
        assert!(re.is_match("fn main()") && re.is_match("parser.rs"));
        assert!(!re.is_match("domains"));
        assert_eq!(words_pattern(" | "), Err(WordsError::Empty));
        assert!(matches!(
            words_pattern("fn\\s+main"),
            Err(WordsError::NotAWord(_))
        ));
    }

    #[test]
    fn terms_with_regex_characters_are_literal() {
        assert!(matches("c++", "uses c++ here"));
        assert!(!matches("a.b", "axb"));
    }
}
