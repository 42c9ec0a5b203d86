//! The session task behind the workbench: it owns the `Session`, runs one turn
//! at a time, and takes the user's `Op`s — new messages, answers to approval
//! dialogs, interrupts — while a turn runs. Approvals are request/response pairs:
//! the asking agent awaits a oneshot that the dialog's answer completes, so only
//! that agent waits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::agent::{ApprovalRequest, Approver};
use crate::event::{ApprovalAnswer, Op};
use crate::policy::Policy;
use crate::session::Session;

/// Approvals answered from the screen.
#[derive(Default)]
pub struct ChannelApprover {
    waiting: Mutex<HashMap<u64, oneshot::Sender<bool>>>,
}

impl ChannelApprover {
    pub fn new() -> Self {
        Self::default()
    }

    /// Completes the request `id`; an unknown or already answered id is ignored.
    pub fn answer(&self, id: u64, allow: bool) {
        let sender = self.lock().remove(&id);
        if let Some(sender) = sender {
            let _ = sender.send(allow);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<bool>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl Approver for ChannelApprover {
    async fn approve(&self, request: &ApprovalRequest) -> bool {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(request.id, tx);
        // A dropped sender (the screen went away) is a denial.
        rx.await.unwrap_or(false)
    }
}

/// Messages from the screen to the session task.
pub type OpSender = mpsc::UnboundedSender<Op>;

/// Runs the session until `Op::Quit` or the screen goes away. Messages that
/// arrive while a turn runs wait their turn, in order.
pub async fn drive(
    mut session: Session,
    mut ops: mpsc::UnboundedReceiver<Op>,
    approver: Arc<ChannelApprover>,
    shutdown: CancellationToken,
) {
    let policy: Arc<Policy> = session.policy().clone();
    let mut pending: std::collections::VecDeque<String> = Default::default();
    loop {
        let text = match pending.pop_front() {
            Some(text) => text,
            None => match next_idle_op(&mut ops, &approver, &policy).await {
                Some(text) => text,
                None => break,
            },
        };
        let turn = shutdown.child_token();
        let mut quit = false;
        let outcome = {
            let run = session.send(&text, &turn);
            tokio::pin!(run);
            loop {
                tokio::select! {
                    outcome = &mut run => break outcome,
                    op = ops.recv() => match op {
                        Some(Op::UserMessage(text)) => pending.push_back(text),
                        Some(Op::Approval { id, answer }) => apply_answer(&approver, &policy, id, answer),
                        Some(Op::Interrupt) => turn.cancel(),
                        Some(Op::Quit) | None => {
                            quit = true;
                            turn.cancel();
                        }
                    },
                }
            }
        };
        if outcome.reason == crate::event::TerminalReason::Interrupted {
            session.mark_interrupted();
        }
        if quit {
            break;
        }
    }
}

/// Waits for the next message while no turn runs; `None` means quit.
async fn next_idle_op(
    ops: &mut mpsc::UnboundedReceiver<Op>,
    approver: &ChannelApprover,
    policy: &Policy,
) -> Option<String> {
    loop {
        match ops.recv().await? {
            Op::UserMessage(text) => return Some(text),
            Op::Approval { id, answer } => apply_answer(approver, policy, id, answer),
            Op::Interrupt => {}
            Op::Quit => return None,
        }
    }
}

fn apply_answer(approver: &ChannelApprover, policy: &Policy, id: u64, answer: ApprovalAnswer) {
    match answer {
        ApprovalAnswer::AllowOnce => approver.answer(id, true),
        ApprovalAnswer::AllowPrefix(prefix) => {
            policy.allow_prefix(&prefix);
            approver.answer(id, true);
        }
        ApprovalAnswer::Deny => approver.answer(id, false),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::agent::{Hooks, Profile};
    use crate::event::{AgentId, Event, EventKind, TerminalReason};
    use crate::model::scripted::ScriptedModel;
    use crate::session::{SessionOptions, TraceTarget};

    async fn next_matching(
        rx: &mut mpsc::UnboundedReceiver<Event>,
        what: impl Fn(&Event) -> bool,
    ) -> Event {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), rx.recv())
                .await
                .expect("timed out waiting for an event")
                .expect("bus closed");
            if what(&event) {
                return event;
            }
        }
    }

    /// A child waiting for approval holds up only itself: its sibling finishes
    /// meanwhile, and the answer "allow for the session" lets it go on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_the_asking_child_waits_for_the_dialog() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("old.log"), "x").unwrap();
        let script = json!({"agents": {
            "main": [
                {"tool_calls": [
                    {"name": "task", "input": {"prompt": "clean", "description": "clean", "subagent_type": "general"}},
                    {"name": "task", "input": {"prompt": "read", "description": "read", "subagent_type": "general"}}
                ]},
                {"text": "Both done."}
            ],
            "sub-1": [
                {"tool_calls": [{"name": "bash", "input": {"command": "rm old.log"}}]},
                {"text": "Removed."}
            ],
            "sub-2": [
                {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]},
                {"text": "Listed."}
            ]
        }});
        let approver = Arc::new(ChannelApprover::new());
        let session = Session::start(SessionOptions {
            workspace: dir.path().to_path_buf(),
            model: Arc::new(ScriptedModel::from_json(&script.to_string()).unwrap()),
            model_name: "scripted".into(),
            light_model: None,
            profiles: vec![Profile::general(), Profile::explore()],
            max_parallel: 4,
            note: None,
            trace: TraceTarget::Off,
            approver: approver.clone(),
            max_steps: None,
            hooks: Hooks::default(),
        })
        .unwrap();
        let policy = session.policy().clone();
        let mut events = session.bus().subscribe();
        let (ops, op_rx) = mpsc::unbounded_channel();
        let driver = tokio::spawn(drive(session, op_rx, approver, CancellationToken::new()));
        ops.send(Op::UserMessage("clean up".into())).unwrap();

        let ask = next_matching(&mut events, |e| {
            matches!(e.kind, EventKind::ApprovalRequested { .. })
        })
        .await;
        assert_eq!(ask.agent, AgentId::Sub(1));
        let EventKind::ApprovalRequested { id, .. } = ask.kind else {
            unreachable!()
        };
        // While sub-1 waits, sub-2 runs to its end.
        let sibling = next_matching(&mut events, |e| {
            matches!(e.kind, EventKind::SubagentEnd { .. })
        })
        .await;
        assert_eq!(sibling.agent, AgentId::Sub(2));
        assert!(
            dir.path().join("old.log").exists(),
            "nothing ran before the answer"
        );

        ops.send(Op::Approval {
            id,
            answer: ApprovalAnswer::AllowPrefix("rm".into()),
        })
        .unwrap();
        let end = next_matching(&mut events, |e| {
            e.agent == AgentId::Sub(1) && matches!(e.kind, EventKind::SubagentEnd { .. })
        })
        .await;
        assert!(matches!(
            end.kind,
            EventKind::SubagentEnd {
                reason: TerminalReason::Completed,
                ..
            }
        ));
        assert!(!dir.path().join("old.log").exists());
        assert_eq!(policy.allowed_prefixes(), ["rm"]);
        next_matching(&mut events, |e| {
            e.agent == AgentId::Main && matches!(e.kind, EventKind::TurnEnd { .. })
        })
        .await;
        ops.send(Op::Quit).unwrap();
        tokio::time::timeout(Duration::from_secs(5), driver)
            .await
            .unwrap()
            .unwrap();
    }
}
