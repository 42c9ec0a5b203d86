use std::io::Write;
use std::path::{Path, PathBuf};

use super::*;
use crate::event::{AgentId, Event, EventKind, TerminalReason, Usage};
use crate::printer::TextPrinter;
use crate::trace::TraceHeader;
use crate::trace::{Step, TraceError, TraceReader};

fn header(session: &str, started_at: &str) -> String {
    let mut header = TraceHeader::new(session, "/work", "scripted", "m");
    header.started_at = started_at.into();
    serde_json::to_string(&header).unwrap()
}

fn event(seq: u64, t_ms: u64, agent: AgentId, kind: EventKind) -> Event {
    Event {
        seq,
        t_ms,
        agent,
        kind,
    }
}

fn turn_end(seq: u64, agent: AgentId, reason: TerminalReason, tokens: u64) -> Event {
    let usage = Usage {
        input_tokens: tokens,
        ..Usage::default()
    };
    event(
        seq,
        seq * 100,
        agent,
        EventKind::TurnEnd {
            reason,
            steps: 1,
            usage,
        },
    )
}

fn user(seq: u64, agent: AgentId, text: &str) -> Event {
    let kind = EventKind::UserMessage { text: text.into() };
    event(seq, seq * 100, agent, kind)
}

fn start(seq: u64, n: u32) -> Event {
    let kind = EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
        parent: AgentId::Main,
        parent_call_id: format!("c{n}"),
        profile: "explore".into(),
        model: "light".into(),
        model_name: "m".into(),
        description: "look".into(),
        prompt: "p".into(),
        max_steps: Some(12),
        token_budget: None,
        context_budget: None,
        color: None,
    }));
    event(seq, seq * 100, AgentId::Sub(n), kind)
}

fn delta(seq: u64, text: &str) -> Event {
    let kind = EventKind::TextDelta { text: text.into() };
    event(seq, seq * 100, AgentId::Main, kind)
}

fn lines(events: &[Event]) -> String {
    events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap() + "\n")
        .collect()
}

fn write_trace(dir: &Path, name: &str, started_at: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    let mut file = std::fs::File::create(&path).unwrap();
    writeln!(file, "{}", header(name, started_at)).unwrap();
    file.write_all(body.as_bytes()).unwrap();
    path
}

fn read_all(text: &str) -> (Vec<Step>, bool) {
    let mut reader = TraceReader::new(Path::new("t.jsonl"), text.as_bytes()).unwrap();
    let mut steps = Vec::new();
    while let Some(step) = reader.next_step().unwrap() {
        steps.push(step);
    }
    (steps, reader.truncated_tail())
}

