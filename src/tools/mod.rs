//! The tools an agent can call. Each tool declares the JSON schema the model sees,
//! a kind the policy reasons about, and a one-line summary of its input for display.
//! The [`ToolRegistry`] validates input against the schema before a tool runs, so a
//! tool only ever sees input of the right shape.

mod bash;
mod beneath;
mod edit_file;
mod glob;
mod grep;
mod output;
mod place;
mod read_file;
mod registry;
mod schema;
mod util;
mod walk;
mod write_file;

#[cfg(test)]
mod tests;

pub use bash::BashTool;
pub use edit_file::EditFileTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use read_file::ReadFileTool;
pub use registry::{CallError, ToolRegistry, ToolSource};
pub use write_file::WriteFileTool;

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use crate::protocol::ToolKind;
use crate::workspace::Workspace;

/// What every tool call gets besides its input.
#[derive(Clone)]
pub struct ToolContext {
    pub workspace: Arc<Workspace>,
    /// What `bash` runs its commands under.
    pub sandbox: Arc<crate::sandbox::Sandbox>,
    /// The agent making the call.
    pub agent: crate::event::AgentId,
    /// The model's id for this call (the `task` tool links its child to it).
    pub call_id: String,
    /// Cancelled when the user interrupts; long-running tools must stop (and kill
    /// their processes) promptly.
    pub cancel: CancellationToken,
}

/// Why a tool call failed; the text becomes an error tool result the model reads.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    InvalidInput(String),
    #[error("{0}")]
    Failed(String),
    #[error("interrupted")]
    Interrupted,
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

#[async_trait]
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    /// What the model reads to decide when to call the tool.
    fn description(&self) -> &str;
    /// JSON schema of the input (`type: object`, `properties`, `required`).
    fn input_schema(&self) -> Value;
    fn kind(&self) -> ToolKind;
    /// One line for people, e.g. `"fn main" in src/` for grep.
    fn summarize(&self, input: &Value) -> String;
    /// Runs the call. `input` has already passed the schema check.
    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError>;
}
