//! How brood words things for people: an error with each of its causes once,
//! a count with its noun in the right number, and text from a model or a tool
//! made safe to print on a terminal.

use std::borrow::Cow;
use std::error::Error;

/// `error`, then `: cause` for every cause in its chain whose text is not
/// already part of what is said. Error types here print their own cause, so
/// walking the chain blindly (`{:#}`) would say it twice.
pub fn describe(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// `1 step`, `2 steps`, `0 steps`: `n` and `noun`, plural unless `n` is 1.
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

/// A token count as brood writes it everywhere: `950`, `9.1k`, `32k`, `120k`,
/// `1.2M`.
pub fn tokens(n: u64) -> String {
    fn scaled(n: u64, unit: u64, suffix: &str) -> String {
        if n.is_multiple_of(unit) {
            format!("{}{suffix}", n / unit)
        } else {
            format!("{:.1}{suffix}", n as f64 / unit as f64)
        }
    }
    match n {
        0..1_000 => n.to_string(),
        1_000..100_000 => scaled(n, 1_000, "k"),
        100_000..1_000_000 => format!("{}k", (n + 500) / 1_000),
        _ => scaled(n, 1_000_000, "M"),
    }
}

/// A duration as brood writes it everywhere: `340ms`, `1.2s`, `12s`,
/// `3m 05s`, `1h 02m`.
pub fn duration(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms}ms"),
        1_000..10_000 => format!("{:.1}s", ms as f64 / 1_000.0),
        10_000..60_000 => format!("{}s", ms / 1_000),
        60_000..3_600_000 => format!("{}m {:02}s", ms / 60_000, (ms / 1_000) % 60),
        _ => format!("{}h {:02}m", ms / 3_600_000, (ms / 60_000) % 60),
    }
}

