//! Agent files of Claude Code, opencode and Codex as brood profiles, through
//! the binary: `brood agents` lists them with where each came from, and a
//! parent over the Anthropic wire format is offered them and starts one, whose
//! first request carries the file's prompt, tools and model.

mod common;

use std::time::Duration;

use common::anthropic_sse::*;
use common::stream_server::*;
use common::{Sandbox, stderr, stdout};
use serde_json::{Value, json};

/// A reviewer as public collections write them: a description that is not
/// valid YAML (`Examples:` then unindented example lines), tools as a comma
/// string with one brood lacks and one that delegates, CRLF line ends, a BOM.
const REVIEWER: &str = "\u{feff}---\r\nname: code-reviewer\r\ndescription: Reviews a change for \
bugs. Examples:\r\n<example>\r\nContext: a fix was made.\r\nuser: \"Review it\"\r\n</example>\r\n\
tools: Read, Grep, WebFetch, Task\r\nmodel: haiku\r\ncolor: yellow\r\nmemory: project\r\n---\r\n\r\n\
You review code. Cite path:line for every finding.\r\n";

const DOCS_WRITER: &str = "---\nname: docs-writer\ndescription: |\n  Writes and fixes \
documentation.\n  Use after an API change.\ntools:\n  - Read\n  - Write\n  - Edit\nmaxTurns: 6\n---\n\
You write docs.\n";

const OPENCODE_AUDITOR: &str = "---\ndescription: Audits dependencies\nmode: subagent\n\
model: anthropic/claude-sonnet-4-5\ntools:\n  write: false\n  edit: false\npermission:\n  bash: deny\n\
---\nYou audit dependencies.\n";

const OPENCODE_PRIMARY: &str = "---\ndescription: Plans\nmode: primary\n---\nYou plan.\n";

const CODEX_TRACER: &str = "name = \"tracer\"\ndescription = \"Traces call paths.\"\n\
sandbox_mode = \"read-only\"\nmodel_reasoning_effort = \"high\"\n\
developer_instructions = \"\"\"\nTrace the real call paths.\n\"\"\"\n";

/// A workspace with agent files of every format, the user's and its own.
fn setup() -> Sandbox {
    let sb = Sandbox::new();
    let home = sb.root.path();
    let write = |path: std::path::PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(home.join(".codex/agents/tracer.toml"), CODEX_TRACER);
    // The workspace's file of the same name wins over the user's.
    write(
        home.join(".claude/agents/code-reviewer.md"),
        "---\nname: code-reviewer\ndescription: the user's own\n---\nOld.\n",
    );
    sb.write(".claude/agents/reviewer.md", REVIEWER);
    sb.write(".claude/agents/team/docs.md", DOCS_WRITER);
    sb.write(
        ".claude/agents/broken.md",
        "---\nname: broken\nmaxTurns: lots\n---\nx\n",
    );
    sb.write(".claude/agents/no-front-matter.md", "# Just notes\n");
    sb.write(".opencode/agent/auditor.md", OPENCODE_AUDITOR);
    sb.write(".opencode/agent/planner.md", OPENCODE_PRIMARY);
    sb
}