#[test]
fn the_reader_skips_bad_lines_by_number_and_accepts_a_cut_last_line() {
    let good = lines(&[delta(1, "a"), delta(2, "b"), delta(5, "c")]);
    let good: Vec<&str> = good.lines().collect();
    let mut bytes = Vec::new();
    for line in [
        header("s", "2026-01-01T00:00:00.000Z").as_bytes(),
        good[0].as_bytes(),
        b"{oops",
        b"",
        good[1].as_bytes(),
        &[0xff, 0xfe, b'{', b'}'], // not UTF-8
        good[0].as_bytes(),        // seq 1 again: out of order
    ] {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(&good[2].as_bytes()[..good[2].len() - 3]);
    let mut reader = TraceReader::new(Path::new("t.jsonl"), &bytes[..]).unwrap();
    let mut seen = Vec::new();
    while let Some(step) = reader.next_step().unwrap() {
        seen.push(match step {
            Step::Event(e) => format!("event {}", e.seq),
            Step::Bad(bad) => format!("bad {}", bad.line),
        });
    }
    // Line 4 is empty and passed over; line 8 is cut off at the end.
    assert_eq!(seen, ["event 1", "bad 3", "event 2", "bad 6", "bad 7"]);
    assert!(reader.truncated_tail());
}

#[test]
fn the_reader_gives_each_events_own_line_back() {
    let text = format!(
        "{}\n{}",
        header("s", "2026-01-01T00:00:00.000Z"),
        lines(&[delta(1, "ü ✓"), user(2, AgentId::Main, "hi")])
    );
    let mut reader = TraceReader::new(Path::new("t.jsonl"), text.as_bytes()).unwrap();
    let mut raw = Vec::new();
    while let Some(Step::Event(_)) = reader.next_step().unwrap() {
        raw.push(String::from_utf8(reader.raw_line().to_vec()).unwrap());
    }
    assert_eq!(raw, text.lines().skip(1).collect::<Vec<_>>());
    let (steps, truncated) = read_all(&text);
    assert_eq!(steps.len(), 2);
    assert!(!truncated);
}

#[test]
fn headers_that_are_not_brood_are_told_apart_from_empty_files() {
    let problem = |text: &str| TraceReader::new(Path::new("t"), text.as_bytes()).err();
    assert!(matches!(problem(""), Some(TraceError::Empty { .. })));
    assert!(matches!(problem("\n\n"), Some(TraceError::Empty { .. })));
    let Some(TraceError::BadHeader { message: why, .. }) = problem("{\"type\":\"user\"}\n") else {
        panic!("a foreign line is not a brood header");
    };
    assert!(why.starts_with("missing field"), "{why}");
    assert!(!why.contains("at line"), "{why}");
}

#[test]
fn open_refuses_missing_folders_empty_and_unknown_files() {
    let dir = tempfile::tempdir().unwrap();
    let err = |path: &Path| open(path).err().unwrap().to_string();
    assert!(err(&dir.path().join("nope")).contains("no such file"));
    assert!(err(dir.path()).contains("is a folder"));
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    assert!(err(&empty).contains("is empty"));
    let other = dir.path().join("other.txt");
    std::fs::write(&other, "hello\nworld\n").unwrap();
    let message = err(&other);
    for format in ["brood traces", "Claude Code", "MyCodeAgent"] {
        assert!(message.contains(format), "{message}");
    }
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"format\":\"brood-trace\",\"version\":1}\n").unwrap();
    assert!(err(&bad).contains("not a valid header"), "{}", err(&bad));
}

#[test]
fn print_writes_the_printers_text_or_the_lines_and_notes_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let events = [
        user(1, AgentId::Main, "go"),
        delta(2, "Hello"),
        start(3, 1),
        turn_end(4, AgentId::Sub(1), TerminalReason::Completed, 10),
        turn_end(5, AgentId::Main, TerminalReason::Completed, 20),
    ];
    let mut body = lines(&events[..2]);
    body.push_str("garbage\n");
    body.push_str(&lines(&events[2..]));
    let path = write_trace(dir.path(), "t.jsonl", "2026-01-01T00:00:00.000Z", &body);

    let mut printer = TextPrinter::new();
    let expected: String = events.iter().map(|e| printer.format(e)).collect();
    let (mut out, mut notes) = (Vec::new(), Vec::new());
    let report = print(
        &mut open(&path).unwrap(),
        PrintFormat::Text,
        &mut out,
        &mut notes,
    )
    .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), expected);
    let notes = String::from_utf8(notes).unwrap();
    assert!(
        notes.starts_with("brood: skipped line 4: expected value"),
        "{notes}"
    );
    assert!(notes.ends_with("brood: skipped 1 bad line\n"), "{notes}");
    assert_eq!((report.events, report.skipped), (5, 1));

    let (mut out, mut notes) = (Vec::new(), Vec::new());
    print(
        &mut open(&path).unwrap(),
        PrintFormat::Json,
        &mut out,
        &mut notes,
    )
    .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), lines(&events));
}

