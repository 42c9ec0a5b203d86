//! `write_file`: create or overwrite a file. Writes go to a temporary file in the
//! same folder that is then renamed over the target, so a reader (or a crash) never
//! sees half a file.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::util::{blocking, io_error, one_line, optional_str, required_str, special_file};
use super::{Tool, ToolContext, ToolError, ToolKind};

/// Creates or overwrites a file with the given content.
pub struct WriteFileTool;

#[async_trait]
impl Tool for WriteFileTool {
    fn name(&self) -> &'static str {
        "write_file"
    }

    fn description(&self) -> &'static str {
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
        blocking(ctx, move || {
            let existed = write_atomic(&resolved.path, &shown, content.as_bytes())?;
            let what = match existed {
                true => "overwrote existing file",
                false => "new file",
            };
            Ok(format!("wrote {} bytes to {shown} ({what})", content.len()))
        })
        .await
    }
}

/// Writes `bytes` to `path` atomically: a temporary file next to it, synced, then
/// renamed over it. Creates missing parent folders; an existing file keeps its
/// permissions, a new one gets the usual `0666 & !umask`. Returns whether the file
/// existed. `shown` names the file in errors.
pub(super) fn write_atomic(path: &Path, shown: &str, bytes: &[u8]) -> Result<bool, ToolError> {
    let existing = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(ToolError::Failed(format!(
                "{shown} is a directory; give a file path"
            )));
        }
        Ok(meta) => {
            special_file(&meta, shown)?;
            Some(meta.permissions())
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(io_error(shown, err)),
    };
    let parent = path
        .parent()
        .ok_or_else(|| ToolError::Failed(format!("{shown} has no parent folder")))?;
    std::fs::create_dir_all(parent).map_err(|err| ToolError::Io {
        context: format!("creating the folders for {shown}"),
        source: err,
    })?;
    let temp_err = |err| ToolError::Io {
        context: format!("writing a temporary file next to {shown}"),
        source: err,
    };
    // The mode passed at creation is filtered by the umask, like any new file.
    let mut temp = tempfile::Builder::new()
        .prefix(".brood-write-")
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(parent)
        .map_err(temp_err)?;
    temp.write_all(bytes).map_err(temp_err)?;
    if let Some(permissions) = &existing {
        temp.as_file()
            .set_permissions(permissions.clone())
            .map_err(temp_err)?;
    }
    temp.as_file().sync_all().map_err(temp_err)?;
    // On failure the temporary file is removed when the returned error drops it.
    temp.persist(path).map_err(|err| ToolError::Io {
        context: format!("replacing {shown}"),
        source: err.error,
    })?;
    Ok(existing.is_some())
}
