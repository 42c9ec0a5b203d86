//! Snapshot tests of every screen, plus checks on the colours that carry
//! meaning (and their absence under `NO_COLOR`).

mod big;
mod child_control;
mod commands;
mod edits;
mod fixes;
mod fixtures;
mod layout;
mod recorded;
mod scenes;
mod selection;
mod status;

use insta::assert_snapshot;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use serde_json::json;

use crate::event::{EventKind, TerminalReason};
use crate::tui::state::State;
use crate::tui::ui::{Focus, LiveMode, Overlay, Ui};
use fixtures::*;
use scenes::*;

fn fg_at(buf: &Buffer, needle: &str) -> Color {
    let (x, y) = find(buf, needle).unwrap_or_else(|| panic!("{needle:?} not on screen"));
    buf[(x, y)].fg
}

#[test]
fn empty_session() {
    let state = State::new(info());
    let mut ui = Ui::new();
    let buf = draw(&state, &mut ui, 100, 24, &color());
    assert_snapshot!("empty_session", text(&buf));
    assert_eq!(
        fg_at(&buf, "> ask brood"),
        Color::Cyan,
        "the focused composer is cyan"
    );
    assert_eq!(fg_at(&buf, "brood ·"), Color::Magenta);
}

/// The title names the instruction files in the parent's prompt, and only
/// counts them when their names would crowd the line.
#[test]
fn title_names_the_instruction_files() {
    let mut info = info();
    info.instructions = vec!["~/.claude/CLAUDE.md".into(), "AGENTS.md".into()];
    let state = State::new(info.clone());
    let title = |state: &State| {
        let buf = draw(state, &mut Ui::new(), 130, 24, &color());
        let shown = text(&buf);
        let line = shown.lines().find(|l| l.contains("brood ·"));
        line.unwrap_or_default().to_string()
    };
    assert_snapshot!("title_instruction_files", title(&state));
    info.instructions = (0..6)
        .map(|i| format!("crates/part{i}/AGENTS.md"))
        .collect();
    let crowded = title(&State::new(info));
    assert!(crowded.contains(" · 6 instruction files"), "{crowded}");
}

/// The title counts the MCP servers that are up, and says in red how many
/// are not.
#[test]
fn title_counts_mcp_servers_and_the_ones_down_in_red() {
    use crate::protocol::McpServerSummary;
    let mut info = info();
    info.mcp = vec![
        McpServerSummary {
            name: "docs".into(),
            failed: None,
            tools: vec!["mcp__docs__search".into(), "mcp__docs__read".into()],
        },
        McpServerSummary {
            name: "github".into(),
            failed: None,
            tools: vec!["mcp__github__get_issue".into()],
        },
        McpServerSummary {
            name: "tracker".into(),
            failed: Some("it did not start within 30 s".into()),
            tools: Vec::new(),
        },
    ];
    let state = State::new(info);
    let buf = draw(&state, &mut Ui::new(), 130, 24, &color());
    let shown = text(&buf);
    let line = shown
        .lines()
        .find(|l| l.contains("brood ·"))
        .unwrap_or_default();
    assert_snapshot!("title_mcp_servers", line);
    assert_eq!(fg_at(&buf, "(1 down)"), Color::Red);
    // The help lists them with their tools, after the keys.
    let mut ui = Ui::new();
    ui.overlay = Some(Overlay::Help);
    let help = text(&draw(&state, &mut ui, 130, 120, &color()));
    let rows: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.contains("MCP servers (brood mcp lists them too)"))
        .take(4)
        .map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace()))
        .collect();
    assert_snapshot!("help_mcp_servers", rows.join("\n"));
    // A server that stops later is counted down from then on.
    let mut state = state;
    state.apply(&crate::event::Event {
        seq: 1,
        t_ms: 10,
        agent: crate::event::AgentId::Main,
        kind: crate::event::EventKind::McpServerDown {
            server: "docs".into(),
            error: "the server stopped during a call".into(),
        },
    });
    let shown = text(&draw(&state, &mut Ui::new(), 130, 24, &color()));
    assert!(shown.contains("mcp 1 (2 down)"), "{shown}");
    assert!(shown.contains("MCP server docs stopped"), "{shown}");
}

