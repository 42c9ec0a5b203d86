use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;
use crate::tui::theme::ColorMode;

fn rows() -> Vec<PickerRow> {
    [
        (
            "20261201-221001-a1b2c3",
            "fix the login bug in src/auth.rs and add a test",
            3,
            2,
            48_200,
        ),
        (
            "20261130-090500-d4e5f6",
            "why is the build slow?",
            1,
            0,
            950,
        ),
        ("20261129-180000-0a0b0c", "", 0, 0, 0),
    ]
    .into_iter()
    .map(|(id, prompt, turns, children, tokens)| PickerRow {
        path: PathBuf::from(format!("/data/traces/{id}.jsonl")),
        id: id.into(),
        started: format!(
            "{}-{}-{} {}:{}",
            &id[..4],
            &id[4..6],
            &id[6..8],
            &id[9..11],
            &id[11..13]
        ),
        first_prompt: prompt.into(),
        turns,
        children,
        tokens,
    })
    .collect()
}

fn screen(picker: &Picker, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let theme = Theme::new(ColorMode::NoColor);
    terminal
        .draw(|frame| picker.render(frame, frame.area(), &theme))
        .unwrap();
    let buffer = terminal.backend().buffer().clone();
    buffer
        .content
        .chunks(width as usize)
        .map(|row| {
            row.iter()
                .map(|c| c.symbol())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn press(picker: &mut Picker, code: KeyCode) -> Option<Picked> {
    picker.key(KeyEvent::new(code, KeyModifiers::NONE))
}

#[test]
fn the_list_shows_each_session_with_its_turns_children_and_tokens() {
    let mut picker = Picker::new("~/src/shop".into(), rows());
    insta::assert_snapshot!("picker_sessions", screen(&picker, 120, 8));
    press(&mut picker, KeyCode::Down);
    insta::assert_snapshot!("picker_second_selected_80", screen(&picker, 80, 5));
    insta::assert_snapshot!("picker_second_selected_narrow", screen(&picker, 50, 5));
}

#[test]
fn enter_continues_the_selected_session_and_esc_leaves() {
    let mut picker = Picker::new("~/src/shop".into(), rows());
    assert_eq!(press(&mut picker, KeyCode::Down), None);
    assert_eq!(press(&mut picker, KeyCode::Down), None);
    assert_eq!(press(&mut picker, KeyCode::Down), None);
    assert_eq!(
        press(&mut picker, KeyCode::Enter),
        Some(Picked::Session(
            "/data/traces/20261129-180000-0a0b0c.jsonl".into()
        ))
    );
    assert_eq!(press(&mut picker, KeyCode::Home), None);
    assert_eq!(
        press(&mut picker, KeyCode::Enter),
        Some(Picked::Session(
            "/data/traces/20261201-221001-a1b2c3.jsonl".into()
        ))
    );
    assert_eq!(press(&mut picker, KeyCode::Esc), Some(Picked::Cancelled));
}

#[test]
fn a_tiny_terminal_still_draws_without_panicking() {
    let mut picker = Picker::new("~/src/shop".into(), rows());
    press(&mut picker, KeyCode::End);
    let shown = screen(&picker, 10, 3);
    assert_eq!(shown.lines().count(), 3);
    assert!(shown.contains("›"), "{shown}");
}
