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

/// Tools by name, in the order the model sees them.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
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
        ToolRegistry { tools }
    }

    pub fn empty() -> Self {
        ToolRegistry { tools: Vec::new() }
    }

    /// Adds `tool`, replacing (in place) a tool of the same name.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        match self.tools.iter_mut().find(|t| t.name() == tool.name()) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }

    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// Each tool's name and kind: what profiles are checked against.
    pub fn available(&self) -> Vec<(&str, ToolKind)> {
        self.tools.iter().map(|t| (t.name(), t.kind())).collect()
    }

    /// Keeps only the tools whose name `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.tools.retain(|t| keep(t.name()));
    }

    /// The tools as the model sees them.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
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
            available: self.names().into_iter().map(String::from).collect(),
        })?;
        schema::check(&tool.input_schema(), input).map_err(CallError::InvalidInput)
    }
}
