//! The loop's rules, each shown on a real temporary workspace with the scripted
//! model and the real tools.

use crate::sandbox::{Sandbox, SandboxSettings};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use async_trait::async_trait;
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use super::*;
use crate::event::{DecidedBy, Decision, Event};
use crate::model::ToolCall;
use crate::model::scripted::Recording;
use crate::policy::{PermissionMode, Policy, Verdict};
use crate::protocol::ToolKind;

struct Fixture {
    dir: tempfile::TempDir,
    model: Arc<Recording>,
    agent: Agent,
    events: UnboundedReceiver<Event>,
}

fn fixture(
    script: serde_json::Value,
    max_steps: Option<u32>,
    approver: AutoApprove,
    extra: Hooks,
) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Arc::new(Workspace::new(dir.path()).unwrap());
    let model = Arc::new(Recording::new(&script));
    let bus = EventBus::new();
    let events = bus.subscribe();
    let profile = Profile::parent(max_steps);
    let policy = Arc::new(Policy::new(workspace.clone(), PermissionMode::Normal));
    let mut hooks = Hooks::new(vec![Arc::new(PolicyHook(policy))]);
    hooks.extend(extra);
    let agent = Agent {
        id: AgentId::Main,
        tools: Agent::tools_for(&profile, &ToolRegistry::base()),
        profile,
        model: model.clone(),
        model_name: "scripted".into(),
        hooks,
        approver: Arc::new(approver),
        bus,
        workspace,
        sandbox: Arc::new(Sandbox::prepare(SandboxSettings::default(), dir.path()).unwrap()),
        max_tokens: DEFAULT_MAX_TOKENS,
        approval_ids: Arc::new(AtomicU64::new(0)),
        prices: Default::default(),
        history: Default::default(),
        inbox: None,
    };
    Fixture {
        dir,
        model,
        agent,
        events,
    }
}

fn simple(script: serde_json::Value) -> Fixture {
    fixture(script, None, AutoApprove::DenyAll, Hooks::default())
}

async fn run(f: &Fixture, prompt: &str) -> (RunOutcome, Vec<Message>) {
    let mut messages = vec![Message::user_text(prompt)];
    let outcome = f.agent.run(&mut messages, &CancellationToken::new()).await;
    (outcome, messages)
}

fn drain(rx: &mut UnboundedReceiver<Event>) -> Vec<Event> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

