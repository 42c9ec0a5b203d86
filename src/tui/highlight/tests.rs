//! Tests of the highlighter: language detection, scope colours, limits,
//! sanitizing, and cached results matching a fresh parse.

use ratatui::style::{Color, Style};
use ratatui::text::Line;

use super::cache::{Resume, highlight_from};
use super::language::{find_syntax, syntaxes};
use super::lines::{Parser, plain_lines};
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
        Some(Color::LightRed)
    );
    assert_eq!(
        style_of(&lines, "true").and_then(|s| s.fg),
        Some(Color::LightRed)
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
    let dim =
        style_of(&lines, "# note").map(|s| s.add_modifier.contains(ratatui::style::Modifier::DIM));
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
    let code =
        "fn main() {\n    /* a\n    comment */ let s = \"multi\n    line\";\n    let n = 1;\n}\n";
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
