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

use crate::agent::{ApprovalRequest, Approver, DENIED_BY_USER};
use crate::event::Decision;
use crate::event::{ApprovalAnswer, Op};
use crate::model::ToolCall;
use crate::policy::Policy;
use crate::protocol::ToolKind;
use crate::session::Session;

/// Approvals answered from the screen.
#[derive(Default)]
pub struct ChannelApprover {
    waiting: Mutex<HashMap<u64, Waiting>>,
    /// The other ends of the waiting requests, until their agents wait on them.
    receivers: Mutex<HashMap<u64, oneshot::Receiver<bool>>>,
    /// Why the person denied a request, until the agent reads it.
    reasons: Mutex<HashMap<u64, String>>,
}

/// A request still waiting for its answer, with the call it asks about.
struct Waiting {
    answer: oneshot::Sender<bool>,
    call: ToolCall,
}

impl ChannelApprover {
    pub fn new() -> Self {
        Self::default()
    }

    /// Completes the request `id`; an unknown or already answered id is ignored.
    pub fn answer(&self, id: u64, allow: bool) {
        let waiting = self.lock().remove(&id);
        if let Some(waiting) = waiting {
            let _ = waiting.answer.send(allow);
        }
    }

    /// Denies the request `id`, with the person's reason for the model.
    pub fn deny_because(&self, id: u64, reason: String) {
        self.reasons
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, reason);
        self.answer(id, false);
    }

    /// Allows every waiting bash call that `policy` now allows by itself: a
    /// rule just given ("allow `rm` for the session") answers the questions
    /// it covers that other agents are already waiting on.
    pub fn answer_covered(&self, policy: &Policy) {
        let covered: Vec<u64> = self
            .lock()
            .iter()
            .filter(|(_, w)| w.call.name == "bash")
            .filter(|(_, w)| {
                policy.check("bash", ToolKind::Exec, &w.call.input).decision == Decision::Allow
            })
            .map(|(id, _)| *id)
            .collect();
        for id in covered {
            self.answer(id, true);
        }
    }

    fn take_receiver(&self, id: u64) -> Option<oneshot::Receiver<bool>> {
        self.receivers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Waiting>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl Approver for ChannelApprover {
    fn expect(&self, request: &ApprovalRequest) {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(
            request.id,
            Waiting {
                answer: tx,
                call: request.call.clone(),
            },
        );
        self.receivers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(request.id, rx);
    }

    async fn approve(&self, request: &ApprovalRequest) -> bool {
        // An agent that did not announce the request first is registered now.
        let receiver = self.take_receiver(request.id).or_else(|| {
            self.expect(request);
            self.take_receiver(request.id)
        });
        let Some(rx) = receiver else {
            return false;
        };
        // A dropped sender (the screen went away) is a denial.
        rx.await.unwrap_or(false)
    }

    fn refusal(&self, request: &ApprovalRequest) -> String {
        let reason = self
            .reasons
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&request.id);
        match reason {
            Some(why) => format!("{DENIED_BY_USER}, who said: {why}"),
            None => DENIED_BY_USER.to_string(),
        }
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
                Idle::Message(text) => text,
                Idle::Quit => break,
                Idle::Terminate => {
                    session.mark_interrupted();
                    break;
                }
            },
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
                    op = ops.recv() => match op {
                        Some(Op::UserMessage(text)) => pending.push_back(text),
                        Some(Op::Approval { id, answer }) => apply_answer(&approver, &policy, id, answer),
                        Some(Op::Interrupt) => turn.cancel(),
                        Some(Op::Quit) | None => {
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
        if quit {
            break;
        }
    }
}

/// What ends a wait while no turn runs.
enum Idle {
    Message(String),
    Quit,
    Terminate,
}

/// Waits for the next message while no turn runs.
async fn next_idle_op(
    ops: &mut mpsc::UnboundedReceiver<Op>,
    approver: &ChannelApprover,
    policy: &Policy,
) -> Idle {
    loop {
        let Some(op) = ops.recv().await else {
            return Idle::Quit;
        };
        match op {
            Op::UserMessage(text) => return Idle::Message(text),
            Op::Approval { id, answer } => apply_answer(approver, policy, id, answer),
            Op::Interrupt => {}
            Op::Quit => return Idle::Quit,
            Op::Terminate => return Idle::Terminate,
        }
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
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::agent::{Hooks, Profile};
    use crate::event::{AgentId, Event, EventKind, TerminalReason};
    use crate::model::scripted::ScriptedModel;
    use crate::session::{SessionOptions, TraceTarget};

    /// A workbench session on `dir` driven by `script`, as the screen runs it.
    struct Running {
        ops: mpsc::UnboundedSender<Op>,
        events: mpsc::UnboundedReceiver<Event>,
        driver: tokio::task::JoinHandle<()>,
        policy: Arc<Policy>,
    }

    fn start(dir: &std::path::Path, script: &serde_json::Value) -> Running {
        let approver = Arc::new(ChannelApprover::new());
        let session = Session::start(SessionOptions {
            workspace: dir.to_path_buf(),
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
            sandbox: Default::default(),
        })
        .unwrap();
        let policy = session.policy().clone();
        let events = session.bus().subscribe();
        let (ops, op_rx) = mpsc::unbounded_channel();
        let driver = tokio::spawn(drive(session, op_rx, approver, CancellationToken::new()));
        Running {
            ops,
            events,
            driver,
            policy,
        }
    }

    async fn quit(ops: mpsc::UnboundedSender<Op>, driver: tokio::task::JoinHandle<()>) {
        ops.send(Op::Quit).unwrap();
        tokio::time::timeout(Duration::from_secs(5), driver)
            .await
            .unwrap()
            .unwrap();
    }

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

    /// A denial with a reason: the model reads the person's words.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_denial_carries_the_reason_the_person_typed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.log"), "x").unwrap();
        let script = json!([
            {"tool_calls": [{"name": "bash", "input": {"command": "rm a.log"}}]},
            {"text": "Kept it."}
        ]);
        let Running {
            ops,
            mut events,
            driver,
            ..
        } = start(dir.path(), &script);
        ops.send(Op::UserMessage("clean up".into())).unwrap();
        let ask = next_matching(&mut events, |e| {
            matches!(e.kind, EventKind::ApprovalRequested { .. })
        })
        .await;
        let EventKind::ApprovalRequested { id, .. } = ask.kind else {
            unreachable!()
        };
        ops.send(Op::Approval {
            id,
            answer: ApprovalAnswer::DenyBecause("the log is evidence".into()),
        })
        .unwrap();
        let result = next_matching(&mut events, |e| {
            matches!(e.kind, EventKind::ToolResult { .. })
        })
        .await;
        let EventKind::ToolResult {
            content, is_error, ..
        } = result.kind
        else {
            unreachable!()
        };
        assert!(is_error);
        assert_eq!(
            content.to_string(),
            "Permission denied by user, who said: the log is evidence"
        );
        assert!(dir.path().join("a.log").exists());
        quit(ops, driver).await;
    }

    /// "Allow `rm` for the session" given to one child answers the same
    /// question another child is already waiting on, and nothing else.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_session_rule_answers_the_waiting_questions_it_covers() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.log", "b.log"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let child = |command: &str| {
            json!([
                {"tool_calls": [{"name": "bash", "input": {"command": command}}]},
                {"text": "done"}
            ])
        };
        let script = json!({"agents": {
            "main": [
                {"tool_calls": [
                    {"name": "task", "input": {"prompt": "a", "description": "a", "subagent_type": "general"}},
                    {"name": "task", "input": {"prompt": "b", "description": "b", "subagent_type": "general"}}
                ]},
                {"text": "Both done."}
            ],
            "sub-1": child("rm a.log"),
            "sub-2": child("rm b.log"),
        }});
        let Running {
            ops,
            mut events,
            driver,
            ..
        } = start(dir.path(), &script);
        ops.send(Op::UserMessage("clean up".into())).unwrap();
        let mut asked = Vec::new();
        while asked.len() < 2 {
            let ask = next_matching(&mut events, |e| {
                matches!(e.kind, EventKind::ApprovalRequested { .. })
            })
            .await;
            if let EventKind::ApprovalRequested { id, .. } = ask.kind {
                asked.push(id);
            }
        }
        ops.send(Op::Approval {
            id: asked[0],
            answer: ApprovalAnswer::AllowPrefix("rm".into()),
        })
        .unwrap();
        // Without the rule's answer the second child waits, and this times out.
        next_matching(&mut events, |e| {
            e.agent == AgentId::Main && matches!(e.kind, EventKind::TurnEnd { .. })
        })
        .await;
        assert!(!dir.path().join("a.log").exists());
        assert!(
            !dir.path().join("b.log").exists(),
            "the waiting question was answered"
        );
        quit(ops, driver).await;
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
        let Running {
            ops,
            mut events,
            driver,
            policy,
        } = start(dir.path(), &script);
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
        quit(ops, driver).await;
    }
}
