//! How brood words things for people: a count with its noun in the right
//! number.

/// `1 step`, `2 steps`, `0 steps`: `n` and `noun`, plural unless `n` is 1.
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1u32, "step"), "1 step");
        assert_eq!(count(0u32, "step"), "0 steps");
        assert_eq!(count(30u64, "turn"), "30 turns");
    }
}
