//! The grammar half of the parser: lists, pipelines, commands, and filling in
//! here-document bodies once they have been read.

use super::{
    AndOr, Command, End, Op, ParseError, Parser, Pipeline, RedirOp, Redirect, Result, Script,
    SimpleCommand, Tok, Word,
};

/// Words that only steer control flow; where a command starts they are skipped
/// and the command after them is parsed (`if rm x; then …`).
const TRANSPARENT_KEYWORDS: &[&str] = &[
    "!", "if", "then", "elif", "else", "do", "while", "until", "coproc",
];

impl Parser {
    pub(super) fn parse_list(&mut self, end: End) -> Result<Script> {
        let mut items = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.at_end(end)? {
                return Ok(Script { items });
            }
            let mut item = self.parse_and_or()?;
            let separated = match self.peek()? {
                Tok::Op(Op::Semi) | Tok::Newline => true,
                Tok::Op(Op::Amp) => {
                    item.background = true;
                    true
                }
                _ => false,
            };
            items.push(item);
            if separated {
                self.next()?;
            } else if !self.at_end(end)? {
                let tok = self.next()?;
                return Err(ParseError::Unexpected(tok.describe()));
            }
        }
    }

    fn skip_newlines(&mut self) -> Result<()> {
        while let Tok::Newline = self.peek()? {
            self.next()?;
        }
        Ok(())
    }

    /// Whether the list being parsed ends here (at a command's start); a closer
    /// that belongs to no open construct is an error.
    fn at_end(&mut self, end: End) -> Result<bool> {
        match (self.peek()?, end) {
            (Tok::Eof, _) => Ok(true),
            (Tok::Op(Op::RParen), End::RParen) => Ok(true),
            (Tok::Op(Op::RParen), End::Eof | End::RBrace | End::CaseArm) => {
                Err(ParseError::UnexpectedParen)
            }
            (Tok::Word(w), End::RBrace) if w.is_reserved("}") => Ok(true),
            (Tok::Word(w), End::Eof | End::RParen | End::CaseArm) if w.is_reserved("}") => {
                Err(ParseError::UnexpectedBrace)
            }
            (Tok::Word(w), End::CaseArm) if w.is_reserved("esac") => Ok(true),
            (Tok::Op(Op::DSemi | Op::SemiAmp | Op::DSemiAmp), End::CaseArm) => Ok(true),
            _ => Ok(false),
        }
    }

    fn parse_and_or(&mut self) -> Result<AndOr> {
        let mut pipelines = vec![self.parse_pipeline()?];
        while let Tok::Op(Op::AndIf | Op::OrIf) = self.peek()? {
            self.next()?;
            self.skip_newlines()?;
            pipelines.push(self.parse_pipeline()?);
        }
        Ok(AndOr {
            pipelines,
            background: false,
        })
    }

    fn parse_pipeline(&mut self) -> Result<Pipeline> {
        let mut commands = vec![self.parse_command()?];
        while let Tok::Op(Op::Pipe | Op::PipeAmp) = self.peek()? {
            self.next()?;
            self.skip_newlines()?;
            commands.push(self.parse_command()?);
        }
        Ok(Pipeline { commands })
    }

    fn parse_command(&mut self) -> Result<Command> {
        loop {
            match self.peek()? {
                Tok::Word(w) if TRANSPARENT_KEYWORDS.iter().any(|k| w.is_reserved(k)) => {
                    self.next()?;
                    self.skip_newlines()?;
                }
                _ => break,
            }
        }
        match self.peek()? {
            Tok::Op(Op::LParen) => {
                if let Some(start) = self.peeked_start()
                    && self.char_at(start + 1) == Some('(')
                {
                    self.rewind(start + 2);
                    let inner = self.scan_arithmetic()?;
                    let mut word = Word::plain("((");
                    word.subs = super::scan_expansions(&inner, self.depth + 1)?;
                    return self.finish_simple(word);
                }
                self.next()?;
                self.enter()?;
                let body = self.parse_list(End::RParen)?;
                match self.next()? {
                    Tok::Op(Op::RParen) => {}
                    _ => return Err(ParseError::UnclosedParen),
                }
                self.leave();
                let redirects = self.parse_redirects()?;
                Ok(Command::Subshell { body, redirects })
            }
            Tok::Word(w) if w.is_reserved("{") => {
                self.next()?;
                self.enter()?;
                let body = self.parse_list(End::RBrace)?;
                match self.next()? {
                    Tok::Word(w) if w.is_reserved("}") => {}
                    _ => return Err(ParseError::UnclosedBrace),
                }
                self.leave();
                let redirects = self.parse_redirects()?;
                Ok(Command::Group { body, redirects })
            }
            Tok::Word(w) if w.is_reserved("[[") => {
                self.next()?;
                self.parse_test()
            }
            Tok::Word(w) if w.is_reserved("case") => {
                self.next()?;
                self.parse_case()
            }
            Tok::Word(w) if w.is_reserved("function") => {
                self.next()?;
                let name = match self.next()? {
                    Tok::Word(w) => w.text,
                    other => return Err(ParseError::Unexpected(other.describe())),
                };
                if let Tok::Op(Op::LParen) = self.peek()? {
                    self.next()?;
                    self.expect_rparen()?;
                }
                self.function_body(name)
            }
            Tok::Word(_) | Tok::Redir(..) => self.parse_simple(),
            Tok::Op(_) | Tok::Newline | Tok::Eof => {
                let tok = self.next()?;
                Err(ParseError::Unexpected(tok.describe()))
            }
        }
    }

    fn expect_rparen(&mut self) -> Result<()> {
        match self.next()? {
            Tok::Op(Op::RParen) => Ok(()),
            other => Err(ParseError::Unexpected(other.describe())),
        }
    }

    fn function_body(&mut self, name: String) -> Result<Command> {
        self.skip_newlines()?;
        self.enter()?;
        let body = self.parse_command()?;
        self.leave();
        Ok(Command::Function {
            name,
            body: Box::new(body),
        })
    }

    fn parse_simple(&mut self) -> Result<Command> {
        let mut cmd = SimpleCommand::default();
        loop {
            match self.peek()? {
                Tok::Word(_) => {
                    let Tok::Word(word) = self.next()? else {
                        continue;
                    };
                    if cmd.words.is_empty() && word.is_assignment() {
                        cmd.assignments.push(word);
                        continue;
                    }
                    cmd.words.push(word);
                    let bare_name = cmd.words.len() == 1
                        && cmd.assignments.is_empty()
                        && cmd.redirects.is_empty();
                    if bare_name && matches!(self.peek()?, Tok::Op(Op::LParen)) {
                        // `name() body`: a function definition.
                        self.next()?;
                        self.expect_rparen()?;
                        let name = cmd.words.remove(0).text;
                        return self.function_body(name);
                    }
                }
                Tok::Redir(..) => {
                    let redirect = self.parse_redirect()?;
                    cmd.redirects.push(redirect);
                }
                _ => return Ok(Command::Simple(cmd)),
            }
        }
    }

    /// A simple command whose first word was read specially (`((`); its
    /// redirections follow.
    fn finish_simple(&mut self, word: Word) -> Result<Command> {
        let redirects = self.parse_redirects()?;
        Ok(Command::Simple(SimpleCommand {
            assignments: Vec::new(),
            words: vec![word],
            redirects,
        }))
    }

    fn parse_redirects(&mut self) -> Result<Vec<Redirect>> {
        let mut redirects = Vec::new();
        while let Tok::Redir(..) = self.peek()? {
            redirects.push(self.parse_redirect()?);
        }
        Ok(redirects)
    }

    fn parse_redirect(&mut self) -> Result<Redirect> {
        let Tok::Redir(fd, op) = self.next()? else {
            return Err(ParseError::Unexpected("redirection".into()));
        };
        let target = match self.next()? {
            Tok::Word(w) => w,
            _ => return Err(ParseError::MissingRedirectTarget(op.as_str().into())),
        };
        let pending = match op {
            RedirOp::HereDoc => Some(self.register_heredoc(&target, false)),
            RedirOp::HereDocStrip => Some(self.register_heredoc(&target, true)),
            _ => None,
        };
        Ok(Redirect {
            fd,
            op,
            target,
            heredoc: None,
            pending,
        })
    }

    /// `[[ … ]]` (the `[[` is consumed): inside, `<`, `>`, `&&`, `||` and
    /// parentheses are operators of the test, not of the shell.
    fn parse_test(&mut self) -> Result<Command> {
        let mut words = vec![Word::plain("[[")];
        loop {
            self.skip_blanks(true);
            let Some(c) = self.char_at(self.pos) else {
                return Err(ParseError::UnterminatedTest);
            };
            if c == ';' {
                return Err(ParseError::UnterminatedTest);
            }
            if super::is_meta(c) {
                let mut op = String::new();
                while let Some(c @ ('<' | '>' | '&' | '|' | '(' | ')')) = self.char_at(self.pos) {
                    op.push(c);
                    self.pos += 1;
                    if op.len() == 2 || matches!(c, '(' | ')') {
                        break;
                    }
                }
                words.push(Word::plain(&op));
                continue;
            }
            let word = self.lex_word()?;
            let done = word.is_reserved("]]");
            words.push(word);
            if done {
                break;
            }
        }
        let mut cmd = SimpleCommand {
            words,
            ..SimpleCommand::default()
        };
        cmd.redirects = self.parse_redirects()?;
        Ok(Command::Simple(cmd))
    }

    /// `case word in (pattern | pattern) list ;; … esac` (the `case` is consumed).
    fn parse_case(&mut self) -> Result<Command> {
        let subject = match self.next()? {
            Tok::Word(w) => w,
            Tok::Eof => return Err(ParseError::UnterminatedCase),
            other => return Err(ParseError::Unexpected(other.describe())),
        };
        self.skip_newlines()?;
        match self.next()? {
            Tok::Word(w) if w.is_reserved("in") => {}
            Tok::Eof => return Err(ParseError::UnterminatedCase),
            other => return Err(ParseError::Unexpected(other.describe())),
        }
        let mut patterns = Vec::new();
        let mut arms = Vec::new();
        loop {
            self.skip_newlines()?;
            match self.peek()? {
                Tok::Word(w) if w.is_reserved("esac") => {
                    self.next()?;
                    break;
                }
                Tok::Eof => return Err(ParseError::UnterminatedCase),
                Tok::Op(Op::LParen) => {
                    self.next()?;
                }
                _ => {}
            }
            loop {
                match self.next()? {
                    Tok::Word(w) => patterns.push(w),
                    Tok::Op(Op::Pipe) => {}
                    Tok::Op(Op::RParen) => break,
                    Tok::Eof => return Err(ParseError::UnterminatedCase),
                    other => return Err(ParseError::Unexpected(other.describe())),
                }
            }
            self.enter()?;
            arms.push(self.parse_list(End::CaseArm)?);
            self.leave();
            match self.peek()? {
                Tok::Op(Op::DSemi | Op::SemiAmp | Op::DSemiAmp) => {
                    self.next()?;
                }
                Tok::Word(w) if w.is_reserved("esac") => {}
                _ => return Err(ParseError::UnterminatedCase),
            }
        }
        let redirects = self.parse_redirects()?;
        Ok(Command::Case {
            subject,
            patterns,
            arms,
            redirects,
        })
    }

    /// Moves here-document bodies read after their command into its redirects.
    pub(super) fn fill_script(&mut self, script: &mut Script) {
        for item in &mut script.items {
            for pipeline in &mut item.pipelines {
                for command in &mut pipeline.commands {
                    self.fill_command(command);
                }
            }
        }
    }

    fn fill_command(&mut self, command: &mut Command) {
        match command {
            Command::Simple(cmd) => {
                for word in cmd.assignments.iter_mut().chain(cmd.words.iter_mut()) {
                    self.fill_word(word);
                }
                self.fill_redirects(&mut cmd.redirects);
            }
            Command::Subshell { body, redirects } | Command::Group { body, redirects } => {
                self.fill_script(body);
                self.fill_redirects(redirects);
            }
            Command::Function { body, .. } => self.fill_command(body),
            Command::Case {
                subject,
                patterns,
                arms,
                redirects,
            } => {
                self.fill_word(subject);
                for word in patterns {
                    self.fill_word(word);
                }
                for arm in arms {
                    self.fill_script(arm);
                }
                self.fill_redirects(redirects);
            }
        }
    }

    fn fill_word(&mut self, word: &mut Word) {
        for sub in &mut word.subs {
            self.fill_script(sub);
        }
    }

    fn fill_redirects(&mut self, redirects: &mut [Redirect]) {
        for redirect in redirects {
            self.fill_word(&mut redirect.target);
            if let Some(index) = redirect.pending.take() {
                redirect.heredoc = self.bodies.get_mut(index).and_then(Option::take);
            }
        }
    }
}