/// A child whose profile asks for a color (an agent file's `color: green`)
/// shows its id in it, in the live pane and the list of children; one
/// without keeps the agents' color.
#[test]
fn a_child_s_id_has_its_profile_s_color() {
    let mut script = three_children();
    for event in &mut script.events {
        if let crate::event::EventKind::SubagentStart(start) = &mut event.kind
            && event.agent == crate::event::AgentId::Sub(1)
        {
            start.color = Some("green".into());
        }
    }
    let state = script.state(12_000);
    let buf = draw(&state, &mut Ui::new(), 130, 40, &color());
    assert_eq!(fg_at(&buf, "[sub-1]"), Color::Green);
    assert_eq!(fg_at(&buf, "sub-2"), Color::Magenta);
}

fn streaming() -> State {
    let mut s = Script::default();
    s.user(0, MAIN, "Explain the retry policy.")
        .request(50, MAIN, 1)
        .delta(400, MAIN, "Retries use **exponential backoff**:\n\n")
        .delta(
            500,
            MAIN,
            "- 529 and 503 are retried\n- at most 4 attempts\n\n",
        )
        .delta(
            600,
            MAIN,
            "```rust\nlet wait = base * 2u32.pow(attempt);\n```\n\nThe wait is capped",
        );
    s.state(700)
}

#[test]
fn streaming_answer() {
    let state = streaming();
    let mut ui = Ui::new();
    ui.spinner = 3;
    let buf = draw(&state, &mut ui, 100, 26, &color());
    assert_snapshot!("streaming_answer", text(&buf));
    assert_eq!(fg_at(&buf, "▍"), Color::Magenta, "the stream cursor");
    assert!(find(&buf, "⠸ running").is_some());
}

fn tool_cells() -> State {
    let grep_out = "auth.rs:1:fn login() {}\nauth.rs:9:fn logout() {}\nweb.rs:3:use auth::login;\nweb.rs:8:login(req)?;\nweb.rs:20:// login page\ncli.rs:2:login";
    let mut s = Script::default();
    s.user(0, MAIN, "Where is login handled?")
        .say(800, MAIN, "Let me look.", 5, usage(3_000, 120))
        .call(
            800,
            MAIN,
            "g1",
            "grep",
            json!({"pattern": "login", "path": "src"}),
        )
        .result(812, MAIN, "g1", "grep", grep_out, false)
        .call(800, MAIN, "g2", "grep", json!({"pattern": "fn login"}))
        .result(1_250, MAIN, "g2", "grep", grep_out, false)
        .call(800, MAIN, "r1", "bash", json!({"command": "rm auth.rs"}))
        .deny(801, MAIN, "r1", "rm deletes files")
        .result(
            801,
            MAIN,
            "r1",
            "bash",
            "Permission denied: rm deletes files",
            true,
        )
        .call(800, MAIN, "f1", "read_file", json!({"path": "missing.rs"}))
        .result(
            803,
            MAIN,
            "f1",
            "read_file",
            "no such file: missing.rs",
            true,
        )
        .call(800, MAIN, "l1", "glob", json!({"pattern": "**/*.rs"}))
        .push(
            1_300,
            MAIN,
            EventKind::HookContinue {
                text: "tests still fail".into(),
            },
        )
        .push(1_400, MAIN, EventKind::Interrupted {});
    s.state(2_000)
}

#[test]
fn tool_cells_running_done_failed_denied_and_expanded() {
    let state = tool_cells();
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    ui.expanded.insert("g1".into());
    let buf = draw(&state, &mut ui, 110, 30, &color());
    assert_snapshot!("tool_cells", text(&buf));
    assert_eq!(fg_at(&buf, "✓ grep"), Color::Green);
    assert_eq!(fg_at(&buf, "✗ bash"), Color::Red);
    assert_eq!(fg_at(&buf, "denied"), Color::Red);
    assert_eq!(fg_at(&buf, "✗ read_file"), Color::Red);
    assert_eq!(
        fg_at(&buf, "┌ Conversation"),
        Color::Cyan,
        "focused pane border"
    );
}

