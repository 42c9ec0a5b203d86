//! Syntax highlighting for code blocks, in named ANSI colours.
//!
//! syntect's RGB themes would fight the user's terminal theme and 16-colour
//! terminals, so only its parser is used: each token's scope stack is mapped
//! to a handful of named colours through [`Theme::syntax`], which also makes
//! `NO_COLOR` drop them. Parsing with pure-Rust regexes is slow (tens of µs per
//! line), so work is capped and results are cached, including the parser state
//! after the last complete line, so a code block that grows while it streams
//! is only parsed for its new lines.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError};

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};
use unicode_width::UnicodeWidthChar;

use super::theme::Theme;

/// Blocks longer than this render unhighlighted: parsing them would stall a frame.
pub const MAX_HIGHLIGHT_LINES: usize = 2_000;
/// Blocks bigger than this render unhighlighted, for the same reason.
pub const MAX_HIGHLIGHT_BYTES: usize = 200 * 1024;
/// Single lines longer than this (minified files) render unhighlighted: regex
/// work grows with line length and nobody reads such a line's colours.
pub const MAX_HIGHLIGHT_LINE_BYTES: usize = 4 * 1024;
/// Tab stops used when tabs are expanded for display.
pub const TAB_WIDTH: usize = 4;
/// How many highlighted blocks the cache keeps.
const CACHE_ENTRIES: usize = 32;

/// Highlights `code` as `lang` (a fence token such as `rs`, `python`, `sh`, or a
/// file name), one [`Line`] per source line, tabs expanded and control
/// characters removed. Unknown languages and oversized blocks come back as
/// plain text. Never panics.
pub fn highlight_code(code: &str, lang: Option<&str>, theme: &Theme) -> Vec<Line<'static>> {
    highlighted(code, lang, theme).as_ref().clone()
}

/// Like [`highlight_code`], but shares the cached result instead of copying it.
pub(crate) fn highlighted(
    code: &str,
    lang: Option<&str>,
    theme: &Theme,
) -> Arc<Vec<Line<'static>>> {
    let syntax = lang.and_then(find_syntax);
    match syntax {
        Some(syntax) if within_limits(code) => highlight_cached(code, syntax, theme),
        _ => Arc::new(plain_lines(code, theme.text())),
    }
}

fn within_limits(code: &str) -> bool {
    code.len() <= MAX_HIGHLIGHT_BYTES
        && code.bytes().filter(|&b| b == b'\n').count() < MAX_HIGHLIGHT_LINES
}

/// syntect's bundled syntaxes, loaded on first use (under a millisecond).
fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// Finds the syntax for a fence's language token. Accepts `rust,ignore`,
/// `{.python}`, `rust:src/main.rs` and plain file names; `None` means plain text.
fn find_syntax(lang: &str) -> Option<&'static SyntaxReference> {
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

/// What a token is, as far as its colour goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Keyword,
    Str,
    Comment,
    Constant,
    Function,
    Type,
    /// `storage.type`: a type (`int`, `u8`) in some grammars, a declaration
    /// keyword (`let`, `fn`, `def`) in others; the token's text decides.
    Storage,
    Inserted,
    Deleted,
    Plain,
}

impl Class {
    fn style(self, theme: &Theme) -> Style {
        match self {
            Class::Keyword => theme.syntax(Color::Magenta),
            Class::Str | Class::Inserted => theme.syntax(Color::Green),
            Class::Comment => theme.dim(),
            Class::Constant => theme.syntax(Color::Yellow),
            Class::Function => theme.syntax(Color::Blue),
            Class::Type | Class::Storage => theme.syntax(Color::Cyan),
            Class::Deleted => theme.syntax(Color::Red),
            Class::Plain => theme.text(),
        }
    }
}

