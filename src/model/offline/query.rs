//! What a part of a question is searched by: weighted terms and a topic.
//!
//! A person asking "where is the entry point" means `main`, `bin`, `cli`, the
//! manifest's entry fields; "how is configuration loaded" means `config`,
//! `settings`, `options`, `env`. With no model to understand the question, a
//! small table of topics maps the words people use to the words code uses.
//! Every other word of the question is searched for as written and by its
//! identifier parts (`TraceWriter` → `tracewriter`, `trace`, `writer`).

use crate::ident::{self, Ending, split_identifier};

/// Terms searched for per part at most: more make the patterns slow and the
/// ranking mushy.
const MAX_TERMS: usize = 10;
/// The weight of a word taken from the question as it is.
const FREE_WEIGHT: f64 = 2.0;
/// The weight of an identifier part of a compound word of the question.
const PART_WEIGHT: f64 = 1.0;

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
    "code", "codebase", "defined", "define", "explain", "file", "files", "find", "handle",
    "handled", "handles", "handling", "happen", "happens", "implemented", "located", "look",
    "please", "project", "repo", "repository", "show", "tell", "used", "using", "work",
    "working", "works", "workspace", "point", "points", "loaded", "loading", "read", "reads",
    "done", "kept", "live", "lives", "put", "goes", "get", "gets", "set", "sets", "made",
];

/// What a part is about, where that changes how the search is done or ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Topic {
    /// Package manifests' entry fields are read too.
    Entry,
    /// Tests, specs and fixtures are what is wanted, not what is pushed down.
    Tests,
    /// Errors are told by their types (`enum ConfigError`, `class
    /// FetchError(Exception)`) more than by functions that mention them.
    Errors,
    /// Anything else.
    Code,
}

/// A search term and how much a match of it counts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Term {
    /// Lowercase; matched on identifier boundaries, any case.
    pub word: String,
    pub weight: f64,
    /// For a verb form of the question ("cached"), the stem that is matched
    /// instead, with any of the verb's endings (`cache`, `caching`).
    pub stem: Option<String>,
}

impl Term {
    /// The regex matching this term on identifier boundaries.
    pub fn pattern(&self) -> String {
        match &self.stem {
            Some(stem) => ident::boundary_pattern(stem, Ending::Verb),
            None => ident::term_pattern(&self.word),
        }
    }

    /// Whether `name` is this term itself rather than a longer name holding it.
    pub fn is_exact(&self, name: &str) -> bool {
        let name = name.trim_matches('_').to_lowercase();
        match &self.stem {
            Some(stem) => name == self.word || name == *stem || name == format!("{stem}e"),
            None => name == self.word,
        }
    }
}

/// What one part of a question is searched by.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Query {
    pub terms: Vec<Term>,
    pub topic: Topic,
}

impl Query {
    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(|t| t.word.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The terms as the grep tool's `identifiers` search takes them:
    /// `main|cli|pars*` (a stem ends in `*`).
    pub fn words_input(&self) -> String {
        let words: Vec<String> = self
            .terms
            .iter()
            .map(|t| match &t.stem {
                Some(stem) => format!("{stem}*"),
                None => t.word.clone(),
            })
            .collect();
        words.join("|")
    }
}

/// A topic of questions: the words that name it and the terms code uses for it.
struct Concept {
    triggers: &'static [&'static str],
    topic: Topic,
    terms: &'static [(&'static str, f64)],
}

