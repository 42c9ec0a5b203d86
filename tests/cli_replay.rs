//! `brood replay` and `brood traces` through the real binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use brood::event::Event;
use common::{Sandbox, stderr, stdout};
use serde_json::json;

const VALID: &str = r#"{"status":"completed","summary":"Login is handled in src/auth.rs.","findings":["login() checks the password"],"evidence":["src/auth.rs:1"],"unresolved_questions":[]}"#;

/// A parent that calls `task` twice; both children call tools, one fails.
fn delegating_script() -> serde_json::Value {
    json!({"agents": {
        "main": [
            {"text": "Two questions; I'll ask two explorers.", "tool_calls": [
                {"name": "task", "input": {"prompt": "Find login", "description": "find login", "subagent_type": "explore"}},
                {"name": "task", "input": {"prompt": "Find refresh", "description": "token refresh", "subagent_type": "explore"}}
            ], "usage": {"input_tokens": 900, "output_tokens": 100}},
            {"text": "Reading it myself.", "tool_calls": [
                {"name": "read_file", "input": {"path": "src/auth.rs"}}
            ], "usage": {"input_tokens": 1100, "output_tokens": 30}},
            {"text": "Login is in src/auth.rs:1; refresh could not be traced.", "usage": {"input_tokens": 1300, "output_tokens": 40}}
        ],
        "sub-1": [
            {"text": "Searching.", "tool_calls": [{"name": "grep", "input": {"pattern": "fn login"}}], "usage": {"input_tokens": 700, "output_tokens": 50}},
            {"tool_calls": [{"name": "read_file", "input": {"path": "src/auth.rs"}}], "usage": {"input_tokens": 750, "output_tokens": 20}},
            {"text": VALID, "usage": {"input_tokens": 800, "output_tokens": 90}}
        ],
        "sub-2": [
            {"tool_calls": [{"name": "glob", "input": {"pattern": "**/*.rs"}}], "usage": {"input_tokens": 700, "output_tokens": 50}},
            {"error": "upstream went away"}
        ]
    }})
}

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(
        "src/auth.rs",
        "fn login() {}\nfn refresh_token() {}\n// ünïcode ✓\n",
    );
    sb
}

