//! Span ids from the session and the event that opened the span, and the
//! attribute helpers every span kind shares.

use super::Attr;
use crate::event::{AgentId, Usage};

/// The usage attributes: input tokens counting the cached ones, as the
/// convention asks, and the cached ones apart.
pub(super) fn usage_attrs(attrs: &mut Vec<(&'static str, Attr)>, usage: &Usage) {
    attrs.extend([
        (
            "gen_ai.usage.input_tokens",
            Attr::Int(to_i64(usage.input_total())),
        ),
        (
            "gen_ai.usage.output_tokens",
            Attr::Int(to_i64(usage.output_tokens)),
        ),
        (
            "gen_ai.usage.cache_read.input_tokens",
            Attr::Int(to_i64(usage.cache_read_tokens)),
        ),
        (
            "gen_ai.usage.cache_creation.input_tokens",
            Attr::Int(to_i64(usage.cache_write_tokens)),
        ),
    ]);
    if usage.reasoning_tokens > 0 {
        attrs.push((
            "gen_ai.usage.reasoning.output_tokens",
            Attr::Int(to_i64(usage.reasoning_tokens)),
        ));
    }
}

pub(super) fn bump(attrs: &mut Vec<(&'static str, Attr)>, key: &'static str) {
    match attrs.iter_mut().find(|(k, _)| *k == key) {
        Some((_, Attr::Int(n))) => *n += 1,
        Some(_) | None => attrs.push((key, Attr::Int(1))),
    }
}

pub(super) fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// FNV-1a, 64 bits: stable across builds and platforms, unlike std's hasher.
fn fnv(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for part in parts {
        for byte in part.iter().chain(&[0xff]) {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// The session's trace id: never all zeros, which OTLP reads as "none".
pub(super) fn trace_id(session: &str) -> [u8; 16] {
    let hi = fnv(1, &[session.as_bytes()]);
    let lo = fnv(2, &[session.as_bytes()]).max(1);
    let mut id = [0; 16];
    id[..8].copy_from_slice(&hi.to_be_bytes());
    id[8..].copy_from_slice(&lo.to_be_bytes());
    id
}

pub(super) fn span_id(session: &str, agent: AgentId, seq: u64, name: &str) -> [u8; 8] {
    let agent = agent.to_string();
    fnv(
        3,
        &[
            session.as_bytes(),
            agent.as_bytes(),
            &seq.to_be_bytes(),
            name.as_bytes(),
        ],
    )
    .max(1)
    .to_be_bytes()
}
