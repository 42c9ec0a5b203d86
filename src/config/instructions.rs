//! Project instructions: the `AGENTS.md` files (or `CLAUDE.md` where a folder
//! has no `AGENTS.md`) a user already keeps for other agents, added to the
//! system prompt of the parent and of the children that ask for them.
//!
//! Read in this order: the user's own (`~/.config/brood/`, `~/.claude/`,
//! `~/.codex/`), then every folder from the repository's root down to the
//! workspace, so the nearest file comes last and reads as the most specific.
//! An `@path` in a file brings in that file's text, when it is a file inside
//! the workspace; a file over [`MAX_FILE_BYTES`] is cut with a note.

use std::path::{Path, PathBuf};

/// The most of one file that goes into a prompt.
pub const MAX_FILE_BYTES: usize = 40 * 1024;

/// How deep `@path` imports go (a file importing a file importing …).
const MAX_IMPORT_DEPTH: usize = 4;

/// What was loaded: the text for the prompt and the files it came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Instructions {
    /// The files read, in order, each as it is shown (from `~` or the
    /// workspace).
    pub files: Vec<String>,
    /// For the system prompt: each file's text under a line naming it.
    pub text: String,
    /// Files cut, imports left out; said at start.
    pub notes: Vec<String>,
}

/// The instruction files for a session in `workspace`, with the user's
/// config folders `user_dirs` read first.
pub fn load(workspace: &Path, user_dirs: &[PathBuf]) -> Instructions {
    let root = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let mut found = Instructions::default();
    let mut seen = Vec::new();
    let folders = user_dirs.iter().cloned().chain(repository_folders(&root));
    for dir in folders {
        let Some(file) = instruction_file(&dir) else {
            continue;
        };
        let real = std::fs::canonicalize(&file).unwrap_or(file.clone());
        if seen.contains(&real) {
            continue;
        }
        seen.push(real);
        let shown = super::shown_path(&file, &root);
        let Some(text) = read_capped(&file, &shown, &mut found.notes) else {
            continue;
        };
        let mut chain = vec![file.clone()];
        let text = imports(&text, &file, &root, &mut chain, &mut found.notes);
        if !found.text.is_empty() {
            found.text.push_str("\n\n");
        }
        found
            .text
            .push_str(&format!("Instructions from {shown}:\n\n{}", text.trim()));
        found.files.push(shown);
    }
    found
}

/// The user's config folders instructions are read from, in order.
pub fn user_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = super::config_dir().into_iter().collect();
    dirs.extend(super::tool_dir("CLAUDE_CONFIG_DIR", ".claude"));
    dirs.extend(super::tool_dir("CODEX_HOME", ".codex"));
    dirs
}

/// `AGENTS.md` in `dir`, else `CLAUDE.md`: a regular file either way.
fn instruction_file(dir: &Path) -> Option<PathBuf> {
    ["AGENTS.md", "CLAUDE.md"]
        .into_iter()
        .map(|name| dir.join(name))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
}

/// The folders from the repository's root (the nearest folder above the
/// workspace holding `.git`) down to the workspace; the workspace alone when
/// it is in no repository.
fn repository_folders(workspace: &Path) -> Vec<PathBuf> {
    let mut chain: Vec<PathBuf> = workspace.ancestors().map(Path::to_path_buf).collect();
    match chain.iter().position(|dir| dir.join(".git").exists()) {
        Some(root) => {
            chain.truncate(root + 1);
            chain.reverse();
            chain
        }
        None => vec![workspace.to_path_buf()],
    }
}

/// The file's text, cut at [`MAX_FILE_BYTES`] (on a character boundary)
/// with a note; `None` with a note when it cannot be read.
fn read_capped(file: &Path, shown: &str, notes: &mut Vec<String>) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = std::fs::File::open(file)
        .and_then(|f| f.take(MAX_FILE_BYTES as u64 + 1).read_to_end(&mut bytes));
    if let Err(e) = read {
        notes.push(format!("{shown}: not read: {e}"));
        return None;
    }
    let cut = bytes.len() > MAX_FILE_BYTES;
    bytes.truncate(MAX_FILE_BYTES);
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if cut {
        // A character split by the cut reads as a replacement character.
        text = text.trim_end_matches('\u{fffd}').to_string();
        notes.push(format!(
            "{shown}: cut to its first {} KB",
            MAX_FILE_BYTES / 1024
        ));
        text.push_str("\n\n[… cut: the file goes on past 40 KB]");
    }
    Some(text)
}

