//! The workspace boundary. A path is inside the workspace only if the place it
//! really names — after `..`, after every symlink that exists — is under the
//! workspace root. A link inside the workspace that points outside is outside.

use std::path::{Component, Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("workspace {path}: {source}")]
    Root {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("workspace {0} is not a directory")]
    NotADirectory(PathBuf),
}

/// The folder agents work in, held as its canonical path.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
}

/// A path resolved against the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// Absolute, with `..` and existing symlinks resolved.
    pub path: PathBuf,
    /// Whether `path` is the root or under it.
    pub inside: bool,
    /// As asked: absolute, `~` expanded, nothing resolved. The file tools open
    /// this beneath the root, so the kernel resolves it again, refusing escapes.
    pub given: PathBuf,
}

/// How many symlinks one resolution may follow before it gives up (a loop).
const MAX_LINKS: usize = 40;

impl Workspace {
    pub fn new(root: &Path) -> Result<Self, WorkspaceError> {
        let root = root.canonicalize().map_err(|source| WorkspaceError::Root {
            path: root.to_path_buf(),
            source,
        })?;
        if !root.is_dir() {
            return Err(WorkspaceError::NotADirectory(root));
        }
        Ok(Workspace { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (absolute, or relative to the root) to the place it names.
    ///
    /// Components are followed one at a time: a component that exists and is a
    /// symlink is replaced by its target, so `..` after it climbs from where the
    /// link really points, as the kernel would. Components past the first that does
    /// not exist are taken literally (a file about to be created).
    pub fn resolve(&self, path: &str) -> ResolvedPath {
        let path = expand_home(path);
        let joined = if path.is_absolute() {
            path
        } else {
            self.root.join(path)
        };
        let resolved = resolve_components(&joined);
        let inside = resolved.starts_with(&self.root);
        ResolvedPath {
            path: resolved,
            inside,
            given: joined,
        }
    }

    /// `path` relative to the root when inside it, else as given; for display.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

fn expand_home(path: &str) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    PathBuf::from(path)
}

fn resolve_components(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    let mut pending: Vec<PathBuf> = path
        .components()
        .rev()
        .map(|c| PathBuf::from(c.as_os_str()))
        .collect();
    let mut links_followed = 0;
    let mut exists = true;
    while let Some(part) = pending.pop() {
        match part.components().next() {
            Some(Component::RootDir) | Some(Component::Prefix(_)) => out = part,
            Some(Component::CurDir) | None => {}
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::Normal(name)) => {
                out.push(name);
                if !exists {
                    continue;
                }
                match std::fs::symlink_metadata(&out) {
                    Ok(meta) if meta.file_type().is_symlink() && links_followed < MAX_LINKS => {
                        links_followed += 1;
                        if let Ok(target) = std::fs::read_link(&out) {
                            out.pop();
                            // Re-queue the target's components in front of the rest.
                            for c in target.components().rev() {
                                pending.push(PathBuf::from(c.as_os_str()));
                            }
                        }
                    }
                    Ok(_) => {}
                    Err(_) => exists = false,
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Workspace) {
        let ws_dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let ws = Workspace::new(ws_dir.path()).unwrap();
        (ws_dir, outside, ws)
    }

    #[test]
    fn relative_and_dotdot_paths() {
        let (_d, _o, ws) = setup();
        assert!(ws.resolve("src/main.rs").inside);
        assert!(ws.resolve("a/../b").inside);
        assert!(ws.resolve(".").inside);
        assert!(!ws.resolve("..").inside);
        assert!(!ws.resolve("a/../../x").inside);
        assert!(!ws.resolve("/etc/passwd").inside);
        assert_eq!(
            ws.resolve("new/dir/f.txt").path,
            ws.root().join("new/dir/f.txt")
        );
    }

    #[test]
    fn a_symlink_pointing_outside_is_outside() {
        let (d, o, ws) = setup();
        symlink(o.path(), d.path().join("escape")).unwrap();
        let r = ws.resolve("escape/secret.txt");
        assert!(!r.inside, "{r:?}");
        assert!(r.path.starts_with(o.path().canonicalize().unwrap()));
        // `..` after a link climbs from the link's target, as the kernel does.
        std::fs::create_dir(o.path().join("deep")).unwrap();
        symlink(o.path().join("deep"), d.path().join("deeplink")).unwrap();
        assert!(!ws.resolve("deeplink/../x").inside);
    }

    #[test]
    fn a_symlink_inside_to_inside_stays_inside() {
        let (d, _o, ws) = setup();
        std::fs::create_dir(d.path().join("real")).unwrap();
        symlink("real", d.path().join("alias")).unwrap();
        let r = ws.resolve("alias/f");
        assert!(r.inside);
        assert_eq!(r.path, ws.root().join("real/f"));
    }

    #[test]
    fn symlink_loops_terminate() {
        let (d, _o, ws) = setup();
        symlink("b", d.path().join("a")).unwrap();
        symlink("a", d.path().join("b")).unwrap();
        // It returns (a loop must not hang it), still naming a place under the
        // workspace; the filesystem itself refuses to open it.
        let r = ws.resolve("a/x");
        assert!(r.path.starts_with(ws.root()), "{r:?}");
        assert!(std::fs::metadata(&r.path).is_err());
    }
}
