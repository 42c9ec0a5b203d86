//! Tests of the tools on real temporary folders.

mod bash;
mod files;
mod registry;
mod search;

use crate::sandbox::{Sandbox, SandboxSettings};
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{Tool, ToolContext, ToolError};
use crate::workspace::Workspace;

/// A temporary workspace and a context for tool calls in it.
pub(super) struct Fixture {
    pub dir: tempfile::TempDir,
    pub ctx: ToolContext,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Arc::new(Workspace::new(dir.path()).unwrap());
        let sandbox = Sandbox::prepare(SandboxSettings::default(), dir.path()).unwrap();
        let ctx = ToolContext {
            workspace,
            sandbox: Arc::new(sandbox),
            agent: crate::event::AgentId::Main,
            call_id: "test-call".into(),
            cancel: CancellationToken::new(),
        };
        Fixture { dir, ctx }
    }

    /// Writes `content` at `rel`, creating folders.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).unwrap()
    }

    pub async fn run(&self, tool: &dyn Tool, input: Value) -> Result<String, ToolError> {
        tool.run(input, &self.ctx).await
    }

    pub async fn ok(&self, tool: &dyn Tool, input: Value) -> String {
        match self.run(tool, input).await {
            Ok(out) => out,
            Err(err) => panic!("{} failed: {err}", tool.name()),
        }
    }

    pub async fn err(&self, tool: &dyn Tool, input: Value) -> String {
        match self.run(tool, input).await {
            Ok(out) => panic!("{} should fail but returned:\n{out}", tool.name()),
            Err(err) => err.to_string(),
        }
    }
}
