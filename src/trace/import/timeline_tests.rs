//! The merge of lanes, held to the one it replaced, which looked at every
//! lane for every event: the same events in the same order, whatever the
//! lanes, their times, emptied slots and gates (consistent or not).

use proptest::prelude::*;

use super::*;

/// The merge as it was before lanes waiting to start were kept apart: the
/// definition the faster one is held to.
#[allow(clippy::needless_range_loop)]
fn reference_merge(timeline: Timeline) -> Vec<SharedEvent> {
    let t0 = timeline.first_ts().unwrap_or(0);
    let Timeline { mut lanes, waits } = timeline;
    let total: usize = lanes.iter().map(|l| l.buf.events.len()).sum();
    let mut pos = vec![0usize; lanes.len()];
    let mut events = Vec::with_capacity(total);
    let mut last_t = 0u64;
    // The lanes with events left, in lane order (a tie goes to the
    // earlier lane); a lane leaves once nothing but emptied slots is left
    // of it, and is then done. Only those lanes are looked at for each
    // event, so a session's finished children cost nothing afterwards.
    let mut active: Vec<usize> = (0..lanes.len()).collect();
    let mut done = vec![false; lanes.len()];
    // Only a parent's lane has events that wait (its calls' results).
    let mut gated = vec![false; lanes.len()];
    for &(lane, _) in waits.keys() {
        if let Some(g) = gated.get_mut(lane) {
            *g = true;
        }
    }
    loop {
        active.retain(|&i| {
            let slots = &lanes[i].buf.events;
            // Emptied slots are passed over at once.
            while slots.get(pos[i]).is_some_and(Option::is_none) {
                pos[i] += 1;
            }
            let left = pos[i] < slots.len();
            done[i] = !left;
            left
        });
        if active.is_empty() {
            break;
        }
        let mut best: Option<(i64, usize)> = None;
        for &i in &active {
            let lane = &lanes[i];
            let Some(Some(head)) = lane.buf.events.get(pos[i]) else {
                continue;
            };
            let started = lane
                .after
                .is_none_or(|(p, e)| pos.get(p).is_none_or(|&n| n > e));
            let blocked = gated[i]
                && waits.get(&(i, pos[i])).is_some_and(|children| {
                    children
                        .iter()
                        .any(|&c| c != i && !done.get(c).copied().unwrap_or(true))
                });
            if !started || blocked {
                continue;
            }
            let key = head.ts().unwrap_or(i64::MIN);
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, i));
            }
        }
        // Gates can only deadlock on inconsistent links; then time decides.
        let pick = best.map(|(_, i)| i).or_else(|| {
            active
                .iter()
                .filter_map(|&i| match lanes[i].buf.events.get(pos[i]) {
                    Some(Some(p)) => Some((p.ts().unwrap_or(i64::MIN), i)),
                    _ => None,
                })
                .min()
                .map(|(_, i)| i)
        });
        let Some(i) = pick else { break };
        emit(&mut lanes[i], pos[i], t0, &mut last_t, &mut events);
        pos[i] += 1;
    }
    events
}

/// A timeline to merge: per lane, its events (a time, or an emptied slot)
/// and the (lane, event) it starts after; the (lane, event, child) gates of
/// results on children.
#[derive(Debug, Clone)]
struct Spec {
    lanes: Vec<(Vec<Slot>, Option<Gate>)>,
    waits: Vec<(usize, usize, usize)>,
}

/// An event at a time, if known, or a slot emptied (`None`).
type Slot = Option<Option<i64>>;

/// A lane and one of its events.
type Gate = (usize, usize);

fn spec() -> impl Strategy<Value = Spec> {
    let event = prop_oneof![
        3 => prop::option::of(0i64..6).prop_map(Some),
        1 => Just(None),
    ];
    let lane = (
        prop::collection::vec(event, 0..7),
        prop::option::of((0usize..7, 0usize..8)),
    );
    (
        prop::collection::vec(lane, 1..6),
        prop::collection::vec((0usize..6, 0usize..8, 0usize..6), 0..6),
    )
        .prop_map(|(lanes, waits)| Spec { lanes, waits })
}

fn timeline(spec: &Spec) -> Timeline {
    let mut timeline = Timeline::default();
    for (n, (events, after)) in spec.lanes.iter().enumerate() {
        let agent = match n {
            0 => AgentId::Main,
            n => AgentId::Sub(n as u32),
        };
        let lane = timeline.add_lane(agent);
        let events = events
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                slot.map(|ts| {
                    Pending::new(
                        ts,
                        EventKind::TextDelta {
                            text: format!("{n}.{i}"),
                        },
                    )
                })
            })
            .collect();
        timeline.fill(lane, LaneBuf { events });
        if let Some((parent, event)) = *after
            && n > 0
        {
            timeline.start_after(lane, parent, event);
        }
    }
    for &(parent, event, child) in &spec.waits {
        timeline.end_before(child, parent, event);
    }
    timeline
}

proptest! {
    #[test]
    fn lanes_merge_as_the_merge_that_looked_at_every_lane(spec in spec()) {
        let want = reference_merge(timeline(&spec));
        let got = timeline(&spec).merge();
        prop_assert_eq!(got, want);
    }
}
