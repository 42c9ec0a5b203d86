//! The `[sandbox]` table of `brood.toml`, and why a workspace's own file may
//! only tighten it: a repository someone else wrote must not be able to turn the
//! sandbox off, open the network or make `~` writable for the agent that opens it.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ConfigError;
use crate::sandbox::SandboxMode;

/// `[sandbox]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SandboxTable {
    mode: Option<String>,
    network: Option<bool>,
    #[serde(default)]
    writable: Vec<PathBuf>,
}

/// The sandbox settings of all config files, merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxFileSettings {
    pub mode: Option<SandboxMode>,
    /// `Some(true)` turns the network on.
    pub network: Option<bool>,
    /// Added writable folders, absolute.
    pub writable: Vec<PathBuf>,
    /// What a workspace's file asked for and was not given.
    pub ignored: Vec<String>,
}

/// Whose file it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner {
    /// The user's own, in brood's config folder.
    User,
    /// A workspace's: it may come with a repository.
    Workspace,
}

impl SandboxFileSettings {
    /// Merges `table` from the file at `path` over what earlier files said.
    pub(super) fn merge(
        &mut self,
        table: SandboxTable,
        path: &Path,
        owner: Owner,
    ) -> Result<(), ConfigError> {
        let mode = match table.mode.as_deref() {
            None => None,
            Some(text) => Some(SandboxMode::parse(text).ok_or_else(|| ConfigError::Parse {
                path: path.to_path_buf(),
                message: format!("sandbox.mode = {text:?}: use workspace-write, read-only or off"),
            })?),
        };
        let folder = path.parent().unwrap_or(Path::new("."));
        let writable = table.writable.iter().map(|dir| absolute(dir, folder));
        match owner {
            Owner::User => {
                self.mode = mode.or(self.mode);
                self.network = table.network.or(self.network);
                self.writable.extend(writable);
            }
            Owner::Workspace => {
                let file = path.display();
                let current = self.mode.unwrap_or_default();
                match mode {
                    Some(SandboxMode::ReadOnly) => self.mode = Some(SandboxMode::ReadOnly),
                    // Asking for what is already in force loosens nothing.
                    Some(mode) if mode == current => {}
                    Some(mode @ (SandboxMode::Off | SandboxMode::WorkspaceWrite)) => {
                        self.ignored.push(format!(
                            "{file}: sandbox.mode = \"{}\" (only your own config or --sandbox may loosen it)",
                            mode.as_str()
                        ));
                    }
                    None => {}
                }
                match table.network {
                    Some(true) => self.ignored.push(format!(
                        "{file}: sandbox.network = true (use --sandbox-network)"
                    )),
                    Some(false) => self.network = Some(false),
                    None => {}
                }
                for dir in writable {
                    self.ignored.push(format!(
                        "{file}: sandbox.writable {} (use --add-dir)",
                        dir.display()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `dir` with a leading `~` for the home folder, relative to `base` otherwise.
fn absolute(dir: &Path, base: &Path) -> PathBuf {
    if let Ok(rest) = dir.strip_prefix("~")
        && let Some(home) = directories::BaseDirs::new()
    {
        return home.home_dir().join(rest);
    }
    base.join(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> SandboxTable {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn the_users_file_sets_everything() {
        let mut settings = SandboxFileSettings::default();
        let path = Path::new("/home/u/.config/brood/brood.toml");
        settings
            .merge(
                table("mode = \"off\"\nnetwork = true\nwritable = [\"/opt/cache\", \"rel\"]"),
                path,
                Owner::User,
            )
            .unwrap();
        assert_eq!(settings.mode, Some(SandboxMode::Off));
        assert_eq!(settings.network, Some(true));
        assert_eq!(
            settings.writable,
            [
                PathBuf::from("/opt/cache"),
                PathBuf::from("/home/u/.config/brood/rel")
            ]
        );
        assert!(settings.ignored.is_empty());
    }

    #[test]
    fn a_workspace_file_may_tighten_but_not_loosen() {
        let mut settings = SandboxFileSettings::default();
        let path = Path::new("/repo/brood.toml");
        settings
            .merge(
                table("mode = \"off\"\nnetwork = true\nwritable = [\"/\"]"),
                path,
                Owner::Workspace,
            )
            .unwrap();
        assert_eq!(settings.mode, None);
        assert_eq!(settings.network, None);
        assert!(settings.writable.is_empty());
        assert_eq!(settings.ignored.len(), 3, "{:?}", settings.ignored);
        assert!(settings.ignored[0].contains("sandbox.mode = \"off\""));
        settings
            .merge(table("mode = \"read-only\""), path, Owner::Workspace)
            .unwrap();
        assert_eq!(settings.mode, Some(SandboxMode::ReadOnly));
    }

    #[test]
    fn an_unknown_mode_names_the_choices() {
        let mut settings = SandboxFileSettings::default();
        let err = settings
            .merge(table("mode = \"none\""), Path::new("b.toml"), Owner::User)
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("workspace-write, read-only or off"),
            "{err}"
        );
    }
}
