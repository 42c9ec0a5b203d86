//! The words several parts of brood share, beside the event vocabulary in
//! `event/`: what kind of thing a tool does, the `task` tool's name and
//! envelope, the token estimate every gauge uses, the sandbox's summary, and
//! what the screen is handed about a session. It depends on nothing but serde
//! and the event vocabulary, so the engine, the screen and the readers can all
//! use it without knowing each other.

pub mod price;
mod sandbox;
mod screen;
mod task;

pub use price::{Price, PriceTable};
pub use sandbox::{Network, SandboxMode, SandboxSummary};
pub use screen::{AgentSummary, Loaded, McpServerSummary, Remembered, SessionInfo, SideWarning};
pub use task::{TASK_TOOL, envelope_text, first_words, summarize_task};

/// What a tool may do, as far as permissions are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Reads files or lists them; never changes anything.
    Read,
    /// Creates or changes files.
    Write,
    /// Runs arbitrary commands.
    Exec,
    /// Starts a subagent (the `task` tool).
    Delegate,
    /// A tool of an MCP server: what it does is the server's to say, so it
    /// asks unless a rule allows it, and runs in a read-only agent only when
    /// the server marks it read-only.
    External {
        /// The server's `readOnlyHint`.
        read_only: bool,
    },
}

/// A tool call in one line for people: the `summary` its `tool_call` event
/// carries, or for events without one (older traces, other tools' sessions) the
/// `task` label or the input's most telling field.
pub fn call_label(name: &str, input: &serde_json::Value, summary: &str) -> String {
    if !summary.is_empty() {
        return summary.to_string();
    }
    if name == TASK_TOOL {
        return summarize_task(input);
    }
    const TELLING: &[&str] = &[
        "command",
        "path",
        "file_path",
        "pattern",
        "url",
        "query",
        "description",
    ];
    let text = TELLING
        .iter()
        .find_map(|field| input.get(*field).and_then(serde_json::Value::as_str))
        .map_or_else(|| input.to_string(), str::to_string);
    one_line(&text, 120)
}

/// `text` on one line of at most `max` characters, `…` where it was cut.
fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

/// A rough token count for text whose real count the provider did not tell us:
/// about four characters a token, which is what Anthropic and OpenAI suggest for
/// English and code.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// What a `write_file` result says when the file was there before: the
/// screen then knows the lines it shows as added replaced others.
pub const OVERWROTE: &str = "overwrote existing file";

/// Whether a `write_file` result says it replaced a file.
pub fn overwrote(tool: &str, content: &str) -> bool {
    tool == "write_file" && content.contains(OVERWROTE)
}

/// How a `bash` result begins: `exit code: N`, written by the tool before
/// any of the command's output, so readers (the screen's ✗) can trust it.
pub const EXIT_CODE_PREFIX: &str = "exit code: ";

/// A `bash` result's exit code, from the line the tool writes first.
pub fn exit_code(tool: &str, content: &str) -> Option<i32> {
    if tool != "bash" {
        return None;
    }
    let first = content.lines().next()?;
    first.strip_prefix(EXIT_CODE_PREFIX)?.trim().parse().ok()
}
