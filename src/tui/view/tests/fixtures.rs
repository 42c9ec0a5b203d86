//! Sessions for the view tests, built from events with fixed times so every
//! snapshot is stable, and helpers to draw them into a test buffer.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use serde_json::Value;

use crate::event::{AgentId, DecidedBy, Decision, Event, EventKind, TerminalReason, Usage};
use crate::protocol::SessionInfo;
use crate::tui::state::State;
use crate::tui::theme::{ColorMode, Theme};
use crate::tui::ui::Ui;
use crate::tui::view::{ViewCache, render};

pub(super) const MAIN: AgentId = AgentId::Main;

pub(super) fn sub(n: u32) -> AgentId {
    AgentId::Sub(n)
}

pub(super) fn info() -> SessionInfo {
    SessionInfo {
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        light_model: Some("claude-haiku-4-5".into()),
        session: "s-0107-ab12".into(),
        trace_path: Some("/home/ada/.local/share/brood/traces/s-0107-ab12.jsonl".into()),
        cwd: "/home/ada/src/shop".into(),
        context_window: 200_000,
        instructions: Vec::new(),
        mcp: Vec::new(),
        prices: Default::default(),
        sandbox: Some(crate::sandbox::SandboxSummary {
            mode: crate::sandbox::SandboxMode::WorkspaceWrite,
            network: crate::sandbox::Network::Off,
            enforced_by: Some("bubblewrap".into()),
            missing: None,
        }),
        agents: Vec::new(),
        side_warning: Default::default(),
    }
}

pub(super) fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    }
}

/// Events in the making, numbered in order.
#[derive(Default)]
pub(super) struct Script {
    pub events: Vec<Event>,
}

impl Script {
    pub fn push(&mut self, t_ms: u64, agent: AgentId, kind: EventKind) -> &mut Self {
        let seq = self.events.len() as u64 + 1;
        self.events.push(Event {
            seq,
            t_ms,
            agent,
            kind,
        });
        self
    }

    pub fn user(&mut self, t: u64, agent: AgentId, text: &str) -> &mut Self {
        self.push(t, agent, EventKind::UserMessage { text: text.into() })
    }

    pub fn request(&mut self, t: u64, agent: AgentId, step: u32) -> &mut Self {
        let kind = EventKind::ModelRequest {
            step,
            model: "m".into(),
            messages: step as usize * 2,
            tools: 6,
        };
        self.push(t, agent, kind)
    }

    pub fn delta(&mut self, t: u64, agent: AgentId, text: &str) -> &mut Self {
        self.push(t, agent, EventKind::TextDelta { text: text.into() })
    }

    pub fn say(
        &mut self,
        t: u64,
        agent: AgentId,
        text: &str,
        calls: usize,
        used: Usage,
    ) -> &mut Self {
        let kind = EventKind::AssistantMessage {
            text: text.into(),
            tool_calls: calls,
            usage: used,
            stop_reason: if calls > 0 { "tool_use" } else { "end_turn" }.into(),
        };
        self.push(t, agent, kind)
    }

    pub fn call(
        &mut self,
        t: u64,
        agent: AgentId,
        id: &str,
        name: &str,
        input: Value,
    ) -> &mut Self {
        // What the agent would put on the event: the tool's own label.
        let summary = match name {
            crate::protocol::TASK_TOOL => crate::protocol::summarize_task(&input),
            _ => crate::tools::ToolRegistry::base().summarize(name, &input),
        };
        let kind = EventKind::ToolCall {
            call_id: id.into(),
            name: name.into(),
            input: input.into(),
            summary: summary.into(),
        };
        self.push(t, agent, kind)
    }

    pub fn result(
        &mut self,
        t: u64,
        agent: AgentId,
        id: &str,
        name: &str,
        content: &str,
        is_error: bool,
    ) -> &mut Self {
        let start = self
            .events
            .iter()
            .rev()
            .find(|e| matches!(&e.kind, EventKind::ToolCall { call_id, .. } if call_id == id))
            .map_or(t, |e| e.t_ms);
        let kind = EventKind::ToolResult {
            call_id: id.into(),
            name: name.into(),
            is_error,
            content: content.into(),
            duration_ms: t - start,
        };
        self.push(t, agent, kind)
    }

    pub fn deny(&mut self, t: u64, agent: AgentId, id: &str, reason: &str) -> &mut Self {
        let kind = EventKind::PermissionDecision {
            call_id: id.into(),
            decision: Decision::Deny,
            reason: reason.into(),
            by: DecidedBy::Policy,
        };
        self.push(t, agent, kind)
    }

