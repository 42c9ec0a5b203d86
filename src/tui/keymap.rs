//! The one key table. Dispatch (`keys.rs`, the replay's controls), the help
//! overlay and the status line's hints all read it, so what the screen says a
//! key does is what it does. Typing in the composer and in the denial reason is
//! the only input not listed: every other key is a row here.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a key acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Everywhere, before anything else.
    Anywhere,
    /// Any pane (focus is not the composer), when the pane has no row of its own.
    Panes,
    Conversation,
    Subagents,
    Live,
    Composer,
    /// The approval dialog.
    Approval,
    /// Typing why a call is denied, after `n`.
    Reason,
    Help,
    Transcript,
    /// A tool cell's whole output.
    Viewer,
    /// Every change of the session (`/diff`).
    /// A list overlay: the changes (`/diff`), the profiles (`/agents`).
    Listing,
    /// A replay's controls, before the panes'.
    Replay,
}

impl Place {
    /// The heading of the place's group in the help overlay.
    pub fn heading(self) -> &'static str {
        match self {
            Place::Anywhere => "Anywhere",
            Place::Panes => "Panes",
            Place::Conversation => "Conversation",
            Place::Subagents => "Subagents",
            Place::Live => "Live pane",
            Place::Composer => "Composer",
            Place::Approval => "Approval dialog",
            Place::Reason => "Denying with a reason",
            Place::Help => "This help",
            Place::Transcript => "A child's transcript",
            Place::Viewer => "A tool's output",
            Place::Listing => "Changes (/diff), profiles (/agents)",
            Place::Replay => "Replay",
        }
    }
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Interrupt,
    /// Ctrl-D: quits when nothing is typed.
    Quit,
    FocusNext,
    FocusPrevious,
    FocusComposer,
    /// Esc in the composer: interrupts a running turn; twice clears it.
    EscComposer,
    /// ↑/↓ in the composer: history on its first / last line, else the cursor.
    HistoryUp,
    HistoryDown,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    Top,
    Bottom,
    PreviousChild,
    NextChild,
    ToggleLiveMode,
    ToggleTrace,
    Help,
    Close,
    /// ↑/↓ in the conversation: the previous / next tool cell.
    SelectPrevious,
    SelectNext,
    /// Enter: the selected tool cell whole, and back (a message opens in the viewer).
    ExpandCell,
    /// `o`: the selected tool cell's output in the viewer.
    OpenOutput,
    /// `/` in the viewer: type a query.
    Find,
    NextMatch,
    PreviousMatch,
    ToggleThinking,
    /// `y`: copy the selected message or cell output (the last answer when none is).
    Copy,
    /// F2: the mouse to the terminal (select text) or to brood (scroll).
    ToggleMouse,
    /// `z`: the focused pane fills the screen, and back.
    Zoom,
    /// `<` and `>`: the conversation narrower or wider beside the subagents.
    NarrowerConversation,
    WiderConversation,
    /// Ctrl-R: search earlier prompts.
    SearchHistory,
    OpenChild,
    /// `x`: stop the selected child only.
    StopChild,
    /// `m`: type a message for the selected running child.
    MessageChild,
    Send,
    Newline,
    HistoryBack,
    HistoryForward,
    AllowOnce,
    AllowForSession,
    DenyWithReason,
    Deny,
    SendReason,
    PlayPause,
    StepForward,
    StepBack,
    NextChildStart,
    PreviousChildStart,
    Faster,
    Slower,
    ReplayStart,
    ReplayEnd,
    QuitReplay,
}

/// One key combination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chord {
    code: KeyCode,
    mods: KeyModifiers,
}

const fn key(code: KeyCode) -> Chord {
    Chord {
        code,
        mods: KeyModifiers::NONE,
    }
}

const fn ch(c: char) -> Chord {
    key(KeyCode::Char(c))
}

