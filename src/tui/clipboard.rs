//! Copying through the terminal: OSC 52 asks the terminal to put text on
//! the system clipboard, which works over ssh and inside tmux (with
//! `set-clipboard on`) where no clipboard program could. What is copied is
//! brood's own rendering of the text: control characters a model or a tool
//! put there are made visible (`text::visible`), so pasting the copy later
//! cannot replay an escape sequence.

/// Terminals cap what one OSC 52 sequence may carry (xterm: 100,000 bytes
/// of base64 by default); past this much text the rest is left out and said.
pub const MAX_COPY_BYTES: usize = 74_000;

/// What a copy will send: the sequence and how much of the text it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copy {
    pub sequence: String,
    /// Characters copied, after making controls visible and the cap.
    pub chars: usize,
    pub cut: bool,
}

/// The OSC 52 sequence that puts `text` on the clipboard.
pub fn osc52(text: &str) -> Copy {
    let safe = crate::text::visible(text);
    let mut end = safe.len().min(MAX_COPY_BYTES);
    while !safe.is_char_boundary(end) {
        end -= 1;
    }
    let kept = &safe[..end];
    Copy {
        sequence: format!("\u{1b}]52;c;{}\u{7}", base64(kept.as_bytes())),
        chars: kept.chars().count(),
        cut: end < safe.len(),
    }
}

/// Standard base64 with padding (RFC 4648), all OSC 52 takes.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
    }

    #[test]
    fn a_copy_is_one_osc_52_sequence_without_the_text_s_escapes() {
        let copy = osc52("red \u{1b}[31mtext\u{1b}]52;c;ZXZpbA==\u{7}\nnext line");
        assert!(copy.sequence.starts_with("\u{1b}]52;c;"));
        assert!(copy.sequence.ends_with('\u{7}'));
        // One ESC and one BEL: the sequence's own.
        assert_eq!(copy.sequence.matches('\u{1b}').count(), 1);
        assert_eq!(copy.sequence.matches('\u{7}').count(), 1);
        let body = &copy.sequence[7..copy.sequence.len() - 1];
        assert_eq!(
            body,
            base64("red ^[[31mtext^[]52;c;ZXZpbA==^G\nnext line".as_bytes())
        );
        assert!(!copy.cut);
    }

    #[test]
    fn a_huge_copy_is_cut_on_a_character_boundary_and_says_so() {
        let copy = osc52(&"é".repeat(MAX_COPY_BYTES));
        assert!(copy.cut);
        assert_eq!(copy.chars, MAX_COPY_BYTES / 2);
    }
}
