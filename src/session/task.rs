//! The session task: it owns the `Session`, runs one turn at a time, and takes
//! `Op`s — new messages, answers to approval dialogs, interrupts — while a turn
//! runs. The workbench drives it from the screen, `brood run` with one message;
//! both see the session only through its events.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Session;
use super::approver::ChannelApprover;
use crate::agent::RunOutcome;
use crate::event::{ApprovalAnswer, Op};
use crate::policy::Policy;

/// Messages from the screen to the session task.
pub type OpSender = mpsc::UnboundedSender<Op>;

/// When the session task ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// At `Op::Quit` or `Op::Terminate`, or when every `Op` sender is gone (the
    /// workbench).
    OnQuit,
    /// As soon as no turn runs and no message waits (`brood run`: one prompt).
    WhenIdle,
}

/// What the session task hands back when it ends.
pub struct Driven {
    pub session: Session,
    /// How the last turn ended, if one ran.
    pub last: Option<RunOutcome>,
}

/// Runs the session until `ending`. Messages that arrive while a turn runs
/// wait their turn, in order. `approver` is the one the session's agents ask,
/// when a person answers them through `Op::Approval`; without it approvals are
/// the agents' own business (`brood run` answers them at once).
pub async fn drive(
    mut session: Session,
    mut ops: mpsc::UnboundedReceiver<Op>,
    approver: Option<Arc<ChannelApprover>>,
    shutdown: CancellationToken,
    ending: Ending,
) -> Driven {
    let policy: Arc<Policy> = session.policy().clone();
    let answer = |id, answer| {
        if let Some(approver) = &approver {
            apply_answer(approver, &policy, id, answer);
        }
    };
    let children = session.children();
    let mut pending: VecDeque<Queued> = VecDeque::new();
    let mut last = None;
    loop {
        let queued = match pending.pop_front() {
            Some(queued) => queued,
            None => match next_idle_op(&mut ops, &answer, ending).await {
                Idle::Message(text) => Queued::Message(text),
                Idle::Compact => Queued::Compact,
                Idle::SetModel(slot, name) => Queued::SetModel(slot, name),
                Idle::Quit => break,
                Idle::Terminate => {
                    session.mark_interrupted();
                    break;
                }
            },
        };
        let text = match queued {
            Queued::Message(text) => text,
            Queued::Compact => {
                session.compact(&shutdown.child_token()).await;
                continue;
            }
            Queued::SetModel(slot, name) => {
                session.set_model(slot, name);
                continue;
            }
        };
        let turn = shutdown.child_token();
        let mut quit = false;
        let mut terminated = false;
        let outcome = {
            let run = session.send(&text, &turn);
            tokio::pin!(run);
            loop {
                tokio::select! {
                    outcome = &mut run => break outcome,
                    op = ops.recv(), if !quit => match op {
                        Some(Op::UserMessage(text)) => pending.push_back(Queued::Message(text)),
                        Some(Op::Compact) => pending.push_back(Queued::Compact),
                        // The turn that runs keeps its model; the next takes this.
                        Some(Op::SetModel { slot, name }) => {
                            pending.push_back(Queued::SetModel(slot, name))
                        }
                        Some(Op::Approval { id, answer: given }) => answer(id, given),
                        Some(Op::Interrupt) => turn.cancel(),
                        Some(Op::StopChild(child)) => reach(&children, Reach::Stop(child)),
                        Some(Op::MessageChild { child, text }) => {
                            reach(&children, Reach::Tell(child, text))
                        }
                        Some(Op::Quit) => {
                            quit = true;
                            turn.cancel();
                        }
                        // With nothing more to say, `brood run` lets the turn end.
                        None if ending == Ending::WhenIdle => quit = true,
                        None => {
                            quit = true;
                            turn.cancel();
                        }
                        Some(Op::Terminate) => {
                            quit = true;
                            terminated = true;
                            turn.cancel();
                        }
                    },
                }
            }
        };
        // A turn that finished just as the signal came is still the last
        // thing before an interruption.
        if outcome.reason == crate::event::TerminalReason::Interrupted || terminated {
            session.mark_interrupted();
        }
        last = Some(outcome);
        if quit && (ending == Ending::OnQuit || terminated || pending.is_empty()) {
            break;
        }
    }
    Driven { session, last }
}

/// What waits for the turn that runs to end.
enum Queued {
    Message(String),
    Compact,
    SetModel(crate::event::ModelSlot, String),
}

/// What ends a wait while no turn runs.
enum Idle {
    Message(String),
    Compact,
    SetModel(crate::event::ModelSlot, String),
    Quit,
    Terminate,
}

/// Waits for the next message while no turn runs; under `Ending::WhenIdle`
/// only what is already queued counts.
async fn next_idle_op(
    ops: &mut mpsc::UnboundedReceiver<Op>,
    answer: &impl Fn(u64, ApprovalAnswer),
    ending: Ending,
) -> Idle {
    loop {
        let op = match ending {
            Ending::OnQuit => ops.recv().await,
            Ending::WhenIdle => ops.try_recv().ok(),
        };
        let Some(op) = op else {
            return Idle::Quit;
        };
        match op {
            Op::UserMessage(text) => return Idle::Message(text),
            Op::Compact => return Idle::Compact,
            Op::SetModel { slot, name } => return Idle::SetModel(slot, name),
            Op::Approval { id, answer: given } => answer(id, given),
            // No turn runs, so no child does.
            Op::Interrupt | Op::StopChild(_) | Op::MessageChild { .. } => {}
            Op::Quit => return Idle::Quit,
            Op::Terminate => return Idle::Terminate,
        }
    }
}

/// What the user asks of one running child.
enum Reach {
    Stop(crate::event::AgentId),
    Tell(crate::event::AgentId, String),
}

/// Passes a request on to the child; one that has just ended is past reach,
/// which the screen shows by its end.
fn reach(children: &crate::agent::Launcher, what: Reach) {
    let (child, reached) = match what {
        Reach::Stop(child) => (child, children.stop(child)),
        Reach::Tell(child, text) => (child, children.tell(child, text)),
    };
    if !reached {
        tracing::info!(%child, "not running any more: the request to it was dropped");
    }
}

fn apply_answer(approver: &ChannelApprover, policy: &Policy, id: u64, answer: ApprovalAnswer) {
    match answer {
        ApprovalAnswer::AllowOnce => approver.answer(id, true),
        ApprovalAnswer::AllowPrefix(prefix) => {
            policy.allow_prefix(&prefix);
            approver.answer(id, true);
            approver.answer_covered(policy);
        }
        ApprovalAnswer::Deny => approver.answer(id, false),
        ApprovalAnswer::DenyBecause(reason) => approver.deny_because(id, reason),
    }
}

#[cfg(test)]
#[path = "task_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "child_control_tests.rs"]
mod child_control_tests;
