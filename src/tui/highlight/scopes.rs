//! syntect scopes to a handful of colour classes, and the classes to the
//! theme's named colours. Separate so the mapping (the part people tune)
//! reads on its own.

use std::sync::LazyLock;

use ratatui::style::{Color, Style};
use syntect::parsing::Scope;

use crate::tui::theme::Theme;

/// What a token is, as far as its colour goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Keyword,
    Str,
    Comment,
    Constant,
    Function,
    Type,
    /// `storage.type`: a type (`int`, `u8`) in some grammars, a declaration
    /// keyword (`let`, `fn`, `def`) in others; the token's text decides.
    Storage,
    Inserted,
    Deleted,
    Plain,
}

impl Class {
    pub(super) fn style(self, theme: &Theme) -> Style {
        match self {
            Class::Keyword => theme.syntax(Color::Magenta),
            Class::Str | Class::Inserted => theme.syntax(Color::Green),
            Class::Comment => theme.dim(),
            Class::Constant => theme.syntax(Color::LightRed),
            Class::Function => theme.syntax(Color::Blue),
            Class::Type | Class::Storage => theme.syntax(Color::Cyan),
            Class::Deleted => theme.syntax(Color::Red),
            Class::Plain => theme.text(),
        }
    }
}

/// Scope prefixes and their classes, more specific first. Scopes that match
/// nothing (punctuation, `meta.*`, variables) are transparent: the enclosing
/// scope decides, so a string's quotes are green and a comment's `//` is dim.
static RULES: LazyLock<Vec<(Scope, Class)>> = LazyLock::new(|| {
    [
        ("comment", Class::Comment),
        ("string", Class::Str),
        ("constant.numeric", Class::Constant),
        ("constant.language", Class::Constant),
        ("entity.name.function", Class::Function),
        ("support.function", Class::Function),
        ("variable.function", Class::Function),
        ("entity.name.type", Class::Type),
        ("entity.name.class", Class::Type),
        ("entity.name.struct", Class::Type),
        ("entity.name.enum", Class::Type),
        ("entity.name.trait", Class::Type),
        ("entity.name.interface", Class::Type),
        ("entity.name.union", Class::Type),
        ("entity.other.inherited-class", Class::Type),
        ("entity.name.tag", Class::Type),
        ("support.type", Class::Type),
        ("storage.type", Class::Storage),
        ("keyword.operator", Class::Plain),
        ("keyword", Class::Keyword),
        ("storage", Class::Keyword),
        ("markup.inserted", Class::Inserted),
        ("markup.deleted", Class::Deleted),
    ]
    .into_iter()
    .filter_map(|(name, class)| Scope::new(name).ok().map(|scope| (scope, class)))
    .collect()
});

/// Words that grammars scope as `storage.type` but that declare rather than
/// name a type, so they read as keywords.
const DECLARATIONS: &[&str] = &[
    "class",
    "const",
    "def",
    "enum",
    "fn",
    "func",
    "function",
    "impl",
    "interface",
    "lambda",
    "let",
    "mod",
    "module",
    "namespace",
    "static",
    "struct",
    "trait",
    "type",
    "typedef",
    "union",
    "var",
];

/// The class of a token, from the innermost scope that has one.
pub(super) fn classify_token(stack: &[Scope], token: &str) -> Class {
    match classify(stack) {
        Class::Storage if DECLARATIONS.contains(&token.trim()) => Class::Keyword,
        class => class,
    }
}

/// The class of the innermost scope that has one.
fn classify(stack: &[Scope]) -> Class {
    stack
        .iter()
        .rev()
        .find_map(|scope| {
            RULES
                .iter()
                .find(|(prefix, _)| prefix.is_prefix_of(*scope))
                .map(|&(_, class)| class)
        })
        .unwrap_or(Class::Plain)
}
