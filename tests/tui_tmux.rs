//! The real binary in a real terminal: tmux runs `brood demo` inside a shell, the
//! test reads the screen with capture-pane and types with send-keys. CI installs
//! tmux (`.ci/run`), so this never skips there; without tmux it fails loudly.

mod common;

use std::time::{Duration, Instant};

use common::Sandbox;
use common::tmux::Tmux;

fn project(sb: &Sandbox) {
    sb.write(
        "src/main.rs",
        "mod config;\nfn main() {\n    let cfg = config::load();\n}\n",
    );
    sb.write(
        "src/config.rs",
        "// configuration is loaded here\npub fn load() {}\n",
    );
    sb.write(
        "src/errors.rs",
        "// errors are handled by returning Error\npub enum Error { Io }\n",
    );
}

#[test]
fn the_demo_runs_in_a_real_terminal_and_gives_the_shell_back() {
    let sb = Sandbox::new();
    project(&sb);
    let tmux = Tmux::shell(&sb, 130, 40);
    tmux.type_text("brood demo --speed 8 --no-trace; echo \"brood-exit=$?\"");
    tmux.keys(&["Enter"]);
    // Children show up live, then the parent's answer.
    tmux.wait_for("[sub-1]", Duration::from_secs(30));
    let screen = tmux.wait_for("assembled from", Duration::from_secs(60));
    assert!(screen.contains("Subagents"), "{screen}");
    // Help opens over the layout and closes again.
    tmux.type_text("?");
    // Wait for a row inside the overlay, not its top: tmux may read the
    // screen part-way through a frame.
    let help = tmux.wait_for("quit (when nothing is typed)", Duration::from_secs(5));
    assert!(help.contains("┌ Keys"), "{help}");
    tmux.keys(&["Escape"]);
    let closed = Instant::now() + Duration::from_secs(5);
    while tmux.screen().contains("┌ Keys") {
        assert!(
            Instant::now() < closed,
            "Esc did not close help:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Resizing reflows; too small shows the notice; big again shows the layout.
    tmux.resize(50, 12);
    tmux.wait_for("too small", Duration::from_secs(5));
    tmux.resize(100, 30);
    tmux.wait_for("Subagents", Duration::from_secs(5));
    // Ctrl-D on an empty composer quits.
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    // The shell works normally again: typed text echoes and commands run.
    tmux.type_text("echo shell-is-$((20+22))");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("shell-is-42", Duration::from_secs(5));
    assert!(
        !screen.contains("Subagents"),
        "the alternate screen was not left:\n{screen}"
    );
    // Canonical mode is back (raw mode would show `-icanon`).
    tmux.type_text("stty -a | grep -cw -- -icanon | sed 's/^/rawcount=/'");
    tmux.keys(&["Enter"]);
    tmux.wait_for("rawcount=0", Duration::from_secs(5));
}

#[test]
fn ctrl_c_twice_quits_even_mid_run() {
    let sb = Sandbox::new();
    project(&sb);
    let tmux = Tmux::shell(&sb, 120, 35);
    tmux.type_text("brood demo --speed 0.5 --no-trace; echo \"brood-exit=$?\"");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Subagents", Duration::from_secs(20));
    tmux.keys(&["C-c"]);
    tmux.wait_for("interrupt", Duration::from_secs(5));
    tmux.keys(&["C-c"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
}

#[test]
fn closing_the_terminal_ends_the_trace_interrupted_and_leaves_no_process() {
    let sb = Sandbox::new();
    let sleep = common::unique_sleep(40);
    let script = sb.script(serde_json::json!([
        {"text": "Waiting.", "tool_calls": [{"name": "bash", "input": {"command": format!("sleep {sleep}")}}]},
        {"text": "never reached"}
    ]));
    let trace = sb.root.path().join("t.jsonl");
    let tmux = Tmux::shell(&sb, 100, 30);
    tmux.command(&format!(
        "brood --provider scripted --script {} --yes --trace {}",
        script.display(),
        trace.display()
    ));
    tmux.wait_for("ask brood", Duration::from_secs(20));
    tmux.command("go");
    let deadline = Instant::now() + Duration::from_secs(20);
    while common::running_with(&sleep) == 0 {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    tmux.close();
    let closed = Instant::now();
    while common::running_with(&sleep) > 0 {
        assert!(
            closed.elapsed() < Duration::from_secs(1),
            "the sleep outlived brood"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // brood writes its last event after the kill; give it a moment to exit.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let types = common::event_types(&trace);
        if types.last().map(String::as_str) == Some("interrupted") {
            break;
        }
        assert!(Instant::now() < deadline, "{types:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn every_frame_is_one_synchronized_update() {
    let sb = Sandbox::new();
    project(&sb);
    let bytes = sb.root.path().join("terminal-output");
    let tmux = Tmux::shell(&sb, 100, 30);
    tmux.record_output(&bytes);
    tmux.command("brood demo --speed 8 --no-trace; echo \"brood-exit=$?\"");
    tmux.wait_for("assembled from", Duration::from_secs(60));
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    let out = String::from_utf8_lossy(&std::fs::read(&bytes).unwrap()).into_owned();
    let begins = out.matches("\x1b[?2026h").count();
    let ends = out.matches("\x1b[?2026l").count();
    // Many frames, each opened and closed: a terminal that knows mode 2026
    // never shows half a frame, and none is left paused.
    assert!(begins > 5, "{begins} frames began a synchronized update");
    assert_eq!(begins, ends, "every synchronized update ends");
    let first = out.find("\x1b[?2026h").unwrap();
    let last = out.rfind("\x1b[?2026l").unwrap();
    assert!(first < last);
}

/// A session run headless is continued in the workbench: the earlier
/// conversation is on screen above the seam, and quitting says how to come
/// back. A bare `--resume` offers the workspace's sessions to pick from.
#[test]
fn a_continued_session_shows_its_conversation_and_says_how_to_resume() {
    let sb = Sandbox::new();
    let script = sb.script(serde_json::json!({"agents": {"main": [
        {"text": "The answer is forty-two.", "usage": {"input_tokens": 100, "output_tokens": 10}}
    ]}}));
    let script = script.display().to_string();
    let first = sb.run(&[
        "run",
        "--provider",
        "scripted",
        "--script",
        &script,
        "what is the answer",
    ]);
    assert_eq!(first.status.code(), Some(0), "{}", common::stderr(&first));
    let trace = sb.traces().remove(0);
    let id = trace.file_stem().unwrap().to_str().unwrap().to_string();

    let tmux = Tmux::shell(&sb, 100, 30);
    tmux.command(&format!(
        "brood --provider scripted --script {script} --continue; echo \"brood-exit=$?\""
    ));
    let screen = tmux.wait_for("resumed", Duration::from_secs(20));
    assert!(screen.contains("what is the answer"), "{screen}");
    assert!(screen.contains("The answer is forty-two."), "{screen}");
    tmux.keys(&["C-d"]);
    let screen = tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    assert!(screen.contains(&format!("brood --resume {id}")), "{screen}");

    tmux.command(&format!(
        "brood --provider scripted --script {script} --resume; echo \"picked-exit=$?\""
    ));
    let list = tmux.wait_for("Enter continue", Duration::from_secs(10));
    assert!(list.contains("what is the answer"), "{list}");
    assert!(list.contains("1 turn"), "{list}");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("resumed", Duration::from_secs(20));
    assert!(screen.contains("The answer is forty-two."), "{screen}");
    tmux.keys(&["C-d"]);
    tmux.wait_for("picked-exit=0", Duration::from_secs(10));
    // Both visits appended to the one trace.
    assert_eq!(sb.traces(), std::slice::from_ref(&trace));
    let seams = common::event_types(&trace)
        .iter()
        .filter(|t| *t == "resumed")
        .count();
    assert_eq!(seams, 2);
}

/// Slash commands in a real terminal: `/` lists them, Tab completes, a typo
/// is said and never sent, `/model` switches the model for the next turn.
#[test]
fn slash_commands_list_complete_and_never_reach_the_model() {
    let sb = Sandbox::new();
    let script = sb.script(serde_json::json!({"agents": {"main": [
        {"text": "First answer.", "usage": {"input_tokens": 10, "output_tokens": 2}}
    ]}}));
    let tmux = Tmux::shell(&sb, 100, 30);
    tmux.command(&format!(
        "brood --provider scripted --script {}; echo \"brood-exit=$?\"",
        script.display()
    ));
    tmux.wait_for("ask brood", Duration::from_secs(20));
    tmux.type_text("/");
    let list = tmux.wait_for("Tab completes", Duration::from_secs(5));
    assert!(
        list.contains("/compact") && list.contains("/model [light] NAME"),
        "{list}"
    );
    tmux.type_text("mod");
    tmux.keys(&["Tab"]);
    tmux.type_text("house-model-2");
    tmux.keys(&["Enter"]);
    tmux.wait_for("model: house-model-2 from now on", Duration::from_secs(5));
    tmux.type_text("/halp");
    tmux.keys(&["Enter"]);
    tmux.wait_for("unknown command /halp", Duration::from_secs(5));
    // The typo is still there to fix.
    tmux.keys(&["BSpace", "BSpace", "BSpace", "BSpace", "BSpace"]);
    tmux.type_text("hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("First answer.", Duration::from_secs(10));
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    let trace = sb.traces().remove(0);
    let events = common::trace_events(&trace);
    let prompts: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "user_message")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(prompts, ["hello"], "a command reached the model");
    let request = events
        .iter()
        .find(|e| e["type"] == "model_request")
        .unwrap();
    assert_eq!(request["model"], "house-model-2");
}

/// A multi-line paste arrives as one bracketed paste whose newlines are CR:
/// the screen stays whole, a long paste is one block in the composer, and
/// the model gets every line. Esc while the answer streams interrupts it.
#[test]
fn a_long_paste_is_one_block_and_reaches_the_model_whole() {
    let sb = Sandbox::new();
    let script = sb.script(serde_json::json!({"agents": {"main": [
        {"text": "Seen all of it.", "usage": {"input_tokens": 10, "output_tokens": 2}}
    ]}}));
    let tmux = Tmux::shell(&sb, 100, 30);
    tmux.command(&format!(
        "brood --provider scripted --script {}; echo \"brood-exit=$?\"",
        script.display()
    ));
    tmux.wait_for("ask brood", Duration::from_secs(20));
    let pasted: String = (1..=40).map(|i| format!("log line {i}\r")).collect();
    tmux.paste(&pasted);
    let screen = tmux.wait_for("[pasted #1: 40 lines]", Duration::from_secs(5));
    assert!(!screen.contains("log line 7"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Seen all of it.", Duration::from_secs(10));
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    let trace = sb.traces().remove(0);
    let prompt = common::trace_events(&trace)
        .into_iter()
        .find(|e| e["type"] == "user_message")
        .unwrap();
    let text = prompt["text"].as_str().unwrap();
    assert_eq!(text.lines().count(), 40, "{text}");
    assert!(text.starts_with("log line 1\nlog line 2\n"), "{text}");
}

/// `>` moves the split between the conversation and the subagents; brood
/// remembers it in `workbench.toml` in its config folder, and the next
/// session starts with it.
#[test]
fn the_split_is_remembered_for_the_next_session() {
    let sb = Sandbox::new();
    project(&sb);
    let tmux = Tmux::shell(&sb, 130, 40);
    tmux.type_text("brood demo --speed 8 --no-trace; echo \"brood-exit=$?\"");
    tmux.keys(&["Enter"]);
    tmux.wait_for("assembled from", Duration::from_secs(60));
    // Out of the composer, then two steps wider: 45 % → 55 %.
    tmux.keys(&["Tab"]);
    tmux.type_text(">>");
    tmux.wait_for("split 55/45", Duration::from_secs(5));
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
    let file = sb.root.path().join(".config/brood/workbench.toml");
    let saved = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        saved.contains("split = 55"),
        "{}: {saved:?}",
        file.display()
    );
    // The next session starts at 55 %: the conversation is 71 columns wide.
    tmux.type_text("clear; brood demo --speed 8 --no-trace; echo \"brood-exit=$?\"");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("assembled from", Duration::from_secs(60));
    let top = screen
        .lines()
        .find(|l| l.contains("┌ Conversation"))
        .unwrap_or_default();
    let border = top.chars().position(|c| c == '┐');
    assert_eq!(border, Some(70), "{top}");
    tmux.keys(&["C-d"]);
    tmux.wait_for("brood-exit=0", Duration::from_secs(10));
}
