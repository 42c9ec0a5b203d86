//! The bytes that matter inside a string, found for a block of 64 at once.
//!
//! A [`Blocks`] value is a way to find them. The ways that need a processor
//! feature are made only once the processor is found to have it, so holding
//! one is the proof that its instructions can run: SSE2, which every x86-64
//! processor has, 16 bytes an instruction; AVX2, 32; AVX-512, all 64 in one
//! compare per kind of byte; AVX-512 with VBMI2, which also unescapes a
//! block at once. Elsewhere, and as the definition the others are held to
//! in tests, a byte at a time.

/// The bytes in a block.
pub(super) const SIZE: usize = 64;

/// The kinds of byte that matter inside a string, as bit masks of a block:
/// bit `i` is byte `i`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Masks {
    pub quote: u64,
    pub backslash: u64,
    /// Below 0x20, which JSON does not allow inside a string.
    pub control: u64,
    /// `n` or `t`, the letters of the most common escapes after a quote and
    /// a backslash.
    pub letter: u64,
}

/// A way to find a block's [`Masks`].
pub(super) trait Blocks: Copy {
    /// The masks of the first [`SIZE`] bytes of `block` (all zero when it is
    /// shorter).
    fn masks(self, block: &[u8]) -> Masks;

    /// Whether this way unescapes a block at once ([`Blocks::unescape`]).
    const UNESCAPES: bool = false;

    /// Writes the bytes of `block` that `keep` marks, in order, to the start
    /// of `out`, each byte that `letters` marks replaced by what it stands
    /// for as the letter of a `\"`, `\\`, `\n` or `\t` escape; returns how
    /// many. `None` when this way cannot do a block at once (or `block` is
    /// shorter than a block, or `out` has less room than one): the caller
    /// then takes the escapes one by one.
    fn unescape(self, block: &[u8], keep: u64, letters: u64, out: &mut [u8]) -> Option<usize> {
        let _ = (block, keep, letters, out);
        None
    }
}

/// The masks of one byte, by definition.
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn byte_masks(b: u8) -> (bool, bool, bool, bool) {
    (b == b'"', b == b'\\', b < 0x20, b == b'n' || b == b't')
}

/// A byte at a time: the way on other platforms, and what the others are
/// held to in tests (so it is built and checked on x86-64 too).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[derive(Debug, Clone, Copy)]
pub(super) struct Portable;

#[cfg(any(test, not(target_arch = "x86_64")))]
impl Blocks for Portable {
    fn masks(self, block: &[u8]) -> Masks {
        let mut masks = Masks::default();
        let Some(block) = block.get(..SIZE) else {
            return masks;
        };
        for (i, &b) in block.iter().enumerate() {
            let (quote, backslash, control, letter) = byte_masks(b);
            masks.quote |= u64::from(quote) << i;
            masks.backslash |= u64::from(backslash) << i;
            masks.control |= u64::from(control) << i;
            masks.letter |= u64::from(letter) << i;
        }
        masks
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{Avx2, Avx512, Avx512Vbmi, Sse2};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm512_cmpeq_epi8_mask,
        _mm512_cmplt_epu8_mask, _mm512_loadu_si512, _mm512_mask_blend_epi8,
        _mm512_maskz_compress_epi8, _mm512_permutex2var_epi8, _mm512_set1_epi8,
        _mm512_storeu_si512,
    };

    use super::{Blocks, Masks, SIZE};

    /// 16 bytes an instruction. SSE2 is part of x86-64, so this way needs
    /// no proof.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Sse2;

