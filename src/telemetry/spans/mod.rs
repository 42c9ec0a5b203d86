//! brood's events as OpenTelemetry GenAI spans, one event at a time.
//!
//! The same mapping serves a live session (each event as the bus publishes
//! it) and a saved one (a trace or an imported Claude Code or Codex session
//! read back), so both give the same tree:
//!
//! - `invoke_agent brood`: one per turn of the parent, from its prompt to its
//!   `turn_end`; `invoke_agent PROFILE`: one per child, from `subagent_start`
//!   to `subagent_end`, under the parent's `execute_tool task` span;
//! - `chat MODEL`: one per model request, from `model_request` to its
//!   `assistant_message` (or the error that ended it), with the usage;
//! - `execute_tool NAME`: one per call, from `tool_call` to `tool_result`,
//!   with the permission decision and the outcome.
//!
//! Every span carries `gen_ai.conversation.id` (the session) and the agent's
//! id and name. Ids are derived from the session and the event that opened
//! the span, so exporting the same session twice gives the same ids. What
//! the model and the user wrote (messages, tool arguments and results,
//! a child's task) is left out unless [`Content::Captured`].

use std::collections::HashMap;

use serde_json::json;

mod ids;
mod tools;

use ids::{bump, span_id, to_i64, trace_id, usage_attrs};

use crate::event::{AgentId, Event, EventKind, SubagentStart, TerminalReason, Usage};
use crate::protocol::PriceTable;

/// One finished span, in brood's words; `otlp.rs` turns it into the SDK's.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub parent: Option<[u8; 8]>,
    pub name: String,
    pub kind: SpanKind,
    /// Milliseconds since the Unix epoch.
    pub start_ms: u64,
    pub end_ms: u64,
    pub attributes: Vec<(&'static str, Attr)>,
    pub status: Status,
}

impl Span {
    /// The value of attribute `key`, if set.
    pub fn attr(&self, key: &str) -> Option<&Attr> {
        find_attr(&self.attributes, key)
    }
}