#[rustfmt::skip]
const CONCEPTS: &[Concept] = &[
    Concept {
        triggers: &["entry", "entrypoint", "entrypoints", "startup", "bootstrap", "launch",
                    "starts", "main"],
        topic: Topic::Entry,
        terms: &[("main", 3.0), ("cli", 1.5), ("bin", 1.5), ("app", 1.0), ("run", 1.0),
                 ("start", 1.0), ("index", 1.0)],
    },
    Concept {
        triggers: &["config", "configs", "configuration", "configurations", "configure",
                    "configured", "settings", "setting", "options", "preferences", "env",
                    "environment", "dotenv"],
        topic: Topic::Code,
        terms: &[("config", 3.0), ("settings", 2.0), ("conf", 1.5), ("options", 1.0),
                 ("cfg", 1.0), ("env", 1.0), ("environ", 1.0), ("environment", 1.0),
                 ("dotenv", 1.0), ("load", 0.75)],
    },
    Concept {
        triggers: &["error", "errors", "exception", "exceptions", "failure", "failures",
                    "panic", "panics", "fault", "faults"],
        topic: Topic::Errors,
        terms: &[("error", 3.0), ("exception", 2.5), ("err", 1.5), ("thiserror", 1.5),
                 ("raise", 1.0), ("panic", 1.0), ("fail", 0.75)],
    },
    Concept {
        triggers: &["test", "tests", "testing", "tested", "spec", "specs"],
        topic: Topic::Tests,
        terms: &[("test", 3.0), ("spec", 2.0), ("assert", 1.0), ("fixture", 1.0)],
    },
    Concept {
        triggers: &["log", "logs", "logging", "logger", "logged"],
        topic: Topic::Code,
        terms: &[("log", 3.0), ("logger", 2.0), ("logging", 2.0), ("tracing", 1.5)],
    },
    Concept {
        triggers: &["auth", "authentication", "authenticate", "authenticated", "authorization",
                    "authorize", "login", "signin"],
        topic: Topic::Code,
        terms: &[("auth", 3.0), ("authenticate", 2.5), ("authentication", 2.5), ("login", 2.0),
                 ("token", 1.5), ("session", 1.0), ("password", 1.0), ("credential", 1.0)],
    },
    Concept {
        triggers: &["database", "databases", "db", "sql", "persistence", "persisted", "storage"],
        topic: Topic::Code,
        terms: &[("db", 3.0), ("database", 3.0), ("sql", 2.0), ("query", 1.5),
                 ("migration", 1.0), ("store", 1.0)],
    },
    Concept {
        triggers: &["route", "routes", "routing", "endpoint", "endpoints", "api", "http"],
        topic: Topic::Code,
        terms: &[("route", 3.0), ("router", 2.0), ("handler", 2.0), ("endpoint", 2.0),
                 ("http", 1.5), ("api", 1.5), ("server", 1.0)],
    },
    Concept {
        triggers: &["argument", "arguments", "args", "flag", "flags", "cli"],
        topic: Topic::Code,
        terms: &[("args", 2.5), ("arg", 2.0), ("flag", 2.0), ("clap", 2.0), ("argparse", 2.0),
                 ("cli", 2.0), ("option", 1.0), ("command", 1.0)],
    },
];

/// The query for one part of a question: the terms of every topic it names,
/// then its other words as written and split into identifier parts.
pub(super) fn query(text: &str) -> Query {
    let mut terms: Vec<Term> = Vec::new();
    let mut topic = Topic::Code;
    let words = words_of(text);
    for concept in CONCEPTS {
        if !words.iter().any(|w| is_trigger(concept, w)) {
            continue;
        }
        if topic == Topic::Code {
            topic = concept.topic;
        }
        for (word, weight) in concept.terms {
            add(&mut terms, word, *weight);
        }
    }
    let named = !terms.is_empty();
    for word in words {
        if CONCEPTS.iter().any(|c| is_trigger(c, word)) {
            continue;
        }
        // "loaded" in "how is configuration loaded" says which of the topic's
        // terms matters most: `load`.
        let lower = word.to_lowercase();
        if let Some(term) = terms
            .iter_mut()
            .find(|t| stems(&lower).any(|stem| stem == t.word))
        {
            term.weight = term.weight.max(FREE_WEIGHT + 0.5);
            continue;
        }
        if is_ignored(word) {
            continue;
        }
        let parts: Vec<String> = split_identifier(word)
            .into_iter()
            .filter(|p| p.chars().count() >= 3 && !is_ignored(p))
            .collect();
        add_free(&mut terms, &lower);
        if parts.len() > 1 {
            for part in &parts {
                add(&mut terms, &singular(part), PART_WEIGHT);
            }
        }
    }
    // Topic terms first, then free words; past the cap the lightest go.
    if named {
        terms.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    }
    terms.truncate(MAX_TERMS);
    Query { terms, topic }
}

/// The words of `text` worth a look: letters, digits and `_`, three
/// characters or more, case kept so humps can be split.
fn words_of(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(|w| w.trim_matches('_'))
        .filter(|w| w.chars().count() >= 3)
        .collect()
}

fn is_trigger(concept: &Concept, word: &str) -> bool {
    concept.triggers.contains(&word.to_lowercase().as_str())
}

fn add(terms: &mut Vec<Term>, word: &str, weight: f64) {
    if word.chars().count() < 2 {
        return;
    }
    match terms.iter_mut().find(|t| t.word == word) {
        Some(term) => term.weight = term.weight.max(weight),
        None => terms.push(Term {
            word: word.to_string(),
            weight,
            stem: None,
        }),
    }
}

/// A word of the question as written: its singular, or for a verb form
/// ("cached", "parsing") the word matched by its stem.
fn add_free(terms: &mut Vec<Term>, word: &str) {
    let stem = verb_stem(word);
    let word = match stem {
        Some(_) => word.to_string(),
        None => singular(word),
    };
    if terms.iter().any(|t| t.word == word) {
        return add(terms, &word, FREE_WEIGHT);
    }
    terms.push(Term {
        word,
        weight: FREE_WEIGHT,
        stem,
    });
}