const fn ctrl(c: char) -> Chord {
    Chord {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

const fn with(code: KeyCode, mods: KeyModifiers) -> Chord {
    Chord { code, mods }
}

impl Chord {
    /// Whether `event` is this chord. Shift is part of a character itself
    /// (`G`, `?`), so it only counts for keys that are not characters.
    fn matches(&self, event: &KeyEvent) -> bool {
        if self.code != event.code {
            return false;
        }
        let mut mods = event.modifiers;
        if matches!(event.code, KeyCode::Char(_)) {
            mods.remove(KeyModifiers::SHIFT);
        }
        mods == self.mods
    }
}

/// A row of the table.
pub struct Binding {
    pub place: Place,
    chords: &'static [Chord],
    /// How the help and the hints write the keys.
    pub label: &'static str,
    /// What the help says the key does.
    pub help: &'static str,
    /// The status line's `(keys, word)` for it, when the status line offers it:
    /// the keys written short, as room there is.
    pub hint: Option<(&'static str, &'static str)>,
    pub command: Command,
}

const fn row(
    place: Place,
    chords: &'static [Chord],
    label: &'static str,
    help: &'static str,
    hint: Option<(&'static str, &'static str)>,
    command: Command,
) -> Binding {
    Binding {
        place,
        chords,
        label,
        help,
        hint,
        command,
    }
}

use Command as C;
use KeyCode as K;
use Place as P;

const UP: &[Chord] = &[key(K::Up), ch('k')];
const DOWN: &[Chord] = &[key(K::Down), ch('j')];
const TOP: &[Chord] = &[key(K::Home), ch('g')];
const BOTTOM: &[Chord] = &[key(K::End), ch('G')];

/// Every binding, in the order help and hints show them.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    row(P::Anywhere, &[ctrl('c')], "Ctrl-C", "interrupt the turn; twice within 2 s quits", None, C::Interrupt),
    row(P::Anywhere, &[ctrl('d')], "Ctrl-D", "quit (when nothing is typed)", None, C::Quit),
    row(P::Anywhere, &[key(K::F(2))], "F2", "mouse: the terminal's own selection (copy text) / brood's scrolling", None, C::ToggleMouse),
    // Approvals come first: the dialog takes every key while it shows.
    row(P::Approval, &[ch('y'), ch('Y')], "y", "allow once", Some(("y", "allow once")), C::AllowOnce),
    row(P::Approval, &[ch('a'), ch('A')], "a", "allow commands like this for the session", Some(("a", "allow for session")), C::AllowForSession),
    row(P::Approval, &[ch('n'), ch('N')], "n", "deny, then type why (Enter)", Some(("n/Esc", "deny")), C::DenyWithReason),
    row(P::Approval, &[key(K::Esc)], "Esc", "deny without a reason", None, C::Deny),
    row(P::Reason, &[key(K::Enter)], "Enter", "deny with what you typed", Some(("Enter", "deny")), C::SendReason),
    row(P::Reason, &[key(K::Esc)], "Esc", "deny without a reason", Some(("Esc", "no reason")), C::Deny),
    row(P::Replay, &[ch(' ')], "Space", "play/pause", Some(("Space", "play/pause")), C::PlayPause),
    row(P::Replay, &[key(K::Right)], "←/→", "one event", None, C::StepForward),
    row(P::Replay, &[key(K::Left)], "", "", None, C::StepBack),
    row(P::Replay, &[with(K::Right, KeyModifiers::SHIFT)], "Shift-←/→", "child start/end", None, C::NextChildStart),
    row(P::Replay, &[with(K::Left, KeyModifiers::SHIFT)], "", "", None, C::PreviousChildStart),
    row(P::Replay, &[ch('+'), ch('=')], "+/-", "speed", None, C::Faster),
    row(P::Replay, &[ch('-'), ch('_')], "", "", None, C::Slower),
    row(P::Replay, TOP, "g/G", "start/end", None, C::ReplayStart),
    row(P::Replay, BOTTOM, "", "", None, C::ReplayEnd),
    // Ctrl-C and Ctrl-D end a replay before any table is read (app.rs):
    // listed here, where a replay's help looks.
    row(P::Replay, &[ch('q'), key(K::Esc), ctrl('c'), ctrl('d')], "q", "quit", None, C::QuitReplay),
    row(P::Help, &[key(K::Esc), ch('q'), ch('?')], "Esc", "close", Some(("Esc", "close")), C::Close),
    row(P::Help, UP, "↑↓ PgUp PgDn", "scroll", None, C::ScrollUp),
    row(P::Help, DOWN, "", "", None, C::ScrollDown),
    row(P::Help, &[key(K::PageUp)], "", "", None, C::PageUp),
    row(P::Help, &[key(K::PageDown), ch(' ')], "", "", None, C::PageDown),
    row(P::Help, TOP, "", "", None, C::Top),
    row(P::Help, BOTTOM, "", "", None, C::Bottom),
    row(P::Transcript, &[key(K::Esc), ch('q')], "Esc", "close", Some(("Esc", "close")), C::Close),
    row(P::Transcript, UP, "↑↓ PgUp PgDn", "scroll", Some(("↑↓", "scroll")), C::ScrollUp),
    row(P::Transcript, DOWN, "", "", None, C::ScrollDown),
    row(P::Transcript, &[key(K::PageUp)], "", "", None, C::PageUp),
    row(P::Transcript, &[key(K::PageDown), ch(' ')], "", "", None, C::PageDown),
    row(P::Transcript, TOP, "Home End", "to the top / the bottom", None, C::Top),
    row(P::Transcript, BOTTOM, "", "", None, C::Bottom),
    row(P::Transcript, &[ch('[')], "[ ]", "the previous / next child's transcript", Some(("[ ]", "child")), C::PreviousChild),
    row(P::Transcript, &[ch(']')], "", "", None, C::NextChild),
    row(P::Transcript, &[ch('r')], "r", "show / fold the child's reasoning", None, C::ToggleThinking),
    row(P::Transcript, &[ch('x')], "x", "stop this child; the others go on", Some(("x", "stop")), C::StopChild),
    row(P::Transcript, &[ch('m')], "m", "send this child a message (read next step)", Some(("m", "message")), C::MessageChild),
    row(P::Viewer, &[key(K::Esc), ch('q')], "Esc", "close", Some(("Esc", "close")), C::Close),
    row(P::Viewer, &[ch('/')], "/", "search: type, then Enter (Esc leaves)", Some(("/", "search")), C::Find),
    row(P::Viewer, &[ch('y')], "y", "copy the whole output (OSC 52)", Some(("y", "copy")), C::Copy),
    row(P::Viewer, &[ch('n')], "n N", "the next / previous match", Some(("n N", "match")), C::NextMatch),
    row(P::Viewer, &[ch('N')], "", "", None, C::PreviousMatch),
    row(P::Viewer, UP, "↑↓ PgUp PgDn", "scroll", Some(("↑↓", "scroll")), C::ScrollUp),
    row(P::Viewer, DOWN, "", "", None, C::ScrollDown),
    row(P::Viewer, &[key(K::PageUp)], "", "", None, C::PageUp),
    row(P::Viewer, &[key(K::PageDown), ch(' ')], "", "", None, C::PageDown),
    row(P::Viewer, TOP, "Home End", "to the top / the bottom", None, C::Top),
    row(P::Viewer, BOTTOM, "", "", None, C::Bottom),
    row(P::Listing, &[key(K::Esc), ch('q')], "Esc", "close", Some(("Esc", "close")), C::Close),
    row(P::Listing, UP, "↑↓ PgUp PgDn", "scroll", Some(("↑↓", "scroll")), C::ScrollUp),
    row(P::Listing, DOWN, "", "", None, C::ScrollDown),
    row(P::Listing, &[key(K::PageUp)], "", "", None, C::PageUp),
    row(P::Listing, &[key(K::PageDown), ch(' ')], "", "", None, C::PageDown),
    row(P::Listing, TOP, "Home End", "to the top / the bottom", None, C::Top),
    row(P::Listing, BOTTOM, "", "", None, C::Bottom),
    row(P::Composer, &[key(K::Enter)], "Enter", "send (queued while brood works)", Some(("Enter", "send")), C::Send),
    row(P::Composer, &[ with(K::Enter, KeyModifiers::ALT),
            with(K::Enter, KeyModifiers::SHIFT),
        ],
        "Alt+Enter",
        "new line (Shift+Enter too)",
        Some(("Alt+Enter", "newline")), C::Newline),
    row(P::Composer, &[key(K::Tab)], "Tab", "to the panes", Some(("Tab", "focus")), C::FocusNext),
    row(P::Composer, &[with(K::BackTab, KeyModifiers::SHIFT), key(K::BackTab)], "", "", None, C::FocusPrevious),
    row(P::Composer, &[ctrl('p')], "Ctrl-P / Ctrl-N", "previous / next prompt from history", Some(("Ctrl-P", "history")), C::HistoryBack),
    row(P::Composer, &[ctrl('n')], "", "", None, C::HistoryForward),
    row(P::Composer, &[ctrl('r')], "Ctrl-R", "search earlier prompts (again: older; Enter takes it, Esc leaves)", None, C::SearchHistory),
    row(P::Composer, &[key(K::Esc)], "Esc", "interrupt the running turn; twice: clear what is typed", None, C::EscComposer),
    // Arrows only: j and k are letters of a prompt.
    row(P::Composer, &[key(K::Up)], "↑↓", "earlier prompts; ↑ takes a queued one back", None, C::HistoryUp),
    row(P::Composer, &[key(K::Down)], "", "", None, C::HistoryDown),
    row(P::Composer, &[ch('?')], "?", "this help (when nothing is typed)", None, C::Help),
    row(P::Composer, &[key(K::PageUp)], "PgUp PgDn", "scroll the conversation", None, C::PageUp),
    row(P::Composer, &[key(K::PageDown)], "", "", None, C::PageDown),
    row(P::Conversation, UP, "↑↓", "select the previous / next tool cell or message (the view follows; past the ends, scroll)", Some(("↑↓", "select")), C::SelectPrevious),
    row(P::Conversation, DOWN, "", "", None, C::SelectNext),
    row(P::Conversation, &[key(K::Enter)], "Enter", "expand / collapse the selected tool cell (a message opens whole)", Some(("Enter", "expand")), C::ExpandCell),
    row(P::Conversation, &[ch('o')], "o", "the selected cell's whole output, or the whole message (/ searches it)", Some(("o", "output")), C::OpenOutput),
    row(P::Conversation, &[ch('y')], "y", "copy the selected message or cell output, else the last answer (OSC 52)", None, C::Copy),
    row(P::Conversation, &[ch('r')], "r", "show / fold the model's reasoning (thinking)", None, C::ToggleThinking),
    row(P::Subagents, &[key(K::Enter)], "Enter", "open the selected child's transcript", Some(("Enter", "open child")), C::OpenChild),
    row(P::Subagents, &[ch('x')], "x", "stop the selected child; the others go on", Some(("x", "stop")), C::StopChild),
    row(P::Subagents, &[ch('m')], "m", "send the selected child a message", Some(("m", "message")), C::MessageChild),
    row(P::Subagents, UP, "↑↓", "select a child", None, C::PreviousChild),
    row(P::Subagents, DOWN, "", "", None, C::NextChild),
    row(P::Subagents, TOP, "Home End", "the first / last child", None, C::Top),
    row(P::Subagents, BOTTOM, "", "", None, C::Bottom),
    row(P::Live, &[key(K::Enter)], "Enter", "open the selected child's transcript", None, C::OpenChild),
    row(P::Panes, &[key(K::Tab)], "Tab / Shift-Tab", "move focus between panes", Some(("Tab", "focus")), C::FocusNext),
    row(P::Panes, &[ch('z')], "z", "zoom the focused pane to the whole screen, and back", None, C::Zoom),
    row(P::Panes, &[ch('<')], "< >", "narrow / widen the conversation (remembered)", None, C::NarrowerConversation),
    row(P::Panes, &[ch('>')], "", "", None, C::WiderConversation),
    row(P::Panes, &[with(K::BackTab, KeyModifiers::SHIFT), key(K::BackTab)], "", "", None, C::FocusPrevious),
    row(P::Panes, UP, "↑↓ PgUp PgDn", "scroll; the wheel scrolls the pane under it", Some(("↑↓", "scroll")), C::ScrollUp),
    row(P::Panes, DOWN, "", "", None, C::ScrollDown),
    row(P::Panes, &[key(K::PageUp)], "", "", None, C::PageUp),
    row(P::Panes, &[key(K::PageDown)], "", "", None, C::PageDown),
    row(P::Panes, TOP, "Home End", "to the top / back to following the bottom", None, C::Top),
    row(P::Panes, BOTTOM, "", "", None, C::Bottom),
    row(P::Panes, &[ch('[')], "[ ]", "select the previous / next child", Some(("[ ]", "child")), C::PreviousChild),
    row(P::Panes, &[ch(']')], "", "", None, C::NextChild),
    row(P::Panes, &[ch('a')], "a", "live pane: the selected child / all children", Some(("a", "all/one")), C::ToggleLiveMode),
    row(P::Panes, &[ch('t')], "t", "trace pane: the raw event timeline", Some(("t", "trace")), C::ToggleTrace),
    row(P::Panes, &[ch('?')], "?", "this help", Some(("?", "help")), C::Help),
    row(P::Panes, &[ch('i'), key(K::Esc)], "i", "to the composer", None, C::FocusComposer),
];

/// The command `key` runs in the first of `places` that binds it.
pub fn lookup(places: &[Place], event: &KeyEvent) -> Option<Command> {
    places.iter().find_map(|place| {
        BINDINGS
            .iter()
            .filter(|b| b.place == *place)
            .find(|b| b.chords.iter().any(|c| c.matches(event)))
            .map(|b| b.command)
    })
}

/// The status line's `(key, word)` pairs for `places`, first place first. A
/// row is left out when an earlier place takes one of its keys (in the
/// subagents pane ↑↓ select a child, so the panes' "↑↓ scroll" is not offered),
/// or when its command would do nothing now (`works`: `x stop` on a child
/// that has ended).
pub fn hints(
    places: &[Place],
    works: impl Fn(Command) -> bool,
) -> Vec<(&'static str, &'static str)> {
    let mut pairs: Vec<(&'static str, &'static str)> = Vec::new();
    for (i, place) in places.iter().enumerate() {
        let earlier = &places[..i];
        for binding in BINDINGS.iter().filter(|b| b.place == *place) {
            let taken = binding.chords.iter().any(|chord| {
                BINDINGS
                    .iter()
                    .any(|b| earlier.contains(&b.place) && b.chords.contains(chord))
            });
            if let Some((keys, word)) = binding.hint
                && !taken
                && works(binding.command)
                && !pairs.iter().any(|(_, w)| *w == word)
            {
                pairs.push((keys, word));
            }
        }
    }
    pairs
}

/// The help overlay's groups for `places`: each heading and its labelled
/// rows whose command is `listed` (a replay lists no command that needs a
/// live session).
pub fn help(
    places: &[Place],
    listed: impl Fn(Command) -> bool,
) -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    places
        .iter()
        .map(|place| {
            let rows = BINDINGS
                .iter()
                .filter(|b| b.place == *place && !b.label.is_empty() && listed(b.command))
                .map(|b| (b.label, b.help))
                .collect();
            (place.heading(), rows)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn a_key_runs_the_first_place_that_binds_it() {
        let enter = press(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(
            lookup(&[P::Conversation, P::Panes], &enter),
            Some(C::ExpandCell)
        );
        assert_eq!(
            lookup(&[P::Subagents, P::Panes], &enter),
            Some(C::OpenChild)
        );
        let up = press(KeyCode::Up, KeyModifiers::NONE);
        assert_eq!(
            lookup(&[P::Subagents, P::Panes], &up),
            Some(C::PreviousChild)
        );
        assert_eq!(lookup(&[P::Live, P::Panes], &up), Some(C::ScrollUp));
        assert_eq!(
            lookup(&[P::Conversation, P::Panes], &up),
            Some(C::SelectPrevious)
        );
        let big_n = press(KeyCode::Char('N'), KeyModifiers::SHIFT);
        assert_eq!(lookup(&[P::Viewer], &big_n), Some(C::PreviousMatch));
        let big_g = press(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(lookup(&[P::Panes], &big_g), Some(C::Bottom));
        let shift_right = press(KeyCode::Right, KeyModifiers::SHIFT);
        assert_eq!(lookup(&[P::Replay], &shift_right), Some(C::NextChildStart));
        assert_eq!(
            lookup(
                &[P::Composer],
                &press(KeyCode::Char('x'), KeyModifiers::NONE)
            ),
            None
        );
    }

    #[test]
    fn every_labelled_row_is_in_the_help_and_every_hint_is_a_real_binding() {
        let all = [
            P::Anywhere,
            P::Panes,
            P::Conversation,
            P::Subagents,
            P::Live,
            P::Composer,
            P::Approval,
            P::Reason,
            P::Help,
            P::Transcript,
            P::Viewer,
            P::Listing,
            P::Replay,
        ];
        let shown: usize = help(&all, |_| true)
            .iter()
            .map(|(_, rows)| rows.len())
            .sum();
        let labelled = BINDINGS.iter().filter(|b| !b.label.is_empty()).count();
        assert_eq!(shown, labelled);
        for binding in BINDINGS {
            assert!(!binding.chords.is_empty(), "{} binds no key", binding.help);
            if binding.hint.is_some() {
                assert!(!binding.label.is_empty(), "a hint without a label");
            }
        }
    }
}
