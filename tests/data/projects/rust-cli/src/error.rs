//! The errors logjam reports.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read the log: {0}")]
    Io(#[from] std::io::Error),
    #[error("{path}: {source}")]
    Config {
        path: PathBuf,
        source: toml::de::Error,
    },
}

pub type Result<T> = std::result::Result<T, Error>;
