//! The span tree of a session with a child: names, parents, times, tokens,
//! decisions, and content only when asked for.

use serde_json::json;

use super::*;
use crate::event::{DecidedBy, Decision};

pub(crate) const T0: u64 = 1_764_000_000_000;

fn meta() -> SessionMeta {
    SessionMeta {
        session: "s-1".into(),
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        started_ms: T0,
        agent: "brood".into(),
    }
}

fn usage(input: u64, output: u64, cache_read: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: cache_read,
        ..Usage::default()
    }
}

/// A turn: the parent asks, calls `task` (a child greps and answers) and
/// `bash` (denied), then answers.
pub(crate) fn session() -> Vec<Event> {
    let main = AgentId::Main;
    let sub = AgentId::Sub(1);
    let kinds: Vec<(u64, AgentId, EventKind)> = vec![
        (
            0,
            main,
            EventKind::UserMessage {
                text: "where is main?".into(),
            },
        ),
        (
            10,
            main,
            EventKind::ModelRequest {
                step: 1,
                model: "claude-sonnet-4-5".into(),
                messages: 1,
                tools: 7,
            },
        ),
        (
            900,
            main,
            EventKind::AssistantMessage {
                text: "Looking.".into(),
                tool_calls: 2,
                usage: usage(100, 20, 400),
                stop_reason: "tool_use".into(),
            },
        ),
        (
            901,
            main,
            EventKind::ToolCall {
                call_id: "t1".into(),
                name: "task".into(),
                input: json!({"prompt": "find main"}).into(),
                summary: "explore: find main".into(),
            },
        ),
        (
            902,
            sub,
            EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
                parent: main,
                parent_call_id: "t1".into(),
                profile: "explore".into(),
                model: "light".into(),
                model_name: "claude-haiku-4-5".into(),
                description: "find main".into(),
                prompt: "find main".into(),
                max_steps: Some(12),
                token_budget: Some(32_000),
                context_budget: None,
                color: None,
            })),
        ),
        (
            903,
            sub,
            EventKind::UserMessage {
                text: "find main".into(),
            },
        ),
        (
            904,
            sub,
            EventKind::ModelRequest {
                step: 1,
                model: "claude-haiku-4-5".into(),
                messages: 1,
                tools: 3,
            },
        ),
        (
            1500,
            sub,
            EventKind::AssistantMessage {
                text: String::new(),
                tool_calls: 1,
                usage: usage(50, 10, 0),
                stop_reason: "tool_use".into(),
            },
        ),
        (
            1501,
            sub,
            EventKind::ToolCall {
                call_id: "g1".into(),
                name: "grep".into(),
                input: json!({"pattern": "fn main"}).into(),
                summary: Box::default(),
            },
        ),
        (
            1502,
            sub,
            EventKind::PermissionDecision {
                call_id: "g1".into(),
                decision: Decision::Allow,
                reason: "read-only".into(),
                by: DecidedBy::Policy,
            },
        ),
        (
            1530,
            sub,
            EventKind::ToolResult {
                call_id: "g1".into(),
                name: "grep".into(),
                is_error: false,
                content: "a.rs:1:fn main".into(),
                duration_ms: 28,
            },
        ),
        (
            1531,
            sub,
            EventKind::ModelRequest {
                step: 2,
                model: "claude-haiku-4-5".into(),
                messages: 3,
                tools: 3,
            },
        ),
        (
            2000,
            sub,
            EventKind::AssistantMessage {
                text: "a.rs:1".into(),
                tool_calls: 0,
                usage: usage(80, 5, 0),
                stop_reason: "end_turn".into(),
            },
        ),
        (
            2001,
            sub,
            EventKind::TurnEnd {
                reason: TerminalReason::Completed,
                steps: 2,
                usage: usage(130, 15, 0),
            },
        ),
        (
            2002,
            sub,
            EventKind::SubagentEnd {
                reason: TerminalReason::Completed,
                summary: "a.rs:1".into(),
                steps: 2,
                tool_usage: Default::default(),
                usage: usage(130, 15, 0),
                elapsed_ms: 1100,
            },
        ),
        (
            2003,
            main,
            EventKind::ToolResult {
                call_id: "t1".into(),
                name: "task".into(),
                is_error: false,
                content: "a.rs:1".into(),
                duration_ms: 1102,
            },
        ),
        (
            2004,
            main,
            EventKind::ToolCall {
                call_id: "b1".into(),
                name: "bash".into(),
                input: json!({"command": "rm -rf /"}).into(),
                summary: "rm -rf /".into(),
            },
        ),
        (
            2005,
            main,
            EventKind::PermissionDecision {
                call_id: "b1".into(),
                decision: Decision::Deny,
                reason: "destructive".into(),
                by: DecidedBy::Policy,
            },
        ),
        (
            2006,
            main,
            EventKind::ToolResult {
                call_id: "b1".into(),
                name: "bash".into(),
                is_error: true,
                content: "denied".into(),
                duration_ms: 0,
            },
        ),
        (
            2010,
            main,
            EventKind::ModelRequest {
                step: 2,
                model: "claude-sonnet-4-5".into(),
                messages: 5,
                tools: 7,
            },
        ),
        (
            3000,
            main,
            EventKind::AssistantMessage {
                text: "In a.rs.".into(),
                tool_calls: 0,
                usage: usage(200, 30, 400),
                stop_reason: "end_turn".into(),
            },
        ),
        (
            3001,
            main,
            EventKind::TurnEnd {
                reason: TerminalReason::Completed,
                steps: 2,
                usage: usage(300, 50, 800),
            },
        ),
    ];
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, (t_ms, agent, kind))| Event {
            seq: i as u64 + 1,
            t_ms,
            agent,
            kind,
        })
        .collect()
}

