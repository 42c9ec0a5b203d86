//! `find`: what it deletes (`-delete`, `-exec rm`), what it runs (`-exec`), and
//! what it writes (`-fprint`).

use super::command::{Input, Walker, command_name};
use super::shell::Word;
use crate::event::Decision;

impl Walker {
    /// `find … -delete` asks, and is denied on the whole system or the home
    /// folder. The command of `-exec`/`-ok` is checked as a command; a writer
    /// there asks, since the files it gets cannot be seen. A path or an
    /// expression word the shell still expands may turn out to be `-delete`,
    /// so it asks.
    pub(super) fn find(&mut self, words: &[Word]) {
        /// Primaries that take no value: the word after one is a primary.
        const NO_VALUE: &[&str] = &[
            "-delete",
            "-print",
            "-print0",
            "-ls",
            "-prune",
            "-quit",
            "-true",
            "-false",
            "-empty",
            "-readable",
            "-writable",
            "-executable",
            "-depth",
            "-xdev",
            "-mount",
            "-follow",
            "-noleaf",
            "-nouser",
            "-nogroup",
            "-daystart",
            "-o",
            "-or",
            "-a",
            "-and",
            "-not",
            "!",
            "(",
            ")",
            ",",
            "-H",
            "-L",
            "-P",
        ];
        let expression = |w: &Word| {
            (w.text.starts_with('-') && w.text.len() > 1)
                || matches!(w.text.as_str(), "(" | "!" | ")" | ",")
        };
        let roots: Vec<&Word> = words[1..].iter().take_while(|w| !expression(w)).collect();
        let here = Word::plain(".");
        let whole = match roots.is_empty() {
            true => self.catastrophic(&here),
            false => roots.iter().find_map(|w| self.catastrophic(w)),
        };
        if let Some(kind) = roots.iter().find_map(|w| w.expansions.first()) {
            self.add(
                Decision::Ask,
                format!(
                    "a path given to `find` comes from {}, and could be an action such as `-delete`",
                    kind.describe()
                ),
                None,
            );
        }
        let mut i = 1 + roots.len();
        let mut takes_value = false;
        while let Some(word) = words.get(i) {
            let text = word.text.as_str();
            match text {
                "-delete" => match &whole {
                    Some(what) => self.deny(words, format!("`find … -delete` would delete {what}")),
                    None => self.ask(words, "`find … -delete` deletes the files it finds".into()),
                },
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let start = i + 1;
                    let end = words[start..]
                        .iter()
                        .position(|w| w.text == ";" || w.text == "+")
                        .map_or(words.len(), |p| start + p);
                    let inner = &words[start..end];
                    let deletes = inner.first().is_some_and(|w| {
                        matches!(command_name(&w.text).as_str(), "rm" | "shred" | "unlink")
                    });
                    if let (Some(what), true) = (&whole, deletes) {
                        self.deny(words, format!("`find … {text} rm` would delete {what}"));
                    }
                    let fed = Input {
                        fed: Some("find -exec"),
                        ..Input::default()
                    };
                    self.run(inner, fed);
                    i = end + 1;
                    takes_value = false;
                    continue;
                }
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    if let Some(target) = words.get(i + 1) {
                        self.truncation(target, &format!("`find {text} {}`", target.text));
                    }
                }
                _ if word.is_expanded() && !takes_value => {
                    self.add(
                        Decision::Ask,
                        format!(
                            "`find` is given `{}`, which the shell still expands and could be an action such as `-delete`",
                            word.text
                        ),
                        None,
                    );
                }
                _ => {}
            }
            takes_value = text.starts_with('-') && !NO_VALUE.contains(&text);
            i += 1;
        }
    }
}
