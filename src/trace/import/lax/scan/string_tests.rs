use proptest::prelude::*;

use super::*;

/// What `read` makes of a JSON string literal: its text, or `None` when
/// declined; and where reading ended.
fn read_literal(literal: &str) -> Option<(String, usize)> {
    let bytes = literal.as_bytes();
    let mut scratch = Vec::new();
    let (text, after) = read(bytes, 1, &mut scratch).ok()?;
    let text = match text {
        Text::Line { end } => literal[1..end].to_owned(),
        Text::Scratch { len } => String::from_utf8(scratch[..len].to_vec()).ok()?,
    };
    Some((text, after))
}

fn skip_literal(literal: &str) -> Option<usize> {
    skip(literal.as_bytes(), 1).ok()
}

/// The masks of `block` found each way this processor has, with the way's name.
fn masks_each_way(block: &[u8]) -> Vec<(&'static str, Masks)> {
    #[allow(unused_mut)]
    let mut found = vec![("portable", masks::Portable.masks(block))];
    #[cfg(target_arch = "x86_64")]
    {
        found.push(("sse2", masks::Sse2.masks(block)));
        if let Some(avx2) = masks::Avx2::detect() {
            // SAFETY: `avx2` proves the processor has AVX2.
            found.push(("avx2", unsafe { avx2_masks(avx2, block) }));
        }
        if let Some(avx512) = masks::Avx512::detect() {
            // SAFETY: `avx512` proves the processor has AVX512F and AVX512BW.
            found.push(("avx512", unsafe { avx512_masks(avx512, block) }));
        }
        if let Some(vbmi) = masks::Avx512Vbmi::detect() {
            // SAFETY: `vbmi` proves the processor has AVX-512 with VBMI2.
            found.push(("avx512vbmi", unsafe { avx512_vbmi_masks(vbmi, block) }));
        }
    }
    found
}

/// What each way this processor has makes of a string literal, with the
/// way's name: `read`'s text (or `None` when declined) and where it ended.
fn read_each_way(literal: &str) -> Vec<(&'static str, Option<(String, usize)>)> {
    let bytes = literal.as_bytes();
    let read = |walked: Result<(Text, usize)>, scratch: &[u8]| {
        let (text, after) = walked.ok()?;
        let text = match text {
            Text::Line { end } => literal[1..end].to_owned(),
            Text::Scratch { len } => String::from_utf8(scratch[..len].to_vec()).ok()?,
        };
        Some((text, after))
    };
    let mut scratch = Vec::new();
    let mut found = vec![(
        "portable",
        read(
            walk(masks::Portable, bytes, 1, Some(&mut scratch)),
            &scratch,
        ),
    )];
    #[cfg(target_arch = "x86_64")]
    {
        let mut scratch = Vec::new();
        let walked = walk(masks::Sse2, bytes, 1, Some(&mut scratch));
        found.push(("sse2", read(walked, &scratch)));
        if let Some(avx2) = masks::Avx2::detect() {
            let mut scratch = Vec::new();
            // SAFETY: `avx2` proves the processor has AVX2.
            let walked = unsafe { walk_avx2(avx2, bytes, 1, Some(&mut scratch)) };
            found.push(("avx2", read(walked, &scratch)));
        }
        if let Some(avx512) = masks::Avx512::detect() {
            let mut scratch = Vec::new();
            // SAFETY: `avx512` proves the processor has AVX512F and AVX512BW.
            let walked = unsafe { walk_avx512(avx512, bytes, 1, Some(&mut scratch)) };
            found.push(("avx512", read(walked, &scratch)));
        }
        if let Some(vbmi) = masks::Avx512Vbmi::detect() {
            let mut scratch = Vec::new();
            // SAFETY: `vbmi` proves the processor has AVX-512 with VBMI2.
            let walked = unsafe { walk_avx512_vbmi(vbmi, bytes, 1, Some(&mut scratch)) };
            found.push(("avx512vbmi", read(walked, &scratch)));
        }
    }
    found
}

#[test]
fn a_block_mask_marks_exactly_the_bytes_of_each_kind_whichever_way_it_is_found() {
    let bytes: Vec<u8> = (0..=255u8).chain(0..=255u8).collect();
    for start in (0..=bytes.len() - SIZE).step_by(7) {
        let block = &bytes[start..start + SIZE];
        let want = masks::Portable.masks(block);
        for (way, got) in masks_each_way(block) {
            assert_eq!(got, want, "{way} from {start}");
        }
        // The portable masks are the definition, byte by byte.
        for (i, &b) in block.iter().enumerate() {
            let (quote, backslash, control, letter) = masks::byte_masks(b);
            assert_eq!(want.quote >> i & 1 == 1, quote);
            assert_eq!(want.backslash >> i & 1 == 1, backslash);
            assert_eq!(want.control >> i & 1 == 1, control);
            assert_eq!(want.letter >> i & 1 == 1, letter);
        }
    }
    // A block shorter than a block has no masks, whichever way.
    for (way, got) in masks_each_way(&bytes[..10]) {
        assert_eq!(got, Masks::default(), "{way}");
    }
}

