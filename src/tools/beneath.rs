//! Opening and creating files beneath the workspace root in one kernel step.
//!
//! The policy resolves a path and says it is inside the workspace; between that
//! check and the open, a command could swap a folder for a symlink to `/etc`.
//! So the file tools never open a workspace path by its name: they open it
//! relative to a descriptor of the root with `openat2(RESOLVE_BENEATH)`, where
//! the kernel refuses any resolution (symlink, `..`, absolute link) that would
//! leave the root, and create and rename files relative to a descriptor of
//! their folder. On a kernel without `openat2` (before Linux 5.6), the walk is
//! done one component at a time with `O_NOFOLLOW`, refusing every symlink.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

/// `struct open_how` of `openat2(2)` (libc's is non-exhaustive).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// A descriptor of the workspace root, to resolve paths beneath it.
pub(super) struct Beneath {
    root: OwnedFd,
}

/// The message of a resolution the kernel refused because it left the root.
pub(super) const ESCAPED: &str = "the path leads outside the workspace through a symlink or `..`; \
     not opened. Name the real path outside the workspace instead (the user is asked about it)";

impl Beneath {
    pub fn new(root: &Path) -> io::Result<Beneath> {
        let root = open_raw(
            libc::AT_FDCWD,
            &c_path(root)?,
            libc::O_PATH | libc::O_DIRECTORY,
            0,
        )?;
        Ok(Beneath { root })
    }

    /// Opens `rel` (relative to the root) with `flags`; `O_CLOEXEC` is added.
    pub fn open(&self, rel: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
        let rel = relative(rel)?;
        let c_rel = c_path(&rel)?;
        let how = OpenHow {
            flags: (flags | libc::O_CLOEXEC) as u64,
            mode: u64::from(mode),
            resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS,
        };
        // SAFETY: the path is NUL-terminated, `how` lives through the call and
        // its size is passed; the result is a new descriptor or -1.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                self.root.as_raw_fd(),
                c_rel.as_ptr(),
                &how as *const OpenHow,
                std::mem::size_of::<OpenHow>(),
            )
        };
        if fd >= 0 {
            // SAFETY: a descriptor the kernel just gave us, owned by no one else.
            return Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) });
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EXDEV) => Err(io::Error::new(io::ErrorKind::PermissionDenied, ESCAPED)),
            Some(libc::ENOSYS) => self.open_by_walking(&rel, flags, mode),
            _ => Err(err),
        }
    }

    /// The fallback of [`Beneath::open`]: each folder opened relative to the
    /// last with `O_NOFOLLOW`, so no symlink is followed at all.
    fn open_by_walking(&self, rel: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
        if rel.components().any(|c| c == Component::ParentDir) {
            return Err(io::Error::new(io::ErrorKind::PermissionDenied, ESCAPED));
        }
        let parts: Vec<&std::ffi::OsStr> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect();
        let Some((last, folders)) = parts.split_last() else {
            return open_raw(self.root.as_raw_fd(), c".", flags, mode);
        };
        let mut dir: Option<OwnedFd> = None;
        for name in folders {
            let at = dir
                .as_ref()
                .map_or(self.root.as_raw_fd(), |d| d.as_raw_fd());
            let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW;
            dir = Some(open_raw(at, &c_name(name)?, flags, 0).map_err(refused_link)?);
        }
        let at = dir
            .as_ref()
            .map_or(self.root.as_raw_fd(), |d| d.as_raw_fd());
        open_raw(at, &c_name(last)?, flags | libc::O_NOFOLLOW, mode).map_err(refused_link)
    }

    /// Creates the folder `rel` and its missing parents, each beneath the root.
    pub fn create_dir_all(&self, rel: &Path) -> io::Result<()> {
        let rel = relative(rel)?;
        let mut done = std::path::PathBuf::new();
        for part in rel.components() {
            let name = match part {
                Component::Normal(name) => name,
                Component::ParentDir => {
                    done.push("..");
                    continue;
                }
                _ => continue,
            };
            let parent = self.open(&done, libc::O_PATH | libc::O_DIRECTORY, 0)?;
            let c_name = c_name(name)?;
            // SAFETY: a valid descriptor and a NUL-terminated name.
            let made = unsafe { libc::mkdirat(parent.as_raw_fd(), c_name.as_ptr(), 0o777) };
            if made != 0 {
                let err = io::Error::last_os_error();
                if err.raw_os_error() != Some(libc::EEXIST) {
                    return Err(err);
                }
            }
            done.push(name);
        }
        Ok(())
    }
}