/// Irregular past forms and the stems their verbs match by.
const IRREGULAR: &[(&str, &str)] = &[
    ("written", "writ"),
    ("wrote", "writ"),
    ("built", "build"),
    ("ran", "run"),
    ("sent", "send"),
    ("made", "mak"),
    ("kept", "keep"),
    ("held", "hold"),
    ("begun", "begin"),
    ("began", "begin"),
    ("chosen", "choos"),
    ("drawn", "draw"),
    ("drew", "draw"),
    ("shown", "show"),
    ("thrown", "throw"),
    ("threw", "throw"),
    ("taken", "tak"),
    ("given", "giv"),
    ("spent", "spend"),
    ("bound", "bind"),
    ("hidden", "hid"),
    ("split", "split"),
    ("spawned", "spawn"),
    ("fed", "feed"),
    ("led", "lead"),
];

/// "cached" → "cach", "parsing" → "pars", "stopped" → "stop": what is left
/// of a verb form once its ending (and a doubled last consonant) is gone.
fn verb_stem(word: &str) -> Option<String> {
    if let Some((_, stem)) = IRREGULAR.iter().find(|(form, _)| *form == word) {
        return Some(stem.to_string());
    }
    let stem = word
        .strip_suffix("ed")
        .filter(|s| s.chars().count() >= 3)
        .or_else(|| word.strip_suffix("ing").filter(|s| s.chars().count() >= 3))?;
    let chars: Vec<char> = stem.chars().collect();
    let doubled = chars.len() >= 4
        && chars[chars.len() - 1] == chars[chars.len() - 2]
        && !"aeiouls".contains(chars[chars.len() - 1]);
    Some(match doubled {
        true => chars[..chars.len() - 1].iter().collect(),
        false => stem.to_string(),
    })
}

fn is_ignored(word: &str) -> bool {
    let lower = word.to_lowercase();
    STOPWORDS.contains(&lower.as_str()) || GENERIC_WORDS.contains(&lower.as_str())
}

/// The forms a word's stem may take: itself, its singular, and without an
/// `-ed`/`-d`/`-ing` ending (with an `e` put back: "parsed" → "pars", "parse").
fn stems(word: &str) -> impl Iterator<Item = String> + '_ {
    let mut out = vec![word.to_string(), singular(word)];
    for ending in ["ed", "d", "ing"] {
        if let Some(stem) = word.strip_suffix(ending)
            && stem.chars().count() >= 3
        {
            out.push(stem.to_string());
            out.push(format!("{stem}e"));
        }
    }
    out.into_iter()
}

/// "queries" → "query", "tokens" → "token"; leaves "process", "status",
/// "analysis", "alias" and short words alone. The boundary match finds the
/// plural again.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn words(q: &Query) -> Vec<&str> {
        q.words().collect()
    }

    #[test]
    fn a_topic_maps_to_the_words_code_uses() {
        let q = query("Where is the entry point of this project");
        assert_eq!(q.topic, Topic::Entry);
        assert_eq!(words(&q)[0], "main");
        assert!(words(&q).contains(&"cli") && words(&q).contains(&"bin"));
        let q = query("how is configuration loaded");
        assert_eq!(words(&q)[..3], ["config", "load", "settings"]);
        let q = query("how are errors handled");
        assert_eq!(words(&q)[..2], ["error", "exception"]);
        assert!(words(&q).contains(&"thiserror"));
    }

    #[test]
    fn free_words_are_used_as_written_and_by_their_parts() {
        let q = query("How does the TraceWriter flush events?");
        assert_eq!(q.topic, Topic::Code);
        assert_eq!(
            words(&q),
            ["tracewriter", "trace", "writer", "flush", "event"]
        );
        let q = query("what calls read_file");
        assert_eq!(words(&q), ["call", "read_file"]);
        assert!(query("How does this work? What is it?").is_empty());
    }

    #[test]
    fn verb_forms_match_by_their_stem() {
        let q = query("where are forecasts cached");
        assert_eq!(words(&q), ["forecast", "cached"]);
        assert_eq!(q.terms[1].stem.as_deref(), Some("cach"));
        assert!(q.terms[1].is_exact("cache"));
        assert_eq!(verb_stem("stopped").as_deref(), Some("stop"));
        assert_eq!(verb_stem("parsing").as_deref(), Some("pars"));
        assert_eq!(verb_stem("called").as_deref(), Some("call"));
        assert_eq!(verb_stem("red"), None);
        assert_eq!(verb_stem("written").as_deref(), Some("writ"));
    }

    #[test]
    fn topic_terms_come_before_free_words() {
        let q = query("which errors can the parser return");
        assert_eq!(words(&q)[0], "error");
        assert!(words(&q).contains(&"parser"));
        assert!(words(&q).contains(&"return"));
    }
}