fn spans(content: Content) -> Vec<Span> {
    let mut mapper = Mapper::new(meta(), content, PriceTable::default());
    let mut done = Vec::new();
    for event in session() {
        mapper.event(&event, &mut done);
    }
    mapper.finish(&mut done);
    done
}

fn named<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    spans.iter().find(|s| s.name == name).unwrap_or_else(|| {
        panic!(
            "no span {name}: {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        )
    })
}

fn int(span: &Span, key: &str) -> i64 {
    match span.attr(key) {
        Some(Attr::Int(n)) => *n,
        other => panic!("{key} of {}: {other:?}", span.name),
    }
}

fn text<'a>(span: &'a Span, key: &str) -> &'a str {
    match span.attr(key) {
        Some(Attr::Str(s)) => s,
        other => panic!("{key} of {}: {other:?}", span.name),
    }
}

#[test]
fn the_child_runs_under_the_parents_task_call() {
    let spans = spans(Content::Omitted);
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "chat claude-sonnet-4-5",
            "chat claude-haiku-4-5",
            "execute_tool grep",
            "chat claude-haiku-4-5",
            "invoke_agent explore",
            "execute_tool task",
            "execute_tool bash",
            "chat claude-sonnet-4-5",
            "invoke_agent brood",
        ],
        "in the order they end"
    );
    let parent = named(&spans, "invoke_agent brood");
    let task = named(&spans, "execute_tool task");
    let child = named(&spans, "invoke_agent explore");
    let grep = named(&spans, "execute_tool grep");
    assert_eq!(parent.parent, None, "the turn is the root");
    assert_eq!(task.parent, Some(parent.span_id));
    assert_eq!(
        child.parent,
        Some(task.span_id),
        "the child under its task call"
    );
    assert_eq!(grep.parent, Some(child.span_id));
    assert!(
        spans.iter().all(|s| s.trace_id == parent.trace_id),
        "one trace"
    );
    let ids: std::collections::HashSet<_> = spans.iter().map(|s| s.span_id).collect();
    assert_eq!(ids.len(), spans.len(), "every span its own id");
    assert_eq!((child.start_ms, child.end_ms), (T0 + 902, T0 + 2002));
    assert_eq!((task.start_ms, task.end_ms), (T0 + 901, T0 + 2003));
}

