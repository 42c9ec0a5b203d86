//! A parser for shell command lines, deep enough for the policy to see every
//! command a line would run.
//!
//! Matching text ("does the line contain `rm`?") is wrong both ways: it flags
//! `grep rm notes.txt` and misses `echo $(RM -rf x)`. So the line is parsed the
//! way bash reads it: quotes (`'…'`, `"…"`, `$'…'`, `$"…"`) and backslashes are
//! removed from words, `#` comments dropped, lists split on `;` `&&` `||` `|`
//! `|&` `&` and newlines, subshells and `{ …; }` groups, `case`, `[[ … ]]`,
//! `(( … ))` and function definitions recognised, and the scripts inside `$(…)`,
//! backquotes (also inside double quotes), `<(…)`/`>(…)`, `${…}`, `$((…))` and
//! unquoted here-documents parsed in turn and attached to the word they appear in.
//!
//! Anything bash would reject or keep reading more input for (an unterminated
//! quote, a missing `)`) is an error: the caller must not guess what runs.
//! Control keywords (`if`, `then`, `do`, …) are skipped where a command starts
//! rather than parsed into loops; the policy needs the commands, not the control
//! flow.

/// How deeply groups, subshells and substitutions may nest before the parser
/// gives up (a guard against stack exhaustion on hostile input).
const MAX_DEPTH: usize = 64;

/// Why a command line could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("unterminated single quote")]
    UnterminatedSingleQuote,
    #[error("unterminated double quote")]
    UnterminatedDoubleQuote,
    #[error("unterminated $'…' quote")]
    UnterminatedAnsiQuote,
    #[error("unterminated backquote")]
    UnterminatedBackquote,
    #[error("unterminated $( … ) command substitution")]
    UnterminatedSubstitution,
    #[error("unterminated process substitution")]
    UnterminatedProcessSubstitution,
    #[error("unterminated ${{ … }} expansion")]
    UnterminatedParameter,
    #[error("unterminated (( … )) arithmetic")]
    UnterminatedArithmetic,
    #[error("unbalanced parentheses: missing `)`")]
    UnclosedParen,
    #[error("unbalanced parentheses: unexpected `)`")]
    UnexpectedParen,
    #[error("unterminated {{ … }} group: missing `}}`")]
    UnclosedBrace,
    #[error("unexpected `}}`")]
    UnexpectedBrace,
    #[error("unterminated `case`")]
    UnterminatedCase,
    #[error("unterminated [[ … ]] test")]
    UnterminatedTest,
    #[error("redirection `{0}` has no target")]
    MissingRedirectTarget(String),
    #[error("unexpected {0}")]
    Unexpected(String),
    #[error("nested too deeply")]
    TooDeep,
}

type Result<T> = std::result::Result<T, ParseError>;

/// A list of commands run one after another (`;`, `&`, newlines).
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub items: Vec<AndOr>,
}

/// Pipelines joined by `&&`/`||`; `background` when the list item ended in `&`.
#[derive(Debug, Clone)]
pub struct AndOr {
    pub pipelines: Vec<Pipeline>,
    pub background: bool,
}

/// Commands joined by `|` or `|&`, each reading the previous one's output.
#[derive(Debug, Clone)]
pub struct Pipeline {
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone)]
pub enum Command {
    Simple(SimpleCommand),
    /// `( … )`
    Subshell {
        body: Script,
        redirects: Vec<Redirect>,
    },
    /// `{ …; }`
    Group {
        body: Script,
        redirects: Vec<Redirect>,
    },
    /// `name() body` or `function name body`
    Function {
        name: String,
        body: Box<Command>,
    },
    /// `case word in pattern) …;; esac`
    Case {
        subject: Word,
        patterns: Vec<Word>,
        arms: Vec<Script>,
        redirects: Vec<Redirect>,
    },
}

/// Leading `VAR=value` assignments, the words (command name first) and the
/// redirections of one command. `[[ … ]]` and `(( … ))` are represented as simple
/// commands named `[[` and `((`.
#[derive(Debug, Clone, Default)]
pub struct SimpleCommand {
    pub assignments: Vec<Word>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
}

