//! Strings, the bulk of a Claude Code line, scanned a block of bytes at a
//! time. A file's text in a tool result has an escape (`\n`, `\"`) every
//! twenty bytes or so, so what an escape costs is what reading costs: each is
//! taken where the block's mask finds it, with no call and no copy of the
//! text before it.

use super::{Result, declined};

/// Where a string's text is, once read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Text {
    /// In the line, from the position after the opening quote to `end`: it
    /// has no escapes.
    Line { end: usize },
    /// Unescaped into the scratch space given.
    Scratch,
}

/// Past the string whose text starts at `at` (after its opening quote),
/// checked as serde_json checks it: no control character, every escape one
/// that JSON has. Returns the position after its closing quote.
pub(super) fn skip(bytes: &[u8], at: usize) -> Result<usize> {
    let mut base = at;
    let mut mask = block_at(bytes, base)?;
    loop {
        if mask == 0 {
            base += block::SIZE;
            mask = block_at(bytes, base)?;
            continue;
        }
        let found = base + mask.trailing_zeros() as usize;
        match bytes.get(found) {
            Some(b'"') => return Ok(found + 1),
            Some(b'\\') => {
                let past = found + 1 + escape_len(bytes, found + 1)? - base;
                match past < block::SIZE {
                    true => mask &= u32::MAX << past,
                    false => {
                        base += past;
                        mask = block_at(bytes, base)?;
                    }
                }
            }
            _ => return declined("control character in a string"),
        }
    }
}