    /// Starts child `n` for the parent's task call `call_id`.
    pub fn start(
        &mut self,
        t: u64,
        n: u32,
        call_id: &str,
        profile: &str,
        description: &str,
    ) -> &mut Self {
        let explore = profile == "explore";
        let kind = EventKind::SubagentStart(Box::new(crate::event::SubagentStart {
            parent: MAIN,
            parent_call_id: call_id.into(),
            profile: profile.into(),
            model: if explore { "light" } else { "main" }.into(),
            model_name: if explore {
                "claude-haiku-4-5"
            } else {
                "claude-sonnet-4-5"
            }
            .into(),
            description: description.into(),
            prompt: format!("{description}. Report path:line evidence."),
            max_steps: Some(if explore { 12 } else { 30 }),
            token_budget: explore.then_some(32_000),
            context_budget: explore.then_some(16_000),
            color: None,
        }));
        self.push(t, sub(n), kind);
        self.user(
            t,
            sub(n),
            &format!("{description}. Report path:line evidence."),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn end(
        &mut self,
        t: u64,
        n: u32,
        reason: TerminalReason,
        summary: &str,
        steps: u32,
        used: Usage,
        elapsed_ms: u64,
    ) -> &mut Self {
        let kind = EventKind::SubagentEnd {
            reason,
            summary: summary.into(),
            steps,
            tool_usage: Default::default(),
            usage: used,
            elapsed_ms,
        };
        self.push(t, sub(n), kind)
    }

    /// The events in time order (written per agent for readability), numbered
    /// again.
    pub fn sorted(&self) -> Vec<Event> {
        let mut events = self.events.clone();
        events.sort_by_key(|e| e.t_ms);
        for (i, e) in events.iter_mut().enumerate() {
            e.seq = i as u64 + 1;
        }
        events
    }

    pub fn state(&self, now_ms: u64) -> State {
        let mut state = State::new(info());
        for e in &self.sorted() {
            state.apply(e);
        }
        state.now_ms = now_ms;
        state
    }
}

/// Draws `state` into a `width` × `height` buffer; checks that only named
/// colours were used.
pub(super) fn draw(state: &State, ui: &mut Ui, width: u16, height: u16, theme: &Theme) -> Buffer {
    let mut cache = test_cache();
    draw_with(state, ui, &mut cache, width, height, theme)
}

pub(super) fn test_cache() -> ViewCache {
    let mut cache = ViewCache::new();
    cache.home = Some("/home/ada".into());
    cache
}

pub(super) fn draw_with(
    state: &State,
    ui: &mut Ui,
    cache: &mut ViewCache,
    width: u16,
    height: u16,
    theme: &Theme,
) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| render(frame, state, ui, cache, theme))
        .expect("draw");
    let buffer = terminal.backend().buffer().clone();
    assert_named_colors(&buffer);
    assert_readable_on_light_and_dark(&buffer);
    buffer
}

/// Every character reads on a light terminal and on a dark one: on the
/// default background, in no colour lost on either (see `theme.rs`); on a
/// background of its own, in a colour of its own that differs from it.
/// Reversed cells take the terminal's own two colours, which read.
pub(super) fn assert_readable_on_light_and_dark(buffer: &Buffer) {
    use crate::tui::theme::{LOST_ON_DARK, LOST_ON_LIGHT};
    use ratatui::style::Modifier;
    for (i, cell) in buffer.content.iter().enumerate() {
        if cell.symbol().trim().is_empty() || cell.modifier.contains(Modifier::REVERSED) {
            continue;
        }
        let at = (
            i % buffer.area.width.max(1) as usize,
            i / buffer.area.width.max(1) as usize,
        );
        match cell.bg {
            Color::Reset => {
                assert!(
                    !LOST_ON_LIGHT.contains(&cell.fg),
                    "{:?} {:?} at {at:?} is lost on a light background",
                    cell.symbol(),
                    cell.fg
                );
                assert!(
                    !LOST_ON_DARK.contains(&cell.fg),
                    "{:?} {:?} at {at:?} is lost on a dark background",
                    cell.symbol(),
                    cell.fg
                );
            }
            bg => assert!(
                cell.fg != Color::Reset && cell.fg != bg,
                "{:?} {:?} on {bg:?} at {at:?}",
                cell.symbol(),
                cell.fg
            ),
        }
    }
}

pub(super) fn color() -> Theme {
    Theme::new(ColorMode::Color)
}

pub(super) fn no_color() -> Theme {
    Theme::new(ColorMode::NoColor)
}

/// 16-colour terminals: no RGB or indexed colour anywhere.
pub(super) fn assert_named_colors(buffer: &Buffer) {
    for cell in &buffer.content {
        for c in [cell.fg, cell.bg, cell.underline_color] {
            assert!(
                !matches!(c, Color::Rgb(..) | Color::Indexed(_)),
                "{c:?} at {:?}",
                cell.symbol()
            );
        }
    }
}

/// The buffer as text, one row a line.
pub(super) fn text(buffer: &Buffer) -> String {
    let width = buffer.area.width as usize;
    let mut out = String::new();
    for row in buffer.content.chunks(width.max(1)) {
        let mut skip = 0;
        for cell in row {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            out.push_str(cell.symbol());
            skip = unicode_width::UnicodeWidthStr::width(cell.symbol()).saturating_sub(1);
        }
        out.push('\n');
    }
    out
}

/// The position of the first cell whose row, from that cell on, starts with `needle`.
pub(super) fn find(buffer: &Buffer, needle: &str) -> Option<(u16, u16)> {
    let area = buffer.area;
    for y in 0..area.height {
        for x in 0..area.width {
            let rest: String = (x..area.width).map(|cx| buffer[(cx, y)].symbol()).collect();
            if rest.starts_with(needle) {
                return Some((x, y));
            }
        }
    }
    None
}

/// The colour and modifiers of the first cell of `needle` on screen.
pub(super) fn style_at(buf: &Buffer, needle: &str) -> (Color, ratatui::style::Modifier) {
    let (x, y) = find(buf, needle).unwrap_or_else(|| panic!("{needle:?} not on screen"));
    (buf[(x, y)].fg, buf[(x, y)].modifier)
}