/// Which bytes of `text` an odd run of backslashes escapes, a byte at a time.
fn escaped_one_by_one(text: &[bool]) -> Vec<bool> {
    let mut out = vec![false; text.len()];
    let mut run = 0;
    for (i, &backslash) in text.iter().enumerate() {
        out[i] = run % 2 == 1;
        run = match (backslash, out[i]) {
            (true, false) => run + 1,
            (true, true) => 0,
            (false, _) => 0,
        };
        if out[i] {
            run = 0;
        }
    }
    out
}

proptest! {
    #[test]
    fn escaped_bytes_are_found_across_blocks_as_one_by_one(
        backslashes in prop::collection::vec(prop::bool::weighted(0.6), 0..300),
    ) {
        let want = escaped_one_by_one(&backslashes);
        let mut got = Vec::new();
        let mut carry = 0;
        for block in backslashes.chunks(64) {
            let mask = block.iter().enumerate().fold(0u64, |m, (i, &b)| m | (u64::from(b) << i));
            let escaped = escaped(mask, &mut carry);
            got.extend((0..block.len()).map(|i| escaped >> i & 1 == 1));
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn text_without_escapes_stays_in_the_line() {
    let literal = format!("\"{}\" tail", "a".repeat(70));
    let mut scratch = Vec::new();
    let (text, after) = read(literal.as_bytes(), 1, &mut scratch).unwrap();
    assert_eq!(text, Text::Line { end: 71 });
    assert_eq!(after, 72);
    assert!(scratch.is_empty());
}

#[test]
fn escapes_at_every_place_in_a_block_read_as_serde_json_reads_them() {
    // An escape at each offset across two blocks, so one straddles the
    // edge of a block, and the string ends at every offset too.
    for at in 0..70 {
        for escape in [r"\n", r#"\""#, r"\\", r"\u00e9", r"\ud83d\ude00", r"\/"] {
            let literal = format!("\"{}{escape}{}\"", "x".repeat(at), "y".repeat(70 - at));
            let want: String = serde_json::from_str(&literal).unwrap();
            let (got, after) = read_literal(&literal).unwrap();
            assert_eq!(got, want, "{literal}");
            assert_eq!(after, literal.len(), "{literal}");
            assert_eq!(skip_literal(&literal), Some(literal.len()), "{literal}");
        }
    }
}

#[test]
fn a_backslash_escaped_before_the_quote_ends_the_string() {
    assert_eq!(read_literal(r#""a\\" rest"#), Some((r"a\".to_owned(), 5)));
    assert_eq!(skip_literal(r#""a\\" rest"#), Some(5));
    // An escaped quote does not end it.
    assert_eq!(read_literal(r#""a\"b""#), Some((r#"a"b"#.to_owned(), 6)));
}

#[test]
fn what_serde_json_refuses_is_declined() {
    for bad in [
        "\"tab\there\"",
        "\"bad \\x escape\"",
        "\"bad \\u12G4 hex\"",
        "\"cut \\u12\"",
        "\"no end",
        "\"ends in a backslash\\",
        "\"lone \\ud83d high\"",
        "\"lone \\ude00 low\"",
        "\"high then other \\ud83d\\u0041\"",
    ] {
        assert_eq!(read_literal(bad), None, "{bad}");
        assert!(serde_json::from_str::<String>(bad).is_err(), "{bad}");
    }
}

#[test]
fn skipping_takes_halves_of_pairs_as_serde_json_does() {
    // serde_json checks only that a `\u` escape is hex when it skips.
    let literal = r#""lone \ud83d high""#;
    assert!(serde_json::from_str::<serde::de::IgnoredAny>(literal).is_ok());
    assert_eq!(skip_literal(literal), Some(literal.len()));
}

/// Text made of what is hard for a string scanner: escapes of every kind,
/// quotes, control characters, surrogate halves, non-ASCII.
fn tricky() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\\n".to_owned()),
        Just("\\\"".to_owned()),
        Just("\\\\".to_owned()),
        Just("\\u00e9".to_owned()),
        Just("\\ud83d".to_owned()),
        Just("\\ude00".to_owned()),
        Just("\\x".to_owned()),
        Just("\\u12".to_owned()),
        Just("\"".to_owned()),
        Just("\t".to_owned()),
        Just("é€😀".to_owned()),
        "[a-z ]{1,40}",
    ];
    prop::collection::vec(piece, 0..20).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn reading_a_string_agrees_with_serde_json(body in tricky()) {
        let literal = format!("\"{body}");
        let want = serde_json::Deserializer::from_str(&literal)
            .into_iter::<String>()
            .next()
            .and_then(|read| read.ok());
        let got = read_literal(&literal).map(|(text, _)| text);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn every_way_of_finding_masks_reads_a_string_alike(body in tricky(), pad in 0usize..70) {
        // Padded so that the hard pieces fall at every place in a block.
        let literal = format!("\"{}{body}", "p".repeat(pad));
        let mut each = read_each_way(&literal).into_iter();
        let (_, want) = each.next().unwrap();
        for (way, got) in each {
            prop_assert_eq!(&got, &want, "{}", way);
        }
    }

    #[test]
    fn skipping_a_string_agrees_with_serde_json(body in tricky()) {
        let literal = format!("\"{body}");
        let mut values = serde_json::Deserializer::from_str(&literal)
            .into_iter::<serde::de::IgnoredAny>();
        let want = match values.next() {
            Some(Ok(_)) => Some(values.byte_offset()),
            _ => None,
        };
        prop_assert_eq!(skip_literal(&literal), want);
    }
}