fn agents_json(sb: &Sandbox) -> Vec<Value> {
    let out = sb.run(&["agents", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn profile<'a>(listed: &'a [Value], name: &str) -> &'a Value {
    listed
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no profile {name} in {listed:#?}"))
}

#[test]
fn agent_files_of_every_format_become_profiles() {
    let sb = setup();
    let listed = agents_json(&sb);

    let reviewer = profile(&listed, "code-reviewer");
    assert_eq!(reviewer["source"], "Claude Code");
    assert!(
        reviewer["file"]
            .as_str()
            .unwrap()
            .ends_with("ws/.claude/agents/reviewer.md")
    );
    assert_eq!(reviewer["tools"], json!(["read_file", "grep"]));
    assert_eq!(reviewer["read_only"], true);
    assert_eq!(reviewer["model"], "light");
    assert_eq!(reviewer["color"], "yellow");
    let description = reviewer["description"].as_str().unwrap();
    assert!(
        description.starts_with("Reviews a change for bugs. Examples:"),
        "{description}"
    );
    assert!(description.contains("user: \"Review it\""), "{description}");
    let warnings = reviewer["warnings"].to_string();
    for said in [
        "not valid YAML",
        "Task left out",
        "one level of delegation",
        "no WebFetch",
        "not read: memory",
    ] {
        assert!(warnings.contains(said), "{said}: {warnings}");
    }

    let docs = profile(&listed, "docs-writer");
    assert_eq!(
        docs["tools"],
        json!(["read_file", "write_file", "edit_file"])
    );
    assert_eq!(docs["read_only"], false);
    assert_eq!(docs["max_steps"], 6);
    assert_eq!(docs["model"], "main");

    let auditor = profile(&listed, "auditor");
    assert_eq!(auditor["source"], "opencode");
    assert_eq!(auditor["tools"], json!(["read_file", "glob", "grep"]));
    assert_eq!(auditor["read_only"], true);

    let tracer = profile(&listed, "tracer");
    assert_eq!(tracer["source"], "Codex");
    assert_eq!(tracer["read_only"], true);
    assert!(
        tracer["warnings"]
            .to_string()
            .contains("model_reasoning_effort")
    );

    assert!(
        listed.iter().all(|p| p["name"] != "planner"),
        "a primary agent is no subagent"
    );
    let left_out: Vec<&str> = listed
        .iter()
        .filter_map(|p| p["left_out"].as_str())
        .collect();
    assert_eq!(left_out.len(), 2, "{left_out:?}");
    assert!(
        left_out
            .iter()
            .any(|l| l.contains("broken.md: line 3: maxTurns must be a whole number, not lots")),
        "{left_out:?}"
    );
    assert!(
        left_out
            .iter()
            .any(|l| l.contains("no-front-matter.md: line 1: no front matter")),
        "{left_out:?}"
    );
    for built_in in ["explore", "general"] {
        assert_eq!(profile(&listed, built_in)["source"], "built in");
    }
}

#[test]
fn the_profile_table_says_where_each_came_from() {
    let sb = setup();
    let out = sb.run(&["agents"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
            .to_string()
    };
    assert!(
        line("tracer").contains("Codex ~/.codex/agents/tracer.toml"),
        "{text}"
    );
    assert!(
        line("code-reviewer").contains("read_file, grep (read-only)"),
        "{text}"
    );
    assert!(line("docs-writer").contains("6 steps"), "{text}");
    assert!(
        text.contains("  ! tools: brood has no WebFetch (left out)"),
        "{text}"
    );
    assert!(text.contains("left out:\n"), "{text}");
}

#[test]
fn a_parent_is_offered_an_agent_file_and_its_child_runs_as_the_file_says() {
    let sb = setup();
    sb.write(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 { a - b }\n",
    );
    let server = StreamServer::start(|request, _| {
        let body = request.json();
        let parent = tool_names(&body).iter().any(|n| n == "task");
        let stream = match (parent, answered(&body)) {
            (true, false) => tool_turn(
                900,
                &[(
                    "toolu_01Review",
                    "task",
                    "{\"prompt\": \"Review src/lib.rs\", \"description\": \"review\", \
                       \"subagent_type\": \"code-reviewer\"}",
                )],
            ),
            (false, _) => text_turn(500, "src/lib.rs:1 subtracts where it should add."),
            (true, true) => text_turn(1200, "The reviewer found a bug at src/lib.rs:1."),
        };
        Reply::sse_per_event(&stream, Duration::ZERO)
    });
    let out = sb.run_anthropic(
        &server.base_url(),
        &[
            "--model",
            "claude-main-test",
            "--light-model",
            "claude-light-test",
            "--no-trace",
            "--json",
            "Review my change",
        ],
    );
    let requests: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();

    let parent = &requests[0];
    let task = parent["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "task")
        .unwrap();
    let offered = &task["input_schema"]["properties"]["subagent_type"];
    for name in [
        "code-reviewer",
        "docs-writer",
        "auditor",
        "tracer",
        "explore",
        "general",
    ] {
        assert!(
            offered["enum"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n == name),
            "{name}: {offered}"
        );
    }
    assert!(
        offered["description"]
            .as_str()
            .unwrap()
            .contains("code-reviewer: Reviews a change for bugs."),
        "{offered}"
    );

    let child = requests
        .iter()
        .find(|b| !tool_names(b).iter().any(|n| n == "task"))
        .expect("the child asked the model");
    assert_eq!(tool_names(child), ["grep", "read_file"]);
    assert_eq!(child["model"], "claude-light-test");
    let system = system_text(child);
    assert!(
        system.contains("You review code. Cite path:line for every finding."),
        "{system}"
    );
    assert!(
        !system.contains("Old."),
        "the workspace's file wins: {system}"
    );
    // Said once at start: what the reviewer's file lost, and the files left out.
    let err = stderr(&out);
    assert!(
        err.contains("code-reviewer") && err.contains("one level of delegation"),
        "{err}"
    );
    assert!(err.contains("agent files have notes"), "{err}");
    assert!(err.contains("broken.md"), "{err}");
    // The file's color goes with the child, for its id on screen.
    let start: Value = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "subagent_start")
        .expect("the child started");
    assert_eq!(start["profile"], "code-reviewer");
    assert_eq!(start["color"], "yellow");
}
