//! What every import that succeeds guarantees, whatever the format: the
//! stream is numbered from 1 without gaps and its clock never goes back
//! (`timeline::merge`), and each child lane (`AgentId::Sub`) is one
//! `subagent_start`, the child's events, one `subagent_end`, started by the
//! session or by a child numbered before it. The importers build each child's
//! lane so (the start put in front, the end pushed last) and merge lanes in
//! their own order, so any other shape is a bug.

use std::collections::BTreeMap;

use brood::event::{AgentId, Event, EventKind};
use brood::trace::import::Imported;

pub fn assert_well_formed(imported: &Imported) {
    let events = &imported.events;
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1, "seq of event {i}: {e:?}");
    }
    for pair in events.windows(2) {
        assert!(pair[0].t_ms <= pair[1].t_ms, "t_ms goes back: {pair:?}");
    }
    let mut lanes: BTreeMap<u32, Vec<&Event>> = BTreeMap::new();
    for e in events {
        match e.agent {
            AgentId::Main => assert!(
                !is_start(e) && !is_end(e),
                "the session's lane holds a child's start or end: {e:?}"
            ),
            AgentId::Sub(n) => lanes.entry(n).or_default().push(e),
        }
    }
    for (n, lane) in &lanes {
        let kinds: Vec<&str> = lane.iter().map(|e| e.kind.wire_name()).collect();
        assert!(
            is_start(lane[0]),
            "sub-{n} does not begin with its start: {kinds:?}"
        );
        assert!(
            is_end(lane[lane.len() - 1]),
            "sub-{n} does not finish with its end: {kinds:?}"
        );
        assert_eq!(
            lane.iter().filter(|e| is_start(e)).count(),
            1,
            "sub-{n} starts more than once: {kinds:?}"
        );
        assert_eq!(
            lane.iter().filter(|e| is_end(e)).count(),
            1,
            "sub-{n} ends more than once: {kinds:?}"
        );
        if let EventKind::SubagentStart(start) = &lane[0].kind {
            match &start.parent {
                AgentId::Main => {}
                AgentId::Sub(p) => assert!(p < n, "sub-{n} names sub-{p} as its parent"),
            }
        }
    }
}

fn is_start(e: &Event) -> bool {
    matches!(e.kind, EventKind::SubagentStart(_))
}

fn is_end(e: &Event) -> bool {
    matches!(e.kind, EventKind::SubagentEnd { .. })
}
