//! `write_file`: create or overwrite a file. Writes go to a temporary file in the
//! same folder that is then renamed over the target, so a reader (or a crash) never
//! sees half a file.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::place::{Existing, Place, existing, replace};
use super::util::{blocking, io_error, not_a_file, one_line, optional_str, required_str};
use super::{Tool, ToolContext, ToolError, ToolKind};

/// Creates or overwrites a file with the given content.
pub struct WriteFileTool;

#[async_trait]
impl Tool for WriteFileTool {
    fn name(&self) -> &str {
        "write_file"
    }

    fn description(&self) -> &str {
        "Create a file or replace its whole content. Paths are relative to the \
         workspace root; missing parent folders are created. Overwriting keeps the \
         file's permissions. To change part of an existing file, prefer edit_file; \
         read a file before overwriting it."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "File to write, relative to the workspace root."
                },
                "content": {
                    "type": "string",
                    "description": "The complete new content of the file."
                }
            },
            "required": ["path", "content"]
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn summarize(&self, input: &Value) -> String {
        let path = one_line(optional_str(input, "path").unwrap_or("?"), 120);
        match optional_str(input, "content") {
            Some(content) => format!("{path} ({} bytes)", content.len()),
            None => path,
        }
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let resolved = ctx.workspace.resolve(required_str(&input, "path")?);
        let content = required_str(&input, "content")?.to_string();
        let shown = ctx.workspace.display(&resolved.path);
        let place = Place::of(ctx, &resolved);
        blocking(ctx, move || {
            let existed = write_atomic(&place, &shown, content.as_bytes())?;
            let what = match existed {
                true => crate::protocol::OVERWROTE,
                false => "new file",
            };
            Ok(format!("wrote {} bytes to {shown} ({what})", content.len()))
        })
        .await
    }
}

/// Writes `bytes` to `place` atomically: a temporary file next to it, synced,
/// then renamed over it, each step relative to a descriptor of its folder.
/// Creates missing parent folders; an existing file keeps its permissions, a
/// new one gets the usual `0666 & !umask`. Returns whether the file existed.
/// `shown` names the file in errors.
pub(super) fn write_atomic(place: &Place, shown: &str, bytes: &[u8]) -> Result<bool, ToolError> {
    let (dir, name) = place.folder().map_err(|err| ToolError::Io {
        context: format!("opening the folder of {shown}"),
        source: err,
    })?;
    let permissions = match existing(&dir, &name).map_err(|err| io_error(shown, err))? {
        Existing::Folder => {
            return Err(ToolError::Failed(format!(
                "{shown} is a directory; give a file path"
            )));
        }
        Existing::Special(what) => return Err(not_a_file(shown, what)),
        Existing::File(permissions) => Some(permissions),
        Existing::Nothing => None,
    };
    let existed = permissions.is_some();
    replace(&dir, &name, bytes, permissions).map_err(|err| ToolError::Io {
        context: format!("replacing {shown}"),
        source: err,
    })?;
    Ok(existed)
}