/// One word after quote removal. Expansions are kept as their source text
/// (`$HOME`, `$(…)`), and the scripts of command and process substitutions inside
/// the word are parsed into `subs`.
#[derive(Debug, Clone, Default)]
pub struct Word {
    pub text: String,
    /// Some part of the word was quoted or escaped (so it is no reserved word).
    pub quoted: bool,
    /// How many leading characters of `text` were plain, unquoted source text;
    /// decides whether `NAME=…` is an assignment.
    literal_prefix: usize,
    pub subs: Vec<Script>,
    /// What the shell still does to this word when it runs, in order of first
    /// appearance, each kind once: a word with any is not the text it shows
    /// (`$RM` runs whatever `RM` holds), so the policy cannot take it at its
    /// word. Quoting is already accounted for: `'$x'` and `\*` have none.
    pub expansions: Vec<Expansion>,
}

/// A part of a word the shell replaces when the command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expansion {
    /// `$x`, `${x:-y}`, `${!x}`, `$@`, `$1`.
    Parameter,
    /// `$(…)` or backquotes.
    Command,
    /// `$((…))`.
    Arithmetic,
    /// `<(…)` or `>(…)`: a path to a pipe.
    Process,
    /// An unquoted `*`, `?`, `[…]` or extended glob `@(…)`.
    Glob,
    /// An unquoted `{a,b}` or `{1..3}`.
    Brace,
}

impl Expansion {
    /// How a reason names it: "the command name `$RM` comes from {this}".
    pub fn describe(self) -> &'static str {
        match self {
            Expansion::Parameter => "a variable",
            Expansion::Command => "a command substitution",
            Expansion::Arithmetic => "an arithmetic expansion",
            Expansion::Process => "a process substitution",
            Expansion::Glob => "a glob pattern",
            Expansion::Brace => "a brace expansion",
        }
    }
}

impl Word {
    /// An unquoted word with no expansions.
    pub fn plain(text: &str) -> Self {
        Word {
            text: text.to_string(),
            quoted: false,
            literal_prefix: text.chars().count(),
            subs: Vec::new(),
            expansions: Vec::new(),
        }
    }

    /// Whether the shell changes this word before it runs: the text is not
    /// necessarily what runs.
    pub fn is_expanded(&self) -> bool {
        !self.expansions.is_empty()
    }

    /// `NAME=value` (or `NAME+=value`, `NAME[i]=value`) with the name unquoted.
    pub fn is_assignment(&self) -> bool {
        let Some(eq) = self.text.find('=') else {
            return false;
        };
        if self.text[..eq].chars().count() > self.literal_prefix {
            return false;
        }
        is_assignment_name(&self.text[..eq])
    }

    fn is_reserved(&self, word: &str) -> bool {
        !self.quoted && self.text == word
    }
}