/// Scope prefixes and their classes, more specific first. Scopes that match
/// nothing (punctuation, `meta.*`, variables) are transparent: the enclosing
/// scope decides, so a string's quotes are green and a comment's `//` is dim.
static RULES: LazyLock<Vec<(Scope, Class)>> = LazyLock::new(|| {
    [
        ("comment", Class::Comment),
        ("string", Class::Str),
        ("constant.numeric", Class::Constant),
        ("constant.language", Class::Constant),
        ("entity.name.function", Class::Function),
        ("support.function", Class::Function),
        ("variable.function", Class::Function),
        ("entity.name.type", Class::Type),
        ("entity.name.class", Class::Type),
        ("entity.name.struct", Class::Type),
        ("entity.name.enum", Class::Type),
        ("entity.name.trait", Class::Type),
        ("entity.name.interface", Class::Type),
        ("entity.name.union", Class::Type),
        ("entity.other.inherited-class", Class::Type),
        ("entity.name.tag", Class::Type),
        ("support.type", Class::Type),
        ("storage.type", Class::Storage),
        ("keyword.operator", Class::Plain),
        ("keyword", Class::Keyword),
        ("storage", Class::Keyword),
        ("markup.inserted", Class::Inserted),
        ("markup.deleted", Class::Deleted),
    ]
    .into_iter()
    .filter_map(|(name, class)| Scope::new(name).ok().map(|scope| (scope, class)))
    .collect()
});

/// Words that grammars scope as `storage.type` but that declare rather than
/// name a type, so they read as keywords.
const DECLARATIONS: &[&str] = &[
    "class",
    "const",
    "def",
    "enum",
    "fn",
    "func",
    "function",
    "impl",
    "interface",
    "lambda",
    "let",
    "mod",
    "module",
    "namespace",
    "static",
    "struct",
    "trait",
    "type",
    "typedef",
    "union",
    "var",
];

/// The class of a token, from the innermost scope that has one.
fn classify_token(stack: &[Scope], token: &str) -> Class {
    match classify(stack) {
        Class::Storage if DECLARATIONS.contains(&token.trim()) => Class::Keyword,
        class => class,
    }
}

/// The class of the innermost scope that has one.
fn classify(stack: &[Scope]) -> Class {
    stack
        .iter()
        .rev()
        .find_map(|scope| {
            RULES
                .iter()
                .find(|(prefix, _)| prefix.is_prefix_of(*scope))
                .map(|&(_, class)| class)
        })
        .unwrap_or(Class::Plain)
}

/// One highlighted block, with the parser state after its last complete line
/// so a longer version of the same block can resume from there.
struct Entry {
    theme: Theme,
    syntax: &'static SyntaxReference,
    code: String,
    lines: Arc<Vec<Line<'static>>>,
    resume: Resume,
}

/// Where parsing can pick up: after `offset` bytes, i.e. `lines` complete lines.
#[derive(Clone)]
struct Resume {
    offset: usize,
    lines: usize,
    parser: Parser,
}

static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn highlight_cached(
    code: &str,
    syntax: &'static SyntaxReference,
    theme: &Theme,
) -> Arc<Vec<Line<'static>>> {
    let same = |e: &Entry| e.theme == *theme && std::ptr::eq(e.syntax, syntax);
    let start = {
        let cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(hit) = cache.iter().find(|e| same(e) && e.code == code) {
            return Arc::clone(&hit.lines);
        }
        cache
            .iter()
            .filter(|e| {
                same(e)
                    && e.code
                        .get(..e.resume.offset)
                        .is_some_and(|p| code.starts_with(p))
            })
            .max_by_key(|e| e.resume.offset)
            .and_then(|e| Some((e.lines.get(..e.resume.lines)?.to_vec(), e.resume.clone())))
    };
    let (lines, resume) = match start {
        Some((lines, resume)) => highlight_from(code, lines, resume, theme),
        None => {
            let fresh = Resume {
                offset: 0,
                lines: 0,
                parser: Parser::new(syntax),
            };
            highlight_from(code, Vec::new(), fresh, theme)
        }
    };
    let lines = Arc::new(lines);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    // A streaming block's earlier versions are prefixes of this one: drop them.
    cache.retain(|e| !(same(e) && code.starts_with(e.code.as_str())));
    if cache.len() >= CACHE_ENTRIES {
        cache.remove(0);
    }
    let code = code.to_owned();
    cache.push(Entry {
        theme: *theme,
        syntax,
        code,
        lines: Arc::clone(&lines),
        resume,
    });
    lines
}

