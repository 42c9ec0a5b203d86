//! A synthetic but realistic session for the benchmarks: a parent that streams
//! text and calls tools, and `children` explore children that each stream, call
//! tools and end, until the conversation holds about `lines` lines.

#![allow(dead_code)]

use brood::event::{AgentId, Event, EventKind, TerminalReason, Usage};
use serde_json::json;

pub struct Workload {
    pub events: Vec<Event>,
}

impl Workload {
    pub fn new(lines: usize, children: u32) -> Workload {
        let mut w = Builder::default();
        w.push(
            AgentId::Main,
            EventKind::UserMessage {
                text: "Where is auth handled?".into(),
            },
        );
        let mut produced = 0;
        let mut turn = 0;
        while produced < lines {
            turn += 1;
            w.push(
                AgentId::Main,
                EventKind::ModelRequest {
                    step: turn,
                    model: "m".into(),
                    messages: turn as usize,
                    tools: 7,
                },
            );
            // About 20 lines of markdown text, streamed in word-sized deltas.
            for i in 0..20 {
                for word in [
                    "The ",
                    "handler ",
                    "lives ",
                    "in ",
                    "`src/auth.rs` ",
                    "and ",
                    "refreshes ",
                    "tokens.\n",
                ] {
                    w.push(
                        AgentId::Main,
                        EventKind::TextDelta {
                            text: if i % 7 == 0 && word == "tokens.\n" {
                                "tokens.\n\n".into()
                            } else {
                                word.into()
                            },
                        },
                    );
                }
            }
            w.push(
                AgentId::Main,
                EventKind::AssistantMessage {
                    text: String::new(),
                    tool_calls: 1,
                    usage: usage(),
                    stop_reason: "tool_use".into(),
                },
            );
            let call = format!("c{turn}");
            w.push(
                AgentId::Main,
                EventKind::ToolCall {
                    call_id: call.clone(),
                    name: "grep".into(),
                    input: json!({"pattern": "auth"}).into(),
                    summary: "auth".into(),
                },
            );
            let output: String = (0..30)
                .map(|i| format!("src/auth/mod{i}.rs:{i}:fn auth_{i}() {{}}\n"))
                .collect();
            w.push(
                AgentId::Main,
                EventKind::ToolResult {
                    call_id: call,
                    name: "grep".into(),
                    is_error: false,
                    content: output.into(),
                    duration_ms: 12,
                },
            );
            produced += 24;
        }
        for n in 1..=children {
            let child = AgentId::Sub(n);
            let call = format!("task{n}");
            w.push(AgentId::Main, EventKind::ToolCall { call_id: call.clone(), name: "task".into(), input: json!({"prompt": "explore", "description": format!("part {n} of the question")}).into(), summary: format!("explore: part {n} of the question").into() });
            w.push(
                child,
                EventKind::SubagentStart(Box::new(brood::event::SubagentStart {
                    parent: AgentId::Main,
                    parent_call_id: call.clone(),
                    profile: "explore".into(),
                    model: "light".into(),
                    model_name: "light".into(),
                    description: format!("part {n} of the question"),
                    prompt: "explore".into(),
                    max_steps: Some(12),
                    token_budget: Some(32_000),
                    context_budget: Some(16_000),
                    color: None,
                })),
            );
            for step in 1..=4 {
                w.push(
                    child,
                    EventKind::ModelRequest {
                        step,
                        model: "light".into(),
                        messages: step as usize,
                        tools: 3,
                    },
                );
                w.push(
                    child,
                    EventKind::TextDelta {
                        text: "Searching.".into(),
                    },
                );
                w.push(
                    child,
                    EventKind::AssistantMessage {
                        text: "Searching.".into(),
                        tool_calls: 1,
                        usage: usage(),
                        stop_reason: "tool_use".into(),
                    },
                );
                let id = format!("{n}-{step}");
                w.push(
                    child,
                    EventKind::ToolCall {
                        call_id: id.clone(),
                        name: "grep".into(),
                        input: json!({"pattern": "login|jwt"}).into(),
                        summary: "login|jwt".into(),
                    },
                );
                w.push(
                    child,
                    EventKind::ToolResult {
                        call_id: id,
                        name: "grep".into(),
                        is_error: false,
                        content: "a.rs:1:x\nb.rs:2:y\n".into(),
                        duration_ms: 3,
                    },
                );
            }
            // Half of them still run; the others are done.
            if n % 2 == 0 {
                w.push(
                    child,
                    EventKind::TurnEnd {
                        reason: TerminalReason::Completed,
                        steps: 4,
                        usage: usage(),
                    },
                );
                w.push(
                    child,
                    EventKind::SubagentEnd {
                        reason: TerminalReason::Completed,
                        summary: "Auth is in src/auth.rs:12.".into(),
                        steps: 4,
                        tool_usage: Default::default(),
                        usage: usage(),
                        elapsed_ms: 4000,
                    },
                );
                w.push(
                    AgentId::Main,
                    EventKind::ToolResult {
                        call_id: call,
                        name: "task".into(),
                        is_error: false,
                        content: "{\"text\":\"Auth is in src/auth.rs:12.\"}".into(),
                        duration_ms: 4000,
                    },
                );
            }
        }
        Workload { events: w.events }
    }

    pub fn bytes(&self) -> usize {
        self.events
            .iter()
            .map(|e| serde_json::to_string(e).map(|s| s.len()).unwrap_or(0))
            .sum()
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: 1200,
        output_tokens: 80,
        ..Usage::default()
    }
}

#[derive(Default)]
struct Builder {
    events: Vec<Event>,
}

impl Builder {
    fn push(&mut self, agent: AgentId, kind: EventKind) {
        let seq = self.events.len() as u64 + 1;
        self.events.push(Event {
            seq,
            t_ms: seq,
            agent,
            kind,
        });
    }
}
