//! The file walk glob and grep share: the `ignore` crate's parallel walker with the
//! filters rg and fd use by default (.gitignore, .ignore, git excludes, hidden files
//! skipped), so the agent sees the same files a developer's tools would.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use tokio_util::sync::CancellationToken;

/// A walker over `root` with rg/fd's default filters. `require_git(false)` makes a
/// `.gitignore` count outside a git repository too, which is what people expect
/// of a scratch folder.
pub(super) fn walker(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder.require_git(false);
    builder
}

/// What a parallel walk produced: each thread's state, and how many entries could
/// not be read (permission denied and the like).
pub(super) struct Walked<S> {
    pub states: Vec<S>,
    pub unreadable: usize,
}

/// Walks `builder` on all its threads, calling `visit` for every regular file with
/// that thread's own state (made by `new_state`), so threads never contend while
/// they work; the states are handed back when the walk ends. Stops early when
/// `cancel` fires or `visit` returns `false`.
pub(super) fn walk_files<S, New, Visit>(
    builder: &WalkBuilder,
    cancel: &CancellationToken,
    new_state: New,
    visit: Visit,
) -> Walked<S>
where
    S: Send,
    New: Fn() -> S + Sync,
    Visit: Fn(&mut S, &DirEntry) -> bool + Sync,
{
    let done = Mutex::new(Vec::new());
    let unreadable = AtomicUsize::new(0);
    let mut factory = Factory {
        new_state: &new_state,
        visit: &visit,
        done: &done,
        unreadable: &unreadable,
        cancel,
    };
    builder.build_parallel().visit(&mut factory);
    let states = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Walked {
        states,
        unreadable: unreadable.into_inner(),
    }
}

struct Factory<'s, S, New, Visit> {
    new_state: &'s New,
    visit: &'s Visit,
    done: &'s Mutex<Vec<S>>,
    unreadable: &'s AtomicUsize,
    cancel: &'s CancellationToken,
}

impl<'s, S, New, Visit> ParallelVisitorBuilder<'s> for Factory<'s, S, New, Visit>
where
    S: Send,
    New: Fn() -> S + Sync,
    Visit: Fn(&mut S, &DirEntry) -> bool + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            state: Some((self.new_state)()),
            visit: self.visit,
            done: self.done,
            unreadable: self.unreadable,
            cancel: self.cancel,
        })
    }
}

struct Visitor<'s, S: Send, Visit> {
    /// `Some` until the visitor is dropped and hands it over.
    state: Option<S>,
    visit: &'s Visit,
    done: &'s Mutex<Vec<S>>,
    unreadable: &'s AtomicUsize,
    cancel: &'s CancellationToken,
}

impl<S, Visit> ParallelVisitor for Visitor<'_, S, Visit>
where
    S: Send,
    Visit: Fn(&mut S, &DirEntry) -> bool + Sync,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.cancel.is_cancelled() {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(_) => {
                self.unreadable.fetch_add(1, Ordering::Relaxed);
                return WalkState::Continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return WalkState::Continue;
        }
        let keep_going = match &mut self.state {
            Some(state) => (self.visit)(state, &entry),
            None => true,
        };
        match keep_going {
            true => WalkState::Continue,
            false => WalkState::Quit,
        }
    }
}

impl<S: Send, Visit> Drop for Visitor<'_, S, Visit> {
    fn drop(&mut self) {
        if let Some(state) = self.state.take() {
            self.done
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(state);
        }
    }
}

/// A note for the end of a listing when some entries could not be read.
pub(super) fn unreadable_note(unreadable: usize) -> String {
    match unreadable {
        0 => String::new(),
        1 => "\n(1 path could not be read)".to_string(),
        n => format!("\n({n} paths could not be read)"),
    }
}
