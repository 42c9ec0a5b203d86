//! Where brood keeps things, how sessions are named, and which environment values
//! are secrets. Settings resolution (flags, then environment, then the config file)
//! grows here as providers arrive.

use std::path::PathBuf;

use directories::ProjectDirs;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot find a home folder for brood's data; pass --trace FILE or --no-trace")]
    NoDataDir,
}

/// Environment variables whose values are credentials. Also every variable ending
/// in `_API_KEY`.
const SECRET_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/// Whether an environment variable holds a credential.
pub fn is_secret_var(name: &str) -> bool {
    SECRET_VARS.contains(&name) || name.ends_with("_API_KEY") || name.ends_with("_AUTH_TOKEN")
}

/// The values of all credential variables set now, to be kept out of traces.
pub fn secrets_from_env() -> Vec<String> {
    std::env::vars()
        .filter(|(name, value)| is_secret_var(name) && !value.is_empty())
        .map(|(_, value)| value)
        .collect()
}

fn project_dirs() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "brood")
}

/// The platform data folder, e.g. `~/.local/share/brood`.
pub fn data_dir() -> Result<PathBuf, ConfigError> {
    project_dirs()
        .map(|d| d.data_dir().to_path_buf())
        .ok_or(ConfigError::NoDataDir)
}

/// Where a session's trace goes when no `--trace` is given.
pub fn default_trace_path(session: &str) -> Result<PathBuf, ConfigError> {
    Ok(data_dir()?.join("traces").join(format!("{session}.jsonl")))
}

/// A session id that sorts by start time and is unique enough on one machine:
/// `20261130-053402-1a2b3c`.
pub fn new_session_id() -> String {
    let now = chrono::Utc::now();
    let nanos = now.timestamp_subsec_nanos() as u64;
    let salt = (nanos ^ ((std::process::id() as u64) << 20)) & 0xff_ffff;
    format!("{}-{salt:06x}", now.format("%Y%m%d-%H%M%S"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_variables_are_recognised() {
        assert!(is_secret_var("ANTHROPIC_API_KEY"));
        assert!(is_secret_var("OPENAI_API_KEY"));
        assert!(is_secret_var("GROQ_API_KEY"));
        assert!(!is_secret_var("PATH"));
        assert!(!is_secret_var("BROOD_MODEL"));
    }

    #[test]
    fn session_ids_sort_by_time() {
        let id = new_session_id();
        assert_eq!(id.len(), "20261130-053402-1a2b3c".len(), "{id}");
        assert!(id.starts_with("20"));
    }
}
