//! The offline driver as a user meets it: the parent's plan for a question, its
//! final answer from real-shaped task envelopes, and a child driven through the
//! real agent loop with the real tools on a temporary workspace.

use crate::sandbox::{Sandbox, SandboxSettings};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::words::split_question;
use super::*;
use crate::agent::{
    Agent, AutoApprove, DEFAULT_MAX_TOKENS, Hooks, PolicyHook, Profile, RunOutcome,
};
use crate::event::{EventBus, TerminalReason};
use crate::model::ToolSpec;
use crate::policy::Policy;
use crate::tools::ToolRegistry;
use crate::workspace::Workspace;

struct Collect(String);

impl StreamSink for Collect {
    fn text_delta(&mut self, text: &str) {
        self.0.push_str(text);
    }
}

fn spec(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: String::new(),
        input_schema: json!({"type": "object"}),
    }
}

fn request(agent: AgentId, messages: Vec<Message>) -> ModelRequest<'static> {
    ModelRequest {
        agent,
        model: "offline".into(),
        system: "system".into(),
        messages: messages.into(),
        tools: vec![spec("task"), spec("grep")].into(),
        max_tokens: 1000,
    }
}

async fn complete(request: &ModelRequest<'_>) -> ModelResponse {
    let model = OfflineModel::new(f64::INFINITY);
    assert_eq!(model.provider(), "offline");
    let mut sink = Collect(String::new());
    let response = model
        .complete(request, &mut sink, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(sink.0, response.message.text(), "the stream is the text");
    response
}

#[test]
fn questions_split_into_at_most_three_parts_with_terms() {
    let parts = split_question("Auth; tokens; sessions; queries; and what?");
    let texts: Vec<&str> = parts.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts, ["Auth", "tokens", "sessions, queries"]);
    let terms: Vec<&str> = parts[2].query.words().collect();
    assert_eq!(terms, ["session", "query"]);
    assert!(split_question("how does it work?").is_empty());
    let long = split_question("where does the scheduler decide which worker pool runs a job");
    assert_eq!(long.len(), 1);
    assert!(long[0].description().chars().count() <= 40);
    assert!(
        long[0]
            .description()
            .starts_with("Where does the scheduler")
    );
}

#[tokio::test]
async fn parent_plans_one_explore_task_per_part_of_the_question() {
    let question = "Where is auth handled, and how do tokens refresh?";
    let response = complete(&request(AgentId::Main, vec![Message::user_text(question)])).await;
    let text = response.message.text();
    assert!(
        text.starts_with("Offline demo driver (no LLM)") && text.contains("2 parts"),
        "{text}"
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert!(response.usage.estimated && response.usage.input_tokens > 0);
    let calls = response.message.tool_calls();
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.name == "task"));
    assert_eq!(calls[0].id, "offline_main_1_0");
    assert_eq!(calls[1].id, "offline_main_1_1");
    assert_eq!(calls[0].input["description"], "Where is auth handled");
    assert_eq!(calls[1].input["description"], "How do tokens refresh");
    assert_eq!(calls[0].input["subagent_type"], "explore");
    let first = calls[0].input["prompt"].as_str().unwrap();
    let second = calls[1].input["prompt"].as_str().unwrap();
    assert!(first.contains("Terms: auth, authenticate,"), "{first}");
    assert!(second.contains("Terms: token, refresh."), "{second}");
    assert!(second.contains("file:line"), "{second}");
}

#[tokio::test]
async fn parent_answers_directly_when_there_is_nothing_to_search_for() {
    let response = complete(&request(
        AgentId::Main,
        vec![Message::user_text("How does this work?")],
    ))
    .await;
    assert!(response.message.tool_calls().is_empty());
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let text = response.message.text();
    assert!(
        text.contains("no LLM") && text.contains("for example"),
        "{text}"
    );
}

/// The parent's history after it sent two tasks, with these results.
fn after_tasks(results: Vec<ContentBlock>) -> Vec<Message> {
    let task = |id: &str, description: &str| ContentBlock::ToolUse {
        id: id.into(),
        name: "task".into(),
        input: json!({"prompt": "p", "description": description}),
    };
    vec![
        Message::user_text("Where is auth handled, and how do tokens refresh?"),
        Message {
            role: Role::Assistant,
            content: vec![
                task("a", "Where is auth handled"),
                task("b", "How do tokens refresh"),
            ],
        },
        Message {
            role: Role::User,
            content: results,
        },
    ]
}

fn result(id: &str, envelope: Value) -> ContentBlock {
    // The task tool returns a failed child's envelope as an error result.
    let is_error = envelope["status"] != "completed";
    ContentBlock::ToolResult {
        tool_use_id: id.into(),
        content: envelope.to_string(),
        is_error,
    }
}