#[test]
fn three_children_in_parallel() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.spinner = 0;
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("three_children", text(&buf));
    let (x, y) = find(&buf, "⠋ sub-1").expect("selected row");
    assert!(
        buf[(x, y)].modifier.contains(Modifier::REVERSED),
        "the selected child is reversed"
    );
    assert_eq!(buf[(x, y)].fg, Color::Cyan);
}

#[test]
fn the_live_pane_ends_with_the_childs_streaming_text() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.selected_child = 2;
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert!(find(&buf, "[sub-3] ✗ bash pytest tests/auth -q → F.F..").is_some());
    let (x, y) = find(&buf, "expect▍").expect("streaming text");
    assert!(buf[(x, y)].modifier.contains(Modifier::DIM));
    let (x, y) = find(&buf, "sub-1  steps █").expect("sub-1's steps bar");
    assert_eq!(buf[(x + 13, y)].fg, Color::Green, "sub-1's steps, 7/12");
}

#[test]
fn three_children_all_live() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.live_mode = LiveMode::All;
    ui.selected_child = 2;
    ui.focus = Focus::Live;
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("three_children_all_live", text(&buf));
}

fn failed_child() -> State {
    let mut s = three_children();
    s.call(
        9_000,
        sub(3),
        "c2",
        "bash",
        json!({"command": "git push --force"}),
    )
    .deny(9_001, sub(3), "c2", "force-push rewrites shared history")
    .result(
        9_002,
        sub(3),
        "c2",
        "bash",
        "Permission denied: force-push rewrites shared history",
        true,
    )
    .end(
        11_500,
        3,
        TerminalReason::MaxSteps,
        "stopped after 30 steps without an answer",
        30,
        usage(20_000, 3_000),
        10_430,
    )
    .result(
        11_510,
        MAIN,
        "t3",
        "task",
        "{\"text\":\"sub-3 failed: max_steps\"}",
        true,
    );
    s.state(12_000)
}

#[test]
fn a_failed_child() {
    let state = failed_child();
    let mut ui = Ui::new();
    ui.selected_child = 2;
    ui.focus = Focus::Subagents;
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("failed_child", text(&buf));
    assert_eq!(fg_at(&buf, "max_steps"), Color::Red);
    assert_eq!(fg_at(&buf, "30/30"), Color::Red, "a spent budget is red");
    assert_eq!(fg_at(&buf, "denied"), Color::Red);
    assert_eq!(
        fg_at(&buf, "✗ max_steps"),
        Color::Red,
        "the budgets row says it too"
    );
}

#[test]
fn the_approval_dialog_from_a_child() {
    let state = approval_from_child().state(2_000);
    let mut ui = Ui::new();
    let buf = draw(&state, &mut ui, 100, 30, &color());
    assert_snapshot!("approval_from_child", text(&buf));
    // Bold in the terminal's own colour, and a black-on-yellow title: both
    // read on a light background (yellow text did not).
    let (x, y) = find(&buf, "rm -rf build/docs").expect("the command");
    assert_eq!(buf[(x, y)].fg, Color::Reset);
    assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));
    let (x, y) = find(&buf, " approval needed ").expect("the title");
    assert_eq!(
        (buf[(x, y)].fg, buf[(x, y)].bg),
        (Color::Black, Color::Yellow)
    );
    assert!(find(&buf, "allow \"rm\" for this session").is_some());
    assert!(find(&buf, "+1 more waiting").is_some());
}

/// After `n`, the dialog asks why; the typed reason shows with a cursor.
#[test]
fn the_approval_dialog_asking_why() {
    let state = approval_from_child().state(2_000);
    let id = state.approvals[0].id;
    let mut ui = Ui::new();
    ui.deny_reason = Some((id, "the docs are not rebuilt yet".into()));
    let buf = draw(&state, &mut ui, 100, 30, &color());
    assert_snapshot!("approval_asking_why", text(&buf));
    assert!(find(&buf, "deny, because the docs are not rebuilt yet").is_some());
    assert!(find(&buf, "Enter deny with this reason").is_some());
    // A reason typed for another approval is not shown for this one.
    ui.deny_reason = Some((id + 100, "stale".into()));
    let buf = draw(&state, &mut ui, 100, 30, &color());
    assert!(find(&buf, "stale").is_none());
}

#[test]
fn help_overlay() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.open(Overlay::Help);
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("help", text(&buf));
}

