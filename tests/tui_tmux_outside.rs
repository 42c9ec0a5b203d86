//! What the workbench hands to the terminal and the disk, in a real
//! terminal: `/copy` through OSC 52 (tmux takes it with set-clipboard on),
//! F2 giving the mouse to the terminal and back, `/export` writing Markdown.

mod common;

use std::time::Duration;

use common::Sandbox;
use common::tmux::Tmux;

#[test]
fn copy_reaches_the_clipboard_f2_frees_the_mouse_and_export_writes_markdown() {
    let sb = Sandbox::new();
    let script = sb.script(serde_json::json!({"agents": {"main": [
        {"text": "The answer is **42**.", "usage": {"input_tokens": 10, "output_tokens": 2}}
    ]}}));
    let tmux = Tmux::shell(&sb, 100, 30);
    tmux.tmux(&["set", "-g", "set-clipboard", "on"]);
    tmux.command(&format!(
        "brood --provider scripted --script {}; echo \"brood-exit=$?\"",
        script.display()
    ));
    tmux.wait_for("ask brood", Duration::from_secs(20));
    let mouse = || tmux.tmux(&["display", "-p", "-t", "t", "#{mouse_any_flag}"]);
    assert_eq!(mouse().trim(), "1", "brood has the mouse to start with");

    tmux.type_text("what is it?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("The answer is", Duration::from_secs(10));
    tmux.type_text("/copy");
    tmux.keys(&["Enter"]);
    tmux.wait_for("copied the last answer", Duration::from_secs(5));
    assert_eq!(tmux.tmux(&["show-buffer"]), "The answer is **42**.");

    // A selected message: Tab to the conversation, ↑ the answer, ↑ the prompt.
    tmux.keys(&["Tab", "Up", "Up", "y"]);
    tmux.wait_for("copied the prompt", Duration::from_secs(5));
    assert_eq!(tmux.tmux(&["show-buffer"]), "what is it?");
    tmux.keys(&["i"]);

    tmux.keys(&["F2"]);
    tmux.wait_for("mouse: the terminal's", Duration::from_secs(5));
    assert_eq!(mouse().trim(), "0", "the terminal has the mouse");
    tmux.keys(&["F2"]);
    tmux.wait_for("mouse: brood's", Duration::from_secs(5));
    assert_eq!(mouse().trim(), "1");

    tmux.type_text("/export");
    tmux.keys(&["Enter"]);
    tmux.wait_for("exported the session to", Duration::from_secs(5));
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    let exported: Vec<_> = std::fs::read_dir(sb.workspace())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".md"))
        .collect();
    assert_eq!(exported.len(), 1, "one export in the workspace");
    let markdown = std::fs::read_to_string(exported[0].path()).unwrap();
    assert!(markdown.contains("## You\n\nwhat is it?"), "{markdown}");
    assert!(
        markdown.contains("## brood\n\nThe answer is **42**."),
        "{markdown}"
    );
}

/// A telemetry backend that is down: the status line says so by itself,
/// with no key pressed, once the export fails, and the turn was not held up.
#[test]
fn a_telemetry_backend_that_is_down_is_a_warning_on_the_status_line() {
    let sb = Sandbox::new();
    let script = sb.script(serde_json::json!({"agents": {"main": [
        {"text": "The answer is 42.", "usage": {"input_tokens": 10, "output_tokens": 2}}
    ]}}));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let tmux = Tmux::shell(&sb, 140, 30);
    tmux.command(&format!(
        "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:{port} brood --provider scripted --script {}",
        script.display()
    ));
    tmux.wait_for("ask brood", Duration::from_secs(20));
    tmux.type_text("what is it?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("The answer is", Duration::from_secs(10));
    tmux.wait_for(
        "telemetry: spans are not reaching the OTLP endpoint",
        Duration::from_secs(15),
    );
    tmux.keys(&["C-d"]);
}
