//! Paths: how messages show them, and `.`/`..` resolved without the file system.

use std::path::{Component, Path, PathBuf};

/// `path` relative to the working directory when under it: how messages name
/// a file, as the user would type it.
pub(crate) fn shown_path(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd).unwrap_or(path).to_path_buf()
}

/// Resolves `.` and `..` without touching the file system.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