#[tokio::test]
async fn parent_answer_reports_evidence_and_failures_without_inventing() {
    let completed = json!({
        "status": "completed", "child_id": "sub-1", "profile": "explore",
        "terminal_reason": "completed", "text": "Found 5 matches for auth.",
        "result": {
            "status": "completed", "summary": "Found 5 matches for auth in 1 file, src/auth.rs.",
            "findings": ["src/auth.rs: pub fn authenticate"],
            "evidence": ["src/auth.rs:3", "src/auth.rs:9", "src/auth.rs:12", "src/auth.rs:20", "src/auth.rs:31"],
            "unresolved_questions": []
        }
    });
    // A failed child must not be shown as an answer, even with a result in it.
    let failed = json!({
        "status": "failed", "child_id": "sub-2", "profile": "explore",
        "terminal_reason": "token_budget", "error": "token budget used up: 32100 of 32000 tokens",
        "result": {"status": "completed", "summary": "Tokens refresh in src/invented.rs",
                   "findings": [], "evidence": ["src/invented.rs:7"], "unresolved_questions": []}
    });
    let response = complete(&request(
        AgentId::Main,
        after_tasks(vec![result("a", completed), result("b", failed)]),
    ))
    .await;
    assert!(response.message.tool_calls().is_empty());
    let text = response.message.text();
    let first_line = text.lines().next().unwrap();
    assert!(
        first_line.contains("Offline demo driver (no LLM)") && first_line.contains("2 subagents"),
        "{text}"
    );
    let (auth, tokens) = text.split_once("### How do tokens refresh").unwrap();
    assert!(auth.contains("### Where is auth handled"), "{text}");
    assert!(auth.contains("in 1 file, src/auth.rs"), "{text}");
    assert!(
        auth.contains("- `src/auth.rs:3`\n") && auth.contains("- `src/auth.rs:20`"),
        "{text}"
    );
    assert!(
        !auth.contains("src/auth.rs:31"),
        "at most 4 locations: {text}"
    );
    assert!(
        tokens.contains("**Failed**") && tokens.contains("token_budget"),
        "{text}"
    );
    assert!(tokens.contains("32100 of 32000"), "{text}");
    assert!(!tokens.contains("\"status\""), "no raw envelope: {text}");
    assert!(!text.contains("invented"), "{text}");
}

#[tokio::test]
async fn parent_says_plainly_when_nothing_matched_and_reads_bad_envelopes_as_failures() {
    let nothing = |child: &str| {
        json!({
            "status": "completed", "child_id": child, "profile": "explore",
            "terminal_reason": "completed",
            "result": {"status": "partial", "summary": "Found nothing matching auth in this workspace.",
                       "findings": [], "evidence": [], "unresolved_questions": ["No matches for \"auth\"."]}
        })
    };
    let response = complete(&request(
        AgentId::Main,
        after_tasks(vec![
            result("a", nothing("sub-1")),
            result("b", nothing("sub-2")),
        ]),
    ))
    .await;
    let text = response.message.text();
    assert!(
        text.contains(
            "Nothing in this folder matched the question's terms (auth, authenticate, \
             authentication, login, token, session, …)."
        ),
        "{text}"
    );

    let garbled = ContentBlock::ToolResult {
        tool_use_id: "b".into(),
        content: "child crashed: not json".into(),
        is_error: false,
    };
    let response = complete(&request(
        AgentId::Main,
        after_tasks(vec![result("a", nothing("sub-1")), garbled]),
    ))
    .await;
    let text = response.message.text();
    assert!(
        text.contains("No subagent found evidence; 1 of 2 failed."),
        "{text}"
    );
    let tokens = text.split_once("### How do tokens refresh").unwrap().1;
    assert!(
        tokens.contains("**Failed**") && tokens.contains("child crashed"),
        "{text}"
    );
}

/// An explore child on `dir`, driven by the offline model through the real loop.
fn explore_agent(dir: &Path) -> Agent {
    let workspace = Arc::new(Workspace::new(dir).unwrap());
    let profile = Profile::explore();
    let policy = Arc::new(Policy::new(workspace.clone(), profile.permission_mode));
    Agent {
        id: AgentId::Sub(1),
        tools: Agent::tools_for(&profile, &ToolRegistry::base()),
        profile,
        model: Arc::new(OfflineModel::new(f64::INFINITY)),
        model_name: "offline".into(),
        hooks: Hooks::new(vec![Arc::new(PolicyHook(policy))]),
        approver: Arc::new(AutoApprove::DenyAll),
        bus: EventBus::new(),
        workspace,
        sandbox: Arc::new(Sandbox::prepare(SandboxSettings::default(), dir).unwrap()),
        max_tokens: DEFAULT_MAX_TOKENS,
        approval_ids: Arc::new(AtomicU64::new(0)),
        prices: Default::default(),
        history: Default::default(),
        inbox: None,
    }
}