/// Reads the string whose text starts at `at`: returns where its text is
/// and the position after its closing quote. Text with escapes is written
/// to `scratch` (cleared first) with each escape replaced by what it stands
/// for, as serde_json would read it: a `\u` escape of half a surrogate
/// pair, which serde_json refuses, is declined.
pub(super) fn read(bytes: &[u8], at: usize, scratch: &mut Vec<u8>) -> Result<(Text, usize)> {
    // Plain text up to the first escape, left in the line when the string
    // ends first.
    let mut base = at;
    let first = loop {
        let mask = block_at(bytes, base)?;
        if mask == 0 {
            base += block::SIZE;
            continue;
        }
        let found = base + mask.trailing_zeros() as usize;
        match bytes.get(found) {
            Some(b'"') => return Ok((Text::Line { end: found }, found + 1)),
            Some(b'\\') => break found,
            _ => return declined("control character in a string"),
        }
    };
    scratch.clear();
    scratch.extend_from_slice(bytes.get(at..first).unwrap_or_default());
    let mut at = first;
    loop {
        at = unescape(bytes, at, scratch)?;
        // Text up to the next escape or the end: a block is copied whole and
        // the copy cut back to where the block's first special byte is.
        loop {
            let (mask, copied) = match bytes.get(at..at + block::SIZE) {
                Some(block) => {
                    scratch.extend_from_slice(block);
                    (block::specials(block), block::SIZE)
                }
                None => {
                    let rest = bytes.get(at..).unwrap_or_default();
                    scratch.extend_from_slice(rest);
                    match block_at(bytes, at)? {
                        0 => return declined("end of line in a string"),
                        mask => (mask, rest.len()),
                    }
                }
            };
            if mask == 0 {
                at += block::SIZE;
                continue;
            }
            let plain = mask.trailing_zeros() as usize;
            scratch.truncate(scratch.len() - copied + plain);
            at += plain;
            match bytes.get(at) {
                Some(b'"') => return Ok((Text::Scratch, at + 1)),
                Some(b'\\') => break,
                _ => return declined("control character in a string"),
            }
        }
    }
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

/// The length, after its backslash, of the escape whose letter is at `at`.
#[inline(always)]
fn escape_len(bytes: &[u8], at: usize) -> Result<usize> {
    match bytes.get(at).map(|&letter| ESCAPES[usize::from(letter)]) {
        Some(0) | None => declined("bad escape"),
        Some(U) => match hex_at(bytes, at + 1) {
            Some(_) => Ok(5),
            None => declined("bad \\u escape"),
        },
        Some(_) => Ok(1),
    }
}

/// Appends what the escape whose backslash is at `at` stands for; returns
/// the position after it. A surrogate pair, two escapes, is read whole.
#[inline(always)]
fn unescape(bytes: &[u8], at: usize, out: &mut Vec<u8>) -> Result<usize> {
    let byte = match bytes
        .get(at + 1)
        .map(|&letter| ESCAPES[usize::from(letter)])
    {
        Some(0) | None => return declined("bad escape"),
        Some(U) => return unicode_escape(bytes, at, out),
        Some(byte) => byte,
    };
    out.push(byte);
    Ok(at + 2)
}

/// Appends what the `\\u` escape whose backslash is at `at` stands for (with
/// the other half of a surrogate pair); returns the position after it. Out
/// of the way of the common escapes: a file's text seldom has one.
#[inline(never)]
fn unicode_escape(bytes: &[u8], at: usize, out: &mut Vec<u8>) -> Result<usize> {
    let Some(code) = hex_at(bytes, at + 2) else {
        return declined("bad \\u escape");
    };
    let (c, len) = match code {
        0xD800..=0xDBFF => {
            let low = match bytes.get(at + 6..at + 8) {
                Some(b"\\u") => hex_at(bytes, at + 8),
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
    out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
    Ok(at + len)
}

/// The value of the four hex digits at `at`.
fn hex_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at + 4)?.iter().try_fold(0u32, |n, &d| {
        let v = char::from(d).to_digit(16)?;
        Some(n * 16 + v)
    })
}

/// Whether a byte ends a run of plain text inside a string: what
/// [`block::specials`] finds (this is its definition, and the other
/// platforms' way).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn special(b: u8) -> bool {
    (b == b'"') | (b == b'\\') | (b < 0x20)
}

/// The [`special`] bytes of the block of `bytes` at `at`. The line's last
/// bytes are padded with spaces, which are not special; past them, a string
/// has no end.
#[inline(always)]
fn block_at(bytes: &[u8], at: usize) -> Result<u32> {
    if let Some(block) = bytes.get(at..at + block::SIZE) {
        return Ok(block::specials(block));
    }
    let rest = bytes.get(at..).unwrap_or_default();
    let mut last = [b' '; block::SIZE];
    if let Some(head) = last.get_mut(..rest.len()) {
        head.copy_from_slice(rest);
    }
    match block::specials(&last) {
        0 => declined("end of line in a string"),
        mask => Ok(mask),
    }
}

/// [`special`] bytes found a block at a time, with SSE2, which every x86-64
/// processor has: 32 bytes in a dozen instructions, where a loop over the
/// bytes takes a hundred.
#[cfg(target_arch = "x86_64")]
mod block {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    pub(super) const SIZE: usize = 32;

    /// Bit `i` set when byte `i` of `block`'s first [`SIZE`] is special.
    #[inline(always)]
    pub(super) fn specials(block: &[u8]) -> u32 {
        let (Some(low), Some(high)) = (block.get(..16), block.get(16..SIZE)) else {
            return 0;
        };
        // SAFETY: SSE2 is part of the x86-64 baseline, so these intrinsics
        // exist on every processor this is built for; each load reads the 16
        // bytes of a slice just checked to hold them (unaligned loads are
        // allowed).
        unsafe {
            let low = _mm_loadu_si128(low.as_ptr().cast::<__m128i>());
            let high = _mm_loadu_si128(high.as_ptr().cast::<__m128i>());
            half(low) | (half(high) << 16)
        }
    }

    /// The special bytes of 16: a quote, a backslash, or below 0x20 (a byte
    /// whose unsigned maximum with 0x1f is 0x1f).
    #[inline(always)]
    unsafe fn half(v: __m128i) -> u32 {
        // SAFETY: SSE2 intrinsics on values; see `specials`.
        unsafe {
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            let low = _mm_set1_epi8(0x1f);
            let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
            let any = _mm_or_si128(_mm_or_si128(quote, backslash), control);
            _mm_movemask_epi8(any) as u32 & 0xffff
        }
    }
}

/// [`special`] bytes found a block at a time elsewhere: eight bytes tested
/// without branching.
#[cfg(not(target_arch = "x86_64"))]
mod block {
    pub(super) const SIZE: usize = 8;

    pub(super) fn specials(block: &[u8]) -> u32 {
        block
            .iter()
            .take(SIZE)
            .enumerate()
            .fold(0u32, |mask, (i, &b)| {
                mask | (u32::from(super::special(b)) << i)
            })
    }
}

#[cfg(test)]
#[path = "string_tests.rs"]
mod tests;
