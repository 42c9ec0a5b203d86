//! Strings, the bulk of a Claude Code line, scanned 64 bytes at a time. A
//! file's text in a tool result has an escape (`\n`, `\"`) every twenty
//! bytes or so, so what an escape costs is what reading costs. A block's
//! quotes, backslashes, control characters and common escape letters are
//! found together, and which of its bytes are escaped is worked out from the
//! backslashes with a few integer operations (the way simdjson does it):
//! checking a string looks at no escape on its own but the uncommon ones.
//! Unescaping takes a whole block at once where the processor can
//! ([`masks::Blocks::unescape`]: AVX-512 with VBMI2), else takes each
//! escape from the block's mask, without waiting on the one before.

mod masks;

use super::{Result, declined};
use masks::{Blocks, Masks, SIZE};

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
    walk_widest(bytes, at, None).map(|(_, after)| after)
}

/// Reads the string whose text starts at `at`: returns where its text is
/// and the position after its closing quote. Text with escapes is written
/// to `scratch` with each escape replaced by what it stands for, as
/// serde_json would read it: a `\u` escape of half a surrogate pair, which
/// serde_json refuses, is declined.
///
/// Checking and unescaping go together, block by block, from the same masks:
/// a file's text in a tool result is most of a line, and finding its
/// escapes twice (once to check, once to unescape) was a third of reading it.
pub(super) fn read(bytes: &[u8], at: usize, scratch: &mut Vec<u8>) -> Result<(Text, usize)> {
    walk_widest(bytes, at, Some(scratch))
}

/// [`walk`] with the widest blocks the processor has: what the processor
/// has is looked up once and kept, so asking costs a load and a test.
fn walk_widest(bytes: &[u8], at: usize, scratch: Option<&mut Vec<u8>>) -> Result<(Text, usize)> {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(vbmi) = masks::Avx512Vbmi::detect() {
            // SAFETY: an `Avx512Vbmi` is made only on a processor that has
            // the features `walk_avx512_vbmi` is compiled for.
            return unsafe { walk_avx512_vbmi(vbmi, bytes, at, scratch) };
        }
        if let Some(avx512) = masks::Avx512::detect() {
            // SAFETY: an `Avx512` is made only on a processor that has the
            // features `walk_avx512` is compiled for.
            return unsafe { walk_avx512(avx512, bytes, at, scratch) };
        }
        if let Some(avx2) = masks::Avx2::detect() {
            // SAFETY: an `Avx2` is made only on a processor that has AVX2.
            return unsafe { walk_avx2(avx2, bytes, at, scratch) };
        }
        walk(masks::Sse2, bytes, at, scratch)
    }
    #[cfg(not(target_arch = "x86_64"))]
    walk(masks::Portable, bytes, at, scratch)
}

/// The functions a way that needs processor features runs in, compiled for
/// those features so that its intrinsics are inlined: `$walk` is [`walk`]
/// that way, and `$masks` (for tests) finds one block's masks that way.
/// Calling either is `unsafe`: the way's value is the proof it may be.
macro_rules! compiled_for {
    ($features:literal, $way:ty, $walk:ident, $masks:ident) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        fn $walk(
            blocks: $way,
            bytes: &[u8],
            at: usize,
            scratch: Option<&mut Vec<u8>>,
        ) -> Result<(Text, usize)> {
            walk(blocks, bytes, at, scratch)
        }

        #[cfg(all(test, target_arch = "x86_64"))]
        #[target_feature(enable = $features)]
        fn $masks(blocks: $way, block: &[u8]) -> Masks {
            blocks.masks(block)
        }
    };
}

compiled_for!(
    "avx512f,avx512bw,avx512vbmi,avx512vbmi2",
    masks::Avx512Vbmi,
    walk_avx512_vbmi,
    avx512_vbmi_masks
);
compiled_for!("avx512f,avx512bw", masks::Avx512, walk_avx512, avx512_masks);
compiled_for!("avx2", masks::Avx2, walk_avx2, avx2_masks);

/// Checks the string whose text starts at `at` and finds its end, unescaping
/// its text into `scratch` if given ([`read`]; [`skip`] gives none), finding
/// each block's bytes the way `blocks` does. Inlined into each caller, so
/// skipping carries no unescaping.
#[inline(always)]
fn walk(
    blocks: impl Blocks,
    bytes: &[u8],
    at: usize,
    mut scratch: Option<&mut Vec<u8>>,
) -> Result<(Text, usize)> {
    let mut carry = 0;
    let mut base = at;
    // Once the string has shown an escape, the text so far is in `scratch`.
    let mut unescaped: Option<Unescaped> = None;
    loop {
        let (masks, last) = masks_at(blocks, bytes, base);
        let escaped = escaped(masks.backslash, &mut carry);
        let quotes = masks.quote & !escaped;
        let inside = before_first(quotes);
        if masks.control & inside != 0 {
            return declined("control character in a string");
        }
        let uncommon = check_escapes(bytes, base, &masks, escaped & inside)?;
        if let Some(out) = scratch.as_deref_mut() {
            // The backslashes that start an escape: those not escaped themselves.
            let starts = masks.backslash & !escaped & inside;
            if starts != 0 && unescaped.is_none() {
                // Text never grows when unescaped, and a block's store or a
                // run's copy overshoots by under a block: the rest of the
                // line bounds what is written.
                let room = bytes.len() - at + SIZE;
                if out.len() < room {
                    out.resize(room, 0);
                }
                unescaped = Some(Unescaped { from: at, len: 0 });
            }
            if let Some(text) = unescaped.as_mut() {
                let block = Block {
                    base,
                    starts,
                    letters: escaped & inside,
                    inside,
                    uncommon,
                };
                text.block(blocks, bytes, block, out)?;
            }
        }
        if quotes != 0 {
            let end = base + quotes.trailing_zeros() as usize;
            let text = match (unescaped, scratch) {
                (Some(text), Some(out)) => Text::Scratch {
                    len: copy_run(bytes, text.from, end, out, text.len),
                },
                _ => Text::Line { end },
            };
            return Ok((text, end + 1));
        }
        if last {
            return declined("end of line in a string");
        }
        base += SIZE;
    }
}