/// `rel` with `.` components dropped; an absolute path is refused here
/// already. `..` stays: the kernel resolves it where the path really leads, and
/// refuses it if that is above the root.
fn relative(rel: &Path) -> io::Result<std::path::PathBuf> {
    let mut out = std::path::PathBuf::new();
    for part in rel.components() {
        match part {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => out.push(".."),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => {
                return Err(io::Error::new(io::ErrorKind::PermissionDenied, ESCAPED));
            }
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Ok(out)
}

/// A symlink met while walking without `openat2` is refused, like an escape.
fn refused_link(err: io::Error) -> io::Error {
    match err.raw_os_error() {
        Some(libc::ELOOP) | Some(libc::ENOTDIR) => {
            io::Error::new(io::ErrorKind::PermissionDenied, ESCAPED)
        }
        _ => err,
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the path contains a NUL byte"))
}

fn c_name(name: &std::ffi::OsStr) -> io::Result<CString> {
    c_path(Path::new(name))
}

/// `openat(at, path, flags | O_CLOEXEC, mode)`.
pub(super) fn open_raw(
    at: i32,
    path: &std::ffi::CStr,
    flags: i32,
    mode: u32,
) -> io::Result<OwnedFd> {
    // SAFETY: `path` is NUL-terminated; the result is a new descriptor or -1.
    let fd = unsafe { libc::openat(at, path.as_ptr(), flags | libc::O_CLOEXEC, mode) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor the kernel just gave us, owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Beneath) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "outside").unwrap();
        std::fs::create_dir(root.path().join("sub")).unwrap();
        std::fs::write(root.path().join("sub/file"), "inside").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("out")).unwrap();
        std::os::unix::fs::symlink("sub", root.path().join("alias")).unwrap();
        let beneath = Beneath::new(root.path()).unwrap();
        (root, outside, beneath)
    }

    fn read(fd: OwnedFd) -> String {
        std::io::read_to_string(std::fs::File::from(fd)).unwrap()
    }

    #[test]
    fn paths_inside_open_and_links_that_stay_inside_are_followed() {
        let (_root, _outside, beneath) = setup();
        assert_eq!(
            read(
                beneath
                    .open(Path::new("sub/file"), libc::O_RDONLY, 0)
                    .unwrap()
            ),
            "inside"
        );
        assert_eq!(
            read(
                beneath
                    .open(Path::new("alias/file"), libc::O_RDONLY, 0)
                    .unwrap()
            ),
            "inside"
        );
    }

    #[test]
    fn a_link_out_of_the_root_is_refused_by_the_kernel() {
        let (_root, _outside, beneath) = setup();
        for rel in ["out/secret", "sub/../../secret", "/etc/passwd"] {
            let err = beneath.open(Path::new(rel), libc::O_RDONLY, 0).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::PermissionDenied, "{rel}: {err}");
        }
        let err = beneath
            .open(Path::new("out/new"), libc::O_WRONLY | libc::O_CREAT, 0o644)
            .unwrap_err();
        assert_eq!(err.to_string(), ESCAPED);
    }

    #[test]
    fn the_walking_fallback_refuses_every_link() {
        let (_root, _outside, beneath) = setup();
        let file = beneath
            .open_by_walking(Path::new("sub/file"), libc::O_RDONLY, 0)
            .unwrap();
        assert_eq!(read(file), "inside");
        for rel in ["out/secret", "alias/file"] {
            let err = beneath
                .open_by_walking(Path::new(rel), libc::O_RDONLY, 0)
                .unwrap_err();
            assert_eq!(err.to_string(), ESCAPED, "{rel}");
        }
    }

    #[test]
    fn folders_are_made_beneath_the_root_only() {
        let (root, outside, beneath) = setup();
        beneath.create_dir_all(Path::new("a/b/c")).unwrap();
        assert!(root.path().join("a/b/c").is_dir());
        assert!(beneath.create_dir_all(Path::new("out/made")).is_err());
        assert!(!outside.path().join("made").exists());
    }
}