#[test]
fn a_flood_of_bad_lines_is_noted_up_to_a_limit_then_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_trace(dir.path(), "t.jsonl", "x", &"nope\n".repeat(100));
    let mut notes = Vec::new();
    let report = print(
        &mut open(&path).unwrap(),
        PrintFormat::Text,
        &mut Vec::new(),
        &mut notes,
    )
    .unwrap();
    assert_eq!(report.skipped, 100);
    let notes = String::from_utf8(notes).unwrap();
    assert!(notes.lines().count() < 25, "{notes}");
    assert!(notes.ends_with("skipped 100 bad lines\n"), "{notes}");
}

/// A writer whose reader has gone away, like stdout into `head`.
struct ClosedPipe;

impl Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_closed_output_stops_printing_without_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let body = lines(&[delta(1, "a"), delta(2, "b")]);
    let path = write_trace(dir.path(), "t.jsonl", "x", &body);
    let mut source = open(&path).unwrap();
    let report = print(
        &mut source,
        PrintFormat::Json,
        &mut ClosedPipe,
        &mut Vec::new(),
    )
    .unwrap();
    assert!(report.closed);
    assert_eq!(report.events, 1);
}

#[test]
fn summaries_count_children_and_tokens_and_tell_how_the_session_ended() {
    let dir = tempfile::tempdir().unwrap();
    let main = AgentId::Main;
    let completed = [
        user(1, main, "  where is\n the login?  "),
        start(2, 1),
        user(3, AgentId::Sub(1), "child prompt"),
        turn_end(4, AgentId::Sub(1), TerminalReason::Completed, 100),
        start(5, 2),
        turn_end(6, AgentId::Sub(2), TerminalReason::MaxSteps, 50),
        turn_end(7, main, TerminalReason::Completed, 1000),
    ];
    let path = write_trace(dir.path(), "a.jsonl", "x", &lines(&completed));
    let s = summarize(&path).unwrap();
    assert_eq!(s.first_prompt.as_deref(), Some("  where is\n the login?  "));
    assert_eq!((s.children, s.tokens, s.events), (2, 1150, 7));
    assert_eq!(s.end, EndState::Completed);
    assert_eq!(s.duration_ms, 600);

    let mut second_turn = completed.to_vec();
    second_turn.push(user(8, main, "and then?"));
    let path = write_trace(dir.path(), "b.jsonl", "x", &lines(&second_turn));
    assert_eq!(summarize(&path).unwrap().end, EndState::Unfinished);

    let failed = [
        user(1, main, "go"),
        event(
            2,
            5,
            main,
            EventKind::Error {
                message: "model error: boom".into(),
            },
        ),
        turn_end(3, main, TerminalReason::ModelError, 5),
    ];
    let path = write_trace(dir.path(), "c.jsonl", "x", &lines(&failed));
    let s = summarize(&path).unwrap();
    assert_eq!(s.end, EndState::Failed(TerminalReason::ModelError));
    assert_eq!(s.error.as_deref(), Some("model error: boom"));

    let mut interrupted = failed[..1].to_vec();
    interrupted.push(turn_end(2, main, TerminalReason::Interrupted, 0));
    interrupted.push(event(3, 300, main, EventKind::Interrupted {}));
    let path = write_trace(dir.path(), "d.jsonl", "x", &lines(&interrupted));
    assert_eq!(summarize(&path).unwrap().end, EndState::Interrupted);

    let path = write_trace(dir.path(), "e.jsonl", "x", "");
    let s = summarize(&path).unwrap();
    assert_eq!(
        (s.end, s.first_prompt, s.events),
        (EndState::Unfinished, None, 0)
    );
}

