//! The user's permission rules in Claude Code's syntax, from
//! `.claude/settings.json`, `~/.claude/settings.json` and `brood.toml`,
//! through the binary: `check-command`, `brood tool` and a model's call all
//! meet them, and each verdict names the rule and its file.

mod common;

use std::time::Duration;

use common::anthropic_sse::*;
use common::stream_server::*;
use common::{Sandbox, stderr, stdout};
use serde_json::{Value, json};

fn with_settings(settings: Value) -> Sandbox {
    let sb = Sandbox::new();
    sb.write(".claude/settings.json", &settings.to_string());
    sb
}

fn check(sb: &Sandbox, command: &str) -> String {
    let out = sb.run(&["check-command", "--", command]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out).trim().to_string()
}

#[test]
fn check_command_meets_the_rules_and_names_them() {
    let sb = with_settings(json!({"permissions": {
        "allow": ["Bash(npm run test:*)"],
        "ask": ["Bash(npm run build)"],
        "deny": ["Bash(git push:*)"]
    }}));
    assert_eq!(
        check(&sb, "git status && git push origin main"),
        "deny: `Bash(git push:*)` in .claude/settings.json denies"
    );
    assert_eq!(
        check(&sb, "npm run build"),
        "ask: `Bash(npm run build)` in .claude/settings.json asks"
    );
    // The local file, beside the shared one.
    sb.write(
        ".claude/settings.local.json",
        &json!({"permissions": {"deny": ["Bash(npm publish:*)"]}}).to_string(),
    );
    assert_eq!(
        check(&sb, "npm publish --access public"),
        "deny: `Bash(npm publish:*)` in .claude/settings.local.json denies"
    );
    // An allowance covers its own commands, not the others of the line.
    assert!(check(&sb, "npm run test && rm -rf build").starts_with("ask: `rm -rf build`"));
    // Deny beats allow, whichever file says what.
    let sb = with_settings(json!({"permissions": {"allow": ["Bash"], "deny": ["Bash(curl:*)"]}}));
    assert!(check(&sb, "curl -s example.com | head").starts_with("deny: `Bash(curl:*)`"));
    // The built-in deny list stands against any allowance.
    assert!(check(&sb, "rm -rf /").starts_with("deny:"));
}

#[test]
fn brood_tool_meets_path_rules_from_brood_toml() {
    let sb = Sandbox::new();
    sb.write(
        "brood.toml",
        "[permissions]\ndeny = [\"Read(./secrets/**)\"]\n",
    );
    sb.write("secrets/key.pem", "PRIVATE");
    sb.write("src/lib.rs", "pub fn key() {}\n");
    let read = sb.run(&["tool", "read_file", r#"{"path": "secrets/key.pem"}"#]);
    assert_eq!(read.status.code(), Some(1));
    let said = stdout(&read);
    assert!(
        said.contains("`Read(./secrets/**)` in brood.toml denies"),
        "{said}"
    );
    assert!(!said.contains("PRIVATE-"), "{said}");
    // A search from the root would walk into the folder: it is asked about.
    let grep = sb.run(&["tool", "grep", r#"{"pattern": "PRIVATE"}"#]);
    assert_eq!(grep.status.code(), Some(1));
    assert!(stdout(&grep).contains("would search paths `Read(./secrets/**)`"));
    let inside = sb.run(&["tool", "grep", r#"{"pattern": "key", "path": "src"}"#]);
    assert_eq!(inside.status.code(), Some(0), "{}", stdout(&inside));
}

/// A command does not read what a `Read` rule denies: the sandbox hides the
/// folder (and shows a denied file as empty), whatever the command line.
#[test]
fn commands_cannot_read_what_a_read_rule_denies() {
    let sb =
        with_settings(json!({"permissions": {"deny": ["Read(./secrets/**)", "Read(./.env)"]}}));
    sb.write("secrets/key.pem", "PRIVATE-KEY");
    sb.write(".env", "TOKEN=PRIVATE-ENV");
    sb.write("notes.txt", "public");
    let script = r#"{"command": "cat secrets/key.pem .env notes.txt; grep -r PRIVATE . ; ls secrets | wc -l"}"#;
    let out = sb.run(&["tool", "bash", script, "--yes"]);
    let said = stdout(&out);
    assert!(said.contains("public"), "{said}");
    assert!(!said.contains("PRIVATE-"), "{said}");
    // Still there for the user.
    assert_eq!(
        std::fs::read_to_string(sb.workspace().join(".env")).unwrap(),
        "TOKEN=PRIVATE-ENV"
    );
}

#[test]
fn a_model_s_call_a_rule_denies_is_refused_with_the_rule() {
    let sb = Sandbox::new();
    let home = sb.root.path().join(".claude");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("settings.json"),
        json!({"permissions": {"deny": ["Bash(git push:*)"]}}).to_string(),
    )
    .unwrap();
    let server = StreamServer::start(|request, _| {
        let stream = match answered(&request.json()) {
            false => tool_turn(
                500,
                &[(
                    "toolu_01Push",
                    "bash",
                    r#"{"command": "git push origin main"}"#,
                )],
            ),
            true => text_turn(700, "Pushing is not allowed here."),
        };
        Reply::sse_per_event(&stream, Duration::ZERO)
    });
    sb.run_anthropic(
        &server.base_url(),
        &["--model", "claude-test", "--no-trace", "push it"],
    );
    let second = server.requests()[1].json();
    let result = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_result")
        .expect("the call's result went back");
    assert_eq!(result["is_error"], true);
    let text = result["content"].to_string();
    assert!(
        text.contains("`Bash(git push:*)` in ~/.claude/settings.json denies"),
        "{text}"
    );
}

#[test]
fn a_settings_file_that_cannot_be_read_stops_brood() {
    let sb = Sandbox::new();
    sb.write(
        ".claude/settings.json",
        "{\"permissions\": {\"deny\": [\"Bash(rm:*)\"],}",
    );
    let out = sb.run(&["check-command", "--", "rm x"]);
    // As a broken brood.toml does: exit 1, the file and the problem.
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).is_empty(), "no verdict without the rules");
    let err = stderr(&out);
    assert!(err.contains(".claude/settings.json"), "{err}");
    assert!(err.contains("cannot be left out"), "{err}");
}
