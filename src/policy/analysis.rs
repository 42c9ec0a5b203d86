//! What the walk of one command line found, and the verdict it adds up to
//! once the session's approvals have waived what they cover.

use super::Verdict;
use super::prefix::{paths_inside, prefix_covers};
use crate::event::Decision;

/// What, if anything, lets a finding go without asking.
#[derive(Debug, Clone)]
pub(crate) enum Waiver {
    /// A session approval of a prefix of this command (after wrappers).
    Prefix(Vec<String>),
    /// The finding is that the file would be emptied (`> f`); when no file is
    /// there yet, nothing is lost.
    NewFile(String),
    /// The finding is that a file would be replaced (`cp a b`): nothing is
    /// lost when nothing is at the first path (the target), or, the target
    /// being a folder, at any of the others (the target's entries of the same
    /// names).
    Overwrite(Vec<String>),
    /// Nothing: parse failures, expansions, redirections into system paths,
    /// pipes into shells.
    Never,
}

/// One thing the walk found.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub decision: Decision,
    pub reason: String,
    pub waiver: Waiver,
}

/// Everything found in one command line.
#[derive(Debug, Clone, Default)]
pub(crate) struct Analysis {
    pub findings: Vec<Finding>,
    /// The first command the line runs, for [`command_prefix`].
    pub first: Option<Vec<String>>,
    /// Where each `cd`/`pushd`/`popd` of the line goes: the target as
    /// written, or `None` when it has none (home, the stack) or one built from
    /// expansions. Paths after one no longer resolve from the workspace root.
    pub dir_changes: Vec<Option<String>>,
    /// The words of every command the line runs, for the user's rules.
    pub commands: Vec<Vec<String>>,
}

impl Analysis {
    /// The verdict once the session's approved prefixes (each split into words)
    /// have waived the `ask` findings they cover. A `deny` is never waived.
    pub(crate) fn verdict(&self, approved: &[Vec<String>]) -> Verdict {
        self.verdict_within(approved, &|_| true, &|_| false)
    }

    /// Like [`Analysis::verdict`], where a session approval of a prefix waives
    /// a command only while every path it names is one `inside` accepts: "allow
    /// `rm` for the session" after `rm junk.txt` does not let `rm -rf ../x`
    /// run. An argument brood cannot read as a plain path (`~`, `$HOME`, a
    /// backquote) is taken as outside, so that command asks again. A file the
    /// line would empty is no loss when `missing` says nothing is there yet.
    pub(crate) fn verdict_within(
        &self,
        approved: &[Vec<String>],
        inside: &dyn Fn(&str) -> bool,
        missing: &dyn Fn(&str) -> bool,
    ) -> Verdict {
        let mut worst = Decision::Allow;
        let mut reasons: Vec<&str> = Vec::new();
        let mut waived: Vec<String> = Vec::new();
        for finding in &self.findings {
            if finding.decision == Decision::Ask {
                match &finding.waiver {
                    Waiver::Prefix(words) => {
                        if let Some(prefix) = approved.iter().find(|p| prefix_covers(p, words))
                            && paths_inside(prefix, words, inside)
                        {
                            waived.push(prefix.join(" "));
                            continue;
                        }
                    }
                    Waiver::NewFile(path) => {
                        if missing(path) {
                            continue;
                        }
                    }
                    Waiver::Overwrite(paths) => {
                        let (target, inside) = paths
                            .split_first()
                            .map_or((None, &[][..]), |(t, r)| (Some(t), r));
                        // A file at the target makes `target/name` fail with
                        // "not a folder", which is not "missing": it asks.
                        let nothing_lost = target.is_some_and(|t| missing(t))
                            || (!inside.is_empty() && inside.iter().all(|p| missing(p)));
                        if nothing_lost {
                            continue;
                        }
                    }
                    Waiver::Never => {}
                }
            }
            if finding.decision > worst {
                worst = finding.decision;
                reasons.clear();
            }
            if finding.decision == worst && !reasons.contains(&finding.reason.as_str()) {
                reasons.push(&finding.reason);
            }
        }
        let reason = match worst {
            Decision::Allow if waived.is_empty() => "no destructive command found".to_string(),
            Decision::Allow => {
                waived.dedup();
                format!("approved for this session: {}", waived.join(", "))
            }
            Decision::Ask | Decision::Deny => reasons.join("; "),
        };
        Verdict {
            decision: worst,
            reason,
        }
    }
}