#[test]
fn spans_carry_the_conventions_attributes_and_brood_s_own() {
    let spans = spans(Content::Omitted);
    for span in &spans {
        assert_eq!(text(span, "gen_ai.conversation.id"), "s-1", "{}", span.name);
        assert_eq!(text(span, "gen_ai.provider.name"), "anthropic");
        assert!(span.attr("gen_ai.operation.name").is_some());
        assert!(span.attr("gen_ai.agent.id").is_some());
    }
    let first = named(&spans, "chat claude-sonnet-4-5");
    assert_eq!(first.kind, SpanKind::Client);
    assert_eq!(
        int(first, "gen_ai.usage.input_tokens"),
        500,
        "cached tokens included"
    );
    assert_eq!(int(first, "gen_ai.usage.cache_read.input_tokens"), 400);
    assert_eq!(int(first, "gen_ai.usage.output_tokens"), 20);
    assert_eq!(
        first.attr("gen_ai.response.finish_reasons"),
        Some(&Attr::Strs(vec!["tool_use".into()]))
    );
    assert!(matches!(first.attr("brood.cost.usd"), Some(Attr::Float(c)) if *c > 0.0));

    let child = named(&spans, "invoke_agent explore");
    assert_eq!(text(child, "gen_ai.agent.id"), "sub-1");
    assert_eq!(text(child, "gen_ai.agent.name"), "explore");
    assert_eq!(text(child, "brood.terminal_reason"), "completed");
    assert_eq!(int(child, "brood.budget.max_steps"), 12);
    assert_eq!(int(child, "gen_ai.usage.output_tokens"), 15);
    assert_eq!(child.status, Status::Unset);

    let bash = named(&spans, "execute_tool bash");
    assert_eq!(text(bash, "brood.tool.permission"), "deny");
    assert_eq!(text(bash, "brood.tool.outcome"), "denied");
    assert!(matches!(bash.status, Status::Error(_)));
    let grep = named(&spans, "execute_tool grep");
    assert_eq!(text(grep, "brood.tool.outcome"), "ok");
    assert_eq!(int(grep, "brood.tool.duration_ms"), 28);

    let parent = named(&spans, "invoke_agent brood");
    assert_eq!(int(parent, "gen_ai.usage.output_tokens"), 50);
    assert_eq!(int(parent, "brood.steps"), 2);
}

#[test]
fn content_is_left_out_unless_captured() {
    let keys = [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.agent.description",
        "brood.tool.summary",
    ];
    let omitted = spans(Content::Omitted);
    for span in &omitted {
        for key in keys {
            assert!(span.attr(key).is_none(), "{key} on {}", span.name);
        }
        for (_, value) in &span.attributes {
            if let Attr::Str(s) = value {
                assert!(
                    !s.contains("rm -rf") && !s.contains("a.rs:1"),
                    "{s} on {}",
                    span.name
                );
            }
        }
    }
    let captured = spans(Content::Captured);
    let bash = named(&captured, "execute_tool bash");
    assert_eq!(
        text(bash, "gen_ai.tool.call.arguments"),
        r#"{"command":"rm -rf /"}"#
    );
    let parent = named(&captured, "invoke_agent brood");
    assert!(text(parent, "gen_ai.input.messages").contains("where is main?"));
    let answer = captured
        .iter()
        .filter(|s| s.name == "chat claude-sonnet-4-5")
        .nth(1)
        .map(|s| text(s, "gen_ai.output.messages"));
    assert!(answer.is_some_and(|a| a.contains("In a.rs.")));
}

#[test]
fn a_session_cut_short_ends_what_was_open_as_failed() {
    let mut mapper = Mapper::new(meta(), Content::Omitted, PriceTable::default());
    let mut done = Vec::new();
    for event in session().into_iter().take(9) {
        mapper.event(&event, &mut done);
    }
    assert_eq!(done.len(), 2, "two chats ended: {done:?}");
    mapper.finish(&mut done);
    let mut open: Vec<&str> = done[2..].iter().map(|s| s.name.as_str()).collect();
    open.sort_unstable();
    assert_eq!(
        open,
        [
            "execute_tool grep",
            "execute_tool task",
            "invoke_agent brood",
            "invoke_agent explore"
        ]
    );
    for span in &done[2..] {
        assert!(matches!(span.status, Status::Error(_)), "{}", span.name);
        assert_eq!(span.end_ms, T0 + 1501, "ended at the last event");
    }
}

#[test]
fn the_same_session_gets_the_same_ids_and_another_gets_others() {
    let a = spans(Content::Omitted);
    let b = spans(Content::Omitted);
    assert_eq!(a, b);
    let mut other = Mapper::new(
        SessionMeta {
            session: "s-2".into(),
            ..meta()
        },
        Content::Omitted,
        PriceTable::default(),
    );
    let mut done = Vec::new();
    for event in session() {
        other.event(&event, &mut done);
    }
    assert_ne!(done[0].trace_id, a[0].trace_id);
    assert_ne!(done[0].span_id, a[0].span_id);
}
