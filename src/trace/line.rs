//! Reading one JSONL line with a ceiling: a line longer than the limit is read
//! past, not kept, so a 2 GB line, a file of NULs or `/dev/zero`-like input
//! costs a bounded buffer, and the reader calls it a bad line.

use std::io::{self, BufRead};

/// Lines longer than this (64 MiB) are bad lines. The longest a brood event
/// gets is a tool result of 50,000 characters; a Claude Code line holding a
/// pasted image is a few megabytes.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// What one read found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRead {
    /// The end of the input; nothing was read.
    End,
    /// A line is in the buffer; `complete` when it ended with a newline (the
    /// last line of a file cut off mid-write does not).
    Line { complete: bool },
    /// A line of `bytes` bytes, over the limit: skipped, the buffer left empty.
    TooLong { bytes: u64 },
}

/// Reads the next line of `input` into `buf` (cleared first), newline
/// included, keeping at most `max` bytes of it.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<LineRead> {
    buf.clear();
    let mut seen: u64 = 0;
    let mut too_long = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (seen, too_long) {
                (0, _) => LineRead::End,
                (bytes, true) => LineRead::TooLong { bytes },
                (_, false) => LineRead::Line { complete: false },
            });
        }
        let newline = memchr::memchr(b'\n', available);
        let take = newline.map_or(available.len(), |at| at + 1);
        if !too_long && buf.len() + take <= max {
            buf.extend_from_slice(&available[..take]);
        } else if !too_long {
            too_long = true;
            buf.clear();
            buf.shrink_to(0);
        }
        input.consume(take);
        seen += take as u64;
        if newline.is_some() {
            return Ok(match too_long {
                true => LineRead::TooLong { bytes: seen },
                false => LineRead::Line { complete: true },
            });
        }
    }
}

/// "line 3 is 70000000 bytes, over the 64 MiB limit".
pub fn too_long_message(bytes: u64) -> String {
    format!(
        "{bytes} bytes, over the {} MiB limit for one line",
        MAX_LINE_BYTES / (1024 * 1024)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_over_the_limit_are_skipped_without_being_kept() {
        let text = b"short\n0123456789abcdef\nlast".to_vec();
        let mut input = io::BufReader::with_capacity(4, &text[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut input, &mut buf, 8).unwrap(),
            LineRead::Line { complete: true }
        );
        assert_eq!(buf, b"short\n");
        assert_eq!(
            read_line(&mut input, &mut buf, 8).unwrap(),
            LineRead::TooLong { bytes: 17 }
        );
        assert!(buf.is_empty());
        assert_eq!(
            read_line(&mut input, &mut buf, 8).unwrap(),
            LineRead::Line { complete: false }
        );
        assert_eq!(buf, b"last");
        assert_eq!(read_line(&mut input, &mut buf, 8).unwrap(), LineRead::End);
    }

    #[test]
    fn an_endless_line_without_a_newline_ends_as_too_long() {
        let zeros = vec![0u8; 100_000];
        let mut input = io::BufReader::with_capacity(1024, &zeros[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut input, &mut buf, 4096).unwrap(),
            LineRead::TooLong { bytes: 100_000 }
        );
        assert!(buf.capacity() <= 4096, "{}", buf.capacity());
    }
}
