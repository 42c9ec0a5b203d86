//! What a request costs brood as the history grows: a scripted 500-turn
//! session (each turn a file read and an answer, so 1,000 requests and a
//! history of 2,000 messages at the end), timed and its allocations counted
//! per turn. The scripted model does no work per byte of history, so what
//! grows is brood's own: copying the history into each request, estimating
//! its size, checking tool ids. The target is a flat line: the last 50 turns
//! cost what the first 50 did.
//!
//! Run: `cargo bench --bench history`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use brood::agent::{AutoApprove, Hooks, Profile};
use brood::model::scripted::ScriptedModel;
use brood::session::{Session, SessionOptions, TraceTarget};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Counts allocations and their bytes.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed to the system allocator unchanged; the
// counters are only added to.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's layout, as GlobalAlloc requires.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: as for `dealloc`, and `new_size` is the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const TURNS: usize = 500;
const WINDOW: usize = 50;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let note = "a line of notes about the retry policy and where it lives\n".repeat(40);
    std::fs::write(dir.path().join("notes.txt"), note).unwrap();
    let usage = json!({"input_tokens": 1000, "output_tokens": 50});
    let replies: Vec<_> = (0..TURNS)
        .flat_map(|i| {
            [
                json!({"text": format!("Turn {i}: reading the notes."), "usage": usage,
                    "tool_calls": [{"name": "read_file", "input": {"path": "notes.txt"}}]}),
                json!({"text": format!("Turn {i}: the notes say the policy backs off."),
                    "usage": usage}),
            ]
        })
        .collect();
    let script = json!({"agents": {"main": replies}}).to_string();
    let mut session = Session::start(SessionOptions {
        workspace: dir.path().to_path_buf(),
        model: Arc::new(ScriptedModel::from_json(&script).unwrap()),
        model_name: "scripted".into(),
        light_model: None,
        profiles: vec![Profile::general(), Profile::explore()],
        max_parallel: 4,
        note: None,
        trace: TraceTarget::Off,
        approver: Arc::new(AutoApprove::AllowAll),
        max_steps: None,
        hooks: Hooks::default(),
        sandbox: Default::default(),
        instructions: Default::default(),
        rules: Default::default(),
        command_hooks: Vec::new(),
        mcp: Vec::new(),
        secrets: Vec::new(),
        resume: None,
        prices: Default::default(),
        compact_at: None,
        telemetry: None,
    })
    .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let cancel = CancellationToken::new();
    let mut turns = Vec::with_capacity(TURNS);
    for i in 0..TURNS {
        let (allocs, bytes) = (
            ALLOCATIONS.load(Ordering::Relaxed),
            BYTES.load(Ordering::Relaxed),
        );
        let started = Instant::now();
        runtime.block_on(session.send(&format!("turn {i}: what do the notes say?"), &cancel));
        turns.push((
            started.elapsed().as_secs_f64() * 1e6 / 2.0,
            (ALLOCATIONS.load(Ordering::Relaxed) - allocs) as f64 / 2.0,
            (BYTES.load(Ordering::Relaxed) - bytes) as f64 / 2.0,
        ));
    }
    let mean = |range: &[(f64, f64, f64)]| {
        let n = range.len() as f64;
        (
            range.iter().map(|t| t.0).sum::<f64>() / n,
            range.iter().map(|t| t.1).sum::<f64>() / n,
            range.iter().map(|t| t.2).sum::<f64>() / n,
        )
    };
    let first = mean(&turns[..WINDOW]);
    let last = mean(&turns[TURNS - WINDOW..]);
    println!("history: {TURNS} turns, 2 requests each (a file read, an answer); per request:");
    println!("                 time (µs)  allocations     bytes allocated");
    println!(
        "  turns 1-{WINDOW:<4} {:>10.1} {:>12.0} {:>19.0}",
        first.0, first.1, first.2
    );
    println!(
        "  turns {}-{TURNS} {:>10.1} {:>12.0} {:>19.0}",
        TURNS - WINDOW + 1,
        last.0,
        last.1,
        last.2
    );
    println!(
        "  last / first    {:>9.2}x {:>11.2}x {:>18.2}x   (target: flat, about 1x)",
        last.0 / first.0,
        last.1 / first.1,
        last.2 / first.2
    );
}
