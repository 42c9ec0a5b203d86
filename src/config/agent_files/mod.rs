//! Subagents the user already wrote for other tools, read as brood profiles:
//! Claude Code's `agents/*.md`, opencode's `agent/*.md` and Codex's
//! `agents/*.toml`, first the user's own folders, then the workspace's.
//!
//! A file that cannot be read is left out with a warning naming the file, the
//! line and the problem; it never stops brood. Whatever a file asks, the hard
//! rules hold: a child never gets `task`, and a read-only one never writes.

mod codex;
mod draft;
mod frontmatter;
mod markdown;
mod names;

#[cfg(test)]
mod tests;

use std::io::Read as _;
use std::path::{Path, PathBuf};

pub use draft::DELEGATION_NOTE;

use crate::agent::{AvailableTool, Profile};
use markdown::Read;

/// Which tool wrote an agent file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentFormat {
    ClaudeCode,
    Opencode,
    Codex,
}

impl AgentFormat {
    pub fn as_str(&self) -> &'static str {
        match self {
            AgentFormat::ClaudeCode => "Claude Code",
            AgentFormat::Opencode => "opencode",
            AgentFormat::Codex => "Codex",
        }
    }
}

/// A profile read from an agent file.
#[derive(Debug, Clone)]
pub struct AgentProfile {
    pub profile: Profile,
    pub file: PathBuf,
    pub format: AgentFormat,
    /// What was left out or read differently.
    pub warnings: Vec<String>,
}

/// What the agent folders held.
#[derive(Debug, Clone, Default)]
pub struct AgentFiles {
    /// In reading order: a later profile of the same name wins.
    pub profiles: Vec<AgentProfile>,
    /// Files left out, each with why: `path: line N: problem`.
    pub skipped: Vec<String>,
}

/// An agent file bigger than this is not a prompt anyone wrote by hand.
const MAX_FILE_BYTES: u64 = 512 * 1024;

/// The folders agent files are read from, in order: the user's (Claude
/// Code's, opencode's, Codex's), then the workspace's.
pub fn folders(workspace: &Path) -> Vec<(AgentFormat, PathBuf)> {
    let from_env = super::tool_dir;
    let mut folders = Vec::new();
    if let Some(claude) = from_env("CLAUDE_CONFIG_DIR", ".claude") {
        folders.push((AgentFormat::ClaudeCode, claude.join("agents")));
    }
    if let Some(config) = from_env("XDG_CONFIG_HOME", ".config") {
        // opencode has said both `agent` and `agents`.
        folders.push((AgentFormat::Opencode, config.join("opencode/agent")));
        folders.push((AgentFormat::Opencode, config.join("opencode/agents")));
    }
    if let Some(codex) = from_env("CODEX_HOME", ".codex") {
        folders.push((AgentFormat::Codex, codex.join("agents")));
    }
    for (format, dir) in [
        (AgentFormat::ClaudeCode, ".claude/agents"),
        (AgentFormat::Opencode, ".opencode/agent"),
        (AgentFormat::Opencode, ".opencode/agents"),
        (AgentFormat::Codex, ".codex/agents"),
    ] {
        folders.push((format, workspace.join(dir)));
    }
    // A workspace that is the home folder would be read twice.
    let mut seen = std::collections::HashSet::new();
    folders.retain(|(_, dir)| seen.insert(std::fs::canonicalize(dir).unwrap_or(dir.clone())));
    folders
}

/// Reads every agent file in `folders`, checking each profile against the
/// hard rules with `tools` available; `light_model` is the configured light
/// model, for files that name it.
pub fn read(
    folders: &[(AgentFormat, PathBuf)],
    tools: &[AvailableTool],
    light_model: Option<&str>,
) -> AgentFiles {
    let mut found = AgentFiles::default();
    for (format, dir) in folders {
        let extension = match format {
            AgentFormat::ClaudeCode | AgentFormat::Opencode => "md",
            AgentFormat::Codex => "toml",
        };
        for file in files_in(dir, extension) {
            let shown = file.display();
            match read_one(*format, dir, &file, tools, light_model) {
                Ok(Some(profile)) => found.profiles.push(profile),
                Ok(None) => {}
                Err(problem) => found.skipped.push(format!("{shown}: {problem}")),
            }
        }
    }
    found
}

/// One file: its profile, nothing (not a subagent), or why it was left out.
fn read_one(
    format: AgentFormat,
    dir: &Path,
    file: &Path,
    tools: &[AvailableTool],
    light_model: Option<&str>,
) -> Result<Option<AgentProfile>, String> {
    let text = read_text(file)?;
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let read = match format {
        AgentFormat::ClaudeCode => markdown::claude(&text, &stem)?,
        AgentFormat::Opencode => {
            let id = file
                .strip_prefix(dir)
                .unwrap_or(file)
                .with_extension("")
                .to_string_lossy()
                .into_owned();
            markdown::opencode(&text, &id)?
        }
        AgentFormat::Codex => codex::read(&text, &stem)?,
    };
    let draft = match read {
        // A name from the file's own name (or path) is checked as a written
        // one is: the `task` tool offers it to the model.
        Read::Agent(draft) if !markdown::usable_name(&draft.name) => {
            return Err(format!(
                "the name {:?} cannot be offered to the model: at most 64 characters, no spaces or control characters",
                crate::text::visible(&draft.name)
            ));
        }
        Read::Agent(draft) => draft,
        Read::NotASubagent(why) => {
            tracing::info!("{}: not a subagent: {why}", file.display());
            return Ok(None);
        }
    };
    let (profile, warnings) = draft.build(tools, light_model)?;
    Ok(Some(AgentProfile {
        profile,
        file: file.to_path_buf(),
        format,
        warnings,
    }))
}

/// The file's text: a regular file (a symlink to one is fine) of at most
/// [`MAX_FILE_BYTES`], in UTF-8.
fn read_text(file: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(file).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} KB, over the {} KB an agent file may have",
            meta.len() / 1024,
            MAX_FILE_BYTES / 1024
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_FILE_BYTES).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..good].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("line {line}: not UTF-8 text")
    })
}

/// The files ending in `.extension` under `dir` (two levels of folders
/// down, for collections kept in groups), sorted.
fn files_in(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect(dir, extension, 2, &mut files);
    files.sort();
    files
}

fn collect(dir: &Path, extension: &str, depth: u8, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() && depth > 0 {
            collect(&path, extension, depth - 1, files);
        } else if path.extension().is_some_and(|e| e == extension)
            && !name.eq_ignore_ascii_case("README.md")
        {
            files.push(path);
        }
    }
}
