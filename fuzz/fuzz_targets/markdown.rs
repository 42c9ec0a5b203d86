//! The Markdown renderer on any text at any width: no panic, and no line it
//! makes is wider than the width it was given.
#![no_main]

use brood::tui::markdown::render_markdown;
use brood::tui::theme::{ColorMode, Theme};
use libfuzzer_sys::fuzz_target;
use unicode_width::UnicodeWidthStr;

fuzz_target!(|data: &[u8]| {
    let Some((&width, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let width = u16::from(width % 120) + 1;
    for line in render_markdown(text, width, &Theme::new(ColorMode::Color)) {
        let drawn: usize = line.spans.iter().map(|s| s.content.width()).sum();
        assert!(drawn <= usize::from(width), "{drawn} columns at width {width}: {line:?}");
    }
});
