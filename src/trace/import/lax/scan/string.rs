//! Strings, the bulk of a Claude Code line, scanned 64 bytes at a time. A
//! file's text in a tool result has an escape (`\n`, `\"`) every twenty
//! bytes or so, so what an escape costs is what reading costs. A block's
//! quotes, backslashes, control characters and common escape letters are
//! found together, and which of its bytes are escaped is worked out from the
//! backslashes with a few integer operations (the way simdjson does it):
//! checking a string looks at no escape on its own but the uncommon ones,
//! and unescaping takes each from the block's mask, without waiting on the
//! one before.

use super::{Result, declined};

/// Where a string's text is, once read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Text {
    /// In the line, from the position after the opening quote to `end`: it
    /// has no escapes.
    Line { end: usize },
    /// Unescaped into the first `len` bytes of the scratch space given.
    Scratch { len: usize },
}

/// Past the string whose text starts at `at` (after its opening quote),
/// checked as serde_json checks it: no control character, every escape one
/// that JSON has. Returns the position after its closing quote.
pub(super) fn skip(bytes: &[u8], at: usize) -> Result<usize> {
    scan(bytes, at).map(|(end, _)| end + 1)
}

/// Reads the string whose text starts at `at`: returns where its text is
/// and the position after its closing quote. Text with escapes is written
/// to `scratch` with each escape replaced by what it stands for, as
/// serde_json would read it: a `\u` escape of half a surrogate pair, which
/// serde_json refuses, is declined.
pub(super) fn read(bytes: &[u8], at: usize, scratch: &mut Vec<u8>) -> Result<(Text, usize)> {
    let (end, escapes) = scan(bytes, at)?;
    match escapes {
        Escapes::Absent => Ok((Text::Line { end }, end + 1)),
        Escapes::Present => {
            let len = unescape_all(bytes, at, end, scratch)?;
            Ok((Text::Scratch { len }, end + 1))
        }
    }
}

/// Whether a string has escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escapes {
    Absent,
    Present,
}

/// Finds the closing quote of the string whose text starts at `at`,
/// checking the text on the way; says whether it has escapes.
fn scan(bytes: &[u8], at: usize) -> Result<(usize, Escapes)> {
    let mut carry = 0;
    let mut seen = 0;
    let mut base = at;
    loop {
        let (masks, last) = masks_at(bytes, base);
        let escaped = escaped(masks.backslash, &mut carry);
        let quotes = masks.quote & !escaped;
        // The bits before the closing quote, if the block has it.
        let inside = match quotes {
            0 => u64::MAX,
            q => (q & q.wrapping_neg()) - 1,
        };
        if masks.control & inside != 0 {
            return declined("control character in a string");
        }
        let escapes = escaped & inside;
        check_escapes(bytes, base, &masks, escapes)?;
        seen |= escapes;
        if quotes != 0 {
            let end = base + quotes.trailing_zeros() as usize;
            let escapes = match seen {
                0 => Escapes::Absent,
                _ => Escapes::Present,
            };
            return Ok((end, escapes));
        }
        if last {
            return declined("end of line in a string");
        }
        base += block::SIZE;
    }
}

/// Checks the letters of the escapes whose bits are set in `escapes` (of the
/// block at `base`, whose `masks` are given): each must be one JSON has, and
/// a `u` must have four hex digits. The common letters (`n`, `t`, a quote,
/// a backslash) are taken from the masks at once; only the others are
/// looked at one by one.
#[inline(always)]
fn check_escapes(bytes: &[u8], base: usize, masks: &Masks, escapes: u64) -> Result<()> {
    let mut uncommon = escapes & !(masks.quote | masks.backslash | masks.letter);
    while uncommon != 0 {
        let at = base + uncommon.trailing_zeros() as usize;
        match ESCAPES[usize::from(bytes.get(at).copied().unwrap_or(0))] {
            0 => return declined("bad escape"),
            U if hex_at(bytes, at + 1).is_none() => return declined("bad \\u escape"),
            _ => {}
        }
        uncommon &= uncommon - 1;
    }
    Ok(())
}

/// Bit `i` set when byte `i` of the block is escaped: preceded by an odd
/// run of backslashes. `carry` says whether the block's first byte is (an
/// odd run ended the block before) and is set for the next block.
///
/// A run starting on an even bit and one starting on an odd bit are told
/// apart by adding the run starts to the backslashes: the carry of the
/// addition flips the parity of every bit after a run.
fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*carry;
    let follows_escape = (backslash << 1) | *carry;
    let odd_starts = backslash & !EVEN & !follows_escape;
    let (even_runs, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    (EVEN ^ (even_runs << 1)) & follows_escape
}

