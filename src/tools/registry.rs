//! The set of tools one agent may call. A profile starts from [`ToolRegistry::base`]
//! and narrows it with [`ToolRegistry::retain`] (or adds `task` with `register`);
//! every call is validated against the tool's schema before it runs.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::{
    BashTool, EditFileTool, GlobTool, GrepTool, ReadFileTool, Tool, WriteFileTool, schema, util,
};
use crate::model::ToolSpec;
use crate::protocol::ToolKind;

/// Why a call was refused before it ran; the text goes back to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("unknown tool \"{name}\"; available tools: {}", available.join(", "))]
    UnknownTool {
        name: String,
        available: Vec<String>,
    },
    #[error("invalid input: {0}")]
    InvalidInput(String),
}

/// Tools that come and go while a session runs (an MCP server's, which may
/// change its list): asked for each time the registry is read.
pub trait ToolSource: Send + Sync {
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
}

/// Tools by name, in the order the model sees them: the registry's own, then
/// its sources' (a source's tool never shadows one of the registry's own).
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    sources: Vec<Arc<dyn ToolSource>>,
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl ToolRegistry {
    /// The six base tools: bash, read_file, write_file, edit_file, glob, grep.
    pub fn base() -> Self {
        let tools: Vec<Arc<dyn Tool>> = vec![
            Arc::new(BashTool),
            Arc::new(ReadFileTool),
            Arc::new(WriteFileTool),
            Arc::new(EditFileTool),
            Arc::new(GlobTool),
            Arc::new(GrepTool),
        ];
        ToolRegistry {
            tools,
            sources: Vec::new(),
        }
    }

    pub fn empty() -> Self {
        ToolRegistry::default()
    }

    /// Adds a source of tools read at every look.
    pub fn add_source(&mut self, source: Arc<dyn ToolSource>) {
        self.sources.push(source);
    }

    /// The registry's own tools, then its sources' as they are now.
    fn all(&self) -> Vec<Arc<dyn Tool>> {
        let mut all = self.tools.clone();
        for source in &self.sources {
            for tool in source.tools() {
                if !all.iter().any(|t| t.name() == tool.name()) {
                    all.push(tool);
                }
            }
        }
        all
    }

    /// Adds `tool`, replacing (in place) a tool of the same name.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        match self.tools.iter_mut().find(|t| t.name() == tool.name()) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        match self.tools.iter().find(|t| t.name() == name) {
            Some(tool) => Some(tool.clone()),
            None => self.all().into_iter().find(|t| t.name() == name),
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.all().iter().map(|t| t.name().to_string()).collect()
    }

    /// Each of the registry's own tools' name and kind: what profiles are
    /// checked against.
    pub fn available(&self) -> Vec<(&str, ToolKind)> {
        self.tools.iter().map(|t| (t.name(), t.kind())).collect()
    }

    /// Keeps only the registry's own tools whose name `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.tools.retain(|t| keep(t.name()));
    }

    /// The tools as the model sees them.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.all()
            .iter()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.description().to_string(),
                input_schema: t.input_schema(),
            })
            .collect()
    }

    /// One line describing a call for people; compact JSON for a tool not here.
    pub fn summarize(&self, name: &str, input: &Value) -> String {
        match self.get(name) {
            Some(tool) => tool.summarize(input),
            None => util::one_line(&input.to_string(), 120),
        }
    }

    /// Checks that `name` is a tool here and `input` fits its schema.
    pub fn validate(&self, name: &str, input: &Value) -> Result<(), CallError> {
        let tool = self.get(name).ok_or_else(|| CallError::UnknownTool {
            name: name.to_string(),
            available: self.names(),
        })?;
        schema::check(&tool.input_schema(), input).map_err(CallError::InvalidInput)
    }
}
