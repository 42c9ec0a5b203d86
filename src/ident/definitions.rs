//! Lines that define something, in the common languages: `fn main`, `def
//! load`, `class ConfigError`, `func (s *Server) Run`, `export function x`,
//! `struct`, `enum`, `type`, and top-level `const`/`var`/`static`.

use std::sync::LazyLock;

use regex::Regex;

/// Keywords that introduce a definition wherever they stand (methods and
/// nested classes are indented): each names what it defines right after it,
/// or after a Go receiver or generics.
const ANYWHERE_KEYWORDS: &str = "fn|def|class|func|function|struct|enum|union|trait|interface|namespace|object|record|void|macro_rules!";
/// Keywords that define something only at the top level of a file, unindented:
/// indented, `let x`, `const x` and `type Error = …` are locals and associated
/// items, the noise of every codebase.
const TOP_LEVEL_KEYWORDS: &str = "type|typedef|const|var|let|val|static|mod|module|impl";
/// What may stand before a top-level keyword.
const MODIFIERS: &str = r"(?:(?:export|default|declare|pub(?:\([^)]*\))?)\s+)*";
/// Keywords of values, modules and impls.
const WEAK_KEYWORDS: &[&str] = &[
    "const", "var", "let", "val", "static", "mod", "module", "impl",
];
/// Keywords that define a type.
const TYPE_KEYWORDS: &[&str] = &[
    "struct",
    "enum",
    "union",
    "class",
    "trait",
    "interface",
    "type",
    "typedef",
    "record",
    "object",
];

static DEFINITION_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?:(?:^|[^\w$])(?P<kw>{ANYWHERE_KEYWORDS})|^{MODIFIERS}(?P<top>{TOP_LEVEL_KEYWORDS}))(?P<recv>\s*\([^)]*\))?(?:\s*<[^>]*>)?\s+(?P<name>[A-Za-z_$][\w$]*)"
    ))
    .ok()
});

/// The pattern of a definition of what `names` (a regex) matches: a
/// definition keyword followed, within the defined name, by a match. It finds
/// a superset of what [`definitions`] accepts.
pub fn definition_pattern(names: &str) -> String {
    format!(
        r"(?:(?:^|[^\w$])(?:{ANYWHERE_KEYWORDS})|^{MODIFIERS}(?:{TOP_LEVEL_KEYWORDS}))(?:\s*\([^)]*\))?(?:\s*<[^>]*>)?(?:\s+[\w$:.]*?|\s*)(?:{})",
        names
    )
}

/// What a definition defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Definition {
    /// `struct`, `enum`, `class`, `trait`, `interface`, `type`, …
    Type,
    /// `fn`, `def`, `func`, `function`, …
    Function,
    /// A top-level `const`, `var`, `let`, `static`, a `mod` or an `impl`.
    Value,
}

/// The names a line defines and what each is. A comment, or a keyword inside
/// a string, defines nothing.
pub fn definitions(line: &str) -> Vec<(&str, Definition)> {
    let Some(re) = DEFINITION_LINE.as_ref() else {
        return Vec::new();
    };
    if is_comment(line) {
        return Vec::new();
    }
    re.captures_iter(line)
        .filter_map(|c| {
            let keyword = c.name("kw").or_else(|| c.name("top"))?;
            if in_string(&line[..keyword.start()]) {
                return None;
            }
            let kw = keyword.as_str();
            // `func(x int) error {` is an anonymous Go function; after a
            // receiver, `func (r *T) Name(` names a method.
            if c.name("recv").is_some() {
                let after = &line[c.name("name")?.end()..];
                if !(after.starts_with('(') || after.starts_with('[')) {
                    return None;
                }
            }
            let mut name = c.name("name")?.as_str();
            // `impl Display for ConfigError` defines behaviour of ConfigError.
            if kw == "impl"
                && let Some((_, after)) = line.split_once(" for ")
            {
                name = after
                    .trim_start()
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or(name);
            }
            let kind = match (TYPE_KEYWORDS.contains(&kw), WEAK_KEYWORDS.contains(&kw)) {
                (true, _) => Definition::Type,
                (false, true) => Definition::Value,
                (false, false) => Definition::Function,
            };
            Some((name, kind))
        })
        .collect()
}

/// Whether `line` is a comment in any of the usual syntaxes (a Rust
/// attribute `#[…]` is not).
pub fn is_comment(line: &str) -> bool {
    const STARTS: &[&str] = &["//", "/*", "* ", "--", ";", "<!--", "\"\"\"", "'''"];
    let line = line.trim_start();
    STARTS.iter().any(|start| line.starts_with(start))
        || line == "*"
        || (line.starts_with('#') && !line.starts_with("#[") && !line.starts_with("#!["))
}

/// Whether the text before a position leaves a double-quoted or backquoted
/// string open.
fn in_string(before: &str) -> bool {
    let open = |quote: char| before.chars().filter(|&c| c == quote).count() % 2 == 1;
    open('"') || open('`')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_found_in_many_languages() {
        let cases = [
            ("pub fn main() -> ExitCode {", "main"),
            ("def load_config(path):", "load_config"),
            ("class ConfigError(Exception):", "ConfigError"),
            ("func (s *Server) Run() error {", "Run"),
            ("export default function main() {", "main"),
            ("pub(crate) enum ModelError {", "ModelError"),
            ("impl std::fmt::Display for ToolError {", "ToolError"),
            ("public static void main(String[] args) {", "main"),
            ("type Result<T> = std::result::Result<T, Error>;", "Result"),
        ];
        for (line, name) in cases {
            let found: Vec<&str> = definitions(line).into_iter().map(|(n, _)| n).collect();
            assert!(
                found.contains(&name),
                "{line:?} should define {name}: {found:?}"
            );
        }
        assert!(definitions("    run(config);").is_empty());
        assert!(definitions("check := func(ok *bool, name string) error {").is_empty());
        assert!(definitions("    let config = load();").is_empty());
        assert!(definitions("    type Error = ParseError;").is_empty());
        assert_eq!(
            definitions("pub const CONFIG_FILE: &str = \"x\";"),
            [("CONFIG_FILE", Definition::Value)]
        );
        assert_eq!(
            definitions("export const loadConfig = () => {};"),
            [("loadConfig", Definition::Value)]
        );
        assert_eq!(
            definitions("var ErrTimeout = errors.New(\"x\")"),
            [("ErrTimeout", Definition::Value)]
        );
        assert!(definitions("/// Its input, e.g. '{\"pattern\": \"fn main\"}'.").is_empty());
        assert!(definitions("# def main(): in a comment").is_empty());
        assert!(
            definitions(r#"let x = "fn main() {}";"#)
                .iter()
                .all(|(n, _)| *n != "main")
        );
        assert_eq!(
            definitions("#[derive(Debug)] struct Config {"),
            [("Config", Definition::Type)]
        );
    }

    #[test]
    fn the_definitions_pattern_finds_what_the_ranking_accepts() {
        let names = crate::ident::words_pattern("main|cli|bin|app|run").unwrap();
        let re = Regex::new(&definition_pattern(&names)).unwrap();
        assert!(re.is_match("fn main() {"));
        assert!(re.is_match("async def run_app():"));
        assert!(!re.is_match("let remaining = 3;"));
    }
}
