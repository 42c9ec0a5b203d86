//! Approvals answered by a person: each request is a oneshot the asking agent
//! awaits, completed by the answer the screen sends as an `Op`, so only that
//! agent waits. A session rule given meanwhile answers every waiting request it
//! covers.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use tokio::sync::oneshot;

use crate::agent::{ApprovalRequest, Approver, DENIED_BY_USER};
use crate::event::Decision;
use crate::model::ToolCall;
use crate::policy::Policy;
use crate::protocol::ToolKind;

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