/// Highlights `code` from `resume.offset` on, appending to `lines` (the lines
/// before it), and returns them with the state after the last complete line.
fn highlight_from(
    code: &str,
    mut lines: Vec<Line<'static>>,
    mut resume: Resume,
    theme: &Theme,
) -> (Vec<Line<'static>>, Resume) {
    let complete = code.rfind('\n').map_or(0, |i| i + 1);
    let body = code.get(resume.offset..complete).unwrap_or_default();
    for line in body.split_terminator('\n') {
        lines.push(resume.parser.line(line, theme));
    }
    resume.offset = complete;
    resume.lines = lines.len();
    let tail = code.get(complete..).unwrap_or_default();
    if !tail.is_empty() {
        // The last line may still grow, so its state is not kept.
        lines.push(resume.parser.clone().line(tail, theme));
    }
    (lines, resume)
}

/// syntect's parser plus the scope stack it drives.
#[derive(Clone)]
struct Parser {
    state: ParseState,
    stack: ScopeStack,
    /// Set after a parse error: the rest of the block renders plain.
    failed: bool,
    buf: String,
}

impl Parser {
    fn new(syntax: &SyntaxReference) -> Self {
        Parser {
            state: ParseState::new(syntax),
            stack: ScopeStack::new(),
            failed: false,
            buf: String::new(),
        }
    }

    /// Highlights one source line (without its `\n`).
    fn line(&mut self, raw: &str, theme: &Theme) -> Line<'static> {
        let text = strip_controls(raw.strip_suffix('\r').unwrap_or(raw));
        let text = text.as_ref();
        if self.failed || text.len() > MAX_HIGHLIGHT_LINE_BYTES {
            return plain_line(text, theme.text());
        }
        self.buf.clear();
        self.buf.push_str(text);
        self.buf.push('\n');
        let Ok(ops) = self.state.parse_line(&self.buf, syntaxes()) else {
            self.failed = true;
            return plain_line(text, theme.text());
        };
        let mut out = LineBuilder::default();
        let mut from = 0;
        for (at, op) in &ops {
            let at = (*at).min(text.len());
            if at > from {
                let token = text.get(from..at).unwrap_or_default();
                out.push(
                    token,
                    classify_token(self.stack.as_slice(), token).style(theme),
                );
                from = at;
            }
            if self.stack.apply(op).is_err() {
                self.failed = true;
                break;
            }
        }
        let token = text.get(from..).unwrap_or_default();
        out.push(
            token,
            classify_token(self.stack.as_slice(), token).style(theme),
        );
        out.finish()
    }
}

/// Builds a line from styled pieces, merging neighbours of the same style and
/// expanding tabs against the running column.
#[derive(Default)]
struct LineBuilder {
    spans: Vec<Span<'static>>,
    col: usize,
}

impl LineBuilder {
    fn push(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => {
                sanitize_into(last.content.to_mut(), text, &mut self.col)
            }
            _ => {
                let mut content = String::with_capacity(text.len());
                sanitize_into(&mut content, text, &mut self.col);
                self.spans.push(Span::styled(content, style));
            }
        }
    }

    fn finish(self) -> Line<'static> {
        Line::from(self.spans)
    }
}

fn plain_line(text: &str, style: Style) -> Line<'static> {
    let mut out = LineBuilder::default();
    out.push(text, style);
    out.finish()
}

fn plain_lines(code: &str, style: Style) -> Vec<Line<'static>> {
    code.lines().map(|line| plain_line(line, style)).collect()
}

/// A line without escape sequences and control characters other than tabs,
/// cleaned before parsing since an escape sequence can span several tokens.
fn strip_controls(line: &str) -> Cow<'_, str> {
    if !line.contains(|c: char| c.is_control() && c != '\t') {
        return Cow::Borrowed(line);
    }
    let mut clean = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\t' => clean.push(c),
            c if c.is_control() => {}
            c => clean.push(c),
        }
    }
    Cow::Owned(clean)
}

/// Appends `text` to `out` made safe for a terminal cell grid: tabs become
/// spaces up to the next tab stop (tracking the display column `col`), ANSI
/// escape sequences and other control characters are dropped, since they would
/// move the cursor or change colours behind ratatui's back. Shared with the
/// markdown renderer and `wrap_plain`.
pub(crate) fn sanitize_into(out: &mut String, text: &str, col: &mut usize) {
    if !text.contains(|c: char| c.is_control()) {
        out.push_str(text);
        *col += unicode_width::UnicodeWidthStr::width(text);
        return;
    }
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\t' => {
                let n = TAB_WIDTH - *col % TAB_WIDTH;
                out.extend(std::iter::repeat_n(' ', n));
                *col += n;
            }
            '\u{1b}' => skip_escape(&mut chars),
            c if c.is_control() => {}
            c => {
                out.push(c);
                *col += c.width().unwrap_or(0);
            }
        }
    }
}

