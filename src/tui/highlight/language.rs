//! Which syntax a fence's language token names, and the bundled syntax set
//! it is found in. Separate from highlighting itself: the aliases are a
//! list models' habits grow, unrelated to how tokens are coloured.

use std::sync::OnceLock;

use syntect::parsing::{SyntaxReference, SyntaxSet};

/// syntect's bundled syntaxes, loaded on first use (under a millisecond).
pub(super) fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// Finds the syntax for a fence's language token. Accepts `rust,ignore`,
/// `{.python}`, `rust:src/main.rs` and plain file names; `None` means plain text.
pub(super) fn find_syntax(lang: &str) -> Option<&'static SyntaxReference> {
    let token = lang
        .split([',', ':', ' ', '{', '}'])
        .map(|t| t.trim_start_matches('.'))
        .find(|t| !t.is_empty())?;
    let lower = token.to_ascii_lowercase();
    let set = syntaxes();
    let found = set.find_syntax_by_token(alias(&lower)).or_else(|| {
        let (_, ext) = lower.rsplit_once('.')?;
        set.find_syntax_by_token(alias(ext))
    })?;
    (found.name != "Plain Text").then_some(found)
}

/// Names that models write for languages syntect knows under another name, or
/// that it lacks and a close relative highlights well enough.
fn alias(token: &str) -> &str {
    match token {
        "shell" | "console" | "shellsession" | "sh-session" | "zsh" | "ksh" | "fish" => "sh",
        "ts" | "typescript" | "tsx" | "jsx" | "mjs" | "cjs" | "javascript" | "node" => "js",
        "python3" | "py3" | "python2" => "py",
        "golang" => "go",
        "c++" | "hpp" => "cpp",
        "yml" => "yaml",
        "jsonc" | "json5" | "jsonl" | "ndjson" => "json",
        "toml" | "ini" | "cfg" | "conf" | "env" | "dotenv" => "properties",
        "patch" | "udiff" => "diff",
        other => other,
    }
}
