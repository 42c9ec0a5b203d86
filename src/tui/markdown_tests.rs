//! Tests of markdown rendering and plain wrapping: snapshots that show every
//! span's style, and width/colour invariants checked over many widths.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::*;
use crate::tui::theme::{ColorMode, Theme};

const COLOR: Theme = Theme {
    mode: ColorMode::Color,
};
const PLAIN: Theme = Theme {
    mode: ColorMode::NoColor,
};

/// Shows lines as text, each styled span as `[cyan+bold]text[/]`.
fn show(lines: &[Line<'_>]) -> String {
    let rows: Vec<String> = lines
        .iter()
        .map(|l| l.spans.iter().map(show_span).collect())
        .collect();
    rows.join("\n")
}

fn show_span(span: &Span<'_>) -> String {
    let tags = style_tags(span.style);
    if tags.is_empty() {
        span.content.to_string()
    } else {
        format!("[{tags}]{}[/]", span.content)
    }
}

fn style_tags(style: Style) -> String {
    let mut tags: Vec<String> = Vec::new();
    if let Some(fg) = style.fg {
        tags.push(format!("{fg:?}").to_lowercase());
    }
    if let Some(bg) = style.bg {
        tags.push(format!("bg-{bg:?}").to_lowercase());
    }
    let names = [
        (Modifier::BOLD, "bold"),
        (Modifier::DIM, "dim"),
        (Modifier::ITALIC, "italic"),
        (Modifier::UNDERLINED, "underlined"),
        (Modifier::CROSSED_OUT, "crossed"),
        (Modifier::REVERSED, "reversed"),
    ];
    for (modifier, name) in names {
        if style.add_modifier.contains(modifier) {
            tags.push(name.to_owned());
        }
    }
    tags.join("+")
}

/// The text of the lines without styles.
fn texts(lines: &[Line<'_>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

const DOC: &str = r#"# Auth overview

Tokens are **refreshed** in `auth/tokens.py`; see *the guide* at [the docs](https://example.com/guide) or <https://example.com>. The ~~old~~ flow is gone.

## Steps

1. Read the config
2. Validate the token:
   - check `exp`
   - check the *signature*, which can take a long time on slow machines
     1. nested numbered item
3. Refresh

> Refresh tokens are **single use**, so a retry
> after a timeout must fetch a new one.

---

```rust
fn refresh(token: &str) -> Result<Token, Error> {
    // Reuse the client.
    let tries = 42;
    client.post("/refresh").send()?
}
```

```python
def refresh(token):
    """Refresh it."""
    return None if not token else 3.14
```

| Module | Lines | Owner |
|:-------|------:|:-----:|
| auth/login.py | 120 | sam |
| auth/tokens.py | 88 | kim |
"#;

#[test]
fn document_at_80_columns() {
    insta::assert_snapshot!(show(&render_markdown(DOC, 80, &COLOR)));
}

#[test]
fn document_at_30_columns() {
    insta::assert_snapshot!(show(&render_markdown(DOC, 30, &COLOR)));
}

#[test]
fn document_without_colour() {
    insta::assert_snapshot!(show(&render_markdown(DOC, 80, &PLAIN)));
}

const WIDE_DOC: &str = "# 標題 with 🎉 emoji\n\n\
中文段落，没有空格的长句子会在任意字符之间换行。Mixed 日本語 text and \
emoji 👨‍👩‍👧 family, ❤️ heart, 🇫🇷 flag and e\u{301}cole.\n\n\
- 列表项目 one 🚀 with a hanging indent that wraps\n  - 嵌套 nested\n\n\
> 引用 quote 🎈 text\n\n\
```rust\nlet s = \"漢字🎉\"; // 注释 comment that is long enough to be cut\n```\n\n\
| 名前 | 値 🎯 |\n|---|---|\n| 一 | 二三四五六七八九十 |\n\n\
https://example.com/a/very/long/url/that/cannot/be/wrapped/at/any/space/at/all\n";

fn assert_fits(lines: &[Line<'_>], width: usize, what: &str) {
    for line in lines {
        assert!(
            line.width() <= width,
            "{what}: line of width {} exceeds {width}: {:?}",
            line.width(),
            texts(std::slice::from_ref(line))
        );
    }
}

#[test]
fn no_line_exceeds_the_width() {
    for width in 1..=120u16 {
        let w = usize::from(width);
        assert_fits(&render_markdown(WIDE_DOC, width, &COLOR), w, "markdown");
        assert_fits(&render_markdown(DOC, width, &COLOR), w, "markdown");
        for overflow in [Overflow::Wrap, Overflow::Cut] {
            let plain = wrap_plain(WIDE_DOC, width, Style::new(), overflow);
            assert_fits(&plain, w, "plain");
        }
    }
}

#[test]
fn wrapping_loses_no_words() {
    let lines = render_markdown("alpha beta gamma delta epsilon zeta", 12, &COLOR);
    assert_eq!(texts(&lines), ["alpha beta", "gamma delta", "epsilon zeta"]);
}

#[test]
fn zero_and_tiny_widths_terminate() {
    for width in 0..=4 {
        let lines = render_markdown(WIDE_DOC, width, &COLOR);
        assert!(!lines.is_empty());
        assert_fits(&lines, usize::from(width.max(1)), "tiny");
    }
    assert_eq!(texts(&render_markdown("ab", 0, &COLOR)), ["a", "b"]);
}

#[test]
fn no_color_output_carries_no_colours() {
    for doc in [DOC, WIDE_DOC] {
        for width in [20, 80] {
            for line in render_markdown(doc, width, &PLAIN) {
                assert_eq!((line.style.fg, line.style.bg), (None, None));
                for span in &line.spans {
                    assert_eq!((span.style.fg, span.style.bg), (None, None), "{span:?}");
                }
            }
        }
    }
}

#[test]
fn no_color_keeps_modifiers_and_marks_inline_code() {
    let lines = render_markdown("**strong** and `code`", 80, &PLAIN);
    assert_eq!(show(&lines), "[bold]strong[/] and `code`");
}

#[test]
fn styles_continue_across_wrapped_lines() {
    let lines = render_markdown("**one two three four five six**", 10, &COLOR);
    assert!(lines.len() >= 3);
    for line in &lines {
        for span in &line.spans {
            assert!(span.style.add_modifier.contains(Modifier::BOLD), "{span:?}");
        }
    }
}

#[test]
fn list_items_hang_their_wrapped_lines_under_the_text() {
    let lines = render_markdown("- one two three four\n  - five six seven", 12, &COLOR);
    assert_eq!(
        texts(&lines),
        ["• one two", "  three four", "  ◦ five six", "    seven"]
    );
    let numbered = render_markdown("9. aaa bbb\n10. ccc ddd eee", 9, &COLOR);
    assert_eq!(
        texts(&numbered),
        ["9. aaa", "   bbb", "10. ccc", "    ddd", "    eee"]
    );
}

#[test]
fn a_word_longer_than_the_width_is_split() {
    let lines = render_markdown("short abcdefghijklmnopqrst end", 8, &COLOR);
    assert_eq!(texts(&lines), ["short", "abcdefgh", "ijklmnop", "qrst end"]);
    let cjk = render_markdown("中文字符", 5, &COLOR);
    assert_eq!(texts(&cjk), ["中文", "字符"]);
}

#[test]
fn links_show_their_url_unless_it_is_the_text() {
    let lines = render_markdown("[docs](https://x.dev) <https://y.dev>", 80, &COLOR);
    assert_eq!(
        show(&lines),
        "[cyan+underlined]docs[/][dim] (https://x.dev)[/] [cyan+underlined]https://y.dev[/]"
    );
}

#[test]
fn unknown_language_renders_plain_with_its_label() {
    let lines = render_markdown("```klingon\nqapla' batlh\n```", 40, &COLOR);
    assert_eq!(show(&lines), "[cyan]klingon[/]\n  qapla' batlh");
}

#[test]
fn empty_code_blocks_render_only_their_label() {
    assert_eq!(
        show(&render_markdown("```rust\n```", 40, &COLOR)),
        "[cyan]rust[/]"
    );
    assert!(render_markdown("```\n```", 40, &COLOR).is_empty());
    assert_eq!(
        texts(&render_markdown("before\n\n```\n```\n\nafter", 40, &COLOR)),
        ["before", "", "after"]
    );
}

#[test]
fn an_unclosed_fence_renders_the_rest_as_code() {
    let lines = render_markdown("Here:\n\n```rust\nfn main() {\n    let x = 1;", 40, &COLOR);
    assert_eq!(
        texts(&lines),
        ["Here:", "", "rust", "  fn main() {", "      let x = 1;"]
    );
    let last = &lines[4];
    let keyword = last.spans.iter().find(|s| s.content.as_ref() == "let");
    assert_eq!(
        keyword.map(|s| s.style.fg),
        Some(Some(Color::Magenta)),
        "{last:?}"
    );
}

#[test]
fn half_written_markdown_renders_sensibly() {
    assert_eq!(
        texts(&render_markdown("some **bold", 40, &COLOR)),
        ["some **bold"]
    );
    assert_eq!(texts(&render_markdown("text\n``", 40, &COLOR)), ["text ``"]);
    assert_eq!(
        texts(&render_markdown("| a | b |\n|--", 40, &COLOR)),
        ["| a | b | |--"]
    );
}

#[test]
fn a_huge_single_line_code_block_is_cut() {
    let code = format!("```rust\nlet x = \"{}\";\n```", "a".repeat(100 * 1024));
    let started = std::time::Instant::now();
    let lines = render_markdown(&code, 60, &COLOR);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1].width(), 60);
    assert!(texts(&lines)[1].ends_with('…'));
}

#[test]
fn long_code_lines_are_cut_not_wrapped() {
    let lines = render_markdown("```\nabcdefghijklmnopqrstuvwxyz\n```", 12, &COLOR);
    assert_eq!(texts(&lines), ["  abcdefghi…"]);
}

#[test]
fn quotes_prefix_every_line_and_dim_their_text() {
    let lines = render_markdown("> one two three\n>\n> four", 10, &COLOR);
    assert_eq!(texts(&lines), ["│ one two", "│ three", "│", "│ four"]);
    assert!(
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .all(|s| s.style.add_modifier.contains(Modifier::DIM))
    );
}

#[test]
fn tables_narrow_their_widest_column_to_fit() {
    let table = "| id | description |\n|---|---|\n| 1 | a rather long description |";
    let lines = render_markdown(table, 20, &COLOR);
    assert_eq!(
        texts(&lines),
        [
            "id │ description",
            "───┼────────────────",
            "1  │ a rather long…"
        ]
    );
}

#[test]
fn plain_text_keeps_its_indentation_when_wrapping() {
    let lines = wrap_plain(
        "    indented words that wrap\nnext",
        16,
        Style::new(),
        Overflow::Wrap,
    );
    assert_eq!(
        texts(&lines),
        ["    indented", "    words that", "    wrap", "next"]
    );
}

#[test]
fn plain_text_can_be_cut_instead() {
    let lines = wrap_plain("0123456789\nshort\n\n\tx", 6, Style::new(), Overflow::Cut);
    assert_eq!(texts(&lines), ["01234…", "short", "", "    x"]);
}

#[test]
fn plain_text_drops_escape_sequences_and_overwritten_output() {
    let lines = wrap_plain(
        "\u{1b}[31mred\u{1b}[0m\n10%\r55%\r100%",
        20,
        Style::new(),
        Overflow::Wrap,
    );
    assert_eq!(texts(&lines), ["red", "100%"]);
}

#[test]
fn plain_text_carries_its_style() {
    let style = Style::new().fg(Color::Red);
    let lines = wrap_plain("a b", 1, style, Overflow::Wrap);
    assert_eq!(show(&lines), "[red]a[/]\n[red]b[/]");
}

#[test]
fn random_markdown_never_panics_or_overflows() {
    const PIECES: [&str; 24] = [
        "# ",
        "**",
        "*",
        "`",
        "```rust\n",
        "```\n",
        "> ",
        "- ",
        "1. ",
        "\n",
        "\n\n",
        "word ",
        "| a | b |\n|---|:-:|\n| 中 | 🎉 |\n",
        "[x](https://y.z)",
        "中文",
        "🎉",
        "  ",
        "\t",
        "longlonglonglongword",
        "~~",
        "<b>",
        "\\",
        "---\n",
        "- [x] ",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..400 {
        let mut doc = String::new();
        for _ in 0..40 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            doc.push_str(PIECES[(seed >> 33) as usize % PIECES.len()]);
        }
        for width in [1u16, 2, 3, 7, 19, 40] {
            assert_fits(
                &render_markdown(&doc, width, &COLOR),
                usize::from(width),
                &doc,
            );
        }
    }
}

/// Timing of a 1,000-line message; run with
/// `cargo test --release --lib tui::markdown -- --ignored --nocapture`.
#[test]
#[ignore = "timing, run in release"]
fn timing_of_a_thousand_line_message() {
    let mut doc = String::new();
    for i in 0..100 {
        doc.push_str(&format!("## Section {i}\n\nSome **bold** text with `code` and a [link](https://example.com/{i}) that goes on for a while so it wraps.\n\n- item one\n- item two with *emphasis*\n  - nested\n\n> quoted\n\n"));
    }
    let lines = doc.lines().count();
    for width in [80, 120, 80] {
        let started = std::time::Instant::now();
        let out = render_markdown(&doc, width, &COLOR);
        println!(
            "{lines} source lines -> {} lines at {width}: {:?}",
            out.len(),
            started.elapsed()
        );
    }
    for run in ["cold", "warm"] {
        let code: String = (0..1000)
            .map(|i| format!("    let {run}_{i} = compute({i}, \"s\"); // note\n"))
            .collect();
        let doc = format!("```rust\n{code}```\n");
        for width in [80, 120] {
            let started = std::time::Instant::now();
            render_markdown(&doc, width, &COLOR);
            println!(
                "1000-line rust block ({run} regexes) at {width}: {:?}",
                started.elapsed()
            );
        }
    }
}
