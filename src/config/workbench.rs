//! What the workbench remembers between sessions ([`Remembered`]: the
//! conversation's share of a wide screen), in `workbench.toml` in brood's
//! config folder. brood owns that file and rewrites it, so the user's
//! `brood.toml`, with its comments, is never touched; keys it does not know
//! are kept. A missing or broken file is the layout's defaults, never an
//! error at start.

use std::path::{Path, PathBuf};

use crate::protocol::Remembered;

use super::ConfigError;

/// The file's name, in brood's config folder.
pub const WORKBENCH_FILE: &str = "workbench.toml";

/// The shares the file may hold; anything else is ignored (the screen keeps
/// its own, narrower, bounds).
const SPLIT_BOUNDS: std::ops::RangeInclusive<i64> = 10..=90;

/// `workbench.toml` in brood's config folder, when there is one.
pub fn default_path() -> Option<PathBuf> {
    super::config_dir().map(|dir| dir.join(WORKBENCH_FILE))
}

/// What `path` remembers; the defaults when it is missing or cannot be read
/// (said in the log).
pub fn load(path: &Path) -> Remembered {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Remembered::default(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "workbench state not read");
            return Remembered::default();
        }
    };
    let table: toml::Table = match text.parse() {
        Ok(table) => table,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "workbench state not read");
            return Remembered::default();
        }
    };
    let split = table
        .get("split")
        .and_then(toml::Value::as_integer)
        .filter(|share| SPLIT_BOUNDS.contains(share))
        .and_then(|share| u16::try_from(share).ok());
    Remembered { split }
}

/// Writes `remembered` to `path` (its folder made if need be), keeping the
/// keys the file has that brood does not know. The new file replaces the old
/// one whole, by a rename, so a crash never leaves half of it.
pub fn save(path: &Path, remembered: &Remembered) -> Result<(), ConfigError> {
    let write_error = |source| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut table: toml::Table = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or_default();
    match remembered.split {
        Some(share) => table.insert("split".into(), toml::Value::Integer(i64::from(share))),
        None => table.remove("split"),
    };
    let body = toml::to_string(&table).map_err(|e| write_error(std::io::Error::other(e)))?;
    let text = format!(
        "# What brood's workbench remembers between sessions; brood rewrites this file.\n\
         # split: the conversation's share of a wide screen, in percent (< and > change it).\n\
         {body}"
    );
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write_error)?;
    }
    let staged = path.with_extension("toml.new");
    std::fs::write(&staged, text).map_err(write_error)?;
    std::fs::rename(&staged, path).map_err(write_error)
}

#[cfg(test)]
#[path = "workbench_tests.rs"]
mod tests;