#[test]
fn trace_pane() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.show_trace = true;
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("trace_pane", text(&buf));
    assert!(find(&buf, "×2").is_some(), "folded text deltas are counted");
    // The view picks the glyph and colour from the row's mark.
    assert_eq!(fg_at(&buf, "✗ bash 5.0s"), Color::Red);
    assert_eq!(fg_at(&buf, "✓ grep 100ms"), Color::Green);
}

#[test]
fn the_longest_event_type_keeps_a_space_before_its_detail() {
    let mut state = three_children().state(12_000);
    state.apply(&crate::event::Event {
        seq: 99,
        t_ms: 12_000,
        agent: crate::event::AgentId::Main,
        kind: crate::event::EventKind::PermissionDecision {
            call_id: "x".into(),
            decision: crate::event::Decision::Allow,
            reason: "no destructive command found".into(),
            by: crate::event::DecidedBy::Policy,
        },
    });
    let mut ui = Ui::new();
    ui.show_trace = true;
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert!(
        find(&buf, "permission_decision allow:").is_some(),
        "{}",
        text(&buf)
    );
}

#[test]
fn child_transcript_overlay() {
    let state = failed_child();
    let mut ui = Ui::new();
    ui.overlay = Some(Overlay::Transcript(sub(1)));
    ui.overlay_scroll.to_top();
    let buf = draw(&state, &mut ui, 100, 30, &color());
    assert_snapshot!("transcript_sub1", text(&buf));
    ui.overlay = Some(Overlay::Transcript(sub(3)));
    let buf = draw(&state, &mut ui, 100, 30, &color());
    assert_snapshot!("transcript_sub3", text(&buf));
    assert_eq!(fg_at(&buf, "F.F.."), Color::Red, "an error result is red");
}

#[test]
fn too_small_terminals_get_a_notice() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    let buf = draw(&state, &mut ui, 59, 14, &color());
    assert_snapshot!("too_small_59x14", text(&buf));
    let buf = draw(&state, &mut ui, 10, 3, &color());
    assert_snapshot!("too_small_10x3", text(&buf));
}

#[test]
fn no_size_panics() {
    let states = [
        State::new(info()),
        failed_child(),
        approval_from_child().state(2_000),
    ];
    for state in &states {
        for (w, h) in (0..=72).flat_map(|w| (0..=20).map(move |h| (w, h))).chain([
            (60, 15),
            (200, 4),
            (3, 90),
        ]) {
            let mut ui = Ui::new();
            ui.overlay = Some(Overlay::Transcript(sub(3)));
            draw(state, &mut ui, w, h, &color());
            let mut ui = Ui::new();
            ui.overlay = Some(Overlay::Help);
            ui.show_trace = true;
            draw(state, &mut ui, w, h, &color());
        }
    }
}

#[test]
fn no_color_draws_no_colour_anywhere() {
    let screens: Vec<(State, Ui)> = vec![
        (State::new(info()), Ui::new()),
        (streaming(), Ui::new()),
        (tool_cells(), {
            let mut ui = Ui::new();
            ui.expanded.insert("g1".into());
            ui
        }),
        (failed_child(), {
            let mut ui = Ui::new();
            ui.focus = Focus::Subagents;
            ui
        }),
        (failed_child(), {
            let mut ui = Ui::new();
            ui.show_trace = true;
            ui.overlay = Some(Overlay::Transcript(sub(3)));
            ui
        }),
        (three_children().state(12_000), {
            let mut ui = Ui::new();
            ui.overlay = Some(Overlay::Help);
            ui
        }),
        (approval_from_child().state(2_000), Ui::new()),
    ];
    for (state, mut ui) in screens {
        let buf = draw(&state, &mut ui, 130, 40, &no_color());
        for cell in &buf.content {
            assert_eq!(
                (cell.fg, cell.bg),
                (Color::Reset, Color::Reset),
                "at {:?}",
                cell.symbol()
            );
        }
        // What colour told is still there as glyphs and words.
        let screen = text(&buf);
        assert!(!screen.trim().is_empty());
    }
    let buf = draw(&failed_child(), &mut Ui::new(), 130, 40, &no_color());
    let screen = text(&buf);
    for word in ["✓", "✗", "max_steps", "⠋", "✓ done"] {
        assert!(screen.contains(word), "{word} without colour");
    }
    let (x, y) = find(&buf, "⠋ sub-1").expect("selected row");
    assert!(
        buf[(x, y)].modifier.contains(Modifier::REVERSED),
        "selection without colour"
    );
}

