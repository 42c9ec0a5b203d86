//! The process's heap: mimalloc, with transparent huge pages only for the
//! command that reads a whole session at once and ends.
//!
//! Reading a big session allocates tens of megabytes in a few milliseconds,
//! on two threads. In 4 KiB pages that is thousands of page faults, and the
//! two threads' faults wait on each other in the kernel; mimalloc asks for
//! huge pages (`madvise`), which takes them to a few hundred: `replay --print`
//! of the bench session went from 22.4 to 18.7 ms (glibc's allocator, tuned
//! to use huge pages, did the same; it can only be tuned before the process
//! starts). A huge page is held whole, though, so a process that lives on
//! (the workbench, a replay in it, `brood watch` following a session as it
//! grows) refuses them: there, memory is held to 2x the session file
//! (`benches/follow_latency.sh memory`: following an 85 MB session of bare
//! calls peaked at 173 MB with huge pages, 149 MB without them and with freed
//! memory given back at once).

use crate::cli::Verb;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Whether the heap may be backed by huge pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HugePages {
    Wanted,
    Refused,
}

impl HugePages {
    /// Huge pages for `brood replay --print` (or `--json`), which reads a
    /// session whole, writes it out and ends; none for everything else,
    /// the workbench playing a replay included: it lives on with the whole
    /// session in memory, which is held to 2x the file
    /// (`benches/large_trace.sh`: 201 MB for a 105 MB trace with huge pages,
    /// 164 MB without).
    pub fn for_command(command: Option<&Verb>) -> HugePages {
        match command {
            Some(Verb::Replay(args)) if args.print || args.json => HugePages::Wanted,
            None
            | Some(Verb::Replay(_))
            | Some(
                Verb::Run(_)
                | Verb::Demo(_)
                | Verb::Tool { .. }
                | Verb::CheckCommand { .. }
                | Verb::Export(_)
                | Verb::Traces(_)
                | Verb::Watch(_)
                | Verb::Agents { .. }
                | Verb::Mcp { .. },
            ) => HugePages::Refused,
        }
    }
}

/// Backs the rest of the process's heap as `huge` says. Refusing cannot
/// fail in a way that matters: a kernel without the setting has no huge
/// pages to refuse.
///
/// A process that refuses them lives on, so it also gives memory it frees
/// back at once, not a second later (mimalloc's default): following a
/// session that grows to 100 MB by bare calls peaked at 194 MB with the
/// delay and 172 MB without (`GROW_MB=80 benches/follow_latency.sh memory`).
pub fn back(huge: HugePages) {
    match huge {
        HugePages::Wanted => {}
        HugePages::Refused => {
            refuse_huge_pages();
            // SAFETY: sets one of mimalloc's options, which it reads when
            // it next decides to give memory back.
            unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) };
        }
    }
}

/// mimalloc's `mi_option_purge_delay` (`include/mimalloc.h`), which the
/// bindings do not name: the option before `mi_option_use_numa_nodes`. A
/// test holds it to the option's default.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = libmimalloc_sys::mi_option_use_numa_nodes - 1;

/// Refuses huge pages for brood's heap; the commands it starts get them
/// back ([`brood::huge_pages`]).
fn refuse_huge_pages() {
    if let Err(e) = brood::huge_pages::refuse() {
        tracing::debug!("huge pages not refused: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn huge_pages(args: &[&str]) -> HugePages {
        let cli = crate::cli::Cli::try_parse_from(args).unwrap();
        HugePages::for_command(cli.command.as_ref())
    }

    #[test]
    fn only_a_replay_written_out_whole_wants_huge_pages() {
        assert_eq!(
            huge_pages(&["brood", "replay", "s.jsonl", "--print"]),
            HugePages::Wanted
        );
        assert_eq!(
            huge_pages(&["brood", "replay", "s.jsonl", "--json"]),
            HugePages::Wanted
        );
        // What lives on with a session in memory is held to a bound on it.
        assert_eq!(
            huge_pages(&["brood", "replay", "s.jsonl"]),
            HugePages::Refused
        );
        assert_eq!(huge_pages(&["brood", "watch"]), HugePages::Refused);
        assert_eq!(huge_pages(&["brood"]), HugePages::Refused);
    }

    #[test]
    fn the_purge_delay_is_the_option_named_so() {
        // SAFETY: reads one of mimalloc's options.
        let delay = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        // Its default, 1000 ms, which no option beside it has.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(delay, 1000);
        }
    }
}
