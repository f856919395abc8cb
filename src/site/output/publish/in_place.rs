//! Syncing a site into an output directory that cannot become the publish
//! symlink (a mount point): every new file is first written under a
//! temporary name beside its place, then all are renamed into place, then
//! what the new site lacks is removed.
//!
//! Why in that order: a write is what fails when the disk is full, and a
//! rename needs no space. Written first, a failed write leaves the old site
//! whole: the temporary files (the partial one too) are removed, so the
//! failure does not keep the disk full, and the error says the old site
//! stayed. The one change made to the old site before every file is
//! written: a directory the new site needs where the old one has a file or
//! a symlink (the symlink is replaced, never written through).

use std::collections::HashSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};

/// What copies one file (`std::fs::copy`, or a failing stand-in in tests).
type CopyFile = dyn Fn(&Path, &Path) -> std::io::Result<()>;

/// Makes the directory `out` hold exactly the files of `from` (see the
/// module documentation).
pub(super) fn sync_in_place(from: &Path, out: &Path) -> Result<()> {
    sync_in_place_with(from, out, &|a, b| std::fs::copy(a, b).map(|_| ()))
}

fn sync_in_place_with(from: &Path, out: &Path, copy: &CopyFile) -> Result<()> {
    let mut written = Written::default();
    if let Err(e) = written.write_all(from, out, copy) {
        written.undo();
        return Err(e.context(format!(
            "the site in {} was left as it was (the files written so far were removed)",
            out.display()
        )));
    }
    let wanted = written.wanted.clone();
    written.rename_all().with_context(|| {
        format!(
            "the site in {} is partly updated; build again to finish it",
            out.display()
        )
    })?;
    remove_stale(out, &wanted)
}

/// The new site's files under their temporary names, not yet in place.
#[derive(Default)]
struct Written {
    /// (temporary name, final name).
    files: Vec<(PathBuf, PathBuf)>,
    /// Directories created for the new site, outermost first.
    made_dirs: Vec<PathBuf>,
    /// Every path of the new site, relative to `out`.
    wanted: HashSet<PathBuf>,
}

impl Written {
    /// Writes every file of `from` into `out` under its temporary name.
    fn write_all(&mut self, from: &Path, out: &Path, copy: &CopyFile) -> Result<()> {
        for entry in walkdir::WalkDir::new(from).min_depth(1).sort_by_file_name() {
            let entry = entry.with_context(|| format!("cannot list {}", from.display()))?;
            let rel = entry
                .path()
                .strip_prefix(from)
                .expect("below")
                .to_path_buf();
            let target = out.join(&rel);
            self.wanted.insert(rel);
            if entry.file_type().is_dir() {
                if real_dir(&target)? {
                    self.made_dirs.push(target);
                }
                continue;
            }
            let tmp = temporary_name(&target);
            // A leftover of a killed run, or anything else by that name.
            let _ = std::fs::remove_file(&tmp);
            // Listed first: a partial file is removed with the others.
            self.files.push((tmp.clone(), target));
            copy(entry.path(), &tmp).map_err(|e| {
                let why = if is_full(&e) {
                    " (the disk is full)"
                } else {
                    ""
                };
                anyhow!(e).context(format!("cannot write {}{why}", tmp.display()))
            })?;
        }
        Ok(())
    }

    /// Removes what [`Written::write_all`] wrote: every temporary file and
    /// every directory it made (when empty).
    fn undo(&self) {
        for (tmp, _) in &self.files {
            let _ = std::fs::remove_file(tmp);
        }
        for dir in self.made_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }

    /// Renames every temporary file over its final name, a directory of
    /// the old site by that name removed first.
    fn rename_all(self) -> Result<()> {
        let mut files = self.files.into_iter();
        while let Some((tmp, target)) = files.next() {
            let renamed = if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(&target)
                    .with_context(|| format!("cannot remove {}", target.display()))
            } else {
                Ok(())
            }
            .and_then(|()| {
                std::fs::rename(&tmp, &target)
                    .with_context(|| format!("cannot write {}", target.display()))
            });
            if let Err(e) = renamed {
                // Not published: none of the rest stays behind either.
                let _ = std::fs::remove_file(&tmp);
                files.for_each(|(tmp, _)| {
                    let _ = std::fs::remove_file(tmp);
                });
                return Err(e);
            }
        }
        Ok(())
    }
}