#[test]
fn a_retry_and_an_error_show_on_the_status_line() {
    let mut s = Script::default();
    s.user(0, MAIN, "hi").push(
        1_000,
        MAIN,
        EventKind::Retry {
            attempt: 1,
            max_attempts: 4,
            wait_ms: 2_000,
            reason: "HTTP 529".into(),
        },
    );
    let state = s.state(1_200);
    let buf = draw(&state, &mut Ui::new(), 100, 20, &color());
    assert_eq!(fg_at(&buf, "retrying in 2 s (1/4)"), Color::LightRed);
    s.push(
        1_300,
        MAIN,
        EventKind::Error {
            message: "overloaded: HTTP 529\nbody".into(),
        },
    );
    let mut state = s.state(1_300);
    state.retry = None;
    let buf = draw(&state, &mut Ui::new(), 100, 20, &color());
    assert_eq!(fg_at(&buf, "✗ overloaded: HTTP 529"), Color::Red);
    let mut ui = Ui::new();
    ui.flash = Some("press Ctrl-C again to quit".into());
    let buf = draw(&state, &mut ui, 100, 20, &color());
    assert!(
        find(&buf, "press Ctrl-C again to quit").is_some(),
        "a flash comes first"
    );
}

/// A replay: the controls replace the composer, with the position, recorded
/// time, speed and skipped lines, and the status line shows the replay keys.
#[test]
fn replay_view_with_its_controls() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    ui.replay = Some(crate::tui::ui::ReplayBar {
        position: 1_234,
        total: 56_789,
        loading: true,
        recorded_ms: 12_300,
        total_ms: 225_000,
        speed: 4.0,
        playing: false,
        skipped: 3,
        source: "session.jsonl · Claude Code session".into(),
        pace: crate::tui::ui::Pace::Recorded,
        rewound: None,
    });
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("replay_controls", text(&buf));
    let screen = text(&buf);
    assert!(
        screen.contains("event 1234 of 56789 (loading…)"),
        "{screen}"
    );
    assert!(screen.contains("0:12.3 / 3:45.0"), "{screen}");
    assert!(
        screen.contains("×4") && screen.contains("3 bad lines skipped"),
        "{screen}"
    );
    assert!(screen.contains("Space play/pause"), "{screen}");
    assert!(
        !screen.contains("ask brood"),
        "the composer is gone: {screen}"
    );
}

/// `brood watch`: the same bar, following the session as it is written.
#[test]
fn watch_controls_say_following_and_how_many_events_wait() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    let bar = crate::tui::ui::ReplayBar {
        position: 56_789,
        total: 56_789,
        loading: true,
        recorded_ms: 225_000,
        total_ms: 225_000,
        speed: 1.0,
        playing: true,
        skipped: 0,
        source: "7c1e9a52.jsonl · Claude Code session".into(),
        pace: crate::tui::ui::Pace::Live,
        rewound: None,
    };
    ui.replay = Some(bar.clone());
    let buf = draw(&state, &mut ui, 130, 40, &color());
    assert_snapshot!("watch_controls", text(&buf));
    let screen = text(&buf);
    assert!(screen.contains("┌ watch 7c1e9a52.jsonl"), "{screen}");
    assert!(
        screen.contains("● following  event 56789 of 56789  ·  3:45.0 so far"),
        "{screen}"
    );
    // Paused, the bar counts what came in meanwhile, and says when the file
    // had to be read again.
    ui.replay = Some(crate::tui::ui::ReplayBar {
        position: 56_700,
        playing: false,
        rewound: Some("the file was truncated; reading it again from its start".into()),
        ..bar
    });
    let screen = text(&draw(&state, &mut ui, 130, 40, &color()));
    assert!(
        screen.contains("⏸ paused, 89 new  event 56700 of 56789"),
        "{screen}"
    );
    assert!(screen.contains("the file was truncated"), "{screen}");
}