async fn explore(dir: &Path, prompt: &str) -> (RunOutcome, Vec<Message>, Value) {
    let mut messages = vec![Message::user_text(prompt)];
    let outcome = explore_agent(dir)
        .run(&mut messages, &CancellationToken::new())
        .await;
    let answer: Value = serde_json::from_str(&outcome.final_text)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", outcome.final_text));
    (outcome, messages, answer)
}

fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

const PROMPT: &str = "Explore this workspace for: where is auth handled. \
Terms: auth, login. Return file:line evidence.";

/// Every evidence location is a real line of `dir` that holds one of `words`.
fn assert_real_lines(dir: &Path, evidence: &[String], words: &[&str]) {
    for location in evidence {
        let (path, line) = location.rsplit_once(':').unwrap();
        let text = std::fs::read_to_string(dir.join(path)).unwrap();
        let line = text
            .lines()
            .nth(line.parse::<usize>().unwrap() - 1)
            .unwrap()
            .to_lowercase();
        assert!(
            words.iter().any(|w| line.contains(w)),
            "{location} is {line:?}"
        );
    }
}

#[tokio::test]
async fn child_explores_a_real_workspace_through_the_agent_loop() {
    let dir = tempfile::tempdir().unwrap();
    let filler: String = (1..10).map(|i| format!("// line {i}\n")).collect();
    write(
        dir.path(),
        "src/auth.rs",
        &format!(
            "{filler}pub fn authenticate(user: &str) -> bool {{\n    check_auth(user)\n}}\n\
             fn check_auth(user: &str) -> bool {{ !user.is_empty() }}\n"
        ),
    );
    write(
        dir.path(),
        "src/session.rs",
        "pub struct Session { token: String }\nimpl Session {\n    pub fn refresh_token(&mut self) {}\n}\n",
    );
    let many: String = (0..40).map(|_| "auth auth login\n").collect();
    write(dir.path(), "docs/guide.md", &format!("# Guide\n{many}"));
    write(
        dir.path(),
        "tests/auth_test.rs",
        "fn auth_works() { authenticate(\"x\"); }\n",
    );
    write(dir.path(), "src/authors.rs", "fn main() {}\n");

    let (outcome, messages, answer) = explore(dir.path(), PROMPT).await;
    assert_eq!(outcome.reason, TerminalReason::Completed, "{outcome:?}");
    assert_eq!(outcome.steps, 3);
    assert!(outcome.result.is_some(), "the explore contract accepted it");
    let counts: Vec<(&str, u32)> = outcome
        .tool_counts
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(counts, [("glob", 1), ("grep", 3), ("read_file", 3)]);

    // Step 2 read the best files around their best definition: the file
    // named after auth that defines it first, tests and docs last.
    let reads: Vec<Value> = messages
        .iter()
        .flat_map(|m| m.tool_calls())
        .filter(|c| c.name == "read_file")
        .map(|c| c.input)
        .collect();
    assert_eq!(
        reads[0],
        json!({"path": "src/auth.rs", "offset": 7, "limit": 40})
    );
    assert_eq!(reads[1]["path"], "src/session.rs");

    assert_eq!(answer["status"], "completed");
    assert_eq!(
        answer["summary"],
        "`src/auth.rs` defines `authenticate` (line 10: `pub fn authenticate(user: &str) -> bool {`). \
         Next: `src/session.rs`, `tests/auth_test.rs`."
    );
    let findings = strings(&answer["findings"]);
    assert!(
        findings[0].starts_with("src/auth.rs: defines authenticate, check_auth; named after auth"),
        "{findings:?}"
    );
    assert!(
        !findings.iter().any(|f| f.starts_with("src/authors.rs")),
        "authors is not auth: {findings:?}"
    );
    let evidence = strings(&answer["evidence"]);
    assert_eq!(evidence[..2], ["src/auth.rs:10", "src/auth.rs:13"]);
    assert_real_lines(
        dir.path(),
        &evidence,
        &["auth", "token", "session", "login"],
    );
}

