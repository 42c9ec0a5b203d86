//! Text made safe for a terminal cell grid: tabs expanded, escape sequences
//! and control characters dropped. Separate because the markdown renderer
//! and `wrap_plain` use it too, for text that is never highlighted.

use std::borrow::Cow;

use unicode_width::UnicodeWidthChar;

use super::TAB_WIDTH;

/// A line without escape sequences and control characters other than tabs,
/// cleaned before parsing since an escape sequence can span several tokens.
pub(super) fn strip_controls(line: &str) -> Cow<'_, str> {
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