/// A continued session: the conversation read back from the trace, the
/// seam marked, and the new turn below it.
#[test]
fn resumed_session_marks_the_seam() {
    let mut s = Script::default();
    s.user(0, MAIN, "What does the retry policy do?")
        .request(50, MAIN, 1)
        .say(
            400,
            MAIN,
            "It retries 529 and 503 up to 4 times.",
            0,
            usage(900, 40),
        )
        .push(
            500,
            MAIN,
            EventKind::TurnEnd {
                reason: TerminalReason::Completed,
                steps: 1,
                usage: usage(900, 40),
            },
        )
        .push(
            600,
            MAIN,
            EventKind::Resumed {
                at: "not a time".into(),
                messages: 2,
            },
        )
        .user(700, MAIN, "And the backoff?");
    let state = s.state(800);
    let buf = draw(&state, &mut Ui::new(), 100, 16, &color());
    assert_snapshot!("resumed_session", text(&buf));
}

/// The budgets show what the session cost, children included, and how much
/// of the parent's input the provider's cache served; a model without a
/// price shows tokens only.
#[test]
fn budgets_show_cost_and_the_cached_share() {
    let cached = crate::event::Usage {
        input_tokens: 1_000,
        output_tokens: 200,
        cache_read_tokens: 8_000,
        cache_write_tokens: 1_000,
        reasoning_tokens: 0,
        estimated: false,
    };
    let mut s = Script::default();
    s.user(0, MAIN, "Go.")
        .push(
            50,
            MAIN,
            EventKind::ModelRequest {
                step: 1,
                model: "claude-sonnet-4-5-20250929".into(),
                messages: 1,
                tools: 6,
            },
        )
        .say(400, MAIN, "Done.", 0, cached);
    let state = s.state(500);
    let shown = text(&draw(&state, &mut Ui::new(), 100, 24, &color()));
    let budgets = shown
        .lines()
        .find(|l| l.contains("main   context"))
        .unwrap();
    // Sonnet 4.5: 1k in $0.003, 200 out $0.003, 8k read $0.0024, 1k written $0.00375.
    assert!(budgets.contains("$0.012"), "{budgets}");
    assert!(budgets.contains("cached 80%"), "{budgets}");

    let mut local = Script::default();
    local
        .user(0, MAIN, "Go.")
        .request(50, MAIN, 1)
        .say(400, MAIN, "Done.", 0, cached);
    let state = local.state(500);
    let shown = text(&draw(&state, &mut Ui::new(), 100, 24, &color()));
    assert!(!shown.contains('$'), "{shown}");
}

/// A compaction leaves the conversation on screen and marks where the model's
/// history was summarised.
#[test]
fn compaction_marks_the_boundary() {
    let mut s = Script::default();
    s.user(0, MAIN, "Read the config.")
        .request(50, MAIN, 1)
        .say(400, MAIN, "It has 12 keys.", 0, usage(150_000, 40))
        .push(
            500,
            MAIN,
            EventKind::Compacted {
                trigger: "auto".into(),
                before_tokens: 171_000,
                after_tokens: 9_400,
                kept_messages: 2,
                summary: "The config has 12 keys.".into(),
                usage: Box::new(usage(171_000, 300)),
            },
        )
        .request(600, MAIN, 2);
    let state = s.state(700);
    let buf = draw(&state, &mut Ui::new(), 110, 16, &color());
    assert_snapshot!("compaction_boundary", text(&buf));
}

