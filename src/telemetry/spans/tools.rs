//! `execute_tool` spans: a call opens one, its permission decision and
//! result finish it; a `task` call's span is where its child's agent span
//! goes.

use super::ids::to_i64;
use super::{Attr, Content, Mapper, Span, SpanKind, Status};
use crate::event::{AgentId, DecidedBy, Decision, Event};

impl Mapper {
    pub(super) fn tool_call(
        &mut self,
        event: &Event,
        at: u64,
        call_id: &str,
        name: &str,
        input: &serde_json::Value,
        summary: &str,
    ) {
        let agent = event.agent;
        let parent = self.agents.get(&agent).map(|a| a.span.id);
        let tool = match name {
            crate::protocol::TASK_TOOL => "task",
            other => other,
        };
        let mut open = self.open(
            format!("execute_tool {tool}"),
            SpanKind::Internal,
            parent,
            event,
            at,
        );
        let kind = match name.starts_with("mcp__") {
            true => "extension",
            false => "function",
        };
        open.attributes.extend([
            ("gen_ai.operation.name", Attr::Str("execute_tool".into())),
            ("gen_ai.tool.name", Attr::Str(name.to_string())),
            ("gen_ai.tool.call.id", Attr::Str(call_id.to_string())),
            ("gen_ai.tool.type", Attr::Str(kind.into())),
        ]);
        if self.content == Content::Captured {
            open.attributes
                .push(("gen_ai.tool.call.arguments", Attr::Str(input.to_string())));
            if !summary.is_empty() {
                open.attributes
                    .push(("brood.tool.summary", Attr::Str(summary.to_string())));
            }
        }
        self.tag(agent, &mut open);
        if name == crate::protocol::TASK_TOOL {
            self.tasks.insert((agent, call_id.to_string()), open.id);
        }
        self.tools.insert((agent, call_id.to_string()), open);
    }

    pub(super) fn permission(
        &mut self,
        agent: AgentId,
        call_id: &str,
        decision: Decision,
        by: DecidedBy,
    ) {
        if let Some(open) = self.tools.get_mut(&(agent, call_id.to_string())) {
            let by = match by {
                DecidedBy::Policy => "policy",
                DecidedBy::User => "user",
            };
            open.attributes.extend([
                ("brood.tool.permission", Attr::Str(decision.to_string())),
                ("brood.tool.permission.by", Attr::Str(by.into())),
            ]);
        }
    }

    /// The call's span, finished; `None` for a result without its call.
    pub(super) fn tool_result(
        &mut self,
        agent: AgentId,
        at: u64,
        call_id: &str,
        is_error: bool,
        content: &str,
        duration_ms: u64,
    ) -> Option<Span> {
        let key = (agent, call_id.to_string());
        let mut open = self.tools.remove(&key)?;
        let denied = matches!(
            open.attr("brood.tool.permission"),
            Some(Attr::Str(d)) if d == "deny"
        );
        let outcome = match (denied, is_error) {
            (true, _) => "denied",
            (false, true) => "error",
            (false, false) => "ok",
        };
        open.attributes.extend([
            ("brood.tool.outcome", Attr::Str(outcome.into())),
            ("brood.tool.duration_ms", Attr::Int(to_i64(duration_ms))),
        ]);
        if is_error {
            open.status = Status::Error(format!("the tool failed ({outcome})"));
            open.attributes
                .push(("error.type", Attr::Str(format!("tool_{outcome}"))));
        }
        if self.content == Content::Captured {
            open.attributes
                .push(("gen_ai.tool.call.result", Attr::Str(content.to_string())));
        }
        self.tasks.remove(&key);
        Some(self.close(open, at))
    }
}
