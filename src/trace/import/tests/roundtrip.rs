//! Imported events applied to the workbench's reducer give the screen a person
//! would expect: children with their outcome, task cells with their answers.

use super::*;
use crate::event::TerminalReason;
use crate::protocol::SessionInfo;
use crate::tui::state::{CallStatus, ChildStatus, EntryKind, State, TaskCell};

fn replay(imported: &Imported) -> State {
    let mut state = State::new(SessionInfo::default());
    for event in &imported.events {
        state.apply(event);
    }
    state
}

fn tasks(state: &State) -> Vec<&TaskCell> {
    state
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Task(t) => Some(t),
            _ => None,
        })
        .collect()
}

#[test]
fn a_claude_code_session_replays_with_finished_children_and_answered_tasks() {
    let state = replay(&import(&data(SESSION)).unwrap());
    assert!(!state.busy(), "nothing may look like it still runs");
    let children: Vec<_> = state
        .children
        .iter()
        .map(|c| (c.id, c.status, c.profile.as_str(), c.steps, c.live.len()))
        .collect();
    assert_eq!(
        children,
        [
            (AgentId::Sub(1), ChildStatus::Done, "Explore", 3, 3),
            (AgentId::Sub(2), ChildStatus::Done, "general-purpose", 2, 1),
        ]
    );
    let tasks = tasks(&state);
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0].child, Some(AgentId::Sub(1)));
    assert_eq!(tasks[1].child, Some(AgentId::Sub(2)));
    for task in &tasks {
        assert_eq!(task.status, CallStatus::Done);
        assert_eq!(task.reason, Some(TerminalReason::Completed));
        let summary = task.summary.as_deref().unwrap_or_default();
        assert!(
            !summary.is_empty() && !summary.contains("agentId"),
            "{summary}"
        );
    }
    assert!(
        tasks[0]
            .summary
            .as_deref()
            .unwrap_or_default()
            .starts_with("Authentication entry points")
    );
    assert!(
        tasks[1]
            .summary
            .as_deref()
            .unwrap_or_default()
            .starts_with("Refresh happens")
    );
    assert!(
        state.kept_out_tokens > 0,
        "children's tokens never entered main's context"
    );
}

#[test]
fn an_interrupted_inline_subagent_replays_as_failed() {
    let state = replay(&import(&data(INLINE)).unwrap());
    let statuses: Vec<_> = state
        .children
        .iter()
        .map(|c| (c.status, c.reason))
        .collect();
    assert_eq!(
        statuses,
        [
            (ChildStatus::Done, Some(TerminalReason::Completed)),
            (ChildStatus::Failed, Some(TerminalReason::Interrupted)),
        ]
    );
    let tasks = tasks(&state);
    assert_eq!(tasks[1].status, CallStatus::Failed);
    assert_eq!(tasks[1].reason, Some(TerminalReason::Interrupted));
}

#[test]
fn a_mycodeagent_trace_replays_with_its_failed_child() {
    let state = replay(&import(&data(MCA)).unwrap());
    assert!(!state.busy());
    let children: Vec<_> = state
        .children
        .iter()
        .map(|c| (c.id, c.status, c.model.as_str()))
        .collect();
    assert_eq!(
        children,
        [
            (AgentId::Sub(1), ChildStatus::Done, "light"),
            (AgentId::Sub(2), ChildStatus::Failed, "main")
        ]
    );
    let tasks = tasks(&state);
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0].status, CallStatus::Done);
    assert!(
        tasks[0]
            .summary
            .as_deref()
            .unwrap_or_default()
            .starts_with("DATABASE_URL is read")
    );
    assert_eq!(tasks[1].status, CallStatus::Failed);
    assert_eq!(tasks[1].reason, Some(TerminalReason::ModelError));
    assert!(
        tasks[1]
            .summary
            .as_deref()
            .unwrap_or_default()
            .contains("timed out")
    );
    // The missing trace is told in the child's transcript.
    let sub2 = state.child(AgentId::Sub(2)).unwrap();
    assert!(
        sub2.transcript.iter().any(
            |t| matches!(t, crate::tui::state::TranscriptItem::Note(n) if n.contains("not found"))
        ),
        "{:?}",
        sub2.transcript
    );
}
