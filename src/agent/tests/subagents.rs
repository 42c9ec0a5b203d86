//! Delegation through a real session: the `task` tool, fresh child contexts,
//! profiles and their limits, the result contract, parallel children, isolation.

use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use crate::session::{Session, SessionOptions, TraceTarget};

struct World {
    dir: tempfile::TempDir,
    model: Arc<Recording>,
    session: Session,
    events: UnboundedReceiver<Event>,
}

fn world(script: Value, light_model: Option<&str>, max_parallel: usize) -> World {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(Recording::new(&script));
    let session = Session::start(SessionOptions {
        workspace: dir.path().to_path_buf(),
        model: model.clone(),
        model_name: "main-model".into(),
        light_model: light_model.map(String::from),
        profiles: vec![Profile::general(), Profile::explore()],
        max_parallel,
        note: None,
        trace: TraceTarget::Off,
        approver: Arc::new(AutoApprove::DenyAll),
        max_steps: None,
        hooks: Hooks::default(),
        command_hooks: Vec::new(),
        mcp: Vec::new(),
        secrets: Vec::new(),
        resume: None,
        prices: Default::default(),
        compact_at: None,
        telemetry: None,
        rules: Default::default(),
        instructions: Default::default(),
        sandbox: Default::default(),
    })
    .unwrap();
    let events = session.bus().subscribe();
    World {
        dir,
        model,
        session,
        events,
    }
}

impl World {
    async fn ask(&mut self, prompt: &str) -> RunOutcome {
        self.session.send(prompt, &CancellationToken::new()).await
    }

    fn requests_of(&self, agent: AgentId) -> Vec<ModelRequest<'static>> {
        let all = self.model.requests.lock().unwrap();
        all.iter().filter(|r| r.agent == agent).cloned().collect()
    }

    /// The parent's last request holds the task results; returns them in order.
    fn parent_results(&self) -> Vec<(Value, bool)> {
        let requests = self.requests_of(AgentId::Main);
        let last = requests.last().unwrap();
        let message = last.messages.last().unwrap();
        results(message)
            .into_iter()
            .map(|(_, content, is_error)| {
                let value = serde_json::from_str(&content).unwrap_or(Value::String(content));
                (value, is_error)
            })
            .collect()
    }
}

const VALID: &str = r#"{"status":"completed","summary":"Auth is in auth.rs.","findings":["login at auth.rs:1"],"evidence":["auth.rs:1"],"unresolved_questions":[]}"#;

fn task(prompt: &str, profile: &str) -> Value {
    json!({"name": "task", "input": {"prompt": prompt, "description": prompt, "subagent_type": profile}})
}

fn parent_delegates(calls: Vec<Value>) -> Value {
    json!([{"text": "Delegating.", "tool_calls": calls}, {"text": "Done."}])
}

#[tokio::test]
async fn bad_task_input_is_an_error_result_naming_the_problem() {
    let mut w = world(
        parent_delegates(vec![
            task("", "explore"),
            task("look around", "wizard"),
            json!({"name": "task", "input": {"prompt": "x", "model": "huge"}}),
        ]),
        None,
        4,
    );
    let outcome = w.ask("go").await;
    assert_eq!(outcome.reason, TerminalReason::Completed);
    let got = w.parent_results();
    assert!(got.iter().all(|(_, is_error)| *is_error));
    let text = |i: usize| got[i].0.as_str().unwrap().to_string();
    assert!(
        text(0).contains("\"prompt\" must not be empty"),
        "{}",
        text(0)
    );
    assert!(
        text(1).contains("wizard") && text(1).contains("\"explore\", \"general\""),
        "{}",
        text(1)
    );
    assert!(text(2).contains("huge"), "{}", text(2));
    // No child was started for any of them.
    assert!(w.requests_of(AgentId::Sub(1)).is_empty());
}