    impl Blocks for Sse2 {
        #[inline(always)]
        fn masks(self, block: &[u8]) -> Masks {
            let mut masks = Masks::default();
            let Some(block) = block.get(..SIZE) else {
                return masks;
            };
            for (i, part) in block.chunks_exact(16).enumerate() {
                // SAFETY: SSE2 is part of the x86-64 baseline, so these
                // intrinsics exist on every processor this is built for; the
                // load reads the 16 bytes of `part`, which `chunks_exact`
                // gives whole (unaligned loads are allowed).
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

    /// 32 bytes an instruction. Made only by [`Avx2::detect`].
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Avx2(());

    impl Avx2 {
        /// This way, when the processor has AVX2.
        pub(crate) fn detect() -> Option<Avx2> {
            std::is_x86_feature_detected!("avx2").then_some(Avx2(()))
        }
    }

    impl Blocks for Avx2 {
        /// Inlined into a function compiled for AVX2 (`string::walk_avx2`),
        /// where the intrinsics are inlined too.
        #[inline(always)]
        fn masks(self, block: &[u8]) -> Masks {
            let Some(block) = block.get(..SIZE) else {
                return Masks::default();
            };
            let (low, high) = block.split_at(SIZE / 2);
            let low = half_masks(self, low);
            let high = half_masks(self, high);
            Masks {
                quote: low.quote | high.quote << 32,
                backslash: low.backslash | high.backslash << 32,
                control: low.control | high.control << 32,
                letter: low.letter | high.letter << 32,
            }
        }
    }

    /// The masks of 32 bytes (`half` is that long), in the low bits.
    #[inline(always)]
    fn half_masks(_: Avx2, half: &[u8]) -> Masks {
        let Some(half) = half.get(..SIZE / 2) else {
            return Masks::default();
        };
        // SAFETY: an `Avx2` is made only on a processor that has AVX2
        // (`detect`); the load reads the 32 bytes of `half`, which `get`
        // gave whole (unaligned loads are allowed).
        let (quote, backslash, control, letter) = unsafe {
            let v = _mm256_loadu_si256(half.as_ptr().cast::<__m256i>());
            let low = _mm256_set1_epi8(0x1f);
            let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
            let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
            let n = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'n' as i8));
            let t = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b't' as i8));
            (
                _mm256_movemask_epi8(quote),
                _mm256_movemask_epi8(backslash),
                // Below 0x20: the unsigned maximum with 0x1f is 0x1f.
                _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(v, low), low)),
                _mm256_movemask_epi8(_mm256_or_si256(n, t)),
            )
        };
        Masks {
            quote: u64::from(quote as u32),
            backslash: u64::from(backslash as u32),
            control: u64::from(control as u32),
            letter: u64::from(letter as u32),
        }
    }

    /// All 64 bytes in one instruction per kind of byte, each compare giving
    /// its mask at once. Made only by [`Avx512::detect`].
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Avx512(());

    impl Avx512 {
        /// This way, when the processor has AVX-512 with byte compares
        /// (AVX512BW).
        pub(crate) fn detect() -> Option<Avx512> {
            (std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw"))
                .then_some(Avx512(()))
        }
    }

    impl Blocks for Avx512 {
        /// Inlined into a function compiled for AVX-512
        /// (`string::walk_avx512`), where the intrinsics are inlined too.
        #[inline(always)]
        fn masks(self, block: &[u8]) -> Masks {
            let Some(block) = block.get(..SIZE) else {
                return Masks::default();
            };
            // SAFETY: an `Avx512` is made only on a processor that has
            // AVX512F and AVX512BW (`detect`); the load reads the 64 bytes
            // of `block`, which `get` gave whole (unaligned loads are
            // allowed).
            unsafe {
                let v = _mm512_loadu_si512(block.as_ptr().cast());
                Masks {
                    quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
                    backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
                    control: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
                    letter: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'n' as i8))
                        | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b't' as i8)),
                }
            }
        }
    }

    /// AVX-512 with byte permutes and compresses (VBMI, VBMI2): finds the
    /// masks as [`Avx512`] does, and unescapes a block at once. Made only by
    /// [`Avx512Vbmi::detect`].
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Avx512Vbmi(());

    impl Avx512Vbmi {
        /// This way, when the processor has AVX-512 with byte compares,
        /// permutes and compresses (AVX512BW, VBMI, VBMI2).
        pub(crate) fn detect() -> Option<Avx512Vbmi> {
            let vbmi = std::is_x86_feature_detected!("avx512vbmi")
                && std::is_x86_feature_detected!("avx512vbmi2");
            Avx512::detect().filter(|_| vbmi).map(|_| Avx512Vbmi(()))
        }
    }

    /// What the letter of an escape stands for, by the letter's low seven
    /// bits (the 128 bytes of two registers): `"`, `\`, `n` and `t`, the
    /// escapes [`Blocks::unescape`] takes; the other entries are never read.
    static LETTERS: [u8; 128] = {
        let mut table = [0u8; 128];
        table[b'"' as usize] = b'"';
        table[b'\\' as usize] = b'\\';
        table[b'n' as usize] = b'\n';
        table[b't' as usize] = b'\t';
        table
    };

    impl Blocks for Avx512Vbmi {
        const UNESCAPES: bool = true;

        #[inline(always)]
        fn masks(self, block: &[u8]) -> Masks {
            Avx512(()).masks(block)
        }

        /// The letters are looked up in [`LETTERS`] all at once (a permute),
        /// put in place of their bytes (a blend), and the bytes kept are
        /// packed together (a compress) and stored: a block costs the same
        /// whatever its number of escapes, where one by one each costs a
        /// copy, a look-up and a store that waits on the one before.
        #[inline(always)]
        fn unescape(self, block: &[u8], keep: u64, letters: u64, out: &mut [u8]) -> Option<usize> {
            let block = block.get(..SIZE)?;
            let out = out.get_mut(..SIZE)?;
            // SAFETY: an `Avx512Vbmi` is made only on a processor that has
            // AVX512F, AVX512BW, VBMI and VBMI2 (`detect`); the loads read
            // the 64 bytes of `block` and of each half of `LETTERS`, and the
            // store writes the 64 bytes of `out`, all whole (`get` gave
            // them; unaligned loads and stores are allowed).
            unsafe {
                let v = _mm512_loadu_si512(block.as_ptr().cast());
                let low = _mm512_loadu_si512(LETTERS.as_ptr().cast());
                let high = _mm512_loadu_si512(LETTERS.as_ptr().add(SIZE).cast());
                let meant = _mm512_permutex2var_epi8(low, v, high);
                let text = _mm512_mask_blend_epi8(letters, v, meant);
                let packed = _mm512_maskz_compress_epi8(keep, text);
                _mm512_storeu_si512(out.as_mut_ptr().cast(), packed);
            }
            Some(keep.count_ones() as usize)
        }
    }
}
