//! `brood replay --print`: a saved session written out the way `brood run`
//! printed it live (the same [`TextPrinter`] fed the same events), or as brood
//! event lines with `--json`. One event is read, written and dropped at a time.

use std::io::{ErrorKind, Write};

use super::source::{Following, Item, SkippedLine, Source};
use super::{ReplayError, SourceFormat};
use crate::printer::TextPrinter;

/// What `--print` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintFormat {
    /// `brood run`'s text.
    Text,
    /// One brood event per line, as in a trace without its header.
    Json,
}

/// How the printing went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrintReport {
    pub events: usize,
    pub skipped: usize,
    pub truncated_tail: bool,
    /// The reader of the output went away (`| head`): printing stopped early,
    /// which is not an error.
    pub closed: bool,
}

/// Bad lines noted one by one; after that they are only counted, so a file of
/// garbage does not flood the terminal.
const MAX_NOTES: usize = 20;

/// Writes every event of `source` to `out` and a note per skipped line (and
/// their count at the end) to `notes`. `out` should be buffered.
pub fn print(
    source: &mut Source,
    format: PrintFormat,
    out: &mut impl Write,
    notes: &mut impl Write,
) -> Result<PrintReport, ReplayError> {
    let mut report = PrintReport::default();
    let mut printer = TextPrinter::new();
    // Re-emitting a brood line as read is exact (the writer made it with the
    // same serializer) and saves serializing each event again.
    let verbatim = source.format() == SourceFormat::Brood;
    let mut text = Vec::new();
    let mut redo = Redo::default();
    for line in source.notes() {
        let _ = writeln!(notes, "brood: {}", crate::text::visible(&line.to_string()));
    }
    while let Some(item) = source.next_item()? {
        let written = match item {
            Item::Event(event) => {
                report.events += 1;
                match format {
                    PrintFormat::Text => {
                        let text = printer.format(&event);
                        // Only a followed session takes events back.
                        let again = match source.following() {
                            Following::Yes => redo.printed_before(&text),
                            Following::No => false,
                        };
                        match again {
                            true => Ok(()),
                            false => out.write_all(text.as_bytes()),
                        }
                    }
                    PrintFormat::Json => {
                        text.clear();
                        match source.raw_line().filter(|_| verbatim) {
                            Some(raw) => crate::text::push_terminal_safe_json(raw, &mut text),
                            None => {
                                let line = serde_json::to_vec(&event)
                                    .map_err(|e| ReplayError::Output(e.into()))?;
                                crate::text::push_terminal_safe_json(&line, &mut text);
                            }
                        }
                        text.push(b'\n');
                        out.write_all(&text)
                    }
                }
            }
            Item::Skipped(bad) => {
                report.skipped += 1;
                note(notes, &bad, report.skipped);
                Ok(())
            }
            Item::Rewind { keep, why } => {
                tracing::info!(keep, "followed session rewound: {why}");
                match format {
                    // Text already printed stays; only what differs is printed.
                    PrintFormat::Text => redo.rewind(keep),
                    // Events come again from `keep`: their `seq` tells.
                    PrintFormat::Json => {
                        let _ = writeln!(notes, "brood: {why} (after event {keep})");
                    }
                }
                Ok(())
            }
        };
        // Followed, each event goes out as it comes: the reader is waiting.
        let written = match (written, source.following()) {
            (Ok(()), Following::Yes) => out.flush(),
            (written, _) => written,
        };
        if let Err(e) = written {
            return match e.kind() {
                ErrorKind::BrokenPipe => Ok(PrintReport {
                    closed: true,
                    ..report
                }),
                _ => Err(ReplayError::Output(e)),
            };
        }
    }
    match out.flush() {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => report.closed = true,
        Err(e) => return Err(ReplayError::Output(e)),
    }
    report.truncated_tail = source.truncated_tail();
    if report.skipped > 0 {
        let lines = if report.skipped == 1 { "line" } else { "lines" };
        let _ = writeln!(notes, "brood: skipped {} bad {lines}", report.skipped);
    }
    Ok(report)
}

/// `brood: skipped line 12: expected value (column 1)`; stderr problems are not
/// worth failing the print for.
fn note(notes: &mut impl Write, bad: &SkippedLine, count: usize) {
    let _ = match count {
        n if n <= MAX_NOTES => {
            let bad = bad.to_string();
            writeln!(notes, "brood: skipped {}", crate::text::visible(&bad))
        }
        n if n == MAX_NOTES + 1 => writeln!(
            notes,
            "brood: more bad lines are skipped without a note; the count follows at the end"
        ),
        _ => Ok(()),
    };
}

/// What `--print` printed for each event of a followed session, so that when
/// the session takes events back and sends them again, the text that is the
/// same as before is not printed twice.
#[derive(Default)]
struct Redo {
    /// A hash of each event's text, in order.
    printed: Vec<u64>,
    /// After a rewind: the texts of the events taken back, oldest first, still
    /// to compare with what comes again.
    taken_back: std::collections::VecDeque<u64>,
}

impl Redo {
    fn rewind(&mut self, keep: usize) {
        let back = self.printed.split_off(keep.min(self.printed.len()));
        self.taken_back = back.into();
    }

    /// Records `text` as printed; whether it was printed already, at this
    /// place, before a rewind.
    fn printed_before(&mut self, text: &str) -> bool {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut hasher);
        let hash = hasher.finish();
        self.printed.push(hash);
        match self.taken_back.pop_front() {
            Some(old) if old == hash => true,
            // Once they differ, everything after is new text.
            Some(_) => {
                self.taken_back.clear();
                false
            }
            None => false,
        }
    }
}