#[tokio::test]
async fn a_child_starts_fresh_with_one_user_message_and_no_task_tool() {
    let mut w = world(
        json!({"agents": {
            "main": [
                {"text": "First answer."},
                {"text": "Now delegating.", "tool_calls": [task("Find the login code.", "general")]},
                {"text": "Done."}
            ],
            "sub-1": [{"text": "Login is in auth.rs."}]
        }}),
        None,
        4,
    );
    w.ask("An earlier question with PARENT-ONLY-CONTEXT").await;
    let outcome = w.ask("Where is login?").await;
    assert_eq!(outcome.reason, TerminalReason::Completed);
    let child = w.requests_of(AgentId::Sub(1));
    assert_eq!(child.len(), 1);
    let first = &child[0];
    assert_eq!(
        first.messages,
        vec![Message::user_text("Find the login code.")]
    );
    assert!(
        !first.system.contains("brood, a coding agent"),
        "parent's system prompt leaked"
    );
    let tools: Vec<&str> = first.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(!tools.contains(&"task"), "{tools:?}");
    assert_eq!(tools.len(), 6, "general holds the base tools: {tools:?}");
    assert!(
        !serde_json::to_string(&first.messages)
            .unwrap()
            .contains("PARENT-ONLY")
    );
    let (envelope, is_error) = &w.parent_results()[0];
    assert!(!is_error);
    assert_eq!(envelope["text"], "Login is in auth.rs.");
    assert_eq!(envelope["result"], "Login is in auth.rs.");
    assert_eq!(envelope["child_id"], "sub-1");
    assert_eq!(envelope["profile"], "general");
}

#[tokio::test]
async fn what_only_the_child_read_never_reaches_the_parent() {
    let mut w = world(
        json!({"agents": {
            "main": [
                {"tool_calls": [task("Summarize notes.txt", "explore")]},
                {"text": "The notes are about zebras."}
            ],
            "sub-1": [
                {"tool_calls": [{"name": "read_file", "input": {"path": "notes.txt"}}]},
                {"text": VALID}
            ]
        }}),
        None,
        4,
    );
    std::fs::write(
        w.dir.path().join("notes.txt"),
        "ZEBRA-7781-ONLY-IN-THE-FILE\n",
    )
    .unwrap();
    w.ask("What is in the notes?").await;
    let child = serde_json::to_string(&w.requests_of(AgentId::Sub(1))[1].messages).unwrap();
    assert!(child.contains("ZEBRA-7781"), "the child did read the file");
    for request in w.requests_of(AgentId::Main) {
        let text = serde_json::to_string(&request.messages).unwrap();
        assert!(
            !text.contains("ZEBRA-7781"),
            "child-only content reached the parent"
        );
    }
}

#[tokio::test]
async fn read_only_mode_denies_write_tools_injected_into_an_explore_registry() {
    let f = fixture(
        json!({"agents": {"sub-1": [
            {"tool_calls": [
                {"name": "bash", "input": {"command": "touch made-by-bash"}},
                {"name": "write_file", "input": {"path": "made-by-write", "content": "x"}}
            ]},
            {"text": VALID}
        ]}}),
        None,
        AutoApprove::AllowAll,
        Hooks::default(),
    );
    // A misconfigured registry: the explore profile, but every base tool.
    let policy = Policy::new(f.agent.workspace.clone(), PermissionMode::ReadOnly);
    let agent = Agent {
        id: AgentId::Sub(1),
        profile: Profile::explore(),
        tools: ToolRegistry::base(),
        hooks: Hooks::new(vec![Arc::new(PolicyHook(Arc::new(policy)))]),
        ..f.agent
    };
    let mut messages = vec![Message::user_text("explore")];
    let outcome = agent.run(&mut messages, &CancellationToken::new()).await;
    assert_eq!(outcome.reason, TerminalReason::Completed);
    for (_, content, is_error) in results(&messages[2]) {
        assert!(is_error && content.contains("read-only"), "{content}");
    }
    assert!(!f.dir.path().join("made-by-bash").exists());
    assert!(!f.dir.path().join("made-by-write").exists());
}

