//! One tool call, from the model's request to the result it reads: look-up,
//! schema check, PreToolUse hooks (the policy), the user's approval when asked,
//! the tool itself, PostToolUse hooks. Every failure on the way becomes an error
//! result the model can read and act on; none of them ends the run.

use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::{Agent, ApprovalRequest, ToolOutcome};
use crate::event::{ApprovalAsk, DecidedBy, Decision, EventKind};
use crate::model::ToolCall;
use crate::tools::{ToolContext, ToolError};

impl Agent {
    /// Runs one tool call exactly as the loop does — look-up, schema check,
    /// hooks and policy, approval, the tool — and returns what the model would
    /// read. `brood tool` uses it to show that from the command line.
    pub async fn call_tool(&self, call: &ToolCall, cancel: &CancellationToken) -> ToolOutcome {
        self.execute(call, cancel).await
    }

    pub(super) async fn execute(&self, call: &ToolCall, cancel: &CancellationToken) -> ToolOutcome {
        self.publish(EventKind::ToolCall {
            call_id: call.id.clone(),
            name: call.name.clone(),
            input: call.input.clone().into(),
            summary: self.tools.summarize(&call.name, &call.input).into(),
        });
        let started = Instant::now();
        let mut outcome = self.decide_and_run(call, cancel).await;
        let took = started.elapsed();
        for said in self.hooks.post_tool_use(self.id, call, &outcome).await {
            outcome.content = format!("{}\n\n{said}", outcome.content);
        }
        self.publish(EventKind::ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            is_error: outcome.is_error,
            content: outcome.content.as_str().into(),
            duration_ms: took.as_millis() as u64,
        });
        outcome
    }

    async fn decide_and_run(&self, call: &ToolCall, cancel: &CancellationToken) -> ToolOutcome {
        if cancel.is_cancelled() {
            return error("interrupted before the tool ran");
        }
        if let serde_json::Value::String(raw) = &call.input {
            // Providers hand over arguments they could not parse as the raw text.
            let preview: String = raw.chars().take(200).collect();
            return error(format!(
                "the tool input was not valid JSON, so the tool did not run. It began: {preview:?}. Send the input as one JSON object."
            ));
        }
        if let Err(e) = self.tools.validate(&call.name, &call.input) {
            return error(e.to_string());
        }
        let Some(tool) = self.tools.get(&call.name) else {
            // validate() already rejects unknown tools; this keeps the two honest.
            return error(format!("unknown tool {}", call.name));
        };
        let verdict = self.hooks.pre_tool_use(self.id, call, tool.kind()).await;
        match verdict.decision {
            Decision::Allow => {
                self.permission(call, Decision::Allow, &verdict.reason, DecidedBy::Policy);
            }
            Decision::Deny => {
                self.permission(call, Decision::Deny, &verdict.reason, DecidedBy::Policy);
                return error(format!("Permission denied: {}", verdict.reason));
            }
            Decision::Ask => {
                let request = ApprovalRequest {
                    id: self.next_approval_id(),
                    agent: self.id,
                    call: call.clone(),
                    summary: self.tools.summarize(&call.name, &call.input),
                    reason: verdict.reason.clone(),
                    session_rule: session_rule(call),
                };
                self.approver.expect(&request);
                self.publish(EventKind::ApprovalRequested(Box::new(ApprovalAsk {
                    id: request.id,
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    summary: request.summary.clone(),
                    reason: request.reason.clone(),
                    session_rule: request.session_rule.clone(),
                })));
                let approved = tokio::select! {
                    _ = cancel.cancelled() => return error("interrupted while waiting for approval"),
                    a = self.approver.approve(&request) => a,
                };
                let decision = if approved {
                    Decision::Allow
                } else {
                    Decision::Deny
                };
                self.permission(call, decision, &verdict.reason, DecidedBy::User);
                if !approved {
                    return error(self.approver.refusal(&request));
                }
            }
        }
        let ctx = ToolContext {
            workspace: self.workspace.clone(),
            sandbox: self.sandbox.clone(),
            agent: self.id,
            call_id: call.id.clone(),
            cancel: cancel.child_token(),
        };
        let outcome = match tool.run(call.input.clone(), &ctx).await {
            Ok(content) => ToolOutcome {
                content,
                is_error: false,
            },
            Err(ToolError::Interrupted) => error("interrupted"),
            Err(e) => error(e.to_string()),
        };
        ToolOutcome {
            content: self.bus.redact(outcome.content),
            ..outcome
        }
    }

    fn permission(&self, call: &ToolCall, decision: Decision, reason: &str, by: DecidedBy) {
        self.publish(EventKind::PermissionDecision {
            call_id: call.id.clone(),
            decision,
            reason: reason.to_string(),
            by,
        });
    }
}

fn error(content: impl Into<String>) -> ToolOutcome {
    ToolOutcome {
        content: content.into(),
        is_error: true,
    }
}

/// What "allow for the session" approves for `call`: the command's prefix for
/// `bash` (`git push`), else the tool's name.
fn session_rule(call: &ToolCall) -> String {
    match call
        .input
        .get("command")
        .and_then(serde_json::Value::as_str)
    {
        Some(command) if call.name == "bash" => crate::policy::command_prefix(command),
        _ => call.name.clone(),
    }
}