fn results(message: &Message) -> Vec<(String, String, bool)> {
    message
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => (tool_use_id.clone(), content.clone(), *is_error),
            other => panic!("expected only tool results, got {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn stops_when_the_model_calls_no_tool() {
    let mut f = simple(json!([{"text": "Nothing to do."}]));
    let (outcome, messages) = run(&f, "hi").await;
    assert_eq!(outcome.reason, TerminalReason::Completed);
    assert_eq!(outcome.steps, 1);
    assert_eq!(outcome.final_text, "Nothing to do.");
    assert_eq!(messages.len(), 2);
    let kinds: Vec<&str> = drain(&mut f.events)
        .iter()
        .map(|e| match &e.kind {
            EventKind::ModelRequest { .. } => "request",
            EventKind::TextDelta { .. } => "delta",
            EventKind::AssistantMessage { .. } => "assistant",
            EventKind::TurnEnd { .. } => "end",
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        ["request", "delta", "delta", "delta", "assistant", "end"]
    );
}

#[tokio::test]
async fn all_results_of_one_turn_return_in_one_message_in_call_order() {
    let f = simple(json!([
        {"tool_calls": [
            {"id": "a", "name": "write_file", "input": {"path": "notes.txt", "content": "alpha\nbeta\n"}},
            {"id": "b", "name": "read_file", "input": {"path": "notes.txt"}},
            {"id": "c", "name": "grep", "input": {"pattern": "beta"}}
        ]},
        {"text": "done"}
    ]));
    let (outcome, messages) = run(&f, "go").await;
    assert_eq!(outcome.reason, TerminalReason::Completed);
    assert_eq!(outcome.steps, 2);
    assert_eq!(
        messages.len(),
        4,
        "user, assistant, one results message, assistant"
    );
    let got = results(&messages[2]);
    let ids: Vec<&str> = got.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert!(got.iter().all(|r| !r.2), "{got:?}");
    assert!(got[1].1.contains("alpha"), "{}", got[1].1);
    assert!(got[2].1.contains("notes.txt:2:beta"), "{}", got[2].1);
    // The second request carries the results.
    let requests = f.model.requests.lock().unwrap();
    assert_eq!(requests[1].messages.len(), 3);
}

#[tokio::test]
async fn bad_calls_become_error_results_and_the_run_goes_on() {
    let f = simple(json!([
        {"tool_calls": [
            {"id": "unknown", "name": "teleport", "input": {}},
            {"id": "missing", "name": "read_file", "input": {}},
            {"id": "type", "name": "read_file", "input": {"path": "x", "limit": "ten"}},
            {"id": "fails", "name": "read_file", "input": {"path": "no/such/file.txt"}}
        ]},
        {"text": "I see the errors."}
    ]));
    let (outcome, messages) = run(&f, "go").await;
    assert_eq!(outcome.reason, TerminalReason::Completed);
    let got = results(&messages[2]);
    assert!(got.iter().all(|r| r.2), "all four are errors: {got:?}");
    assert!(
        got[0].1.contains("teleport") && got[0].1.contains("read_file"),
        "{}",
        got[0].1
    );
    assert!(got[1].1.contains("\"path\""), "{}", got[1].1);
    assert!(got[2].1.contains("\"limit\""), "{}", got[2].1);
    assert!(got[3].1.contains("no/such/file.txt"), "{}", got[3].1);
}

#[tokio::test]
async fn a_tool_call_cut_by_max_tokens_is_not_run_and_unparsable_input_is_refused() {
    let f = simple(json!([
        {"tool_calls": [
            {"id": "ok", "name": "write_file", "input": {"path": "a.txt", "content": "complete"}},
            {"id": "garbled", "name": "write_file", "input": "{\"path\": \"b.txt\", \"con"},
            {"id": "cut", "name": "write_file", "input": {"path": "c.txt", "content": "half"}}
        ], "stop_reason": "max_tokens"},
        {"text": "I will write smaller pieces."}
    ]));
    let (outcome, messages) = run(&f, "go").await;
    assert_eq!(outcome.reason, TerminalReason::Completed);
    let got = results(&messages[2]);
    assert_eq!(got.len(), 3);
    assert!(!got[0].2);
    assert!(
        got[1].2 && got[1].1.contains("not valid JSON"),
        "{}",
        got[1].1
    );
    assert!(got[2].2 && got[2].1.contains("max_tokens"), "{}", got[2].1);
    assert!(f.dir.path().join("a.txt").exists());
    assert!(!f.dir.path().join("b.txt").exists());
    assert!(!f.dir.path().join("c.txt").exists(), "the cut call ran");
}

#[tokio::test]
async fn the_step_limit_ends_a_runaway_agent() {
    let call = json!({"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]});
    let f = fixture(
        json!([call, call, call, call, call]),
        Some(3),
        AutoApprove::DenyAll,
        Hooks::default(),
    );
    let (outcome, _) = run(&f, "loop").await;
    assert_eq!(outcome.reason, TerminalReason::MaxSteps);
    assert_eq!(outcome.steps, 3);
    assert_eq!(f.model.requests.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn the_policy_denies_writes_outside_and_headless_denies_asks() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escape.txt");
    let f = simple(json!([
        {"tool_calls": [
            {"id": "w", "name": "write_file", "input": {"path": target.display().to_string(), "content": "x"}},
            {"id": "rm", "name": "bash", "input": {"command": "rm -f keep.txt"}}
        ]},
        {"text": "ok"}
    ]));
    std::fs::write(f.dir.path().join("keep.txt"), "keep").unwrap();
    let (_, messages) = run(&f, "go").await;
    let got = results(&messages[2]);
    assert!(got[0].1.starts_with("Permission denied:"), "{}", got[0].1);
    assert!(!target.exists());
    // No one could be asked: the model reads the rule that asked and the way out.
    assert_eq!(
        got[1].1,
        crate::agent::unattended_refusal("`rm -f keep.txt` deletes files")
    );
    assert!(f.dir.path().join("keep.txt").exists());
}

#[tokio::test]
async fn yes_allows_what_the_policy_asks_about() {
    let mut f = fixture(
        json!([
            {"tool_calls": [{"id": "rm", "name": "bash", "input": {"command": "rm keep.txt"}}]},
            {"text": "removed"}
        ]),
        None,
        AutoApprove::AllowAll,
        Hooks::default(),
    );
    std::fs::write(f.dir.path().join("keep.txt"), "keep").unwrap();
    let (outcome, _) = run(&f, "go").await;
    assert_eq!(outcome.reason, TerminalReason::Completed);
    assert!(!f.dir.path().join("keep.txt").exists());
    let events = drain(&mut f.events);
    let asked = events
        .iter()
        .any(|e| matches!(e.kind, EventKind::ApprovalRequested(_)));
    let decided = events.iter().any(|e| {
        matches!(
            e.kind,
            EventKind::PermissionDecision {
                decision: Decision::Allow,
                by: DecidedBy::User,
                ..
            }
        )
    });
    assert!(asked && decided);
}

/// Denies every call of one tool and counts what it sees after calls.
struct DenyTool {
    name: &'static str,
    post_calls: AtomicUsize,
    continues: AtomicUsize,
}

#[async_trait]
impl Hook for DenyTool {
    async fn pre_tool_use(&self, _: AgentId, call: &ToolCall, _: ToolKind) -> Option<Verdict> {
        (call.name == self.name).then(|| Verdict {
            decision: Decision::Deny,
            reason: format!("{} is disabled here", self.name),
        })
    }

    async fn post_tool_use(&self, _: AgentId, _: &ToolCall, _: &ToolOutcome) -> Option<String> {
        self.post_calls.fetch_add(1, Ordering::SeqCst);
        None
    }

    async fn stop(&self, _: AgentId, final_text: &str) -> Option<String> {
        if final_text.contains("TODO") && self.continues.fetch_add(1, Ordering::SeqCst) == 0 {
            return Some("You left a TODO; finish it.".into());
        }
        None
    }
}

#[tokio::test]
async fn hooks_deny_observe_and_continue() {
    let hook = Arc::new(DenyTool {
        name: "glob",
        post_calls: AtomicUsize::new(0),
        continues: AtomicUsize::new(0),
    });
    let mut f = fixture(
        json!([
            {"tool_calls": [{"id": "g", "name": "glob", "input": {"pattern": "*"}}]},
            {"text": "TODO later"},
            {"text": "All finished."}
        ]),
        None,
        AutoApprove::DenyAll,
        Hooks::new(vec![hook.clone()]),
    );
    let (outcome, messages) = run(&f, "go").await;
    assert_eq!(
        results(&messages[2])[0].1,
        "Permission denied: glob is disabled here"
    );
    assert_eq!(hook.post_calls.load(Ordering::SeqCst), 1);
    // The Stop hook's message went to the model and cost a step.
    assert_eq!(outcome.steps, 3);
    assert_eq!(outcome.final_text, "All finished.");
    assert_eq!(messages[4].text(), "You left a TODO; finish it.");
    let events = drain(&mut f.events);
    assert!(
        events
            .iter()
            .any(|e| matches!(e.kind, EventKind::HookContinue { .. }))
    );
}

#[tokio::test]
async fn a_stop_hook_cannot_push_past_the_step_limit() {
    struct Always;
    #[async_trait]
    impl Hook for Always {
        async fn stop(&self, _: AgentId, _: &str) -> Option<String> {
            Some("again".into())
        }
    }
    let f = fixture(
        json!([{"text": "a"}, {"text": "b"}, {"text": "c"}]),
        Some(2),
        AutoApprove::DenyAll,
        Hooks::new(vec![Arc::new(Always)]),
    );
    let (outcome, _) = run(&f, "go").await;
    assert_eq!(outcome.reason, TerminalReason::MaxSteps);
    assert_eq!(outcome.steps, 2);
}

#[tokio::test]
async fn a_model_error_ends_the_run_with_its_reason() {
    let mut f = simple(json!([{"error": "upstream exploded"}]));
    let (outcome, _) = run(&f, "go").await;
    assert_eq!(outcome.reason, TerminalReason::ModelError);
    assert!(outcome.error.unwrap().contains("upstream exploded"));
    let events = drain(&mut f.events);
    assert!(matches!(
        events.last().unwrap().kind,
        EventKind::TurnEnd {
            reason: TerminalReason::ModelError,
            ..
        }
    ));
}

#[tokio::test]
async fn an_interrupt_stops_a_running_tool_and_ends_the_run() {
    let f = simple(json!([
        {"tool_calls": [
            {"id": "slow", "name": "bash", "input": {"command": "sleep 30"}},
            {"id": "next", "name": "glob", "input": {"pattern": "*"}}
        ]},
        {"text": "never"}
    ]));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let mut messages = vec![Message::user_text("go")];
    let outcome = f.agent.run(&mut messages, &cancel).await;
    assert_eq!(outcome.reason, TerminalReason::Interrupted);
    assert_eq!(outcome.steps, 1);
    // The history stays well-formed: every call has a result.
    let got = results(&messages[2]);
    assert_eq!(got.len(), 2);
    assert!(
        got.iter().all(|r| r.2 && r.1.contains("interrupted")),
        "{got:?}"
    );
}

mod barriers;
mod subagents;
