//! Bounded capture of a command's output: keeps the beginning and the end, counts
//! the rest. A command printing gigabytes costs a fixed amount of memory, and the
//! model sees how the output started and how it ended (usually where errors are).

use std::collections::VecDeque;

use super::util::{cut_chars, last_chars};

/// Output longer than this many characters is shortened.
pub(super) const MAX_OUTPUT_CHARS: usize = 50_000;
/// Characters kept from each end of shortened output.
pub(super) const KEEP_CHARS: usize = 20_000;
/// Raw bytes kept from each end: enough for [`KEEP_CHARS`] of any UTF-8.
const KEEP_BYTES: usize = 256 << 10;

/// The start and end of a byte stream, and its length in characters.
#[derive(Debug, Default)]
pub(super) struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    /// Characters seen (bytes that do not continue a UTF-8 sequence).
    chars: usize,
}

impl Capture {
    pub(super) fn push(&mut self, data: &[u8]) {
        self.chars += data.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        let room = KEEP_BYTES.saturating_sub(self.head.len());
        let (front, rest) = data.split_at(room.min(data.len()));
        self.head.extend_from_slice(front);
        let rest = &rest[rest.len().saturating_sub(KEEP_BYTES)..];
        let overflow = (self.tail.len() + rest.len()).saturating_sub(KEEP_BYTES);
        self.tail.drain(..overflow);
        self.tail.extend(rest);
    }

    /// The text, shortened to its first and last [`KEEP_CHARS`] characters with a
    /// marker between when longer than [`MAX_OUTPUT_CHARS`].
    pub(super) fn render(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        if self.tail.is_empty() && self.chars <= MAX_OUTPUT_CHARS {
            return head.into_owned();
        }
        let (tail_a, tail_b) = self.tail.as_slices();
        let tail = String::from_utf8_lossy(&[tail_a, tail_b].concat()).into_owned();
        // With nothing spilled into `tail`, both ends come from `head`.
        let end = match self.tail.is_empty() {
            true => last_chars(&head, KEEP_CHARS),
            false => last_chars(&tail, KEEP_CHARS),
        };
        format!(
            "{}\n[... {} characters cut ...]\n{end}",
            cut_chars(&head, KEEP_CHARS).0,
            self.chars.saturating_sub(2 * KEEP_CHARS)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let mut capture = Capture::default();
        capture.push("héllo\n".as_bytes());
        capture.push(b"world");
        assert_eq!(capture.render(), "héllo\nworld");
    }

    #[test]
    fn long_output_keeps_both_ends_and_counts_the_cut() {
        for total in [60_000usize, 2_000_000] {
            let mut capture = Capture::default();
            let text: String = (0..total).map(|i| if i == 0 { 'S' } else { 'x' }).collect();
            let text = text + "END";
            for chunk in text.as_bytes().chunks(4096) {
                capture.push(chunk);
            }
            let shown = capture.render();
            assert!(shown.starts_with('S'), "{total}");
            assert!(shown.ends_with("END"), "{total}");
            let cut = total + 3 - 2 * KEEP_CHARS;
            assert!(
                shown.contains(&format!("[... {cut} characters cut ...]")),
                "{total}"
            );
            assert!(shown.len() < MAX_OUTPUT_CHARS, "{}", shown.len());
        }
    }
}
