//! The lexer half of the parser: tokens, words with their quoting, and the
//! substitutions and here-documents inside them.

use super::glob::GlobScan;
use super::{
    Expansion, Heredoc, Op, ParseError, Parser, PendingHeredoc, RedirOp, Result, Tok, WordBuilder,
    is_meta, parse_at, scan_expansions,
};

impl Parser {
    pub(super) fn new(input: &str, depth: usize) -> Self {
        Parser {
            src: input.chars().collect(),
            pos: 0,
            peeked: None,
            pending: Vec::new(),
            bodies: Vec::new(),
            depth,
        }
    }

    fn at(&self, offset: usize) -> Option<char> {
        self.src.get(self.pos + offset).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(i, c)| self.at(i) == Some(c))
    }

    pub(super) fn peek(&mut self) -> Result<&Tok> {
        if self.peeked.is_none() {
            let token = self.lex()?;
            self.peeked = Some(token);
        }
        match &self.peeked {
            Some((tok, _)) => Ok(tok),
            None => Err(ParseError::Unexpected("end of input".into())),
        }
    }

    pub(super) fn next(&mut self) -> Result<Tok> {
        match self.peeked.take() {
            Some((tok, _)) => Ok(tok),
            None => Ok(self.lex()?.0),
        }
    }

    /// Where the peeked token started, to re-read its source differently.
    pub(super) fn peeked_start(&self) -> Option<usize> {
        self.peeked.as_ref().map(|(_, start)| *start)
    }

    /// Forgets the peeked token and moves back to `pos`.
    pub(super) fn rewind(&mut self, pos: usize) {
        self.peeked = None;
        self.pos = pos;
    }

    pub(super) fn char_at(&self, pos: usize) -> Option<char> {
        self.src.get(pos).copied()
    }

    /// Skips blanks and backslash-newline continuations; with `newlines`, also
    /// newlines (where bash ignores them, inside `[[ … ]]`).
    pub(super) fn skip_blanks(&mut self, newlines: bool) {
        loop {
            match self.at(0) {
                Some(' ' | '\t' | '\r') => self.pos += 1,
                Some('\n') if newlines => self.pos += 1,
                Some('\\') if self.at(1) == Some('\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    fn lex(&mut self) -> Result<(Tok, usize)> {
        self.skip_blanks(false);
        if self.at(0) == Some('#') {
            while !matches!(self.at(0), None | Some('\n')) {
                self.pos += 1;
            }
        }
        let start = self.pos;
        let Some(c) = self.at(0) else {
            return Ok((Tok::Eof, start));
        };
        let op = |p: &mut Parser, len: usize, op: Op| {
            p.pos += len;
            Tok::Op(op)
        };
        let tok = match c {
            '\n' => {
                self.pos += 1;
                self.read_heredocs()?;
                Tok::Newline
            }
            ';' if self.starts_with(";;&") => op(self, 3, Op::DSemiAmp),
            ';' if self.starts_with(";;") => op(self, 2, Op::DSemi),
            ';' if self.starts_with(";&") => op(self, 2, Op::SemiAmp),
            ';' => op(self, 1, Op::Semi),
            '&' if self.starts_with("&&") => op(self, 2, Op::AndIf),
            '&' if self.starts_with("&>>") => {
                self.pos += 3;
                Tok::Redir(None, RedirOp::AppendBoth)
            }
            '&' if self.starts_with("&>") => {
                self.pos += 2;
                Tok::Redir(None, RedirOp::OutBoth)
            }
            '&' => op(self, 1, Op::Amp),
            '|' if self.starts_with("||") => op(self, 2, Op::OrIf),
            '|' if self.starts_with("|&") => op(self, 2, Op::PipeAmp),
            '|' => op(self, 1, Op::Pipe),
            '(' => op(self, 1, Op::LParen),
            ')' => op(self, 1, Op::RParen),
            '<' | '>' if self.at(1) != Some('(') => Tok::Redir(None, self.lex_redir_op()),
            _ => {
                let word = self.lex_word()?;
                let is_fd = !word.quoted
                    && word.subs.is_empty()
                    && !word.text.is_empty()
                    && word.text.chars().all(|c| c.is_ascii_digit());
                if is_fd && matches!(self.at(0), Some('<' | '>')) && self.at(1) != Some('(') {
                    Tok::Redir(word.text.parse().ok(), self.lex_redir_op())
                } else {
                    Tok::Word(word)
                }
            }
        };
        Ok((tok, start))
    }

    /// Lexes a redirection operator starting at `<` or `>`.
    fn lex_redir_op(&mut self) -> RedirOp {
        let table = [
            ("<<<", RedirOp::HereString),
            ("<<-", RedirOp::HereDocStrip),
            ("<<", RedirOp::HereDoc),
            ("<&", RedirOp::DupIn),
            ("<>", RedirOp::ReadWrite),
            ("<", RedirOp::In),
            (">>", RedirOp::Append),
            (">&", RedirOp::DupOut),
            (">|", RedirOp::Clobber),
            (">", RedirOp::Out),
        ];
        for (text, op) in table {
            if self.starts_with(text) {
                self.pos += text.chars().count();
                return op;
            }
        }
        // Only called at `<` or `>`, both of which are in the table.
        self.pos += 1;
        RedirOp::Out
    }

    /// Lexes one word up to the next unquoted blank or operator character.
    pub(super) fn lex_word(&mut self) -> Result<super::Word> {
        let mut w = WordBuilder::default();
        let mut globs = GlobScan::default();
        while let Some(c) = self.at(0) {
            match c {
                '(' if w.literal_prefix.is_none()
                    && w.text.ends_with('=')
                    && super::is_assignment_name(&w.text[..w.text.len() - 1]) =>
                {
                    // An array assignment, `a=(1 2 3)`.
                    self.consume_balanced(&mut w)?;
                }
                '(' if matches!(w.text.chars().last(), Some('@' | '!' | '+' | '*' | '?')) => {
                    // An extended glob, `!(keep.txt)`.
                    w.expands(Expansion::Glob);
                    self.consume_balanced(&mut w)?;
                }
                '<' | '>' if self.at(1) == Some('(') => {
                    let start = self.pos;
                    self.pos += 2;
                    let script =
                        self.parse_until_rparen(ParseError::UnterminatedProcessSubstitution)?;
                    w.end_literal();
                    w.expands(Expansion::Process);
                    w.text.extend(&self.src[start..self.pos]);
                    w.subs.push(script);
                }
                c if is_meta(c) => break,
                '\\' => {
                    match self.at(1) {
                        Some('\n') => {}
                        Some(next) => {
                            w.mark_quoted();
                            w.text.push(next);
                        }
                        None => w.text.push('\\'),
                    }
                    self.pos += 2;
                }
                '\'' => {
                    w.mark_quoted();
                    self.pos += 1;
                    loop {
                        match self.at(0) {
                            None => return Err(ParseError::UnterminatedSingleQuote),
                            Some('\'') => break,
                            Some(c) => w.text.push(c),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                '"' => {
                    w.mark_quoted();
                    self.pos += 1;
                    self.lex_dquoted(&mut w, Some('"'))?;
                }
                '`' => self.lex_backquote(&mut w)?,
                '$' => self.lex_dollar(&mut w, false)?,
                c => {
                    if let Some(kind) = globs.unquoted(c) {
                        w.expands(kind);
                    }
                    w.text.push(c);
                    self.pos += 1;
                }
            }
        }
        self.pos = self.pos.min(self.src.len());
        Ok(w.finish())
    }

    /// Copies a parenthesised part of a word (`(…)` with nesting and quotes) as is.
    fn consume_balanced(&mut self, w: &mut WordBuilder) -> Result<()> {
        w.end_literal();
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        loop {
            let Some(c) = self.at(0) else {
                return Err(ParseError::UnclosedParen);
            };
            w.text.push(c);
            self.pos += 1;
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '\\') => {
                    if let Some(next) = self.at(0) {
                        w.text.push(next);
                        self.pos += 1;
                    }
                }
                (None, '(') => depth += 1,
                (None, ')') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(());
                    }
                }
                (None, _) => {}
            }
        }
    }

    /// Lexes the inside of double quotes (after the opening `"`), up to `term`;
    /// with no `term`, to the end of the input (a here-document body).
    pub(super) fn lex_dquoted(&mut self, w: &mut WordBuilder, term: Option<char>) -> Result<()> {
        loop {
            let Some(c) = self.at(0) else {
                return match term {
                    Some(_) => Err(ParseError::UnterminatedDoubleQuote),
                    None => Ok(()),
                };
            };
            match c {
                c if Some(c) == term => {
                    self.pos += 1;
                    return Ok(());
                }
                '\\' => match self.at(1) {
                    Some('\n') => self.pos += 2,
                    Some(next @ ('$' | '`' | '"' | '\\')) => {
                        w.text.push(next);
                        self.pos += 2;
                    }
                    _ => {
                        w.text.push('\\');
                        self.pos += 1;
                    }
                },
                '$' => self.lex_dollar(w, true)?,
                '`' => self.lex_backquote(w)?,
                c => {
                    w.text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// Lexes a backquoted command substitution; its inside, with `\``, `\\` and
    /// `\$` unescaped, is parsed as a script of its own.
    fn lex_backquote(&mut self, w: &mut WordBuilder) -> Result<()> {
        let start = self.pos;
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.at(0) {
                None => return Err(ParseError::UnterminatedBackquote),
                Some('`') => break,
                Some('\\') if matches!(self.at(1), Some('`' | '\\' | '$')) => {
                    inner.extend(self.at(1));
                    self.pos += 2;
                    continue;
                }
                Some(c) => inner.push(c),
            }
            self.pos += 1;
        }
        self.pos += 1;
        let script = parse_at(&inner, self.depth + 1)?;
        w.end_literal();
        w.expands(Expansion::Command);
        w.text.extend(&self.src[start..self.pos]);
        w.subs.push(script);
        Ok(())
    }

    /// Lexes what starts at a `$`: substitutions, parameters, `$'…'` and `$"…"`.
    fn lex_dollar(&mut self, w: &mut WordBuilder, in_dquote: bool) -> Result<()> {
        let start = self.pos;
        match self.at(1) {
            Some('(') if self.at(2) == Some('(') => {
                self.pos += 3;
                let inner = self.scan_arithmetic()?;
                w.expands(Expansion::Arithmetic);
                w.subs.extend(scan_expansions(&inner, self.depth + 1)?);
            }
            Some('(') => {
                self.pos += 2;
                let script = self.parse_until_rparen(ParseError::UnterminatedSubstitution)?;
                w.expands(Expansion::Command);
                w.subs.push(script);
            }
            Some('{') => {
                self.pos += 2;
                let inner = self.scan_braces()?;
                w.expands(Expansion::Parameter);
                w.subs.extend(scan_expansions(&inner, self.depth + 1)?);
            }
            Some('\'') if !in_dquote => {
                self.pos += 2;
                w.mark_quoted();
                return self.lex_ansi_c(w);
            }
            Some('"') if !in_dquote => {
                self.pos += 2;
                w.mark_quoted();
                return self.lex_dquoted(w, Some('"'));
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                while matches!(self.at(0), Some(c) if c.is_ascii_alphanumeric() || c == '_') {
                    self.pos += 1;
                }
                w.expands(Expansion::Parameter);
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.pos += 2;
                w.expands(Expansion::Parameter);
            }
            _ => {
                w.text.push('$');
                self.pos += 1;
                return Ok(());
            }
        }
        w.end_literal();
        w.text.extend(&self.src[start..self.pos]);
        Ok(())
    }

    /// Parses the script of `$(…)` or `<(…)` (the opening is consumed) and its `)`.
    fn parse_until_rparen(&mut self, unterminated: ParseError) -> Result<super::Script> {
        self.enter()?;
        let script = self.parse_list(super::End::RParen)?;
        match self.next()? {
            Tok::Op(Op::RParen) => {}
            Tok::Eof => return Err(unterminated),
            other => return Err(ParseError::Unexpected(other.describe())),
        }
        self.leave();
        Ok(script)
    }

    /// The inside of `$((…))`/`((…))` (the opening is consumed), through `))`.
    pub(super) fn scan_arithmetic(&mut self) -> Result<String> {
        let mut depth = 0usize;
        let mut inner = String::new();
        loop {
            match self.at(0) {
                None => return Err(ParseError::UnterminatedArithmetic),
                Some(')') if depth == 0 => {
                    if self.at(1) != Some(')') {
                        return Err(ParseError::UnterminatedArithmetic);
                    }
                    self.pos += 2;
                    return Ok(inner);
                }
                Some(c) => {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// The inside of `${…}` (the opening is consumed), through its `}`.
    fn scan_braces(&mut self) -> Result<String> {
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        let mut inner = String::new();
        loop {
            let Some(c) = self.at(0) else {
                return Err(ParseError::UnterminatedParameter);
            };
            self.pos += 1;
            match (quote, c) {
                (None, '}') if depth == 0 => return Ok(inner),
                (Some(q), c) if c == q => quote = None,
                (None, '\'' | '"') => quote = Some(c),
                (_, '\\') => {
                    inner.push(c);
                    if let Some(next) = self.at(0) {
                        inner.push(next);
                        self.pos += 1;
                    }
                    continue;
                }
                (None, '{') => depth += 1,
                (None, '}') => depth -= 1,
                _ => {}
            }
            inner.push(c);
        }
    }

    /// Decodes the inside of `$'…'` (the opening is consumed).
    fn lex_ansi_c(&mut self, w: &mut WordBuilder) -> Result<()> {
        loop {
            let Some(c) = self.at(0) else {
                return Err(ParseError::UnterminatedAnsiQuote);
            };
            self.pos += 1;
            match c {
                '\'' => return Ok(()),
                '\\' => {
                    let Some(e) = self.at(0) else {
                        return Err(ParseError::UnterminatedAnsiQuote);
                    };
                    self.pos += 1;
                    let decoded = match e {
                        'n' => Some('\n'),
                        't' => Some('\t'),
                        'r' => Some('\r'),
                        'a' => Some('\x07'),
                        'b' => Some('\x08'),
                        'e' | 'E' => Some('\x1b'),
                        'f' => Some('\x0c'),
                        'v' => Some('\x0b'),
                        'x' => self.radix_escape(16, 2),
                        'u' => self.radix_escape(16, 4),
                        'U' => self.radix_escape(16, 8),
                        '0'..='7' => {
                            self.pos -= 1;
                            self.radix_escape(8, 3)
                        }
                        other => Some(other),
                    };
                    w.text.extend(decoded);
                }
                c => w.text.push(c),
            }
        }
    }

    /// Up to `max` digits in `radix` as a character (`\x41`, `\101`, `\u263a`).
    fn radix_escape(&mut self, radix: u32, max: usize) -> Option<char> {
        let mut value = 0u32;
        let mut digits = 0;
        while digits < max {
            let Some(d) = self.at(0).and_then(|c| c.to_digit(radix)) else {
                break;
            };
            value = value * radix + d;
            digits += 1;
            self.pos += 1;
        }
        if digits == 0 {
            return None;
        }
        char::from_u32(value)
    }

    /// Remembers a here-document whose body starts after the next newline.
    pub(super) fn register_heredoc(&mut self, delimiter: &super::Word, strip_tabs: bool) -> usize {
        let index = self.bodies.len();
        self.bodies.push(None);
        self.pending.push(PendingHeredoc {
            index,
            delimiter: delimiter.text.clone(),
            strip_tabs,
            expand: !delimiter.quoted,
        });
        index
    }

    /// Reads the bodies of the here-documents begun on the line just ended.
    fn read_heredocs(&mut self) -> Result<()> {
        for doc in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.pos < self.src.len() {
                let end = self.src[self.pos..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(self.src.len(), |i| self.pos + i);
                let line: String = self.src[self.pos..end].iter().collect();
                self.pos = (end + 1).min(self.src.len());
                let line = if doc.strip_tabs {
                    line.trim_start_matches('\t').to_string()
                } else {
                    line
                };
                if line == doc.delimiter {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            let subs = if doc.expand {
                scan_expansions(&body, self.depth + 1)?
            } else {
                Vec::new()
            };
            if let Some(slot) = self.bodies.get_mut(doc.index) {
                *slot = Some(Heredoc { body, subs });
            }
        }
        Ok(())
    }

    pub(super) fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > super::MAX_DEPTH {
            return Err(ParseError::TooDeep);
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}