/// Skips the rest of an escape sequence after ESC: CSI (`ESC [ … final`), OSC
/// (`ESC ] … BEL` or `ESC ] … ESC \`), or a two-character escape.
fn skip_escape(chars: &mut std::str::Chars<'_>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        Some(']') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' || (c == '\u{1b}' && chars.next().is_some()) {
                    break;
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorMode;

    const COLOR: Theme = Theme {
        mode: ColorMode::Color,
    };
    const PLAIN: Theme = Theme {
        mode: ColorMode::NoColor,
    };

    /// The style of the first span whose text is `token`.
    fn style_of(lines: &[Line<'_>], token: &str) -> Option<Style> {
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .find(|s| s.content.trim() == token)
            .map(|s| s.style)
    }

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// Highlights without the cache, as the reference for cached results.
    fn fresh(code: &str, lang: &str, theme: &Theme) -> Vec<Line<'static>> {
        let Some(syntax) = find_syntax(lang) else {
            return plain_lines(code, theme.text());
        };
        let start = Resume {
            offset: 0,
            lines: 0,
            parser: Parser::new(syntax),
        };
        highlight_from(code, Vec::new(), start, theme).0
    }

    #[test]
    fn finds_languages_by_token_alias_and_file_name() {
        let name = |lang: &str| find_syntax(lang).map(|s| s.name.as_str());
        assert_eq!(name("rs"), Some("Rust"));
        assert_eq!(name("Rust"), Some("Rust"));
        assert_eq!(name("rust,ignore"), Some("Rust"));
        assert_eq!(name("py"), Some("Python"));
        assert_eq!(name("{.python}"), Some("Python"));
        assert_eq!(name("sh"), Some("Bourne Again Shell (bash)"));
        assert_eq!(name("console"), Some("Bourne Again Shell (bash)"));
        assert_eq!(name("json"), Some("JSON"));
        assert_eq!(name("ts"), Some("JavaScript"));
        assert_eq!(name("toml"), Some("Java Properties"));
        assert_eq!(name("src/main.rs"), Some("Rust"));
        assert_eq!(name("diff"), Some("Diff"));
        assert_eq!(name("text"), None);
        assert_eq!(name("klingon"), None);
        assert_eq!(name(""), None);
    }

    #[test]
    fn maps_scopes_to_named_colours() {
        let code = "// note\nfn main() {\n    let s = \"hi\";\n    let n = 42;\n    let t: String = f(true);\n}\n";
        let lines = highlight_code(code, Some("rust"), &COLOR);
        assert_eq!(text(&lines), code.lines().collect::<Vec<_>>());
        assert_eq!(style_of(&lines, "// note"), Some(COLOR.dim()));
        assert_eq!(
            style_of(&lines, "let").and_then(|s| s.fg),
            Some(Color::Magenta)
        );
        assert_eq!(
            style_of(&lines, "\"hi\"").and_then(|s| s.fg),
            Some(Color::Green)
        );
        assert_eq!(
            style_of(&lines, "42").and_then(|s| s.fg),
            Some(Color::Yellow)
        );
        assert_eq!(
            style_of(&lines, "true").and_then(|s| s.fg),
            Some(Color::Yellow)
        );
        assert_eq!(
            style_of(&lines, "main").and_then(|s| s.fg),
            Some(Color::Blue)
        );
        assert_eq!(
            style_of(&lines, "String").and_then(|s| s.fg),
            Some(Color::Cyan)
        );
        assert_eq!(
            style_of(&lines, "fn").and_then(|s| s.fg),
            Some(Color::Magenta)
        );
        let c = highlight_code("static unsigned int x;", Some("c"), &COLOR);
        assert_eq!(
            style_of(&c, "static").and_then(|s| s.fg),
            Some(Color::Magenta)
        );
        assert_eq!(style_of(&c, "int").and_then(|s| s.fg), Some(Color::Cyan));
        assert_eq!(style_of(&lines, "=").and_then(|s| s.fg), None);
    }

    #[test]
    fn no_color_keeps_only_the_comment_dimming() {
        let lines = highlight_code("x = 1  # note\nprint('a')\n", Some("py"), &PLAIN);
        assert!(
            lines
                .iter()
                .flat_map(|l| &l.spans)
                .all(|s| s.style.fg.is_none() && s.style.bg.is_none())
        );
        let dim = style_of(&lines, "# note")
            .map(|s| s.add_modifier.contains(ratatui::style::Modifier::DIM));
        assert_eq!(dim, Some(true));
    }

    #[test]
    fn unknown_languages_and_oversized_blocks_are_plain() {
        let plain = |lines: &[Line<'_>]| {
            lines
                .iter()
                .flat_map(|l| &l.spans)
                .all(|s| s.style == Style::default())
        };
        assert!(plain(&highlight_code("fn x() {}", Some("klingon"), &COLOR)));
        assert!(plain(&highlight_code("fn x() {}", None, &COLOR)));
        let long: String = "let x = 1;\n".repeat(MAX_HIGHLIGHT_LINES + 1);
        let lines = highlight_code(&long, Some("rs"), &COLOR);
        assert_eq!(lines.len(), MAX_HIGHLIGHT_LINES + 1);
        assert!(plain(&lines));
        let wide = format!(
            "let x = \"{}\";\nlet y = 2;\n",
            "a".repeat(MAX_HIGHLIGHT_LINE_BYTES)
        );
        let lines = highlight_code(&wide, Some("rs"), &COLOR);
        assert_eq!(lines[0].spans.len(), 1);
        assert!(plain(&lines[..1]));
        assert_eq!(lines[1].spans[0].style.fg, Some(Color::Magenta));
    }

    #[test]
    fn tabs_are_expanded_and_control_characters_dropped() {
        let lines = highlight_code("a\tbc\td\u{7}\r\n\u{1b}[1mx", Some("rs"), &COLOR);
        assert_eq!(text(&lines), ["a   bc  d", "x"]);
    }

    #[test]
    fn a_growing_block_highlights_as_if_fresh() {
        let code = "fn main() {\n    /* a\n    comment */ let s = \"multi\n    line\";\n    let n = 1;\n}\n";
        for end in (0..code.len()).step_by(3).chain([code.len()]) {
            let Some(prefix) = code.get(..end) else {
                continue;
            };
            let cached = highlight_code(prefix, Some("rs"), &COLOR);
            assert_eq!(cached, fresh(prefix, "rs", &COLOR), "after {end} bytes");
        }
    }

    /// Highlights odd fragments (unterminated strings, heredocs with regex
    /// metacharacters as delimiters, control characters) in each language.
    fn odd_inputs_do_not_panic<'a>(langs: impl IntoIterator<Item = &'a str>) {
        const INPUTS: [&str; 11] = [
            "",
            "\n\n",
            "\"unterminated",
            "/* open",
            "<<<EOF\n",
            "\u{0}\u{fffd}\u{200d}🎉",
            "((((((((((",
            "\\",
            "cat <<'A(B[C\\'\nx $y\nA(B[C\\\n",
            "s = <<~E*?+\n  x\nE*?+\n",
            "x = r#\"(?<=a)\"# ${\n",
        ];
        for lang in langs {
            for input in INPUTS {
                let lines = highlight_code(input, Some(lang), &COLOR);
                assert_eq!(lines.len(), input.lines().count(), "{lang}: {input:?}");
            }
        }
    }

    #[test]
    fn never_panics_on_odd_input_in_common_languages() {
        odd_inputs_do_not_panic([
            "rs", "py", "sh", "js", "ts", "json", "yaml", "toml", "c", "cpp", "go", "java", "rb",
            "diff", "html", "md", "sql",
        ]);
    }

    /// Every bundled syntax; slow in debug builds (regex compilation), so run
    /// with `cargo test --release --lib tui::highlight -- --ignored`.
    #[test]
    #[ignore = "slow in debug builds"]
    fn never_panics_on_odd_input_in_any_syntax() {
        let langs: Vec<&str> = syntaxes()
            .syntaxes()
            .iter()
            .map(|s| {
                s.file_extensions
                    .first()
                    .map_or(s.name.as_str(), String::as_str)
            })
            .collect();
        odd_inputs_do_not_panic(langs);
    }
}
