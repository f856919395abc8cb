//! Paths: how messages show them, `.`/`..` resolved without the file system,
//! and walks of directory trees.

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, anyhow};

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

/// Every non-directory entry in or below `dir`, sorted, except below the
/// directories `prune` says to skip. Symlinks are followed, as before; a
/// symlink loop is an error naming it, not an endless walk. An entry that
/// cannot be examined (a dangling symlink) is listed, so reading it reports
/// the problem where the file is used.
pub(crate) fn files_below(
    dir: &Path,
    mut prune: impl FnMut(&Path) -> bool,
) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !prune(e.path()));
    for entry in walk {
        match entry {
            Ok(e) if e.file_type().is_dir() => {}
            Ok(e) => out.push(e.into_path()),
            Err(e) if e.loop_ancestor().is_some() || e.depth() == 0 => {
                return Err(anyhow!("cannot list {}: {e}", dir.display()));
            }
            Err(e) => match e.path() {
                Some(p) => out.push(p.to_path_buf()),
                None => return Err(anyhow!("cannot list {}: {e}", dir.display())),
            },
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a symlink to an enclosing directory sent the walk round
    /// and round; now it ends with an error naming the loop.
    #[cfg(unix)]
    #[test]
    fn a_symlink_loop_is_an_error_not_an_endless_walk() {
        let dir = crate::test_support::temp("walk-loop");
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/b/x.json"), "{}").unwrap();
        std::fs::write(dir.join("top.md"), "").unwrap();
        assert_eq!(
            files_below(&dir, |_| false).unwrap(),
            [dir.join("a/b/x.json"), dir.join("top.md")]
        );
        std::os::unix::fs::symlink("../..", dir.join("a/b/up")).unwrap();
        let err = files_below(&dir, |_| false).unwrap_err().to_string();
        assert!(err.contains("loop"), "{err}");
        // Pruned directories are not entered, loop or not.
        let pruned = files_below(&dir, |p| p.ends_with("a")).unwrap();
        assert_eq!(pruned, [dir.join("top.md")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