/// `.<name>.agentx-new` beside `target`.
fn temporary_name(target: &Path) -> PathBuf {
    target.with_file_name(format!(
        ".{}.agentx-new",
        target.file_name().unwrap_or_default().to_string_lossy()
    ))
}

/// Whether `e` says the disk (or the user's quota) is full.
fn is_full(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge
    )
}

/// Removes the files and directories of `out` that `wanted` lacks, the
/// deepest first, so directories are empty when their turn comes.
fn remove_stale(out: &Path, wanted: &HashSet<PathBuf>) -> Result<()> {
    let mut stale: Vec<(PathBuf, bool)> = Vec::new();
    for entry in walkdir::WalkDir::new(out).min_depth(1).contents_first(true) {
        let entry = entry.with_context(|| format!("cannot list {}", out.display()))?;
        let rel = entry.path().strip_prefix(out).expect("below");
        if !wanted.contains(rel) {
            stale.push((entry.path().to_path_buf(), entry.file_type().is_dir()));
        }
    }
    for (path, is_dir) in stale {
        let removed = if is_dir {
            std::fs::remove_dir(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.with_context(|| format!("cannot remove the stale {}", path.display()))?;
    }
    Ok(())
}

/// Makes `dir` a real directory: a symlink or file of that name is
/// replaced, not followed. Returns whether it was created.
fn real_dir(dir: &Path) -> Result<bool> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => return Ok(false),
        Ok(_) => std::fs::remove_file(dir)
            .with_context(|| format!("cannot replace {}", dir.display()))?,
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(anyhow!(e).context(format!("cannot examine {}", dir.display()))),
    }
    std::fs::create_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(true)
}

#[cfg(all(test, unix))]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// Every file below `dir` with its text, and every directory.
    fn contents(dir: &Path) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = walkdir::WalkDir::new(dir)
            .min_depth(1)
            .into_iter()
            .map(|e| {
                let e = e.unwrap();
                let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
                let text = std::fs::read_to_string(e.path()).unwrap_or_else(|_| "<dir>".into());
                (rel, text)
            })
            .collect();
        v.sort();
        v
    }

    /// A disk that fills up on the `n`th file: that copy writes part of the
    /// file, then fails as `ENOSPC` does.
    fn full_on(n: usize) -> impl Fn(&Path, &Path) -> std::io::Result<()> {
        let count = Cell::new(0);
        move |from, to| {
            count.set(count.get() + 1);
            if count.get() == n {
                std::fs::write(to, &std::fs::read(from)?[..1])?;
                return Err(rustix::io::Errno::NOSPC.into());
            }
            std::fs::copy(from, to).map(|_| ())
        }
    }

    #[test]
    fn a_full_disk_leaves_the_old_site_whole_and_no_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        let (new, out) = (dir.path().join("new"), dir.path().join("out"));
        for (root, files) in [
            (
                &out,
                &[
                    ("a.html", "old a"),
                    ("b.html", "old b"),
                    ("old/x.html", "old x"),
                ][..],
            ),
            (
                &new,
                &[
                    ("a.html", "new a"),
                    ("b.html", "new b"),
                    ("c/d.html", "new d"),
                    ("e.html", "new e"),
                ],
            ),
        ] {
            for (rel, text) in files {
                std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
                std::fs::write(root.join(rel), text).unwrap();
            }
        }
        let before = contents(&out);
        for n in 1..=4 {
            let err = sync_in_place_with(&new, &out, &full_on(n)).unwrap_err();
            let msg = format!("{err:#}");
            assert!(msg.contains("(the disk is full)"), "{n}: {msg}");
            assert!(msg.contains("was left as it was"), "{n}: {msg}");
            assert_eq!(
                contents(&out),
                before,
                "file {n} failed: the old site, nothing else"
            );
        }
        sync_in_place_with(&new, &out, &full_on(0)).unwrap();
        assert_eq!(contents(&out), contents(&new));
    }
}
