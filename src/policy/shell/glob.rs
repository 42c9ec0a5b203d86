//! Globs and brace expansions in unquoted word text.

use super::Expansion;

/// Follows the unquoted characters of one word to tell when they make a glob
/// (`*`, `?`, or `[` closed by a later `]`) or a brace expansion (`{` … `,` or
/// `..` … `}`). It errs towards "expanded": a false alarm only asks.
#[derive(Default)]
pub(super) struct GlobScan {
    open_bracket: bool,
    open_braces: usize,
    brace_separator: bool,
    after_dot: bool,
}

impl GlobScan {
    /// Takes the next unquoted character; the kind of expansion it completes.
    pub(super) fn unquoted(&mut self, c: char) -> Option<Expansion> {
        let after_dot = std::mem::replace(&mut self.after_dot, c == '.');
        match c {
            '*' | '?' => Some(Expansion::Glob),
            '[' => {
                self.open_bracket = true;
                None
            }
            ']' if self.open_bracket => Some(Expansion::Glob),
            '{' => {
                self.open_braces += 1;
                None
            }
            ',' if self.open_braces > 0 => {
                self.brace_separator = true;
                None
            }
            '.' if self.open_braces > 0 && after_dot => {
                self.brace_separator = true;
                None
            }
            '}' if self.open_braces > 0 => {
                self.open_braces -= 1;
                self.brace_separator.then_some(Expansion::Brace)
            }
            _ => None,
        }
    }
}
