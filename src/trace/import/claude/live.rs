//! A Claude Code session read as it is written (`brood watch`): the session
//! file and each subagent transcript are fed only the lines they gained, so a
//! look at a 40 MB session costs what was appended, not the whole file again.
//!
//! A snapshot works on copies of the conversations read so far and assembles
//! them as a whole import does (children linked, lanes merged). A rewind
//! changes which lines are abandoned: then the session file is read again
//! from its start with the new branches, which is rare.

use std::path::{Path, PathBuf};

use super::super::lines::{JsonLines, Reading};
use super::super::live::{Ending, Grew, Live, Signature, Start};
use super::super::{ImportError, Imported, Report, SharedEvent};
use super::children::ChildFiles;
use super::rewind::{Abandoned, Tree};
use super::wire::Line;
use super::{Children, SessionReader, assemble};

/// A Claude Code session followed as it grows.
pub struct ClaudeLive {
    path: PathBuf,
    signature: Signature,
    lines: JsonLines,
    tree: Tree,
    reader: SessionReader,
    /// Bad lines of the session file.
    report: Report,
    files: ChildFiles,
    /// Started on the first lines only: the first snapshot leaves the
    /// transcripts for the next.
    first_look: bool,
}

impl ClaudeLive {
    /// Starts following `path`, reading what it holds now, or only its
    /// first lines.
    pub fn new(path: &Path, start: Start) -> Result<ClaudeLive, ImportError> {
        let mut live = ClaudeLive {
            path: path.to_path_buf(),
            signature: Signature::default(),
            lines: JsonLines::open(path)?,
            tree: Tree::default(),
            reader: SessionReader::new(path, Abandoned::default()),
            report: Report::default(),
            files: ChildFiles::new(Reading::Growing),
            first_look: matches!(start, Start::Lines(_)),
        };
        match start {
            Start::All => {
                live.read_more()?;
            }
            // The signature stays unset, so the next read reads the rest.
            Start::Lines(n) => {
                if live.feed(Some(n))? {
                    live.reread()?;
                }
            }
        }
        Ok(live)
    }

    /// Feeds the session file's new lines; whether they changed which
    /// branches are abandoned.
    fn feed(&mut self, limit: Option<usize>) -> Result<bool, ImportError> {
        let mut fed = false;
        let mut left = limit.unwrap_or(usize::MAX);
        while left > 0
            && let Some(at) = self.lines.advance(Reading::Growing, &mut self.report)?
        {
            left -= 1;
            match Line::parse(self.lines.text()) {
                Ok(line) => {
                    self.tree.add(&line);
                    self.reader.line(line);
                    fed = true;
                }
                Err(e) => {
                    // A growing file's lines are whole: reading goes on.
                    self.lines.reject(at, &e, &mut self.report);
                }
            }
        }
        Ok(fed && self.tree.abandoned() != *self.reader.abandoned())
    }

    /// Reads the session file again from its start, leaving out the branches
    /// the tree says were abandoned.
    fn reread(&mut self) -> Result<(), ImportError> {
        let abandoned = self.tree.abandoned();
        self.lines = JsonLines::open(&self.path)?;
        self.report = Report::default();
        self.reader = SessionReader::new(&self.path, abandoned);
        let reader = &mut self.reader;
        self.lines
            .each(Reading::Growing, &mut self.report, |text, _| {
                reader.line(Line::parse(text)?);
                Ok(())
            })
    }
}

impl Live for ClaudeLive {
    fn read_more(&mut self) -> Result<Grew, ImportError> {
        let now = Signature::of(&self.path).with_files(self.files.paths());
        if now == self.signature {
            return Ok(Grew::No);
        }
        self.signature = now;
        if self.feed(None)? {
            self.reread()?;
        }
        Ok(Grew::Yes)
    }

    fn snapshot(&mut self, ending: Ending) -> Result<Imported<SharedEvent>, ImportError> {
        let mut read = self.reader.peek().finish(ending);
        read.report.absorb(&self.report);
        let linking = match std::mem::take(&mut self.first_look) {
            true => Children::Later,
            false => Children::Linked,
        };
        assemble(&self.path, read, &mut self.files, ending, linking)
    }
}