/// The bits of a block before its first `quotes` bit: all of them when it
/// has none.
fn before_first(quotes: u64) -> u64 {
    match quotes {
        0 => u64::MAX,
        q => (q & q.wrapping_neg()) - 1,
    }
}

/// A string being unescaped into the scratch space.
#[derive(Debug, Clone, Copy)]
struct Unescaped {
    /// The first byte of the line's text not yet written.
    from: usize,
    /// How much is written.
    len: usize,
}

/// What [`Unescaped::block`] needs of a block: where it is, and its bits
/// (inside the string) of escape starts, of escape letters, of the string's
/// text, and of letters other than `"`, `\`, `n` and `t`.
#[derive(Debug, Clone, Copy)]
struct Block {
    base: usize,
    starts: u64,
    letters: u64,
    inside: u64,
    uncommon: u64,
}

impl Unescaped {
    /// Writes the text up to the last escape of a block, each escape
    /// replaced by what it stands for: the whole block at once where
    /// `blocks` can ([`Blocks::unescape`]) and every escape in it is a
    /// common one contained in it, else escape by escape.
    #[inline(always)]
    fn block<B: Blocks>(
        &mut self,
        blocks: B,
        line: &[u8],
        block: Block,
        out: &mut [u8],
    ) -> Result<()> {
        let Block {
            base,
            starts,
            letters,
            inside,
            uncommon,
        } = block;
        if starts == 0 {
            return Ok(());
        }
        // Only a way that unescapes a block at once tries (the others would
        // copy the text before the block twice). An escape starting on the
        // block's last byte has its letter in the next block, and a `\u`
        // escape taken earlier may reach into this one.
        let at_once =
            B::UNESCAPES && starts >> (SIZE - 1) == 0 && self.from <= base && uncommon == 0;
        if at_once && let Some(bytes) = line.get(base..base + SIZE) {
            let len = copy_run(line, self.from, base, out, self.len);
            let keep = inside & !starts;
            if let Some(written) = out
                .get_mut(len..)
                .and_then(|room| blocks.unescape(bytes, keep, letters, room))
            {
                self.len = len + written;
                self.from = base + inside.count_ones() as usize;
                return Ok(());
            }
        }
        self.escapes(line, base, starts, out)
    }

    /// Writes the text up to the last escape of the block at `base`, whose
    /// escapes start at the bits of `starts`, each escape replaced by what
    /// it stands for. The escapes are taken from the mask, so where one is
    /// does not wait on reading the one before; the text between two is
    /// copied 32 bytes at once, the copy then overwritten past its end.
    #[inline(always)]
    fn escapes(&mut self, line: &[u8], base: usize, mut starts: u64, out: &mut [u8]) -> Result<()> {
        while starts != 0 {
            let at = base + starts.trailing_zeros() as usize;
            starts &= starts - 1;
            // The second half of a surrogate pair was taken with the first.
            if at < self.from {
                continue;
            }
            self.len = copy_run(line, self.from, at, out, self.len);
            let letter = line.get(at + 1).copied().unwrap_or(0);
            match ESCAPES[usize::from(letter)] {
                U => (self.from, self.len) = unicode_escape(line, at, out, self.len)?,
                byte => {
                    if let Some(slot) = out.get_mut(self.len) {
                        *slot = byte;
                    }
                    self.len += 1;
                    self.from = at + 2;
                }
            }
        }
        Ok(())
    }
}

/// Checks the letters of the escapes whose bits are set in `escapes` (of the
/// block at `base`, whose `masks` are given): each must be one JSON has, and
/// a `u` must have four hex digits. The common letters (`n`, `t`, a quote,
/// a backslash) are taken from the masks at once; only the others are
/// looked at one by one. Returns the bits of those others.
#[inline(always)]
fn check_escapes(bytes: &[u8], base: usize, masks: &Masks, escapes: u64) -> Result<u64> {
    let uncommon = escapes & !(masks.quote | masks.backslash | masks.letter);
    let mut left = uncommon;
    while left != 0 {
        let at = base + left.trailing_zeros() as usize;
        match ESCAPES[usize::from(bytes.get(at).copied().unwrap_or(0))] {
            0 => return declined("bad escape"),
            U if hex_at(bytes, at + 1).is_none() => return declined("bad \\u escape"),
            _ => {}
        }
        left &= left - 1;
    }
    Ok(uncommon)
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

/// The masks of the block of `bytes` at `at`, and whether it is the last:
/// the line's last bytes are padded with spaces, which are in no mask.
#[inline(always)]
fn masks_at(blocks: impl Blocks, bytes: &[u8], at: usize) -> (Masks, bool) {
    if let Some(block) = bytes.get(at..at + SIZE) {
        return (blocks.masks(block), false);
    }
    let rest = bytes.get(at..).unwrap_or_default();
    let mut last = [b' '; SIZE];
    if let Some(head) = last.get_mut(..rest.len()) {
        head.copy_from_slice(rest);
    }
    // Through memory: kept in registers, the padded block was put together
    // a byte at a time for every block of a string, not only the last
    // (`black_box` keeps the compiler from it).
    (blocks.masks(std::hint::black_box(&last)), true)
}

#[cfg(test)]
#[path = "string_tests.rs"]
mod tests;
