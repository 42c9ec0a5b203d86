//! What a conversation remembers of every call and every message it read,
//! to make sense of the lines that come later: which tool a result answers,
//! and how much of a message's usage was already shown.
//!
//! A follower keeps these for the whole session, an entry per call and per
//! message, so an entry is kept small: the id's hash and a few numbers, not
//! the id's text or a whole [`Usage`].

use std::collections::HashMap;

use super::super::timeline::Moment;
use super::{Key, key};
use crate::event::Usage;

/// The calls a conversation made, by call id: each call's tool name and
/// time. A follower holds an entry per call of the session, so an entry is
/// the id's hash, a number for the name and the time: 24 bytes, not a
/// string of the name each.
#[derive(Clone, Default)]
pub(super) struct Calls {
    by_id: HashMap<Key, Made>,
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
}

#[derive(Clone, Copy)]
struct Made {
    name: u32,
    at: Moment,
}

impl Calls {
    pub fn add(&mut self, call_id: &str, name: &str, ts: Option<i64>) {
        let id = match self.name_ids.get(name) {
            Some(&id) => id,
            None => {
                let id = self.names.len() as u32;
                self.names.push(name.to_string());
                self.name_ids.insert(name.to_string(), id);
                id
            }
        };
        let made = Made {
            name: id,
            at: Moment::new(ts),
        };
        self.by_id.insert(key(call_id), made);
    }

    /// The tool the call `call_id` used, and when it was made.
    pub fn get(&self, call_id: &str) -> Option<(&str, Option<i64>)> {
        let made = self.by_id.get(&key(call_id))?;
        let name = self.names.get(made.name as usize)?;
        Some((name, made.at.get()))
    }
}

/// The usage shown so far per message id, so a message that goes on after
/// other lines counts only what it grew by, once.
///
/// The four counts Claude Code reports fit 32 bits each in any real session:
/// an entry is then 24 bytes with its key, not the 56 of a [`Usage`]. A count
/// past 32 bits keeps its whole `Usage` aside, so no file is counted wrong.
#[derive(Clone, Default)]
pub(super) struct Counted {
    small: HashMap<Key, [u32; 4]>,
    large: HashMap<Key, Usage>,
}

impl Counted {
    pub fn contains(&self, id: Key) -> bool {
        self.small.contains_key(&id) || self.large.contains_key(&id)
    }

    pub fn get(&self, id: Key) -> Option<Usage> {
        match self.small.get(&id) {
            Some(&[input, output, cache_read, cache_write]) => Some(Usage {
                input_tokens: input.into(),
                output_tokens: output.into(),
                cache_read_tokens: cache_read.into(),
                cache_write_tokens: cache_write.into(),
                ..Usage::default()
            }),
            None => self.large.get(&id).cloned(),
        }
    }

    pub fn insert(&mut self, id: Key, usage: Usage) {
        let counts = [
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
        ]
        .map(u32::try_from);
        match counts {
            [Ok(input), Ok(output), Ok(cache_read), Ok(cache_write)]
                if usage.reasoning_tokens == 0 && !usage.estimated =>
            {
                self.large.remove(&id);
                self.small
                    .insert(id, [input, output, cache_read, cache_write]);
            }
            _ => {
                self.small.remove(&id);
                self.large.insert(id, usage);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: 7,
            cache_write_tokens: 9,
            ..Usage::default()
        }
    }

    #[test]
    fn counts_of_any_size_come_back_as_they_went_in() {
        let mut counted = Counted::default();
        let (a, b) = (key("msg_a"), key("msg_b"));
        assert!(!counted.contains(a));
        counted.insert(a, usage(10, 5));
        counted.insert(b, usage(u64::from(u32::MAX) + 1, 3));
        assert_eq!(counted.get(a), Some(usage(10, 5)));
        assert_eq!(counted.get(b), Some(usage(u64::from(u32::MAX) + 1, 3)));
        // A message that grows past 32 bits, and one that shrinks back.
        counted.insert(a, usage(u64::MAX, 6));
        counted.insert(b, usage(4, 4));
        assert_eq!(counted.get(a), Some(usage(u64::MAX, 6)));
        assert_eq!(counted.get(b), Some(usage(4, 4)));
        assert!(counted.contains(a) && counted.contains(b));
        assert_eq!(counted.get(key("msg_c")), None);
    }
}