#[test]
fn summaries_read_lines_whose_keys_are_in_another_order() {
    let dir = tempfile::tempdir().unwrap();
    let body = concat!(
        r#"{"type":"user_message","agent":"main","t_ms":5,"seq":1,"text":"hi"}"#,
        "\n",
        r#"{"agent":"main","seq":2,"type":"turn_end","t_ms":9,"reason":"completed","steps":1,"usage":{"input_tokens":3,"output_tokens":4}}"#,
        "\n",
    );
    let path = write_trace(dir.path(), "a.jsonl", "x", body);
    let s = summarize(&path).unwrap();
    assert_eq!(s.first_prompt.as_deref(), Some("hi"));
    assert_eq!(
        (s.tokens, s.duration_ms, s.end),
        (7, 4, EndState::Completed)
    );
}

#[test]
fn listing_is_newest_first_and_leaves_out_files_that_are_not_traces() {
    let dir = tempfile::tempdir().unwrap();
    let body = |prompt: &str| lines(&[user(1, AgentId::Main, prompt)]);
    write_trace(
        dir.path(),
        "b.jsonl",
        "2026-01-02T00:00:00.000Z",
        &body("two"),
    );
    write_trace(
        dir.path(),
        "a.jsonl",
        "2026-01-03T00:00:00.000Z",
        &body("three"),
    );
    write_trace(
        dir.path(),
        "c.jsonl",
        "2026-01-01T00:00:00.000Z",
        &body("one"),
    );
    std::fs::write(dir.path().join("notes.jsonl"), "{}\n").unwrap();
    std::fs::write(dir.path().join("readme.txt"), "not listed\n").unwrap();
    let listing = list_traces(dir.path()).unwrap();
    let prompts: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| s.first_prompt.clone().unwrap())
        .collect();
    assert_eq!(prompts, ["three", "two", "one"]);
    assert_eq!(listing.unreadable.len(), 1);
    assert!(listing.unreadable[0].1.starts_with("not a brood trace"));
    assert_eq!(
        newest_trace(dir.path()).unwrap(),
        dir.path().join("a.jsonl")
    );
    let missing = dir.path().join("none");
    assert!(list_traces(&missing).unwrap().sessions.is_empty());
    assert!(matches!(
        newest_trace(&missing),
        Err(ReplayError::NoTraces { .. })
    ));
}

#[test]
fn the_table_aligns_columns_and_cuts_long_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let long = "explain ".repeat(20);
    let a = lines(&[
        user(1, AgentId::Main, &long),
        turn_end(700, AgentId::Main, TerminalReason::Completed, 12_345),
    ]);
    write_trace(dir.path(), "a.jsonl", "2026-01-02T00:00:00.000Z", &a);
    let b = lines(&[user(1, AgentId::Main, "short ✓")]);
    write_trace(dir.path(), "b.jsonl", "2026-01-01T00:00:00.000Z", &b);
    let listing = list_traces(dir.path()).unwrap();
    let table = render_table(&listing.sessions, Some(dir.path()));
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(rows[1].contains("explain explain"), "{table}");
    assert!(rows[1].contains('…'), "{table}");
    assert!(rows[1].contains("1m 09s"), "{table}");
    assert!(rows[1].contains("12.3k"), "{table}");
    assert!(rows[1].contains("completed"), "{table}");
    assert!(rows[2].contains("unfinished"), "{table}");
    assert!(rows[2].contains("~/b.jsonl"), "{table}");
    // Each column starts at the same display column in every row.
    use unicode_width::UnicodeWidthStr;
    let column = |row: &str, word: &str| row[..row.find(word).unwrap()].width();
    assert_eq!(column(rows[0], "PATH"), column(rows[1], "~/a.jsonl"));
    assert_eq!(column(rows[0], "PATH"), column(rows[2], "~/b.jsonl"));
    assert_eq!(column(rows[0], "ENDED"), column(rows[2], "unfinished"));
    let json: serde_json::Value = serde_json::from_str(&json_line(&listing.sessions[0])).unwrap();
    assert_eq!(json["tokens"], 12_345);
    assert_eq!(json["end"], "completed");
    assert_eq!(json["duration_ms"], 69_900);
}
