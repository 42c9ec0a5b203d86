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