/// Writes the text of `line` from `start` to `end` (a string's, already
/// checked by [`scan`]) to the start of `out`, each escape replaced by what
/// it stands for; returns its length. `out` is grown to hold it and is not
/// cleared: its bytes past the length returned mean nothing.
///
/// The escapes of a block are taken from its mask, so where one is does not
/// wait on reading the one before; the text between two is copied 32 bytes
/// at once, the copy then overwritten past its end.
fn unescape_all(line: &[u8], start: usize, end: usize, out: &mut Vec<u8>) -> Result<usize> {
    // Text never grows when unescaped; a run's copy overshoots by under 32.
    let room = end - start + COPY;
    if out.len() < room {
        out.resize(room, 0);
    }
    let mut written = 0;
    // The first byte of the text not yet written.
    let mut from = start;
    let mut carry = 0;
    let mut base = start;
    while base < end {
        let (masks, _) = masks_at(line, base);
        let inside = match end - base {
            left if left < block::SIZE => (1u64 << left) - 1,
            _ => u64::MAX,
        };
        // The backslashes that start an escape: those not escaped themselves.
        let mut starts = masks.backslash & !escaped(masks.backslash, &mut carry) & inside;
        while starts != 0 {
            let at = base + starts.trailing_zeros() as usize;
            starts &= starts - 1;
            // The second half of a surrogate pair was taken with the first.
            if at < from {
                continue;
            }
            written = copy_run(line, from, at, out, written);
            let letter = line.get(at + 1).copied().unwrap_or(0);
            match ESCAPES[usize::from(letter)] {
                U => (from, written) = unicode_escape(line, at, out, written)?,
                byte => {
                    if let Some(slot) = out.get_mut(written) {
                        *slot = byte;
                    }
                    written += 1;
                    from = at + 2;
                }
            }
        }
        base += block::SIZE;
    }
    Ok(copy_run(line, from, end, out, written))
}

/// What [`copy_run`] copies at once.
const COPY: usize = 32;

/// Copies `line[from..to]` to `out` at `at`; returns where it ends. A short
/// run is copied as [`COPY`] bytes, past its end, where the line has them.
#[inline(always)]
fn copy_run(line: &[u8], from: usize, to: usize, out: &mut [u8], at: usize) -> usize {
    let len = to - from;
    let whole = (len <= COPY)
        .then(|| line.get(from..from + COPY).zip(out.get_mut(at..at + COPY)))
        .flatten();
    match whole {
        Some((run, slot)) => slot.copy_from_slice(run),
        None => {
            if let (Some(run), Some(slot)) = (line.get(from..to), out.get_mut(at..at + len)) {
                slot.copy_from_slice(run);
            }
        }
    }
    at + len
}

/// What each escape letter stands for: 0 for a letter JSON has no escape
/// of, [`U`] for `u`. A table, not a `match`: the letters of a file's text
/// (`n`, `"`, `\\`) come in no order a branch predictor could learn, and a
/// missed jump costs more than the rest of an escape.
static ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table[b'u' as usize] = U;
    table
};

/// [`ESCAPES`]' mark of `\\u`, which no other letter stands for.
const U: u8 = 0xff;

/// Writes what the `\\u` escape whose backslash is at `at` stands for (with
/// the other half of a surrogate pair) to `out` at `written`; returns the
/// position after it and where the writing ends. Out of the way of the
/// common escapes: a file's text seldom has one.
#[inline(never)]
fn unicode_escape(
    line: &[u8],
    at: usize,
    out: &mut [u8],
    written: usize,
) -> Result<(usize, usize)> {
    let Some(code) = hex_at(line, at + 2) else {
        return declined("bad \\u escape");
    };
    let (c, len) = match code {
        0xD800..=0xDBFF => {
            let low = match line.get(at + 6..at + 8) {
                Some(b"\\u") => hex_at(line, at + 8),
                _ => None,
            };
            match low {
                Some(low @ 0xDC00..=0xDFFF) => {
                    let pair = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    (char::from_u32(pair), 12)
                }
                _ => (None, 12),
            }
        }
        _ => (char::from_u32(code), 6),
    };
    let Some(c) = c else {
        return declined("half a surrogate pair");
    };
    let mut utf8 = [0u8; 4];
    let utf8 = c.encode_utf8(&mut utf8).as_bytes();
    // A `\\u` escape is 6 bytes, and stands for at most 4.
    match out.get_mut(written..written + utf8.len()) {
        Some(slot) => slot.copy_from_slice(utf8),
        None => return declined("no room"),
    }
    Ok((at + len, written + utf8.len()))
}

