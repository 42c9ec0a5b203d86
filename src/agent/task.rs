//! The `task` tool: how the parent delegates. Its input is checked here (a
//! non-empty prompt, a known profile, a known model role) so a bad call is an
//! error result naming the problem, and its result is the child's envelope.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::ModelRole;
use super::launcher::{LaunchError, Launcher, TaskRequest};
use crate::protocol::{TASK_TOOL, first_words, summarize_task};
use crate::tools::{Tool, ToolContext, ToolError, ToolKind};

pub struct TaskTool {
    launcher: Arc<Launcher>,
}

impl TaskTool {
    pub fn new(launcher: Arc<Launcher>) -> Self {
        TaskTool { launcher }
    }

    fn parse(&self, input: &Value) -> Result<TaskRequest, ToolError> {
        let prompt = input["prompt"].as_str().unwrap_or_default().trim();
        if prompt.is_empty() {
            return Err(ToolError::InvalidInput(
                "prompt must not be empty: say what the subagent should do".into(),
            ));
        }
        let profile = input["subagent_type"].as_str().unwrap_or("explore");
        if self.launcher.profile(profile).is_none() {
            return Err(ToolError::InvalidInput(format!(
                "unknown subagent_type {profile:?}; available: {}",
                self.launcher.profile_names().join(", ")
            )));
        }
        let model = match input["model"].as_str() {
            None => None,
            Some("light") => Some(ModelRole::Light),
            Some("main") => Some(ModelRole::Main),
            Some(other) => {
                return Err(ToolError::InvalidInput(format!(
                    "model must be \"light\" or \"main\", got {other:?}"
                )));
            }
        };
        let description = match input["description"].as_str().map(str::trim) {
            Some(d) if !d.is_empty() => d.to_string(),
            _ => first_words(prompt),
        };
        Ok(TaskRequest {
            prompt: prompt.to_string(),
            description,
            profile: profile.to_string(),
            model,
        })
    }
}

#[async_trait]
impl Tool for TaskTool {
    fn name(&self) -> &str {
        TASK_TOOL
    }

    fn description(&self) -> &str {
        "Delegate a self-contained job to a subagent that works in a fresh context and returns \
         only its answer. Use it for read-heavy investigations (finding where something is \
         handled, tracing a flow, surveying a codebase) so your own context stays small. The \
         subagent sees nothing of this conversation: put everything it needs in the prompt. \
         Several task calls in one turn run in parallel. `explore` (the default) is read-only \
         and returns a JSON summary with path:line evidence; `general` has the base tools and \
         returns its final text."
    }

    fn input_schema(&self) -> Value {
        let profiles: Vec<String> = self.launcher.profile_names();
        let described: Vec<String> = profiles
            .iter()
            .filter_map(|name| {
                let p = self.launcher.profile(name)?;
                Some(format!("{name}: {}", p.description))
            })
            .collect();
        json!({
            "type": "object",
            "properties": {
                "prompt": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The complete task for the subagent, with all the context it needs."
                },
                "description": {
                    "type": "string",
                    "description": "A short label (3-6 words) shown to the user."
                },
                "subagent_type": {
                    "type": "string",
                    "enum": profiles,
                    "description": format!("Which profile runs the task (default explore). {}", described.join("; "))
                },
                "model": {
                    "type": "string",
                    "enum": ["light", "main"],
                    "description": "light (default for explore) or main."
                }
            },
            "required": ["prompt"]
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Delegate
    }

    fn summarize(&self, input: &Value) -> String {
        summarize_task(input)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let request = self.parse(&input)?;
        let report = self
            .launcher
            .launch(request, ctx.agent, &ctx.call_id, &ctx.cancel)
            .await
            .map_err(|e| match e {
                LaunchError::Interrupted => ToolError::Interrupted,
                LaunchError::UnknownProfile { .. } => ToolError::InvalidInput(e.to_string()),
            })?;
        let envelope = report.envelope().to_string();
        if report.succeeded() {
            Ok(envelope)
        } else {
            // A failed child is an error result: the parent must not take it for
            // an answer.
            Err(ToolError::Failed(envelope))
        }
    }
}