#[tokio::test]
async fn a_general_child_gives_up_after_30_turns_with_the_exact_message() {
    let call = json!({"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]});
    let mut w = world(
        json!({"agents": {
            "main": [{"tool_calls": [task("Loop forever", "general")]}, {"text": "It failed."}],
            "sub-1": vec![call; 31]
        }}),
        None,
        4,
    );
    w.ask("go").await;
    assert_eq!(w.requests_of(AgentId::Sub(1)).len(), 30);
    let (envelope, is_error) = &w.parent_results()[0];
    assert!(is_error, "a failed child is never an answer");
    assert_eq!(
        envelope["text"],
        "Subagent stopped after 30 turns without a final answer."
    );
    assert_eq!(envelope["status"], "failed");
    assert_eq!(envelope["terminal_reason"], "max_steps");
    assert_eq!(envelope["result"], Value::Null);
    assert_eq!(envelope["tool_usage"]["glob"], 30);
}

#[tokio::test]
async fn explore_children_are_ended_by_each_budget() {
    let glob = json!({"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]});
    let greedy = json!({"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}],
                        "usage": {"input_tokens": 15000, "output_tokens": 2000}});
    let read_big = json!({"tool_calls": [
        {"name": "read_file", "input": {"path": "big1.txt"}},
        {"name": "read_file", "input": {"path": "big2.txt"}}
    ]});
    let mut w = world(
        json!({"agents": {
            "main": [{"tool_calls": [
                task("steps", "explore"), task("tokens", "explore"), task("context", "explore")
            ]}, {"text": "All three failed."}],
            "sub-1": vec![glob; 13],
            "sub-2": vec![greedy; 3],
            "sub-3": [read_big, {"text": VALID}]
        }}),
        None,
        4,
    );
    let line = "x".repeat(99);
    let big = format!("{line}\n").repeat(500);
    std::fs::write(w.dir.path().join("big1.txt"), &big).unwrap();
    std::fs::write(w.dir.path().join("big2.txt"), &big).unwrap();
    w.ask("go").await;
    let got = w.parent_results();
    let reasons: Vec<&str> = got
        .iter()
        .map(|(e, _)| e["terminal_reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["max_steps", "token_budget", "context_budget"]);
    assert!(got.iter().all(|(_, is_error)| *is_error));
    assert_eq!(w.requests_of(AgentId::Sub(1)).len(), 12);
    // 17,000 tokens a reply: the third request would start past 32,000.
    assert_eq!(w.requests_of(AgentId::Sub(2)).len(), 2);
    assert!(
        got[1].0["text"]
            .as_str()
            .unwrap()
            .contains("34000 of 32000")
    );
    // The over-budget request was never sent.
    assert_eq!(w.requests_of(AgentId::Sub(3)).len(), 1);
    assert!(got[2].0["text"].as_str().unwrap().contains("not sent"));
}

#[tokio::test]
async fn explore_runs_on_the_light_model_when_one_is_set() {
    let script = json!({"agents": {
        "main": [{"tool_calls": [
            task("a", "explore"),
            {"name": "task", "input": {"prompt": "b", "model": "main"}},
            task("c", "general")
        ]}, {"text": "ok"}],
        "sub-1": [{"text": VALID}], "sub-2": [{"text": VALID}], "sub-3": [{"text": "done"}]
    }});
    let mut w = world(script.clone(), Some("light-model"), 4);
    w.ask("go").await;
    let models: Vec<String> = (1..=3)
        .map(|n| w.requests_of(AgentId::Sub(n))[0].model.to_string())
        .collect();
    assert_eq!(models, ["light-model", "main-model", "main-model"]);
    let roles: Vec<Value> = w
        .parent_results()
        .iter()
        .map(|(e, _)| e["model"].clone())
        .collect();
    assert_eq!(roles, ["light", "main", "main"]);
    let starts: Vec<String> = drain(&mut w.events)
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::SubagentStart(start) => Some(start.model),
            _ => None,
        })
        .collect();
    assert_eq!(starts, ["light", "main", "main"]);

    // With no light model, explore falls back to the main one, and says so.
    let mut w = world(script, None, 4);
    w.ask("go").await;
    assert_eq!(w.requests_of(AgentId::Sub(1))[0].model, "main-model");
    assert_eq!(w.parent_results()[0].0["model"], "main");
}

#[tokio::test]
async fn the_contract_allows_one_correction_then_ends_the_child() {
    let fenced = format!("```json\n{VALID}\n```");
    let mut w = world(
        json!({"agents": {
            "main": [{"tool_calls": [task("fix me", "explore"), task("hopeless", "explore")]}, {"text": "ok"}],
            "sub-1": [{"text": fenced}, {"text": VALID}],
            "sub-2": [{"text": "Auth is in auth.rs"}, {"text": "{\"status\": \"completed\"}"}]
        }}),
        None,
        4,
    );
    w.ask("go").await;
    let second = &w.requests_of(AgentId::Sub(1))[1];
    assert!(
        second
            .messages
            .last()
            .unwrap()
            .text()
            .contains("code fence")
    );
    let got = w.parent_results();
    assert!(!got[0].1);
    assert_eq!(got[0].0["result"]["evidence"], json!(["auth.rs:1"]));
    assert_eq!(got[0].0["text"], "Auth is in auth.rs.");
    assert!(got[1].1);
    assert_eq!(got[1].0["terminal_reason"], "contract_violation");
    assert!(
        got[1].0["text"]
            .as_str()
            .unwrap()
            .contains("\"summary\": is missing")
    );
}

#[tokio::test]
async fn children_of_one_turn_run_concurrently_and_return_in_call_order() {
    let slow = |text: &str| json!({"text": text, "chunk_delay_ms": 15});
    let mut w = world(
        json!({"agents": {
            "main": [{"tool_calls": [task("one", "general"), task("two", "general"), task("three", "general")]}, {"text": "ok"}],
            "sub-1": [slow("first child thinking slowly about many things")],
            "sub-2": [{"error": "the model fell over"}],
            "sub-3": [slow("third child also slow and wordy")]
        }}),
        None,
        4,
    );
    w.ask("go").await;
    let got = w.parent_results();
    let ids: Vec<&str> = got
        .iter()
        .map(|(e, _)| e["child_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["sub-1", "sub-2", "sub-3"]);
    assert_eq!(
        got.iter().map(|g| g.1).collect::<Vec<_>>(),
        [false, true, false]
    );
    assert_eq!(got[1].0["terminal_reason"], "model_error");
    assert_eq!(got[2].0["text"], "third child also slow and wordy");
    // Interleaved: sub-3 streamed while sub-1 was still streaming.
    let lanes: Vec<AgentId> = drain(&mut w.events)
        .into_iter()
        .filter(|e| matches!(e.kind, EventKind::TextDelta { .. }) && e.agent != AgentId::Main)
        .map(|e| e.agent)
        .collect();
    let switches = lanes.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(switches >= 2, "children did not interleave: {lanes:?}");
}

#[tokio::test]
async fn the_parallel_limit_queues_children() {
    let mut w = world(
        json!({"agents": {
            "main": [{"tool_calls": [task("one", "general"), task("two", "general")]}, {"text": "ok"}],
            "sub-1": [{"text": "a b c d", "chunk_delay_ms": 10}],
            "sub-2": [{"text": "e f g h", "chunk_delay_ms": 10}]
        }}),
        None,
        1,
    );
    w.ask("go").await;
    let order: Vec<(AgentId, &'static str)> = drain(&mut w.events)
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::SubagentStart(_) => Some((e.agent, "start")),
            EventKind::SubagentEnd { .. } => Some((e.agent, "end")),
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        [
            (AgentId::Sub(1), "start"),
            (AgentId::Sub(1), "end"),
            (AgentId::Sub(2), "start"),
            (AgentId::Sub(2), "end")
        ]
    );
}

#[tokio::test]
async fn an_interrupt_stops_every_running_child() {
    let sleepy = json!([{"tool_calls": [{"name": "bash", "input": {"command": "sleep 30"}}]}, {"text": "never"}]);
    let mut w = world(
        json!({"agents": {
            "main": [{"tool_calls": [task("one", "general"), task("two", "general")]}, {"text": "never"}],
            "sub-1": sleepy, "sub-2": sleepy
        }}),
        None,
        4,
    );
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let outcome = w.session.send("go", &cancel).await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "children kept running"
    );
    assert_eq!(outcome.reason, TerminalReason::Interrupted);
    let ends: Vec<(AgentId, TerminalReason)> = drain(&mut w.events)
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::SubagentEnd { reason, .. } => Some((e.agent, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2);
    assert!(
        ends.iter().all(|(_, r)| *r == TerminalReason::Interrupted),
        "{ends:?}"
    );
}

#[tokio::test]
async fn a_childs_write_outside_the_workspace_is_denied() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let mut w = world(
        json!({"agents": {
            "main": [{"tool_calls": [task("write it", "general")]}, {"text": "ok"}],
            "sub-1": [
                {"tool_calls": [{"name": "write_file", "input": {"path": target.display().to_string(), "content": "x"}}]},
                {"text": "I could not write it."}
            ]
        }}),
        None,
        4,
    );
    w.ask("go").await;
    assert!(!target.exists());
    let denied = drain(&mut w.events).into_iter().any(|e| {
        e.agent == AgentId::Sub(1)
            && matches!(&e.kind, EventKind::ToolResult { is_error: true, content, .. } if content.starts_with("Permission denied"))
    });
    assert!(denied);
}
