//! A fast first reading of a line for the lenient types: a serde
//! [`Deserializer`] over one line of JSON, made for what Claude Code writes,
//! where most bytes sit in a few long strings (a file's text in a tool
//! result, and a copy of it in `toolUseResult`) full of `\n` and `\"`.
//!
//! serde_json stops at every escape of such a string, twice when it only
//! scans past one. This reader finds the bytes that matter inside a string
//! (quotes, backslashes, control characters) 64 at a time ([`string`]), and
//! scans past the values a type does not read without building or copying
//! anything.
//!
//! It takes only what it reads exactly as serde_json does, and declines the
//! rest: a number with a fraction or exponent, or too big, where a value is
//! read; a `\u` escape of half a surrogate pair; nesting past
//! [`MAX_DEPTH`]; a line that is not UTF-8 throughout; and every error. A
//! declined line is read again by serde_json ([`super::object`]), which then
//! decides, and words any error. So this reader is never more lenient than
//! serde_json and never gives another answer: it is only faster on the lines
//! it takes, which are the lines Claude Code writes (a test holds it to
//! every line of the samples in `tests/data/import/claude/`).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

mod string;

/// The newtype name by which a type asks for a value's text as written
/// ([`super::Raw`]); this reader hands it out as a borrowed string.
pub(crate) const RAW: &str = "$brood::lax::Raw";

/// The deepest nesting this reader takes: below serde_json's limit of 128,
/// so a line near it goes to serde_json, which words the error.
const MAX_DEPTH: usize = 100;

/// Why the fast reading gave up on a line. Never shown: the line is read
/// again by serde_json.
#[derive(Debug)]
pub(crate) struct Declined(String);

impl fmt::Display for Declined {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Declined {}

impl de::Error for Declined {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Declined(msg.to_string())
    }
}

type Result<T> = std::result::Result<T, Declined>;

fn declined<T>(why: &str) -> Result<T> {
    Err(Declined(why.to_owned()))
}

/// Reads a whole line as `T`, or declines it.
pub(crate) fn read<'a, T: de::Deserialize<'a>>(line: &'a [u8]) -> Result<T> {
    let Ok(text) = simdutf8::basic::from_utf8(line) else {
        return declined("not UTF-8");
    };
    let mut scanner = Scanner {
        text,
        pos: 0,
        depth: 0,
        scratch: Vec::new(),
    };
    let value = T::deserialize(&mut scanner)?;
    match scanner.next_token() {
        None => Ok(value),
        Some(_) => declined("trailing characters"),
    }
}

/// One line being read: the text, where reading is, and how deep.
struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
    /// A string with escapes, unescaped; kept between strings so that only
    /// the longest one of a line costs an allocation.
    scratch: Vec<u8>,
}

