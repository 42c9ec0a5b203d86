//! Sessions from inside the workbench, in a real terminal: `/clear` starts a
//! new one and says how to come back, `/resume ID` brings the old one back
//! with its conversation, and quitting names the session left.

mod common;

use std::time::Duration;

use common::Sandbox;
use common::tmux::Tmux;

#[test]
fn clear_starts_a_new_session_and_resume_brings_the_old_one_back() {
    let sb = Sandbox::new();
    let script = sb.script(serde_json::json!({"agents": {"main": [
        {"text": "Answer number one.", "usage": {"input_tokens": 10, "output_tokens": 2}}
    ]}}));
    let tmux = Tmux::shell(&sb, 100, 30);
    tmux.command(&format!(
        "brood --provider scripted --script {}; echo \"brood-exit=$?\"",
        script.display()
    ));
    tmux.wait_for("ask brood", Duration::from_secs(20));
    tmux.type_text("first question");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Answer number one.", Duration::from_secs(10));
    let first = sb.traces();
    assert_eq!(first.len(), 1);
    let old_id = common::trace_events(&first[0])
        .first()
        .map(|_| ())
        .and(std::fs::read_to_string(&first[0]).ok())
        .and_then(|text| {
            let header: serde_json::Value =
                serde_json::from_str(text.lines().next().unwrap_or_default()).ok()?;
            header["session"].as_str().map(String::from)
        })
        .expect("the first session's id");

    tmux.type_text("/clear");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("stays resumable: /resume", Duration::from_secs(10));
    assert!(
        !screen.contains("first question"),
        "a new session: {screen}"
    );
    assert_eq!(sb.traces().len(), 2, "a second trace");

    tmux.type_text(&format!("/resume {old_id}"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("first question", Duration::from_secs(10));
    tmux.type_text("and now?");
    tmux.keys(&["Enter"]);
    // Each session asks the script from its start: the same answer again.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while tmux.screen().matches("Answer number one.").count() < 2 {
        assert!(std::time::Instant::now() < deadline, "{}", tmux.screen());
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.keys(&["C-d"]);
    let screen = tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    assert!(
        screen.contains(&format!("brood --resume {old_id}")),
        "{screen}"
    );
    // The old trace holds both turns; the cleared session's trace is its own.
    let events = common::trace_events(&first[0]);
    let prompts: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "user_message")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(prompts, ["first question", "and now?"]);
}
