//! How fast the TUI's reducer applies events (target: at least 1,000,000 a
//! second on the 2-core machine).

use std::hint::black_box;

use brood::protocol::SessionInfo;
use brood::tui::state::State;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[path = "workload.rs"]
mod workload;

fn reducer(c: &mut Criterion) {
    let workload = workload::Workload::new(100_000, 50);
    let mut group = c.benchmark_group("reducer");
    group.throughput(Throughput::Elements(workload.events.len() as u64));
    group.sample_size(10);
    group.bench_function("apply 100k-line session with 50 children", |b| {
        b.iter(|| {
            let mut state = State::new(SessionInfo::default());
            for event in &workload.events {
                state.apply(black_box(event));
            }
            black_box(state.entries.len())
        })
    });
    group.finish();
}

criterion_group!(benches, reducer);
criterion_main!(benches);