/// The value of `key` among `attributes`, if set.
fn find_attr<'a>(attributes: &'a [(&'static str, Attr)], key: &str) -> Option<&'a Attr> {
    attributes.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Strs(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// Work inside brood: an agent's run, a tool call.
    Internal,
    /// A request to the model's server.
    Client,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Unset,
    Error(String),
}

/// Whether message content goes into spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    Omitted,
    Captured,
}

/// What every span of a session shares.
#[derive(Debug, Clone)]
pub struct SessionMeta {
    pub session: String,
    /// `anthropic`, `openai`…: `gen_ai.provider.name`.
    pub provider: String,
    pub model: String,
    /// When the session's clock (`t_ms` 0) started, in ms since the epoch.
    pub started_ms: u64,
    /// The parent agent's name: `brood`, or the tool an imported session
    /// was recorded by (`claude-code`, `codex`).
    pub agent: String,
}

/// A span still open: what it will be once it ends.
#[derive(Debug, Clone)]
struct Open {
    id: [u8; 8],
    parent: Option<[u8; 8]>,
    name: String,
    kind: SpanKind,
    start_ms: u64,
    attributes: Vec<(&'static str, Attr)>,
    status: Status,
}

/// An agent's open `invoke_agent` span and what it adds up.
#[derive(Debug, Clone)]
struct Agent {
    span: Open,
    usage: Usage,
    cost: f64,
    steps: u32,
}

/// Turns events into finished spans.
pub struct Mapper {
    meta: SessionMeta,
    content: Content,
    prices: PriceTable,
    trace_id: [u8; 16],
    agents: HashMap<AgentId, Agent>,
    chats: HashMap<AgentId, (Open, String)>,
    tools: HashMap<(AgentId, String), Open>,
    /// Each task call's span, by the calling agent and call id: where its
    /// child's `invoke_agent` goes.
    tasks: HashMap<(AgentId, String), [u8; 8]>,
    last_ms: u64,
}

impl Mapper {
    pub fn new(meta: SessionMeta, content: Content, prices: PriceTable) -> Mapper {
        let trace_id = trace_id(&meta.session);
        let last_ms = meta.started_ms;
        Mapper {
            meta,
            content,
            prices,
            trace_id,
            agents: HashMap::new(),
            chats: HashMap::new(),
            tools: HashMap::new(),
            tasks: HashMap::new(),
            last_ms,
        }
    }

    /// Takes one event; spans it ends go to `done`.
    pub fn event(&mut self, event: &Event, done: &mut Vec<Span>) {
        let at = self.meta.started_ms.saturating_add(event.t_ms);
        self.last_ms = self.last_ms.max(at);
        let agent = event.agent;
        match &event.kind {
            EventKind::UserMessage { text } => {
                if agent == AgentId::Main && !self.agents.contains_key(&agent) {
                    let name = self.meta.agent.clone();
                    self.open_agent(agent, &name, event, at, None);
                }
                self.content_attr(
                    agent,
                    "gen_ai.input.messages",
                    || json!([{"role": "user", "parts": [{"type": "text", "content": text}]}]),
                );
            }
            EventKind::ModelRequest { step, model, .. } => {
                self.ensure_main(event, at);
                if let Some((open, _)) = self.chats.remove(&agent) {
                    done.push(self.close(open, at));
                }
                let parent = self.agents.get(&agent).map(|a| a.span.id);
                let mut open =
                    self.open(format!("chat {model}"), SpanKind::Client, parent, event, at);
                open.attributes.extend([
                    ("gen_ai.operation.name", Attr::Str("chat".into())),
                    ("gen_ai.request.model", Attr::Str(model.clone())),
                    ("brood.step", Attr::Int(i64::from(*step))),
                ]);
                self.tag(agent, &mut open);
                if let Some(a) = self.agents.get_mut(&agent) {
                    a.steps = a.steps.max(*step);
                }
                self.chats.insert(agent, (open, model.clone()));
            }
            EventKind::AssistantMessage {
                text,
                usage,
                stop_reason,
                ..
            } => {
                let Some((mut open, model)) = self.chats.remove(&agent) else {
                    return;
                };
                usage_attrs(&mut open.attributes, usage);
                open.attributes.push((
                    "gen_ai.response.finish_reasons",
                    Attr::Strs(vec![stop_reason.clone()]),
                ));
                let cost = self.prices.cost(&model, usage);
                if let Some(cost) = cost {
                    open.attributes.push(("brood.cost.usd", Attr::Float(cost)));
                }
                if self.content == Content::Captured {
                    let out = json!([{"role": "assistant", "parts": [{"type": "text", "content": text}], "finish_reason": stop_reason}]);
                    open.attributes
                        .push(("gen_ai.output.messages", Attr::Str(out.to_string())));
                }
                if let Some(a) = self.agents.get_mut(&agent) {
                    a.usage.add(usage);
                    a.cost += cost.unwrap_or(0.0);
                }
                done.push(self.close(open, at));
            }
            EventKind::Error { message } => {
                if let Some((mut open, _)) = self.chats.remove(&agent) {
                    open.status = Status::Error(message.clone());
                    open.attributes
                        .push(("error.type", Attr::Str("model_error".into())));
                    done.push(self.close(open, at));
                }
            }
            EventKind::Retry { .. } => {
                if let Some((open, _)) = self.chats.get_mut(&agent) {
                    bump(&mut open.attributes, "brood.retries");
                }
            }
            EventKind::ToolCall {
                call_id,
                name,
                input,
                summary,
            } => {
                self.ensure_main(event, at);
                self.tool_call(event, at, call_id, name, input, summary);
            }
            EventKind::ApprovalRequested(ask) => {
                if let Some(open) = self.tools.get_mut(&(agent, ask.call_id.clone())) {
                    open.attributes
                        .push(("brood.tool.approval_asked", Attr::Bool(true)));
                }
            }
            EventKind::PermissionDecision {
                call_id,
                decision,
                by,
                ..
            } => self.permission(agent, call_id, *decision, *by),
            EventKind::ToolResult {
                call_id,
                is_error,
                content,
                duration_ms,
                ..
            } => {
                if let Some(span) =
                    self.tool_result(agent, at, call_id, *is_error, content, *duration_ms)
                {
                    done.push(span);
                }
            }
            EventKind::SubagentStart(start) => self.child_started(agent, start, event, at),
            EventKind::SubagentEnd {
                reason,
                summary,
                steps,
                usage,
                ..
            } => {
                if let Some(mut a) = self.agents.remove(&agent) {
                    a.steps = a.steps.max(*steps);
                    a.usage = *usage;
                    if self.content == Content::Captured {
                        let out = json!([{"role": "assistant", "parts": [{"type": "text", "content": summary}]}]);
                        a.span
                            .attributes
                            .push(("gen_ai.output.messages", Attr::Str(out.to_string())));
                    }
                    done.extend(self.close_agent(agent, a, *reason, at));
                }
            }
            EventKind::TurnEnd {
                reason,
                steps,
                usage,
            } if agent == AgentId::Main => {
                if let Some(mut a) = self.agents.remove(&agent) {
                    a.steps = a.steps.max(*steps);
                    a.usage = *usage;
                    done.extend(self.close_agent(agent, a, *reason, at));
                }
            }
            EventKind::Compacted { usage, .. } => {
                if let Some(a) = self.agents.get_mut(&agent) {
                    a.usage.add(usage);
                }
            }
            EventKind::TurnEnd { .. }
            | EventKind::PromptContext { .. }
            | EventKind::Resumed { .. }
            | EventKind::TextDelta { .. }
            | EventKind::ThinkingDelta { .. }
            | EventKind::Thinking { .. }
            | EventKind::HookContinue { .. }
            | EventKind::Steer { .. }
            | EventKind::HookRun { .. }
            | EventKind::McpServerDown { .. }
            | EventKind::Interrupted {}
            | EventKind::ModelChanged { .. } => {}
        }
    }

    /// Ends every span still open at the last event's time, as failed: the
    /// session stopped (or its file ends) before they did.
    pub fn finish(&mut self, done: &mut Vec<Span>) {
        let at = self.last_ms;
        let why = "the session ended before this did";
        let tools: Vec<_> = self.tools.drain().map(|(_, open)| open).collect();
        for mut open in tools {
            open.status = Status::Error(why.into());
            done.push(self.close(open, at));
        }
        let chats: Vec<_> = self.chats.drain().map(|(_, (open, _))| open).collect();
        for mut open in chats {
            open.status = Status::Error(why.into());
            done.push(self.close(open, at));
        }
        let mut agents: Vec<_> = self.agents.drain().collect();
        // Children before the parent, as they would have ended.
        agents.sort_by_key(|(id, _)| std::cmp::Reverse(*id));
        for (id, a) in agents {
            done.extend(self.close_agent(id, a, TerminalReason::Interrupted, at));
        }
    }

    /// The parent's agent span, opened by its first step when the session
    /// (an import, a resume) has no prompt before it.
    fn ensure_main(&mut self, event: &Event, at: u64) {
        if event.agent == AgentId::Main && !self.agents.contains_key(&AgentId::Main) {
            let name = self.meta.agent.clone();
            self.open_agent(AgentId::Main, &name, event, at, None);
        }
    }

    /// A child's `invoke_agent` span, opened under the parent's `task` call.
    fn child_started(&mut self, agent: AgentId, start: &SubagentStart, event: &Event, at: u64) {
        let under = self
            .tasks
            .get(&(start.parent, start.parent_call_id.clone()))
            .copied()
            .or_else(|| self.agents.get(&start.parent).map(|a| a.span.id));
        self.open_agent(agent, &start.profile, event, at, under);
        let Some(a) = self.agents.get_mut(&agent) else {
            return;
        };
        let attrs = &mut a.span.attributes;
        attrs.push(("gen_ai.request.model", Attr::Str(start.model_name.clone())));
        attrs.push((
            "brood.parent.call_id",
            Attr::Str(start.parent_call_id.clone()),
        ));
        for (key, limit) in [
            ("brood.budget.max_steps", start.max_steps.map(u64::from)),
            ("brood.budget.tokens", start.token_budget),
            ("brood.budget.context", start.context_budget),
        ] {
            if let Some(limit) = limit {
                attrs.push((key, Attr::Int(to_i64(limit))));
            }
        }
        if self.content == Content::Captured {
            attrs.push((
                "gen_ai.agent.description",
                Attr::Str(start.description.clone()),
            ));
            let input =
                json!([{"role": "user", "parts": [{"type": "text", "content": start.prompt}]}]);
            attrs.push(("gen_ai.input.messages", Attr::Str(input.to_string())));
        }
    }

    fn open_agent(
        &mut self,
        agent: AgentId,
        name: &str,
        event: &Event,
        at: u64,
        parent: Option<[u8; 8]>,
    ) {
        let mut span = self.open(
            format!("invoke_agent {name}"),
            SpanKind::Internal,
            parent,
            event,
            at,
        );
        span.attributes.extend([
            ("gen_ai.operation.name", Attr::Str("invoke_agent".into())),
            ("gen_ai.agent.name", Attr::Str(name.into())),
        ]);
        if agent == AgentId::Main {
            span.attributes
                .push(("gen_ai.request.model", Attr::Str(self.meta.model.clone())));
        }
        self.tag(agent, &mut span);
        self.agents.insert(
            agent,
            Agent {
                span,
                usage: Usage::default(),
                cost: 0.0,
                steps: 0,
            },
        );
    }

    fn close_agent(
        &mut self,
        id: AgentId,
        agent: Agent,
        reason: TerminalReason,
        at: u64,
    ) -> Vec<Span> {
        let mut done = Vec::new();
        // A child's calls and requests end with it.
        let open_tools: Vec<_> = self
            .tools
            .keys()
            .filter(|(a, _)| *a == id)
            .cloned()
            .collect();
        for key in open_tools {
            if let Some(mut open) = self.tools.remove(&key) {
                open.status = Status::Error(format!("the agent ended ({reason})"));
                done.push(self.close(open, at));
            }
        }
        if let Some((mut open, _)) = self.chats.remove(&id) {
            open.status = Status::Error(format!("the agent ended ({reason})"));
            done.push(self.close(open, at));
        }
        let Agent {
            mut span,
            usage,
            cost,
            steps,
        } = agent;
        usage_attrs(&mut span.attributes, &usage);
        span.attributes.extend([
            ("brood.terminal_reason", Attr::Str(reason.as_str().into())),
            ("brood.steps", Attr::Int(i64::from(steps))),
        ]);
        if cost > 0.0 {
            span.attributes.push(("brood.cost.usd", Attr::Float(cost)));
        }
        if reason != TerminalReason::Completed {
            span.status = Status::Error(format!("ended: {reason}"));
            span.attributes
                .push(("error.type", Attr::Str(reason.as_str().into())));
        }
        done.push(self.close(span, at));
        done
    }

    fn open(
        &self,
        name: String,
        kind: SpanKind,
        parent: Option<[u8; 8]>,
        event: &Event,
        at: u64,
    ) -> Open {
        Open {
            id: span_id(&self.meta.session, event.agent, event.seq, &name),
            parent,
            name,
            kind,
            start_ms: at,
            attributes: vec![
                (
                    "gen_ai.provider.name",
                    Attr::Str(self.meta.provider.clone()),
                ),
                (
                    "gen_ai.conversation.id",
                    Attr::Str(self.meta.session.clone()),
                ),
            ],
            status: Status::Unset,
        }
    }

    /// The agent's id on one of its spans.
    fn tag(&self, agent: AgentId, open: &mut Open) {
        open.attributes
            .push(("gen_ai.agent.id", Attr::Str(agent.to_string())));
    }

    fn content_attr(
        &mut self,
        agent: AgentId,
        key: &'static str,
        value: impl FnOnce() -> serde_json::Value,
    ) {
        if self.content != Content::Captured {
            return;
        }
        if let Some(a) = self.agents.get_mut(&agent) {
            a.span
                .attributes
                .push((key, Attr::Str(value().to_string())));
        }
    }

    fn close(&self, open: Open, at: u64) -> Span {
        Span {
            trace_id: self.trace_id,
            span_id: open.id,
            parent: open.parent,
            name: open.name,
            kind: open.kind,
            start_ms: open.start_ms,
            end_ms: at.max(open.start_ms),
            attributes: open.attributes,
            status: open.status,
        }
    }
}

impl Open {
    fn attr(&self, key: &str) -> Option<&Attr> {
        find_attr(&self.attributes, key)
    }
}

#[cfg(test)]
pub(super) mod tests;