/// `brood run` with the scripted model on `script`, asking `prompt`, with a
/// trace at `trace` (or the default place when `None`).
fn record(sb: &Sandbox, script: serde_json::Value, prompt: &str, trace: Option<&Path>) -> Output {
    let script = sb.script(script);
    let mut args = vec![
        "run".to_string(),
        "--provider".into(),
        "scripted".into(),
        "--script".into(),
        script.display().to_string(),
        "--max-parallel".into(),
        "1".into(),
    ];
    if let Some(trace) = trace {
        args.extend(["--trace".into(), trace.display().to_string()]);
    }
    args.push(prompt.into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    sb.run(&args)
}

fn replay(sb: &Sandbox, args: &[&str], file: &Path) -> Output {
    let mut all = vec!["replay"];
    all.extend_from_slice(args);
    let file = file.to_str().unwrap();
    all.push(file);
    sb.run(&all)
}

fn trace_path(sb: &Sandbox, name: &str) -> PathBuf {
    sb.root.path().join(name)
}

/// The event lines of a trace (the header left out).
fn event_lines(trace: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(trace).unwrap();
    text.lines().skip(1).map(String::from).collect()
}

#[test]
fn print_gives_exactly_what_the_live_run_printed() {
    let sb = sandbox();
    let trace = trace_path(&sb, "s.jsonl");
    let live = record(&sb, delegating_script(), "where is login?", Some(&trace));
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    let text = stdout(&live);
    assert!(text.contains("[Subagent started] sub-2 explore"), "{text}");
    assert!(text.contains("  [sub-1] read_file"), "{text}");
    let replayed = replay(&sb, &["--print"], &trace);
    assert_eq!(replayed.status.code(), Some(0), "{}", stderr(&replayed));
    assert_eq!(stdout(&replayed), text);
    assert_eq!(stderr(&replayed), "");
}

#[test]
fn json_writes_the_traces_event_lines_with_increasing_seq() {
    let sb = sandbox();
    let trace = trace_path(&sb, "s.jsonl");
    let live = record(&sb, delegating_script(), "where is login?", Some(&trace));
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    let out = replay(&sb, &["--print", "--json"], &trace);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<String> = text.lines().map(String::from).collect();
    assert_eq!(lines, event_lines(&trace));
    let events: Vec<Event> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(events.windows(2).all(|w| w[0].seq < w[1].seq));
    assert!(events.iter().any(|e| e.agent.to_string() == "sub-2"));
    // `--json` alone means the same.
    assert_eq!(stdout(&replay(&sb, &["--json"], &trace)), text);
}

#[test]
fn last_replays_the_newest_session() {
    let sb = sandbox();
    let first = record(
        &sb,
        json!([{"text": "First answer."}]),
        "first question",
        None,
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let second = record(&sb, delegating_script(), "second question", None);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert_eq!(sb.traces().len(), 2);
    let out = sb.run(&["replay", "--last", "--print"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), stdout(&second));
}

#[test]
fn last_with_no_saved_session_says_so() {
    let sb = sandbox();
    let out = sb.run(&["replay", "--last", "--print"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no saved sessions"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn traces_lists_sessions_newest_first_with_their_outcome() {
    let sb = sandbox();
    let failing = json!({"agents": {"main": [
        {"text": "Let me see.", "tool_calls": [{"name": "glob", "input": {"pattern": "*"}}],
         "usage": {"input_tokens": 100, "output_tokens": 5}},
        {"error": "upstream went away"}
    ]}});
    let first = record(&sb, failing, "the failing one", None);
    assert_eq!(first.status.code(), Some(1), "{}", stdout(&first));
    let second = record(&sb, delegating_script(), "where is login?", None);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));

    let out = sb.run(&["traces"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    for column in [
        "DATE", "DURATION", "PROMPT", "CHILDREN", "TOKENS", "ENDED", "PATH",
    ] {
        assert!(lines[0].contains(column), "{table}");
    }
    // Newest first: the delegating session, with its two children.
    assert!(lines[1].contains("where is login?"), "{table}");
    assert!(lines[1].contains("  2  "), "{table}");
    assert!(lines[1].contains("completed"), "{table}");
    assert!(lines[2].contains("the failing one"), "{table}");
    assert!(lines[2].contains("failed: model_error"), "{table}");
    // Columns line up: every row has its PATH where the header has it.
    let at = lines[0].find("PATH").unwrap();
    assert!(
        lines[1..].iter().all(|l| l[at..].starts_with("~/")),
        "{table}"
    );

    let out = sb.run(&["traces", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["first_prompt"], "where is login?");
    assert_eq!(rows[0]["children"], 2);
    // main 900+100 + 1100+30 + 1300+40, sub-1 700+50 + 750+20 + 800+90, sub-2 700+50.
    assert_eq!(rows[0]["tokens"], 3470 + 2410 + 750);
    assert_eq!(rows[0]["end"], "completed");
    assert_eq!(rows[1]["first_prompt"], "the failing one");
    assert_eq!(rows[1]["children"], 0);
    assert_eq!(rows[1]["tokens"], 105);
    assert_eq!(rows[1]["end"], "failed");
    assert_eq!(rows[1]["reason"], "model_error");
    assert!(
        rows[1]["error"]
            .as_str()
            .unwrap()
            .contains("upstream went away")
    );
    let newest = PathBuf::from(rows[0]["path"].as_str().unwrap());
    assert!(sb.traces().contains(&newest));
}

#[test]
fn traces_says_unfinished_for_a_session_without_its_turn_end() {
    let sb = sandbox();
    let trace = trace_path(&sb, "traces/cut.jsonl");
    let live = record(&sb, delegating_script(), "cut short", Some(&trace));
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    // Keep the first half of the lines, as if brood had been killed.
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let half = lines[..lines.len() / 2].join("\n") + "\n";
    std::fs::write(&trace, half).unwrap();
    let dir = trace.parent().unwrap().to_str().unwrap().to_string();
    std::fs::write(trace.with_file_name("notes.jsonl"), "{\"hello\":1}\n").unwrap();
    let out = sb.run(&["traces", &dir]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("unfinished"), "{}", stdout(&out));
    assert!(stdout(&out).contains("cut short"), "{}", stdout(&out));
    assert!(stderr(&out).contains("notes.jsonl"), "{}", stderr(&out));
}

#[test]
fn traces_with_nothing_saved_says_so() {
    let sb = sandbox();
    let out = sb.run(&["traces"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("No saved sessions"),
        "{}",
        stdout(&out)
    );
    let out = sb.run(&["traces", "--json"]);
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_truncated_last_line_is_accepted_without_a_note() {
    let sb = sandbox();
    let trace = trace_path(&sb, "s.jsonl");
    let live = record(&sb, delegating_script(), "where is login?", Some(&trace));
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    let mut text = std::fs::read_to_string(&trace).unwrap();
    let cut = text.trim_end().len() - 10;
    text.truncate(cut);
    std::fs::write(&trace, &text).unwrap();
    let out = replay(&sb, &["--json"], &trace);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let mut expected = event_lines(&trace);
    expected.pop();
    assert_eq!(stdout(&out).lines().collect::<Vec<_>>(), expected);
}

#[test]
fn a_bad_line_in_the_middle_is_skipped_and_reported_by_number() {
    let sb = sandbox();
    let trace = trace_path(&sb, "s.jsonl");
    let live = record(&sb, delegating_script(), "where is login?", Some(&trace));
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    // Line 5 becomes garbage (its event is lost); line 8 is an unknown event.
    let lost = lines[4].to_string();
    lines[4] = "{\"seq\": oops";
    lines.insert(
        7,
        r#"{"seq":999999,"t_ms":1,"agent":"main","type":"no_such_event"}"#,
    );
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    let out = replay(&sb, &["--print"], &trace);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let notes = stderr(&out);
    assert!(notes.contains("skipped line 5: "), "{notes}");
    assert!(notes.contains("skipped line 8: "), "{notes}");
    assert!(notes.contains("skipped 2 bad lines"), "{notes}");
    let json = replay(&sb, &["--json"], &trace);
    let printed: Vec<String> = stdout(&json).lines().map(String::from).collect();
    assert!(!printed.contains(&lost));
    assert_eq!(printed.len(), event_lines(&trace).len() - 2);
}

#[test]
fn files_brood_cannot_read_get_clear_errors() {
    let sb = sandbox();
    let unknown = trace_path(&sb, "notes.jsonl");
    std::fs::write(&unknown, "{\"hello\":\"world\"}\n").unwrap();
    let out = replay(&sb, &["--print"], &unknown);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    for format in ["brood traces", "Claude Code", "MyCodeAgent"] {
        assert!(message.contains(format), "{message}");
    }
    let empty = trace_path(&sb, "empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = replay(&sb, &["--print"], &empty);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is empty"), "{}", stderr(&out));
    let out = replay(&sb, &["--print"], &trace_path(&sb, "missing.jsonl"));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no such file"), "{}", stderr(&out));
    let out = replay(&sb, &["--print"], sb.root.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is a folder"), "{}", stderr(&out));
}

#[test]
fn the_workbench_without_a_terminal_points_to_print() {
    let sb = sandbox();
    let trace = trace_path(&sb, "s.jsonl");
    let live = record(&sb, json!([{"text": "Hi."}]), "hello", Some(&trace));
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    let out = replay(&sb, &[], &trace);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--print"), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}

/// The importer's sample transcripts.
fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import")
        .join(rel)
}

const CLAUDE_SESSION: &str = "claude/-home-dev-shop/7c1e9a52-3f4b-4d1e-9a8c-2b6f0d4e5a17.jsonl";
const CLAUDE_INLINE: &str = "claude/-home-dev-shop/0b9d3e21-6a4c-4f7e-8d21-5c3a9e7f1b60.jsonl";
const MYCODEAGENT: &str = "mycodeagent/trace-s-20260103-201533-a3f2.jsonl";
const CODEX_PARENT: &str = "codex/sessions/2026/02/11/rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl";
const CODEX_TOOLS: &str = "codex/sessions/2026/02/11/rollout-2026-02-11T09-14-03-019c4b2e-5f1a-7c3d-9e21-4a8b6c0d2f17.jsonl";

#[test]
fn foreign_transcripts_print_like_brood_sessions_with_their_children() {
    let sb = sandbox();
    for rel in [CLAUDE_SESSION, CLAUDE_INLINE, MYCODEAGENT, CODEX_PARENT] {
        let out = replay(&sb, &["--print"], &sample(rel));
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("[Subagent started] sub-1"), "{rel}:\n{text}");
        assert!(text.contains("[Subagent done] sub-2"), "{rel}:\n{text}");
        assert!(text.contains("tokens: main "), "{rel}:\n{text}");
    }
    // MyCodeAgent's second child has no trace file: the import says so.
    let out = replay(&sb, &["--print"], &sample(MYCODEAGENT));
    assert!(stderr(&out).contains("was not found"), "{}", stderr(&out));
}

#[test]
fn foreign_transcripts_convert_to_brood_event_lines() {
    let sb = sandbox();
    for rel in [
        CLAUDE_SESSION,
        CLAUDE_INLINE,
        MYCODEAGENT,
        CODEX_PARENT,
        CODEX_TOOLS,
    ] {
        let out = replay(&sb, &["--print", "--json"], &sample(rel));
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", stderr(&out));
        let events: Vec<Event> = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(events.len() > 10, "{rel}");
        assert!(events.windows(2).all(|w| w[0].seq < w[1].seq), "{rel}");
        // Each line is exactly what brood writes for that event.
        for (line, event) in stdout(&out).lines().zip(&events) {
            assert_eq!(line, serde_json::to_string(event).unwrap());
        }
        // Printing the converted events as a brood trace gives the same text.
        let trace = trace_path(&sb, "converted.jsonl");
        let header = json!({"format": "brood-trace", "version": 1, "session": "s",
            "started_at": "2026-01-01T00:00:00.000Z", "cwd": "/", "provider": "p",
            "model": "m", "light_model": null, "brood_version": "0"});
        std::fs::write(&trace, format!("{header}\n{}", stdout(&out))).unwrap();
        let direct = replay(&sb, &["--print"], &sample(rel));
        let via_trace = replay(&sb, &["--print"], &trace);
        assert_eq!(stdout(&via_trace), stdout(&direct), "{rel}");
    }
}

#[test]
fn a_codex_rollout_prints_its_prompts_tool_cells_and_sub_agents() {
    let sb = sandbox();
    let out = replay(&sb, &["--print"], &sample(CODEX_PARENT));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // The prompt once, though the rollout writes it twice; no injected context.
    let prompts: Vec<&&str> = lines.iter().filter(|l| l.starts_with("you  ")).collect();
    assert_eq!(
        prompts,
        [&"you  Audit the checkout flow: one agent on payment retries, one on the coupon rules."]
    );
    for expected in [
        "> task: explorer: Review payment retries in checkout/pay.py",
        "[Subagent started] sub-1 explorer: Euclid",
        "  [sub-1] exec_command: 88: result = gateway.charge(card, amount)",
        "  [sub-1] shell: for attempt in range(3):",
        "[Subagent done] sub-1 completed · 3 steps · 20130 tokens",
        "[Subagent started] sub-2 worker: Noether",
        "[Subagent done] sub-2 completed · 2 steps · 11390 tokens",
        "tokens: main 47720 · sub-1 20130 · sub-2 11390",
    ] {
        assert!(text.contains(expected), "{expected}:\n{text}");
    }
    // Each child's lines come between its spawn call and the parent's wait.
    let at = |s: &str| lines.iter().position(|l| l.contains(s)).unwrap();
    assert!(at("> task: explorer") < at("[sub-1] exec_command"));
    assert!(at("[Subagent done] sub-1") < at("> task: worker"));
    assert!(
        stderr(&out).contains("not shown: 2 message (injected context)"),
        "{}",
        stderr(&out)
    );

    let out = replay(&sb, &["--print"], &sample(CODEX_TOOLS));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("you  ")).count(),
        2,
        "{text}"
    );
    for expected in [
        "Reasoning: **Running the cart tests**",
        "> exec_command: make test TEST=cart\n  error: exit code 2\n  FAILED cart/test_total.py",
        "> mcp__filesystem__read_text_file: /home/dev/shop/cart/total.py",
        "> apply_patch: edit cart/total.py",
        "> web_search: pytest 9 changelog",
        "tokens: main 60751\n",
        "tokens: main 73360\n",
    ] {
        assert!(text.contains(expected), "{expected}:\n{text}");
    }
    assert!(!text.contains("AGENTS.md"), "{text}");
}

const CLAUDE_COMMANDS: &str = "claude/-home-dev-notes/2f9e4c1a-7b6d-4e5f-a0b1-c2d3e4f5a6b7.jsonl";
const CLAUDE_COMPACTED: &str = "claude/-home-dev-notes/6c3b2a19-8d7e-4f6a-b5c4-d3e2f1a0b9c8.jsonl";
const CLAUDE_REWOUND: &str = "claude/-home-dev-notes/9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a.jsonl";

#[test]
fn claude_sessions_print_their_prompts_as_you_lines_and_the_rest_as_notes() {
    let sb = sandbox();
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            CLAUDE_SESSION,
            &[
                "Where is auth handled, and how do tokens refresh?",
                "Thanks. Run the auth tests.",
            ],
            &[],
        ),
        (
            CLAUDE_COMMANDS,
            &[
                "Start the production build in the background and tell me when it is done.",
                "Thanks, that's all.",
            ],
            &[
                "> slash command: /model opus\n  Set model to opus (claude-opus-4-5-20251101)\n",
                "> task notification: Background command \"npm run build\" completed (exit code 0)\n",
                "> user shell: git status --short\n   M src/app.ts\n",
                "> slash command: /review-pr 42\n",
            ],
        ),
        (
            CLAUDE_COMPACTED,
            &[
                "Refactor the importer into smaller modules.",
                "Go ahead with step one.",
            ],
            &[
                "> slash command: /compact keep the module list\n",
                "> compaction: context compacted (manual, 48.2k tokens before)\n  This session is being continued",
                "> compaction: context compacted (auto, 155k tokens before)\n",
            ],
        ),
        (
            CLAUDE_REWOUND,
            &[
                "Add a --verbose flag to the CLI.",
                "Actually, make --verbose also show the config it loaded.",
                "Run the tests.",
            ],
            &[
                "> rewind: 2 messages, 1 tool call abandoned\n  prompt: Now make it also print timings.\n",
            ],
        ),
    ];
    for (rel, prompts, notes) in cases {
        let out = replay(&sb, &["--print"], &sample(rel));
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", stderr(&out));
        let text = stdout(&out);
        let you: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("you  "))
            .collect();
        assert_eq!(you, prompts, "{rel}:\n{text}");
        for note in notes {
            assert!(text.contains(note), "{rel}: no {note:?} in\n{text}");
        }
    }
}

/// `brood replay` in a real terminal: tmux runs it, the test reads the screen.
mod workbench {
    use std::time::Duration;

    use super::*;
    use common::tmux::Tmux;

    const WAIT: Duration = Duration::from_secs(15);

    #[test]
    fn replay_plays_the_last_session_in_the_workbench_and_quits_on_q() {
        let sb = sandbox();
        let live = record(&sb, delegating_script(), "where is login?", None);
        assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
        let events = event_lines(&sb.traces()[0]).len();
        let tmux = Tmux::shell(&sb, 130, 40);
        tmux.command("brood replay --last; echo replay-exited-$?");
        let screen = tmux.wait_for(".jsonl · brood trace", WAIT);
        assert!(screen.contains(".jsonl · brood trace"), "{screen}");
        // Jump to the end: every event applied, the parent's answer on screen.
        tmux.keys(&["G"]);
        let screen = tmux.wait_for(&format!("event {events} of {events}"), WAIT);
        assert!(screen.contains("where is login?"), "{screen}");
        assert!(screen.contains("Login is in src/auth.rs:1"), "{screen}");
        assert!(screen.contains("sub-2"), "{screen}");
        tmux.keys(&["q"]);
        tmux.wait_for("replay-exited-0", WAIT);
    }

    #[test]
    fn ctrl_d_quits_a_replay_even_from_the_help_overlay() {
        let sb = sandbox();
        let live = record(&sb, json!([{"text": "Hi."}]), "hello", None);
        assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
        let tmux = Tmux::shell(&sb, 100, 30);
        tmux.command("brood replay --last; echo replay-exited-$?");
        // The hints sit below the bar's title, so they come later in a frame.
        let screen = tmux.wait_for("q quit", WAIT);
        assert!(screen.contains(".jsonl · brood trace"), "{screen}");
        // `q` closes the overlay there, so the status line names Ctrl-D.
        tmux.type_text("?");
        // Wait for the status line itself: tmux can read the screen between
        // the overlay's rows and the status line's, which come later in a frame.
        let screen = tmux.wait_for("Esc close · Ctrl-D quit", WAIT);
        assert!(screen.contains("┌ Keys"), "{screen}");
        tmux.keys(&["C-d"]);
        tmux.wait_for("replay-exited-0", WAIT);
    }
}