#[tokio::test]
async fn child_in_an_empty_workspace_reports_nothing_found() {
    let dir = tempfile::tempdir().unwrap();
    let (outcome, _, answer) = explore(dir.path(), PROMPT).await;
    assert_eq!(outcome.reason, TerminalReason::Completed, "{outcome:?}");
    assert_eq!(outcome.steps, 2, "no files to read");
    assert_eq!(answer["status"], "partial");
    let summary = answer["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Found nothing matching auth, authenticate,"),
        "{summary}"
    );
    assert!(strings(&answer["evidence"]).is_empty());
    assert_eq!(strings(&answer["unresolved_questions"]).len(), 1);
}

#[tokio::test]
async fn child_answers_again_after_a_correction() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.rs", "let token = 1;\n");
    let (outcome, mut messages, answer) = explore(dir.path(), PROMPT).await;
    assert_eq!(answer["status"], "completed");
    messages.push(Message::user_text(
        "Your answer broke the contract; send the JSON object again.",
    ));
    let again = complete(&request(AgentId::Sub(1), messages)).await;
    assert!(again.message.tool_calls().is_empty());
    assert_eq!(again.message.text(), outcome.final_text);
}

#[tokio::test]
async fn cancelling_a_paced_stream_returns_cancelled_promptly() {
    // 2.5 s between words: the whole reply would take most of a minute.
    let model = OfflineModel::new(0.01);
    let request = request(
        AgentId::Main,
        vec![Message::user_text("Where is auth handled?")],
    );
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let mut sink = Collect(String::new());
    let started = Instant::now();
    let result = model.complete(&request, &mut sink, &cancel).await;
    assert!(matches!(result, Err(ModelError::Cancelled)), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(1));
    // Cancelled during the thinking pause, before the first word.
    assert_eq!(sink.0, "");
}

#[test]
fn streamed_words_keep_their_whitespace() {
    let text = "{\n  \"a\": 1,\n    \"b\"  }";
    let words = words_of(text);
    assert_eq!(words, ["{\n  ", "\"a\": ", "1,\n    ", "\"b\"  ", "}"]);
    assert_eq!(words.concat(), text);
    assert_eq!(words_of("  lead"), ["  lead"]);
    assert!(words_of("").is_empty());
}

#[test]
fn speed_scales_the_pause_between_words() {
    assert_eq!(
        OfflineModel::new(1.0).pause(),
        Some(Duration::from_millis(25))
    );
    assert_eq!(
        OfflineModel::new(2.0).pause(),
        Some(Duration::from_micros(12_500))
    );
    for instant in [1000.0, 5000.0, f64::INFINITY, f64::NAN] {
        assert_eq!(OfflineModel::new(instant).pause(), None, "{instant}");
    }
    assert_eq!(
        OfflineModel::new(0.0).pause(),
        Some(Duration::from_millis(25))
    );
    assert_eq!(
        OfflineModel::new(-4.0).pause(),
        Some(Duration::from_millis(25))
    );
    assert_eq!(
        OfflineModel::new(1e-300).pause(),
        Some(Duration::from_millis(2500))
    );
}

/// The whole demo: a question to a real session, two explore children with the
/// real tools, and the parent's assembled answer.
#[tokio::test]
async fn a_question_is_answered_end_to_end_through_a_real_session() {
    use crate::session::{Session, SessionOptions, TraceTarget};

    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "src/auth.rs",
        "pub fn login() {}\nfn check_auth() {}\n",
    );
    write(dir.path(), "src/session.rs", "fn refresh(token: &str) {}\n");
    let mut session = Session::start(SessionOptions {
        workspace: dir.path().to_path_buf(),
        model: Arc::new(OfflineModel::new(f64::INFINITY)),
        model_name: "offline".into(),
        light_model: None,
        profiles: vec![Profile::general(), Profile::explore()],
        max_parallel: 4,
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
    let outcome = session
        .send(
            "Where is auth handled, and how do tokens refresh?",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.reason, TerminalReason::Completed, "{outcome:?}");
    assert_eq!(outcome.steps, 2);
    let text = outcome.final_text;
    println!("{text}");
    assert!(text.contains("2 subagents' summaries"), "{text}");
    assert!(
        text.contains(
            "### Where is auth handled\n`src/auth.rs` defines `login` (line 1: `pub fn login() {}`)."
        ),
        "{text}"
    );
    assert!(
        text.contains("- `src/auth.rs:1`\n- `src/auth.rs:2`"),
        "{text}"
    );
    assert!(
        text.contains(
            "### How do tokens refresh\n`src/session.rs` defines `refresh` (line 1: `fn refresh(token: &str) {}`)."
        ),
        "{text}"
    );
    assert!(text.contains("- `src/session.rs:1`"), "{text}");
    assert!(!text.contains("Failed"), "{text}");
}