/// `text` with each `@path` that names a file inside `root` replaced by that
/// file's text; others stay as written, with a note when they name a file.
fn imports(
    text: &str,
    file: &Path,
    root: &Path,
    chain: &mut Vec<PathBuf>,
    notes: &mut Vec<String>,
) -> String {
    let base = file.parent().unwrap_or(root);
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.contains('@') {
            out.push_str(line);
            continue;
        }
        let mut rest = line;
        let mut at_start = true;
        while let Some(i) = rest.find('@') {
            let before = &rest[..i];
            let starts_word = match before.chars().last() {
                Some(c) => c.is_whitespace() || c == '(',
                None => at_start,
            };
            out.push_str(before);
            let after = &rest[i + 1..];
            let end = after
                .find(|c: char| c.is_whitespace() || c == ')' || c == ',')
                .unwrap_or(after.len());
            let target = after[..end].trim_end_matches(['.', ':', ';']);
            let taken = starts_word && !target.is_empty();
            match taken
                .then(|| import_one(target, base, root, chain, notes))
                .flatten()
            {
                Some(imported) => out.push_str(&imported),
                None => out.push_str(&rest[i..i + 1 + target.len()]),
            }
            rest = &after[target.len()..];
            at_start = false;
        }
        out.push_str(rest);
    }
    out
}

/// The text of the file `target` names, imports and all, when it is a file
/// inside `root` not already being imported.
fn import_one(
    target: &str,
    base: &Path,
    root: &Path,
    chain: &mut Vec<PathBuf>,
    notes: &mut Vec<String>,
) -> Option<String> {
    let path = match target.strip_prefix("~/") {
        Some(rest) => PathBuf::from(std::env::var_os("HOME")?).join(rest),
        None => base.join(target),
    };
    let real = std::fs::canonicalize(&path).ok()?;
    if !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
        return None;
    }
    if !real.starts_with(root) {
        notes.push(format!("@{target}: not imported: outside the workspace"));
        return None;
    }
    if chain.contains(&real) || chain.len() > MAX_IMPORT_DEPTH {
        notes.push(format!(
            "@{target}: not imported: imports nest too deep or loop"
        ));
        return None;
    }
    let shown = real
        .strip_prefix(root)
        .unwrap_or(&real)
        .display()
        .to_string();
    let text = read_capped(&real, &shown, notes)?;
    chain.push(real.clone());
    let text = imports(&text, &real, root, chain, notes);
    chain.pop();
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn files_are_read_from_the_user_then_the_repository_root_down() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let user = root.join("user");
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        write(&user.join("CLAUDE.md"), "Be brief.");
        write(&repo.join("AGENTS.md"), "Run cargo test.");
        write(&repo.join("CLAUDE.md"), "Not read: AGENTS.md is there.");
        write(&repo.join("crates/core/CLAUDE.md"), "Core has no unsafe.");
        let found = load(&repo.join("crates/core"), std::slice::from_ref(&user));
        assert_eq!(found.files.len(), 3, "{found:?}");
        assert!(
            found.files[0].ends_with("user/CLAUDE.md"),
            "{:?}",
            found.files
        );
        let at = |s: &str| {
            found
                .text
                .find(s)
                .unwrap_or_else(|| panic!("{s}: {}", found.text))
        };
        assert!(
            at("Be brief.") < at("Run cargo test.")
                && at("Run cargo test.") < at("Core has no unsafe.")
        );
        assert!(!found.text.contains("Not read"));
    }

    #[test]
    fn imports_inside_the_workspace_are_read_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        write(&root.join("secret.md"), "TOP SECRET");
        write(&ws.join("docs/style.md"), "Use tabs. See @../AGENTS.md");
        write(
            &ws.join("AGENTS.md"),
            "Style: @docs/style.md\nMail me@example.com.\n@../secret.md\n```\n@docs/style.md\n```\n",
        );
        let found = load(&ws, &[]);
        assert!(found.text.contains("Style: Use tabs."), "{}", found.text);
        assert!(found.text.contains("me@example.com"), "{}", found.text);
        assert!(!found.text.contains("TOP SECRET"), "{}", found.text);
        assert!(
            found.text.contains("```\n@docs/style.md\n```"),
            "{}",
            found.text
        );
        let notes = found.notes.join("\n");
        assert!(
            notes.contains("@../secret.md: not imported: outside the workspace"),
            "{notes}"
        );
        assert!(notes.contains("loop"), "{notes}");
    }

    #[test]
    fn a_big_file_is_cut_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("AGENTS.md"), &"é".repeat(30 * 1024));
        let found = load(dir.path(), &[]);
        assert!(found.text.len() < MAX_FILE_BYTES + 200);
        assert!(found.text.ends_with("[… cut: the file goes on past 40 KB]"));
        assert_eq!(found.notes, ["AGENTS.md: cut to its first 40 KB"]);
    }
}
