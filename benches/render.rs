//! How long one frame of a big session takes to draw (target: under 2 ms for a
//! 100,000-line session with 50 children at 200×60).

use std::hint::black_box;

use brood::protocol::SessionInfo;
use brood::tui::state::State;
use brood::tui::theme::{ColorMode, Theme};
use brood::tui::ui::{Focus, Ui};
use brood::tui::view::{ViewCache, render};
use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

#[path = "workload.rs"]
mod workload;

fn big_state() -> State {
    let workload = workload::Workload::new(100_000, 50);
    let mut state = State::new(SessionInfo {
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        context_window: 200_000,
        ..SessionInfo::default()
    });
    for event in &workload.events {
        state.apply(event);
    }
    state
}

fn frames(c: &mut Criterion) {
    let state = big_state();
    let theme = Theme::new(ColorMode::Color);
    let mut group = c.benchmark_group("frame 200x60, 100k lines, 50 children");
    group.sample_size(50);

    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    let mut ui = Ui::new();
    let mut cache = ViewCache::new();
    group.bench_function("following the bottom", |b| {
        b.iter(|| {
            ui.spinner = ui.spinner.wrapping_add(1);
            terminal
                .draw(|f| render(f, black_box(&state), &mut ui, &mut cache, &theme))
                .unwrap();
        })
    });

    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    let mut cache = ViewCache::new();
    let mut up = true;
    group.bench_function("scrolling by pages", |b| {
        b.iter(|| {
            if up {
                ui.conversation.up(40);
            } else {
                ui.conversation.down(40);
            }
            up = !up;
            terminal
                .draw(|f| render(f, black_box(&state), &mut ui, &mut cache, &theme))
                .unwrap();
        })
    });

    let mut ui = Ui::new();
    group.bench_function("first frame, cold cache", |b| {
        b.iter(|| {
            let mut cache = ViewCache::new();
            terminal
                .draw(|f| render(f, black_box(&state), &mut ui, &mut cache, &theme))
                .unwrap();
        })
    });
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