impl<'a> Scanner<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    /// The next byte that is not JSON white space, not consumed.
    fn next_token(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.pos += 1;
        }
        self.peek()
    }

    fn eat(&mut self, byte: u8) -> Result<()> {
        match self.next_token() == Some(byte) {
            true => {
                self.pos += 1;
                Ok(())
            }
            false => declined("unexpected character"),
        }
    }

    fn slice(&self, from: usize, to: usize) -> Result<&'a str> {
        match self.text.get(from..to) {
            Some(text) => Ok(text),
            None => declined("not at a character boundary"),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        match self.bytes().get(self.pos..self.pos + word.len()) == Some(word) {
            true => {
                self.pos += word.len();
                Ok(())
            }
            false => declined("expected a value"),
        }
    }

    /// Past the opening bracket of an object or array, one level deeper.
    fn enter(&mut self) -> Result<()> {
        self.pos += 1;
        self.depth += 1;
        match self.depth > MAX_DEPTH {
            true => declined("nested too deep"),
            false => Ok(()),
        }
    }

    /// Past the `close` bracket of the object or array being read.
    fn leave(&mut self, close: u8) -> Result<()> {
        self.eat(close)?;
        self.depth -= 1;
        Ok(())
    }

    /// Moves to the next member of the object or array being read (past
    /// the comma before it, unless it is the `first`); `false` at the
    /// `close` bracket, which is left for [`Scanner::leave`].
    fn next_member(&mut self, close: u8, first: &mut bool) -> Result<bool> {
        match (self.next_token(), *first) {
            (Some(b), _) if b == close => return Ok(false),
            (Some(b','), false) => self.pos += 1,
            (_, true) => {}
            (_, false) => return declined("expected a comma or the end"),
        }
        *first = false;
        Ok(true)
    }

    /// Past a string's closing quote; `pos` is after its opening quote.
    fn skip_string(&mut self) -> Result<()> {
        self.pos = string::skip(self.bytes(), self.pos)?;
        Ok(())
    }

    /// Past a number, checked against JSON's grammar. Returns its value
    /// when it is an integer this reader gives as serde_json would.
    fn number(&mut self) -> Result<Option<Integer>> {
        let bytes = self.bytes();
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let digits = |pos: usize| {
            bytes[pos.min(bytes.len())..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        let whole = digits(self.pos);
        match (whole, self.peek()) {
            (0, _) => return declined("expected a value"),
            (2.., Some(b'0')) => return declined("leading zero"),
            _ => {}
        }
        let whole_end = self.pos + whole;
        self.pos = whole_end;
        let mut integer = true;
        if self.peek() == Some(b'.') {
            let n = digits(self.pos + 1);
            if n == 0 {
                return declined("bad fraction");
            }
            self.pos += 1 + n;
            integer = false;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            let n = digits(self.pos);
            if n == 0 {
                return declined("bad exponent");
            }
            self.pos += n;
            integer = false;
        }
        if !integer {
            return Ok(None);
        }
        let text = self.slice(start + usize::from(negative), whole_end)?;
        let Ok(magnitude) = text.parse::<u64>() else {
            return Ok(None);
        };
        Ok(match (negative, magnitude) {
            (false, n) => Some(Integer::Unsigned(n)),
            // serde_json reads -0 as a float.
            (true, 0) => None,
            (true, n) => i64::try_from(n).ok().map(|n| Integer::Signed(-n)),
        })
    }

    /// Past one value of any kind, building nothing.
    fn skip_value(&mut self) -> Result<()> {
        match self.next_token() {
            Some(b'"') => {
                self.pos += 1;
                self.skip_string()
            }
            Some(b'{') => {
                self.enter()?;
                let mut first = true;
                while self.next_member(b'}', &mut first)? {
                    self.eat(b'"')?;
                    self.skip_string()?;
                    self.eat(b':')?;
                    self.skip_value()?;
                }
                self.leave(b'}')
            }
            Some(b'[') => {
                self.enter()?;
                let mut first = true;
                while self.next_member(b']', &mut first)? {
                    self.skip_value()?;
                }
                self.leave(b']')
            }
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number().map(|_| ()),
            _ => declined("expected a value"),
        }
    }
}

/// An integer as serde_json hands it to a visitor.
enum Integer {
    Unsigned(u64),
    Signed(i64),
}

impl<'de> Deserializer<'de> for &mut Scanner<'de> {
    type Error = Declined;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.next_token() {
            Some(b'"') => {
                self.pos += 1;
                let start = self.pos;
                let (text, after) = string::read(self.bytes(), start, &mut self.scratch)?;
                self.pos = after;
                match text {
                    string::Text::Line { end } => {
                        visitor.visit_borrowed_str(self.slice(start, end)?)
                    }
                    string::Text::Scratch { len } => {
                        let text = self.scratch.get(..len).unwrap_or_default();
                        debug_assert!(std::str::from_utf8(text).is_ok());
                        // SAFETY: the line is UTF-8 (checked in `read`), and
                        // the unescaped text is the line's text between
                        // escapes, each run cut at a backslash or a quote
                        // (ASCII, so never inside a character), with each
                        // escape replaced by an ASCII byte or a whole
                        // encoded `char` (`string::read`). Checking it again
                        // was a tenth of reading a tool result.
                        visitor.visit_str(unsafe { std::str::from_utf8_unchecked(text) })
                    }
                }
            }
            Some(b'{') => {
                self.enter()?;
                let value = visitor.visit_map(Entries {
                    scanner: &mut *self,
                    first: true,
                })?;
                self.leave(b'}')?;
                Ok(value)
            }
            Some(b'[') => {
                self.enter()?;
                let value = visitor.visit_seq(Elements {
                    scanner: &mut *self,
                    first: true,
                })?;
                self.leave(b']')?;
                Ok(value)
            }
            Some(b't') => {
                self.literal(b"true")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.literal(b"false")?;
                visitor.visit_bool(false)
            }
            Some(b'n') => {
                self.literal(b"null")?;
                visitor.visit_unit()
            }
            Some(b'-' | b'0'..=b'9') => match self.number()? {
                Some(Integer::Unsigned(n)) => visitor.visit_u64(n),
                Some(Integer::Signed(n)) => visitor.visit_i64(n),
                None => declined("a number read as a float"),
            },
            _ => declined("expected a value"),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip_value()?;
        visitor.visit_unit()
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.next_token() {
            Some(b'n') => {
                self.literal(b"null")?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match name == RAW {
            true => {
                self.next_token();
                let start = self.pos;
                self.skip_value()?;
                visitor.visit_borrowed_str(self.slice(start, self.pos)?)
            }
            false => visitor.visit_newtype_struct(self),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum
        identifier
    }
}

/// The entries of an object being read.
struct Entries<'s, 'a> {
    scanner: &'s mut Scanner<'a>,
    first: bool,
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = Declined;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let scanner = &mut *self.scanner;
        if !scanner.next_member(b'}', &mut self.first)? {
            return Ok(None);
        }
        match scanner.next_token() {
            Some(b'"') => seed.deserialize(&mut *scanner).map(Some),
            _ => declined("a key must be a string"),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.scanner.eat(b':')?;
        seed.deserialize(&mut *self.scanner)
    }
}

/// The elements of an array being read.
struct Elements<'s, 'a> {
    scanner: &'s mut Scanner<'a>,
    first: bool,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Declined;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let scanner = &mut *self.scanner;
        if !scanner.next_member(b']', &mut self.first)? {
            return Ok(None);
        }
        seed.deserialize(&mut *scanner).map(Some)
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
