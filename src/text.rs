//! How brood words things for people: an error with each of its causes once,
//! and a count with its noun in the right number.

use std::error::Error;

/// `error`, then `: cause` for every cause in its chain whose text is not
/// already part of what is said. Error types here print their own cause, so
/// walking the chain blindly (`{:#}`) would say it twice.
pub fn describe(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

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

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read script x.json: {source}")]
    struct Outer {
        #[source]
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("starting the session")]
    struct Bare {
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn each_cause_is_said_once() {
        let gone = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let outer = Outer { source: gone() };
        assert_eq!(describe(&outer), "cannot read script x.json: no such file");
        let bare = Bare { source: gone() };
        assert_eq!(describe(&bare), "starting the session: no such file");
    }

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1u32, "step"), "1 step");
        assert_eq!(count(0u32, "step"), "0 steps");
        assert_eq!(count(30u64, "turn"), "30 turns");
    }
}