/// The model's thinking is dimmed and folded to a line while it streams and
/// after; `t` shows it whole.
#[test]
fn thinking_is_folded_until_shown() {
    let mut s = Script::default();
    s.user(0, MAIN, "Why does the build fail?")
        .request(50, MAIN, 1)
        .push(
            100,
            MAIN,
            EventKind::ThinkingDelta {
                text: "The error names a missing feature.\n".into(),
            },
        )
        .push(
            150,
            MAIN,
            EventKind::ThinkingDelta {
                text: "Check Cargo.toml for it.".into(),
            },
        );
    let streaming = s.state(200);
    let shown = text(&draw(&streaming, &mut Ui::new(), 100, 16, &color()));
    assert!(
        shown.contains("✻      thinking… Check Cargo.toml for it."),
        "{shown}"
    );
    s.push(
        300,
        MAIN,
        EventKind::Thinking {
            text: "The error names a missing feature.\nCheck Cargo.toml for it.".into(),
            signature: "sig".into(),
            redacted: None,
        },
    )
    .say(400, MAIN, "The `tls` feature is off.", 0, usage(900, 40));
    let state = s.state(500);
    let mut ui = Ui::new();
    let buf = draw(&state, &mut ui, 100, 16, &color());
    assert_snapshot!("thinking_folded", text(&buf));
    let dim = color().dim();
    let cell = &buf[find(&buf, "thought for 2 lines").unwrap()];
    assert_eq!(
        (cell.fg, cell.modifier),
        (dim.fg.unwrap_or(Color::Reset), dim.add_modifier)
    );
    ui.thinking = true;
    assert_snapshot!(
        "thinking_shown",
        text(&draw(&state, &mut ui, 100, 16, &color()))
    );
}

/// A child's reasoning in its transcript is folded the same way, and `r`
/// shows it there too.
#[test]
fn a_childs_thinking_is_folded_in_its_transcript() {
    let mut s = Script::default();
    s.user(0, MAIN, "Look.")
        .call(10, MAIN, "t1", "task", task_input("look", "general"))
        .start(20, 1, "t1", "general", "look")
        .push(
            30,
            sub(1),
            EventKind::Thinking {
                text: "First grep for login.\nThen read the hit.".into(),
                signature: String::new(),
                redacted: None,
            },
        )
        .say(40, sub(1), "Found it.", 0, usage(100, 10));
    let state = s.state(50);
    let mut ui = Ui::new();
    ui.overlay = Some(Overlay::Transcript(sub(1)));
    let folded = text(&draw(&state, &mut ui, 100, 24, &color()));
    assert!(
        folded.contains("✻ thought for 2 lines · r shows it"),
        "{folded}"
    );
    assert!(!folded.contains("First grep"), "{folded}");
    ui.thinking = true;
    let shown = text(&draw(&state, &mut ui, 100, 24, &color()));
    assert!(shown.contains("✻ First grep for login."), "{shown}");
}

/// Typing `/` lists the commands above the composer, with what each does.
#[test]
fn typing_a_slash_lists_the_commands() {
    let state = State::new(info());
    let mut ui = Ui::new();
    ui.composer.insert_str("/");
    assert_snapshot!(
        "slash_commands",
        text(&draw(&state, &mut ui, 100, 24, &color()))
    );
    ui.composer = crate::tui::ui::empty_composer();
    ui.composer.insert_str("/co");
    let shown = text(&draw(&state, &mut ui, 100, 24, &color()));
    assert!(
        shown.contains("/compact") && shown.contains("/cost"),
        "{shown}"
    );
    assert!(!shown.contains("/help "), "{shown}");
}

/// Below 100 columns the panes stack: at 80×24 the conversation has the
/// whole width and at least 15 rows; Tab to the subagents shows them in its
/// place; the budgets fold to one line that counts the children.
#[test]
fn a_narrow_terminal_stacks_the_panes() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    let buf = draw(&state, &mut ui, 80, 24, &color());
    assert_snapshot!("stacked_80x24", text(&buf));
    let conversation = ui
        .panes
        .iter()
        .find(|(f, _)| *f == Focus::Conversation)
        .map(|(_, r)| *r)
        .unwrap();
    assert!(conversation.width - 2 >= 76, "{conversation:?}");
    assert!(conversation.height - 2 >= 15, "{conversation:?}");
    ui.focus = Focus::Subagents;
    assert_snapshot!(
        "stacked_80x24_subagents",
        text(&draw(&state, &mut ui, 80, 24, &color()))
    );
}

/// `z` zooms the focused pane to the whole screen on a wide terminal.
#[test]
fn z_zooms_the_focused_pane() {
    let state = three_children().state(12_000);
    let mut ui = Ui::new();
    ui.focus = Focus::Conversation;
    ui.zoom = true;
    let buf = draw(&state, &mut ui, 130, 30, &color());
    assert_snapshot!("zoomed_conversation", text(&buf));
    assert!(
        !text(&buf).contains("Subagents"),
        "only the conversation shows"
    );
}

