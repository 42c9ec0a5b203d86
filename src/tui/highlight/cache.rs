//! The cache of highlighted blocks, and resuming a block that grew (while it
//! streams) from the parser state after its last complete line. Separate
//! from the parser: this decides what is parsed, not how.

use std::sync::{Arc, Mutex, PoisonError};

use ratatui::text::Line;
use syntect::parsing::SyntaxReference;

use super::lines::Parser;
use crate::tui::theme::Theme;

/// How many highlighted blocks the cache keeps.
const CACHE_ENTRIES: usize = 32;

/// One highlighted block, with the parser state after its last complete line
/// so a longer version of the same block can resume from there.
struct Entry {
    theme: Theme,
    syntax: &'static SyntaxReference,
    code: String,
    lines: Arc<Vec<Line<'static>>>,
    resume: Resume,
}

/// Where parsing can pick up: after `offset` bytes, i.e. `lines` complete lines.
#[derive(Clone)]
pub(super) struct Resume {
    pub(super) offset: usize,
    pub(super) lines: usize,
    pub(super) parser: Parser,
}

static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

pub(super) fn highlight_cached(
    code: &str,
    syntax: &'static SyntaxReference,
    theme: &Theme,
) -> Arc<Vec<Line<'static>>> {
    let same = |e: &Entry| e.theme == *theme && std::ptr::eq(e.syntax, syntax);
    let start = {
        let cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(hit) = cache.iter().find(|e| same(e) && e.code == code) {
            return Arc::clone(&hit.lines);
        }
        cache
            .iter()
            .filter(|e| {
                same(e)
                    && e.code
                        .get(..e.resume.offset)
                        .is_some_and(|p| code.starts_with(p))
            })
            .max_by_key(|e| e.resume.offset)
            .and_then(|e| Some((e.lines.get(..e.resume.lines)?.to_vec(), e.resume.clone())))
    };
    let (lines, resume) = match start {
        Some((lines, resume)) => highlight_from(code, lines, resume, theme),
        None => {
            let fresh = Resume {
                offset: 0,
                lines: 0,
                parser: Parser::new(syntax),
            };
            highlight_from(code, Vec::new(), fresh, theme)
        }
    };
    let lines = Arc::new(lines);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    // A streaming block's earlier versions are prefixes of this one: drop them.
    cache.retain(|e| !(same(e) && code.starts_with(e.code.as_str())));
    if cache.len() >= CACHE_ENTRIES {
        cache.remove(0);
    }
    let code = code.to_owned();
    cache.push(Entry {
        theme: *theme,
        syntax,
        code,
        lines: Arc::clone(&lines),
        resume,
    });
    lines
}

/// Highlights `code` from `resume.offset` on, appending to `lines` (the lines
/// before it), and returns them with the state after the last complete line.
pub(super) fn highlight_from(
    code: &str,
    mut lines: Vec<Line<'static>>,
    mut resume: Resume,
    theme: &Theme,
) -> (Vec<Line<'static>>, Resume) {
    let complete = code.rfind('\n').map_or(0, |i| i + 1);
    let body = code.get(resume.offset..complete).unwrap_or_default();
    for line in body.split_terminator('\n') {
        lines.push(resume.parser.line(line, theme));
    }
    resume.offset = complete;
    resume.lines = lines.len();
    let tail = code.get(complete..).unwrap_or_default();
    if !tail.is_empty() {
        // The last line may still grow, so its state is not kept.
        lines.push(resume.parser.clone().line(tail, theme));
    }
    (lines, resume)
}
