//! One child at a time, in a real terminal: `m` on the subagents pane sends
//! the selected child a message it reads before its next step, `x` stops
//! another child alone, and the parent's turn goes on to its answer.

mod common;

use std::time::Duration;

use common::Sandbox;
use common::tmux::Tmux;

fn words(n: usize) -> String {
    vec!["reading"; n].join(" ")
}

#[test]
fn m_messages_one_child_and_x_stops_another_while_the_parent_goes_on() {
    let sb = Sandbox::new();
    sb.write("src/a.rs", "fn a() {}\n");
    let script = sb.script(serde_json::json!({"agents": {
        "main": [
            {"tool_calls": [
                {"name": "task", "input": {"prompt": "slow", "description": "the slow one", "subagent_type": "general"}},
                {"name": "task", "input": {"prompt": "list", "description": "the lister", "subagent_type": "general"}}
            ]},
            {"text": "Parent answer after both."}
        ],
        "sub-1": [{"text": words(400), "chunk_delay_ms": 100}],
        "sub-2": [
            {"text": words(80), "chunk_delay_ms": 60, "tool_calls": [{"name": "glob", "input": {"pattern": "**/*.rs"}}]},
            {"text": "Listed, tests skipped."}
        ]
    }}));
    let tmux = Tmux::shell(&sb, 130, 40);
    tmux.command(&format!(
        "brood --provider scripted --script {}; echo \"brood-exit=$?\"",
        script.display()
    ));
    tmux.wait_for("ask brood", Duration::from_secs(20));
    tmux.type_text("go");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the lister", Duration::from_secs(10));
    // Composer → conversation → subagents; the second child.
    tmux.keys(&["Tab", "Tab"]);
    tmux.wait_for("x stop", Duration::from_secs(5));
    tmux.keys(&["Down"]);
    tmux.type_text("m");
    tmux.wait_for("> message to sub-2", Duration::from_secs(5));
    tmux.type_text("skip the tests folder");
    tmux.keys(&["Enter"]);
    tmux.wait_for("sent to sub-2", Duration::from_secs(5));
    // Back to the subagents, the first child, and stop it.
    tmux.keys(&["Tab", "Tab", "Up"]);
    tmux.wait_for("x stop", Duration::from_secs(5));
    tmux.type_text("x");
    tmux.wait_for("Parent answer after both.", Duration::from_secs(20));
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));

    let events = common::trace_events(&sb.traces().remove(0));
    let steer: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["type"] == "steer")
        .map(|e| (e["agent"].as_str().unwrap(), e["text"].as_str().unwrap()))
        .collect();
    assert_eq!(steer, [("sub-2", "skip the tests folder")]);
    let end = |agent: &str| {
        events
            .iter()
            .find(|e| e["type"] == "subagent_end" && e["agent"] == agent)
            .map(|e| e["reason"].as_str().unwrap_or_default().to_string())
    };
    assert_eq!(end("sub-1").as_deref(), Some("interrupted"));
    assert_eq!(end("sub-2").as_deref(), Some("completed"));
    let turn_end = events
        .iter()
        .find(|e| e["type"] == "turn_end" && e["agent"] == "main")
        .unwrap();
    assert_eq!(turn_end["reason"], "completed", "the parent went on");
    // sub-2 read the message before its second step, after the first.
    let position =
        |what: &dyn Fn(&serde_json::Value) -> bool| events.iter().position(what).unwrap();
    let told = position(&|e| e["type"] == "steer");
    let second =
        position(&|e| e["type"] == "model_request" && e["agent"] == "sub-2" && e["step"] == 2);
    assert!(told < second);
}