/// A command that exits non-zero is a failed cell with its exit code, in
/// the conversation and in a child's live lines; exit 0 stays done.
#[test]
fn a_failing_command_is_a_failed_cell_with_its_exit_code() {
    let mut s = Script::default();
    s.user(0, MAIN, "Run the tests.")
        .call(10, MAIN, "b1", "bash", json!({"command": "cargo test"}))
        .result(
            900,
            MAIN,
            "b1",
            "bash",
            "exit code: 101\nstderr:\nerror: 2 tests failed",
            false,
        )
        .call(950, MAIN, "b2", "bash", json!({"command": "true"}))
        .result(960, MAIN, "b2", "bash", "exit code: 0", false);
    let state = s.state(1_000);
    let buf = draw(&state, &mut Ui::new(), 100, 16, &color());
    let shown = text(&buf);
    let failed = shown.lines().find(|l| l.contains("cargo test")).unwrap();
    assert!(
        failed.contains("✗") && failed.contains("exit 101"),
        "{failed}"
    );
    let passed = shown.lines().find(|l| l.contains("bash true")).unwrap();
    assert!(passed.contains("✓") && !passed.contains("exit"), "{passed}");
    assert_eq!(fg_at(&buf, "exit 101"), color().error().fg.unwrap());
}

/// A child's error on the status line names the child, and goes when the
/// parent's turn ends (the parent got it as the child's result).
#[test]
fn a_childs_error_names_it_and_clears_with_the_turn() {
    let mut s = three_children();
    s.push(
        12_100,
        sub(3),
        EventKind::Error {
            message: "model error: overloaded".into(),
        },
    );
    let state = s.state(12_200);
    let status = |state: &State| {
        let shown = text(&draw(state, &mut Ui::new(), 120, 30, &color()));
        shown.lines().last().unwrap_or_default().to_string()
    };
    assert!(
        status(&state).contains("sub-3: model error: overloaded"),
        "{}",
        status(&state)
    );
    s.push(
        12_300,
        MAIN,
        EventKind::TurnEnd {
            reason: TerminalReason::Completed,
            steps: 2,
            usage: usage(1, 1),
        },
    );
    let state = s.state(12_400);
    assert!(!status(&state).contains("overloaded"), "{}", status(&state));
}

/// Ctrl-R's search says what it looks for in the composer's title.
#[test]
fn ctrl_r_search_shows_its_query() {
    let state = State::new(info());
    let mut ui = Ui::new();
    ui.search = Some(crate::tui::ui::HistorySearch {
        query: "cargo".into(),
        found: Some(0),
        original: String::new(),
    });
    ui.composer.insert_str("cargo test --workspace");
    let shown = text(&draw(&state, &mut ui, 100, 24, &color()));
    let title = shown.lines().rev().nth(3).unwrap_or_default().to_string();
    assert_snapshot!("history_search", title);
}

/// When the budgets cannot show every running child, the one asking for
/// approval is never among the hidden.
#[test]
fn the_child_asking_for_approval_is_never_hidden_in_the_budgets() {
    let mut s = Script::default();
    s.user(0, MAIN, "Many things at once.");
    for n in 1..=9u32 {
        let call = format!("t{n}");
        s.call(10, MAIN, &call, "task", task_input("look", "general"))
            .start(20, n, &call, "general", &format!("job {n}"));
    }
    s.push(
        30,
        sub(9),
        EventKind::ApprovalRequested(Box::new(crate::event::ApprovalAsk {
            id: 1,
            call_id: "c9".into(),
            tool: "bash".into(),
            summary: "rm -rf build/".into(),
            reason: "deletes files".into(),
            session_rule: "rm".into(),
        })),
    );
    let state = s.state(40);
    let shown = text(&draw(&state, &mut Ui::new(), 140, 40, &color()));
    let budgets: Vec<&str> = shown
        .lines()
        .skip_while(|l| !l.contains("Budgets"))
        .take(9)
        .collect();
    assert!(
        budgets.iter().any(|l| l.contains("sub-9")),
        "{}",
        budgets.join("\n")
    );
    assert!(
        budgets.iter().any(|l| l.contains("↓ 3 more")),
        "{}",
        budgets.join("\n")
    );
}
