//! Where a file tool's path is, and the three things the tools do there: open
//! it to read, make its folder, replace it atomically. Inside the workspace
//! every step goes through [`Beneath`], so no symlink swapped in after the
//! policy's check can redirect it; outside (a path the user was asked about and
//! allowed) the path is used as it is.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::ToolContext;
use super::beneath::{Beneath, open_raw};
use crate::workspace::ResolvedPath;

/// A file tool's target.
pub(super) enum Place {
    /// Inside the workspace: `rel` beneath `root`.
    Inside { root: PathBuf, rel: PathBuf },
    /// Outside it, as allowed.
    Outside(PathBuf),
}

/// What is at a folder's entry before it is replaced.
pub(super) enum Existing {
    Nothing,
    File(std::fs::Permissions),
    Folder,
    /// A FIFO, socket or device, said in words.
    Special(&'static str),
}

impl Place {
    /// A path written under the root is opened beneath it, as written: even if
    /// a symlink in it led outside when the policy looked (then the policy
    /// asked) or leads outside now (then the kernel refuses, and the model is
    /// told to name the real path, which the policy asks about). A path written
    /// outside the root is used as resolved, the policy having asked about it.
    pub fn of(ctx: &ToolContext, resolved: &ResolvedPath) -> Place {
        let root = ctx.workspace.root();
        match resolved.given.strip_prefix(root) {
            Ok(rel) => Place::Inside {
                root: root.to_path_buf(),
                rel: rel.to_path_buf(),
            },
            Err(_) => Place::Outside(resolved.path.clone()),
        }
    }

    /// Opens the file to read, without blocking should it be a FIFO.
    pub fn open_read(&self) -> io::Result<File> {
        let flags = libc::O_RDONLY | libc::O_NONBLOCK;
        match self {
            Place::Inside { root, rel } => Beneath::new(root)?.open(rel, flags, 0).map(File::from),
            Place::Outside(path) => {
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(path)
            }
        }
    }

    /// The file's folder (made if missing) and its name in it.
    pub fn folder(&self) -> io::Result<(OwnedFd, OsString)> {
        let path = match self {
            Place::Inside { rel, .. } => rel.as_path(),
            Place::Outside(path) => path.as_path(),
        };
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?
            .to_os_string();
        let parent = path.parent().unwrap_or(Path::new(""));
        let flags = libc::O_PATH | libc::O_DIRECTORY;
        let dir = match self {
            Place::Inside { root, .. } => {
                let beneath = Beneath::new(root)?;
                beneath.create_dir_all(parent)?;
                beneath.open(parent, flags, 0)?
            }
            Place::Outside(_) => {
                std::fs::create_dir_all(parent)?;
                open_raw(libc::AT_FDCWD, &c_string(parent.as_os_str())?, flags, 0)?
            }
        };
        Ok((dir, name))
    }
}

/// What is at `name` in `dir`, not following a symlink there (it is replaced
/// like a file; the permissions kept are its target's when it has one).
pub(super) fn existing(dir: &OwnedFd, name: &OsString) -> io::Result<Existing> {
    let c_name = c_string(name)?;
    let stat = |flags| {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a valid descriptor, a NUL-terminated name and room for the answer.
        let rc = unsafe { libc::fstatat(dir.as_raw_fd(), c_name.as_ptr(), st.as_mut_ptr(), flags) };
        match rc {
            // SAFETY: fstatat filled it in.
            0 => Ok(unsafe { st.assume_init() }),
            _ => Err(io::Error::last_os_error()),
        }
    };
    let st = match stat(libc::AT_SYMLINK_NOFOLLOW) {
        Ok(st) => st,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Existing::Nothing),
        Err(err) => return Err(err),
    };
    let kind = st.st_mode & libc::S_IFMT;
    Ok(match kind {
        libc::S_IFREG => Existing::File(std::fs::Permissions::from_mode(st.st_mode & 0o7777)),
        libc::S_IFDIR => Existing::Folder,
        libc::S_IFLNK => match stat(0) {
            Ok(target) if target.st_mode & libc::S_IFMT == libc::S_IFREG => {
                Existing::File(std::fs::Permissions::from_mode(target.st_mode & 0o7777))
            }
            _ => Existing::File(std::fs::Permissions::from_mode(0o644)),
        },
        libc::S_IFIFO => Existing::Special("a FIFO (named pipe)"),
        libc::S_IFSOCK => Existing::Special("a socket"),
        _ => Existing::Special("a device"),
    })
}

/// Writes `bytes` to a new temporary file in `dir`, synced, with `permissions`
/// (else `0666 & !umask`), then renames it over `name`. A failure removes the
/// temporary file.
pub(super) fn replace(
    dir: &OwnedFd,
    name: &OsString,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp_name = format!(
        ".brood-write-{}-{}-{nanos:x}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let c_temp = c_string(temp_name.as_ref())?;
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let mut temp = File::from(open_raw(dir.as_raw_fd(), &c_temp, flags, 0o666)?);
    let written = (|| {
        temp.write_all(bytes)?;
        if let Some(permissions) = permissions {
            temp.set_permissions(permissions)?;
        }
        temp.sync_all()?;
        let c_name = c_string(name)?;
        // SAFETY: valid descriptors and NUL-terminated names.
        let rc = unsafe {
            libc::renameat(
                dir.as_raw_fd(),
                c_temp.as_ptr(),
                dir.as_raw_fd(),
                c_name.as_ptr(),
            )
        };
        match rc {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    })();
    if written.is_err() {
        // SAFETY: a valid descriptor and a NUL-terminated name; a failure here
        // leaves only a hidden temporary file.
        unsafe {
            libc::unlinkat(dir.as_raw_fd(), c_temp.as_ptr(), 0);
        }
    }
    written
}

fn c_string(text: &std::ffi::OsStr) -> io::Result<CString> {
    CString::new(text.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the path contains a NUL byte"))
}
