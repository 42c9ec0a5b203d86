//! Settings from `logjam.toml`, the user's config folder and the environment.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// The file looked for in the current folder.
pub const CONFIG_FILE: &str = "logjam.toml";

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Config {
    pub top: usize,
    pub ignore_paths: Vec<String>,
    pub slow_ms: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            top: 10,
            ignore_paths: Vec::new(),
            slow_ms: 500,
        }
    }
}

impl Config {
    /// Loads the first config file found: `explicit`, `$LOGJAM_CONFIG`,
    /// `./logjam.toml`, `~/.config/logjam/config.toml`; defaults otherwise.
    pub fn load(explicit: Option<&Path>) -> Result<Config> {
        let candidates = candidate_files(explicit);
        for path in candidates {
            if path.exists() {
                let text = std::fs::read_to_string(&path)?;
                return toml::from_str(&text).map_err(|source| Error::Config { path, source });
            }
        }
        Ok(Config::default())
    }
}

fn candidate_files(explicit: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    files.extend(explicit.map(Path::to_path_buf));
    files.extend(std::env::var_os("LOGJAM_CONFIG").map(PathBuf::from));
    files.push(PathBuf::from(CONFIG_FILE));
    if let Some(home) = std::env::var_os("HOME") {
        files.push(PathBuf::from(home).join(".config/logjam/config.toml"));
    }
    files
}
