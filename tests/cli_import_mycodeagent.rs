//! `brood replay` on MyCodeAgent's files, through the real binary: the sample
//! session under `tests/data/import/mycodeagent/shop/`, in the shape the
//! runtime writes (a trace with masked call ids, and the transcript beside it).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use brood::event::{AgentId, Event, EventKind};
use common::{Sandbox, stderr, stdout};

const TRACE: &str = "memory/traces/trace-s-20260714-101500-7a3c.jsonl";
const TRANSCRIPT: &str = "memory/transcripts/transcript-s-20260714-101500-7a3c.jsonl";

const CHILD_GATE: &str =
    "Return only a valid ExploreResult JSON object: Expecting value: line 1 column 1 (char 0)";

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import/mycodeagent/shop")
        .join(rel)
}

fn replay(sb: &Sandbox, args: &[&str], file: &Path) -> Output {
    let mut all = vec!["replay"];
    all.extend_from_slice(args);
    let file = file.to_str().unwrap();
    all.push(file);
    sb.run(&all)
}

fn events(out: &Output) -> Vec<Event> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What both files of the session print alike.
fn assert_session_printed(text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    let prompts: Vec<&&str> = lines.iter().filter(|l| l.starts_with("you  ")).collect();
    assert_eq!(
        prompts,
        [
            &"you  Where is the HTTP retry limit configured? Change nothing, but run the tests when you're done."
        ],
        "{text}"
    );
    for expected in [
        "> task: explore: find retry limit",
        "[Subagent started] sub-1 explore: find retry limit",
        "  [sub-1] Grep: shop/http/client.py:14: MAX_RETRIES",
        "  [sub-1] Read: 30: # HTTP 31: HTTP_RETRIES",
        "  [sub-1] Read: 12: class Client:",
        "  [sub-1] stop hook: Return only a valid ExploreResult JSON object",
        "[Subagent done] sub-1 completed · 4 steps",
        "> stop hook: <system-reminder>Completion blocked by runtime gate.</system-reminder>",
        "> Bash: pytest -q",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(expected)),
            "{expected:?} in:\n{text}"
        );
    }
    let sub_lines = lines.iter().filter(|l| l.starts_with("  [sub-1] ")).count();
    assert_eq!(
        sub_lines, 4,
        "one line per tool call of the child, and its gate correction:\n{text}"
    );
    // The gate sent the parent back before it ran the tests.
    let gate = lines.iter().position(|l| l.starts_with("> stop hook:"));
    let bash = lines.iter().position(|l| l.starts_with("> Bash:"));
    assert!(gate < bash, "{text}");
}

/// The child's gate correction in its lane, as an event.
fn assert_child_gate(events: &[Event]) {
    let hooks: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::HookContinue { text } => Some((e.agent, text.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(hooks.len(), 2, "{hooks:?}");
    assert_eq!(hooks[0], (AgentId::Sub(1), CHILD_GATE));
    assert_eq!(hooks[1].0, AgentId::Main);
}

#[test]
fn a_mycodeagent_trace_prints_its_prompt_children_and_gate_corrections() {
    let sb = Sandbox::new();
    let out = replay(&sb, &["--print"], &sample(TRACE));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_session_printed(&text);
    assert!(
        text.lines()
            .any(|l| l == "[Subagent done] sub-1 completed · 4 steps · 8928 tokens"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("tokens: main 14346 · sub-1 8928")),
        "{text}"
    );
    let json = replay(&sb, &["--print", "--json"], &sample(TRACE));
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let events = events(&json);
    assert_child_gate(&events);
    // The masked ids came back from the transcript beside the trace.
    let ids: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        ids,
        [
            "call_00_Tk7Qm2",
            "call_00_Gr4pQx",
            "call_01_Rd8kLm",
            "call_02_Rd2vNc",
            "call_00_Bs3Lw9"
        ]
    );
}

#[test]
fn a_mycodeagent_transcript_replays_like_its_trace() {
    let sb = Sandbox::new();
    let out = replay(&sb, &["--print"], &sample(TRANSCRIPT));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_session_printed(&stdout(&out));
    assert!(
        stderr(&out).contains("records no token counts"),
        "{}",
        stderr(&out)
    );
    let json = replay(&sb, &["--print", "--json"], &sample(TRANSCRIPT));
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    assert_child_gate(&events(&json));
    // Without --print it is a session for the workbench, which needs a terminal.
    let workbench = replay(&sb, &[], &sample(TRANSCRIPT));
    assert_eq!(workbench.status.code(), Some(2), "{}", stderr(&workbench));
    assert!(
        stderr(&workbench).contains("--print"),
        "{}",
        stderr(&workbench)
    );
}