/// The value of the four hex digits at `at`.
fn hex_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at + 4)?.iter().try_fold(0u32, |n, &d| {
        let v = char::from(d).to_digit(16)?;
        Some(n * 16 + v)
    })
}

/// The kinds of byte that matter inside a string, as bit masks of a block:
/// bit `i` is byte `i`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// Below 0x20, which JSON does not allow inside a string.
    control: u64,
    /// `n` or `t`, the letters of the most common escapes after a quote and
    /// a backslash.
    letter: u64,
}

/// The masks of the block of `bytes` at `at`, and whether it is the last:
/// the line's last bytes are padded with spaces, which are in no mask.
#[inline(always)]
fn masks_at(bytes: &[u8], at: usize) -> (Masks, bool) {
    if let Some(block) = bytes.get(at..at + block::SIZE) {
        return (block::masks(block), false);
    }
    let rest = bytes.get(at..).unwrap_or_default();
    let mut last = [b' '; block::SIZE];
    if let Some(head) = last.get_mut(..rest.len()) {
        head.copy_from_slice(rest);
    }
    (block::masks(&last), true)
}

/// The masks of one byte, by definition (what [`block::masks`] finds, and
/// the other platforms' way).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn byte_masks(b: u8) -> (bool, bool, bool, bool) {
    (b == b'"', b == b'\\', b < 0x20, b == b'n' || b == b't')
}

/// Masks found 16 bytes at a time with SSE2, which every x86-64 processor
/// has: a block of 64 in a few dozen instructions, where a loop over the
/// bytes takes hundreds.
#[cfg(target_arch = "x86_64")]
mod block {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    use super::Masks;

    pub(super) const SIZE: usize = 64;

    /// The masks of the first [`SIZE`] bytes of `block` (all zero when it is
    /// shorter).
    #[inline(always)]
    pub(super) fn masks(block: &[u8]) -> Masks {
        let mut masks = Masks::default();
        let Some(block) = block.get(..SIZE) else {
            return masks;
        };
        for (i, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: SSE2 is part of the x86-64 baseline, so these
            // intrinsics exist on every processor this is built for; the
            // load reads the 16 bytes of `part`, which `chunks_exact` gives
            // whole (unaligned loads are allowed).
            let (quote, backslash, control, letter) = unsafe {
                let v = _mm_loadu_si128(part.as_ptr().cast::<__m128i>());
                let low = _mm_set1_epi8(0x1f);
                let is = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
                (
                    _mm_movemask_epi8(is(b'"')),
                    _mm_movemask_epi8(is(b'\\')),
                    // Below 0x20: the unsigned maximum with 0x1f is 0x1f.
                    _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, low), low)),
                    _mm_movemask_epi8(_mm_or_si128(is(b'n'), is(b't'))),
                )
            };
            let shift = 16 * i;
            masks.quote |= u64::from(quote as u16) << shift;
            masks.backslash |= u64::from(backslash as u16) << shift;
            masks.control |= u64::from(control as u16) << shift;
            masks.letter |= u64::from(letter as u16) << shift;
        }
        masks
    }
}

/// Masks found a byte at a time: the way on other platforms, and what the
/// SSE2 masks are held to in tests (so this way is built and checked on
/// x86-64 too).
#[cfg(any(test, not(target_arch = "x86_64")))]
mod portable {
    use super::Masks;

    pub(super) const SIZE: usize = 64;

    /// The masks of the first [`SIZE`] bytes of `block` (all zero when it is
    /// shorter).
    pub(super) fn masks(block: &[u8]) -> Masks {
        let mut masks = Masks::default();
        let Some(block) = block.get(..SIZE) else {
            return masks;
        };
        for (i, &b) in block.iter().enumerate() {
            let (quote, backslash, control, letter) = super::byte_masks(b);
            masks.quote |= u64::from(quote) << i;
            masks.backslash |= u64::from(backslash) << i;
            masks.control |= u64::from(control) << i;
            masks.letter |= u64::from(letter) << i;
        }
        masks
    }
}

#[cfg(not(target_arch = "x86_64"))]
use portable as block;

#[cfg(test)]
#[path = "string_tests.rs"]
mod tests;