/// `text` with every character a terminal would obey rather than show made
/// visible: C0 controls but newline and tab in caret notation (`^[` for ESC,
/// `^G`, `^M`, `^?` for DEL), C1 controls and the bidirectional overrides
/// that reorder what is read (`<U+009B>`, `<U+202E>`). Model text, tool output
/// and error bodies go through this before `brood run` or `replay --print`
/// writes them, so none can clear the screen, set the clipboard (OSC 52) or
/// fake a link (OSC 8).
pub fn visible(text: &str) -> Cow<'_, str> {
    if !has_unsafe(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if !is_unsafe(c) => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            c => out.push_str(&format!("<U+{:04X}>", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// Appends a JSON text (UTF-8) to `out` with the characters a terminal would
/// act on and JSON leaves raw (DEL, C1 controls, bidirectional overrides)
/// written as `\uXXXX` escapes. Such characters can only stand inside JSON
/// strings, where the escape means the same character, so the JSON is
/// unchanged as data. (serde_json already escapes C0 controls.)
pub fn push_terminal_safe_json(json: &[u8], out: &mut Vec<u8>) {
    // Every character to escape starts with one of these bytes.
    if !json.iter().any(|&b| b == 0x7f || b == 0xc2 || b == 0xe2) {
        out.extend_from_slice(json);
        return;
    }
    let Ok(text) = std::str::from_utf8(json) else {
        out.extend_from_slice(json);
        return;
    };
    for c in text.chars() {
        match is_unsafe(c) && (c as u32) >= 0x7f {
            true => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            false => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}

/// A writer that passes text on with [`visible`] applied, for the log: a log
/// read with `cat` or `tail -f` must not run the escapes a model sent. Each
/// write is taken as one piece of UTF-8 (tracing writes a whole line at a
/// time); bytes that are not UTF-8 are written as they are.
pub struct VisibleWriter<W>(pub W);

impl<W: std::io::Write> std::io::Write for VisibleWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.write_all(visible(text).as_bytes())?,
            Err(_) => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Whether `text` has a character [`is_unsafe`] says a terminal would act
/// on, read from its UTF-8: everything printed is checked, and most of it
/// is plain text. Blocks of 32 bytes with no byte that can start such a
/// character are passed over whole (the check of a block has no branch, so
/// it is done a vector at a time); the others are looked at byte by byte.
fn has_unsafe(text: &str) -> bool {
    const BLOCK: usize = 32;
    let bytes = text.as_bytes();
    let suspect =
        |b: u8| (b < 0x20) & (b != b'\n') & (b != b'\t') | (b == 0x7f) | (b == 0xc2) | (b == 0xe2);
    let mut start = 0;
    while let Some(block) = bytes.get(start..) {
        let block = &block[..block.len().min(BLOCK)];
        if block.is_empty() {
            return false;
        }
        let any = block.iter().fold(false, |any, &b| any | suspect(b));
        if any && (start..start + block.len()).any(|i| starts_unsafe(bytes, i)) {
            return true;
        }
        start += block.len();
    }
    false
}

/// Whether the character at byte `i` of `bytes` is one [`is_unsafe`] says
/// a terminal would act on (`i` at the start of a character).
fn starts_unsafe(bytes: &[u8], i: usize) -> bool {
    match bytes.get(i).copied().unwrap_or(b' ') {
        b'\n' | b'\t' => false,
        0..0x20 | 0x7f => true,
        // U+0080 to U+009F.
        0xc2 => bytes
            .get(i + 1)
            .is_some_and(|next| (0x80..=0x9f).contains(next)),
        // U+202A to U+202E and U+2066 to U+2069.
        0xe2 => matches!(
            (bytes.get(i + 1), bytes.get(i + 2)),
            (Some(0x80), Some(0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
        ),
        _ => false,
    }
}

/// Whether a terminal would act on `c` instead of showing it.
fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidirectional embeddings, overrides and isolates.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// An RFC 3339 time as people read it in a list: local `2026-12-01 23:59`;
/// text that is not a time, as it is.
pub fn short_time(rfc3339: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(rfc3339) {
        Ok(t) => t
            .with_timezone(&chrono::Local)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => rfc3339.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Read a byte at a time, text has a character to make visible
        /// exactly when one of its characters is one.
        #[test]
        fn bytes_tell_what_characters_tell(
            text in "([a-z \n\t]|[\u{0}-\u{1f}\u{7f}-\u{a0}]|[\u{2020}-\u{2070}]|[é😀…→✓]){0,80}",
        ) {
            proptest::prop_assert_eq!(has_unsafe(&text), text.chars().any(is_unsafe));
        }
    }

    #[test]
    fn numbers_read_the_same_everywhere() {
        assert_eq!(tokens(950), "950");
        assert_eq!(tokens(9_100), "9.1k");
        assert_eq!(tokens(32_000), "32k");
        assert_eq!(tokens(15_100), "15.1k");
        assert_eq!(tokens(200_000), "200k");
        assert_eq!(tokens(1_200_000), "1.2M");
        assert_eq!(duration(340), "340ms");
        assert_eq!(duration(1_234), "1.2s");
        assert_eq!(duration(12_400), "12s");
        assert_eq!(duration(125_000), "2m 05s");
        assert_eq!(duration(3_725_000), "1h 02m");
    }

    #[test]
    fn json_keeps_its_meaning_without_raw_terminal_controls() {
        let value = serde_json::json!({"text": "a\u{9b}31m\u{202e}b\u{7f} © ✓", "n": 1});
        let raw = serde_json::to_vec(&value).unwrap();
        let mut safe = Vec::new();
        push_terminal_safe_json(&raw, &mut safe);
        let safe = String::from_utf8(safe).unwrap();
        assert!(safe.contains("\\u009b31m\\u202eb\\u007f © ✓"), "{safe}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&safe).unwrap(),
            value
        );
    }

    #[test]
    fn the_log_writer_shows_escapes() {
        use std::io::Write;
        let mut log = VisibleWriter(Vec::new());
        log.write_all("model said \u{1b}[2J\n".as_bytes()).unwrap();
        assert_eq!(log.0, b"model said ^[[2J\n");
    }

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert!(matches!(visible("plain\ttext\n"), Cow::Borrowed(_)));
        assert_eq!(
            visible("\u{1b}]52;c;aGk=\u{7}\u{1b}[2J\r\u{7f}"),
            "^[]52;c;aGk=^G^[[2J^M^?"
        );
        assert_eq!(visible("a\u{9b}31mb"), "a<U+009B>31mb");
        assert_eq!(visible("user\u{202e}txt.exe"), "user<U+202E>txt.exe");
        assert_eq!(visible("ünïcode ✓ 日本"), "ünïcode ✓ 日本");
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read script x.json: {source}")]
    struct Outer {
        #[source]
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("starting the session")]
    struct Bare {
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn each_cause_is_said_once() {
        let gone = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let outer = Outer { source: gone() };
        assert_eq!(describe(&outer), "cannot read script x.json: no such file");
        let bare = Bare { source: gone() };
        assert_eq!(describe(&bare), "starting the session: no such file");
    }

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1u32, "step"), "1 step");
        assert_eq!(count(0u32, "step"), "0 steps");
        assert_eq!(count(30u64, "turn"), "30 turns");
    }
}
