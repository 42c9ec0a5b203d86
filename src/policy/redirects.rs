//! Redirections and other writes that empty a file: `> f`, `: > f`,
//! `tee f`, `cp /dev/null f` destroy what `f` held, so they ask.

use super::command::{Walker, show_word};
use super::shell::{RedirOp, Redirect, Word};
use crate::event::Decision;

impl Walker {
    /// Redirections that write: into system paths or the home folder they
    /// ask (a raw disk is denied); one that empties its file first (`>`,
    /// `>|`, `&>`) asks unless nothing is there yet.
    pub(super) fn redirects(&mut self, redirects: &[Redirect]) {
        for redirect in redirects {
            self.word_subs(&redirect.target);
            if let Some(doc) = &redirect.heredoc {
                for sub in &doc.subs {
                    self.script(sub);
                }
            }
            let target = redirect.target.text.as_str();
            let truncates = match redirect.op {
                RedirOp::Out | RedirOp::Clobber | RedirOp::OutBoth => true,
                // `>&2` duplicates a descriptor; `>& file` writes a file.
                RedirOp::DupOut => !target
                    .trim_end_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit()),
                RedirOp::Append
                | RedirOp::ReadWrite
                | RedirOp::AppendBoth
                | RedirOp::In
                | RedirOp::DupIn
                | RedirOp::HereDoc
                | RedirOp::HereDocStrip
                | RedirOp::HereString => false,
            };
            let writes = truncates
                || matches!(
                    redirect.op,
                    RedirOp::Append | RedirOp::ReadWrite | RedirOp::AppendBoth
                );
            let fd = redirect.fd.map(|n| n.to_string()).unwrap_or_default();
            let op = redirect.op.as_str();
            let shown = format!("{fd}{op} {}", show_word(target));
            if writes {
                self.wrote(&redirect.target);
            }
            if writes && let Some((decision, why)) = super::paths::write_target(target) {
                self.add(decision, format!("`{shown}` {why}"), None);
            }
            if truncates {
                self.truncation(&redirect.target, &format!("`{shown}`"));
            }
        }
    }

    /// `what` (a redirection, `tee f`, `cp /dev/null f`) empties the file
    /// `target` before writing: that asks, unless the target is a device
    /// such as /dev/null, or no file is there yet.
    pub(super) fn truncation(&mut self, target: &Word, what: &str) {
        if let Some(kind) = target.expansions.first() {
            self.add(
                Decision::Ask,
                format!(
                    "{what} empties a file whose name comes from {}, so it cannot be checked",
                    kind.describe()
                ),
                None,
            );
        } else if !super::paths::is_sink(&target.text) {
            let path = self.in_cwd(&target.text);
            self.empties(
                &path,
                format!("{what} empties {} if it exists", show_word(&target.text)),
            );
        }
    }

    /// Remembers that the line writes the file `target`.
    pub(super) fn wrote(&mut self, target: &Word) {
        if !target.is_expanded() {
            self.wrote.push(plain_path(&target.text).to_string());
        }
    }

    /// Asks when `what` runs the file `path`, which the line wrote before.
    pub(super) fn runs_written(&mut self, path: &str, what: &str) {
        if self.wrote.iter().any(|w| w == plain_path(path)) {
            self.add(
                Decision::Ask,
                format!("{what} runs `{path}`, which this line writes first, so what runs cannot be checked"),
                None,
            );
        }
    }
}

/// `./x.sh` and `x.sh` are one file.
fn plain_path(path: &str) -> &str {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    path
}