/// `NAME`, `NAME+` or `NAME[…]`: what may stand before `=` in an assignment.
pub fn is_assignment_name(name: &str) -> bool {
    let name = name.strip_suffix('+').unwrap_or(name);
    let name = match name.find('[') {
        Some(i) if name.ends_with(']') => &name[..i],
        Some(_) => return false,
        None => name,
    };
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`
    In,
    /// `>`
    Out,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `&>`
    OutBoth,
    /// `&>>`
    AppendBoth,
    /// `>&` (a file descriptor, or a file when the target is not a number)
    DupOut,
    /// `<&`
    DupIn,
    /// `<<`
    HereDoc,
    /// `<<-`
    HereDocStrip,
    /// `<<<`
    HereString,
}

impl RedirOp {
    pub fn as_str(self) -> &'static str {
        match self {
            RedirOp::In => "<",
            RedirOp::Out => ">",
            RedirOp::Append => ">>",
            RedirOp::Clobber => ">|",
            RedirOp::ReadWrite => "<>",
            RedirOp::OutBoth => "&>",
            RedirOp::AppendBoth => "&>>",
            RedirOp::DupOut => ">&",
            RedirOp::DupIn => "<&",
            RedirOp::HereDoc => "<<",
            RedirOp::HereDocStrip => "<<-",
            RedirOp::HereString => "<<<",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Redirect {
    pub fd: Option<u32>,
    pub op: RedirOp,
    /// The file (or the here-document delimiter, or the here-string).
    pub target: Word,
    /// The here-document's body, once read.
    pub heredoc: Option<Heredoc>,
    /// Index of the body in the parser's table until it is filled in.
    pending: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct Heredoc {
    pub body: String,
    /// Substitutions in the body (only when the delimiter was unquoted).
    pub subs: Vec<Script>,
}

/// Parses a command line.
pub fn parse(input: &str) -> Result<Script> {
    parse_at(input, 0)
}

fn parse_at(input: &str, depth: usize) -> Result<Script> {
    if depth > MAX_DEPTH {
        return Err(ParseError::TooDeep);
    }
    let mut parser = Parser::new(input, depth);
    let mut script = parser.parse_list(End::Eof)?;
    parser.fill_script(&mut script);
    Ok(script)
}

/// The substitutions in `text` read as the inside of double quotes (the body of
/// an unquoted here-document, arithmetic, `${…}`).
fn scan_expansions(text: &str, depth: usize) -> Result<Vec<Script>> {
    if depth > MAX_DEPTH {
        return Err(ParseError::TooDeep);
    }
    let mut parser = Parser::new(text, depth);
    let mut word = WordBuilder::default();
    parser.lex_dquoted(&mut word, None)?;
    let mut subs = word.subs;
    for sub in &mut subs {
        parser.fill_script(sub);
    }
    Ok(subs)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Semi,
    Amp,
    AndIf,
    OrIf,
    Pipe,
    PipeAmp,
    LParen,
    RParen,
    DSemi,
    SemiAmp,
    DSemiAmp,
}

impl Op {
    fn as_str(self) -> &'static str {
        match self {
            Op::Semi => ";",
            Op::Amp => "&",
            Op::AndIf => "&&",
            Op::OrIf => "||",
            Op::Pipe => "|",
            Op::PipeAmp => "|&",
            Op::LParen => "(",
            Op::RParen => ")",
            Op::DSemi => ";;",
            Op::SemiAmp => ";&",
            Op::DSemiAmp => ";;&",
        }
    }
}

#[derive(Debug, Clone)]
enum Tok {
    Word(Word),
    Op(Op),
    Redir(Option<u32>, RedirOp),
    Newline,
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{}`", w.text),
            Tok::Op(op) => format!("`{}`", op.as_str()),
            Tok::Redir(_, op) => format!("`{}`", op.as_str()),
            Tok::Newline => "newline".to_string(),
            Tok::Eof => "end of input".to_string(),
        }
    }
}

/// Where a list of commands ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    RParen,
    RBrace,
    CaseArm,
}

struct PendingHeredoc {
    index: usize,
    delimiter: String,
    strip_tabs: bool,
    expand: bool,
}

#[derive(Default)]
struct WordBuilder {
    text: String,
    quoted: bool,
    literal_prefix: Option<usize>,
    subs: Vec<Script>,
    expansions: Vec<Expansion>,
}

impl WordBuilder {
    /// Marks the end of the plain, unquoted start of the word.
    fn end_literal(&mut self) {
        if self.literal_prefix.is_none() {
            self.literal_prefix = Some(self.text.chars().count());
        }
    }

    fn expands(&mut self, kind: Expansion) {
        if !self.expansions.contains(&kind) {
            self.expansions.push(kind);
        }
    }

    fn mark_quoted(&mut self) {
        self.end_literal();
        self.quoted = true;
    }

    fn finish(self) -> Word {
        let literal_prefix = self
            .literal_prefix
            .unwrap_or_else(|| self.text.chars().count());
        Word {
            text: self.text,
            quoted: self.quoted,
            literal_prefix,
            subs: self.subs,
            expansions: self.expansions,
        }
    }
}

fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

/// A recursive-descent parser that lexes on demand, so a `$(` met inside a word
/// can parse the script up to its `)` with the same machinery.
struct Parser {
    src: Vec<char>,
    pos: usize,
    peeked: Option<(Tok, usize)>,
    pending: Vec<PendingHeredoc>,
    bodies: Vec<Option<Heredoc>>,
    depth: usize,
}

mod glob;
mod lex;
mod syntax;

#[cfg(test)]
mod tests;
