//! Where rendered files go: memory, or a staging directory swapped in whole.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use anyhow::{Context, Result, anyhow};
use tempfile::TempDir;

/// Where rendered files go: memory (`serve`, `export`, `check`) or a
/// staging directory (`build`). Pages arrive from several threads.
pub(crate) trait FileSink: Sync {
    /// Stores `bytes` at `rel`, a path relative to the site root.
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()>;
}

/// One file of a built site.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SiteFile {
    /// Path relative to the site root.
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Files kept in memory.
#[derive(Default)]
pub(crate) struct MemoryFiles(Mutex<Vec<SiteFile>>);

impl MemoryFiles {
    /// The files, by path: threads finish pages in any order.
    pub(crate) fn into_sorted(self) -> Vec<SiteFile> {
        let mut v = self.0.into_inner().expect("files lock");
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    }
}

impl FileSink for MemoryFiles {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()> {
        self.0.lock().expect("files lock").push(SiteFile {
            path: rel.to_path_buf(),
            bytes,
        });
        Ok(())
    }
}

/// Problems `build_inspected` finds in one output file (path relative to the site root).
pub(crate) type Inspect = dyn Fn(&Path, &[u8]) -> Vec<String> + Sync;

/// A sink that checks each file before passing it on.
pub(super) struct Inspected<'a> {
    pub(super) inner: &'a dyn FileSink,
    pub(super) inspect: &'a Inspect,
    pub(super) problems: Mutex<Vec<String>>,
}

impl FileSink for Inspected<'_> {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()> {
        let found = (self.inspect)(rel, &bytes);
        if !found.is_empty() {
            self.problems.lock().expect("problems lock").extend(found);
        }
        self.inner.put(rel, bytes)
    }
}

/// Writes every file into a fresh directory beside `out`, then swaps it in, so
/// a failed build never leaves a half-written site.
pub(crate) fn write_atomically(out: &Path, files: &[SiteFile]) -> Result<()> {
    let stage = Staging::create(out)?;
    for f in files {
        stage.write(&f.path, &f.bytes)?;
    }
    stage.commit()?;
    Ok(())
}

/// A fresh directory beside the output directory that a build writes into,
/// then swaps in whole; dropped without [`Staging::commit`] (an error, a
/// panic), it is removed and the old site stays as it was. A build killed
/// outright leaves its `.<name>.staging.*` directory behind.
pub(crate) struct Staging {
    out: PathBuf,
    tmp: TempDir,
    /// Directories already created.
    dirs: Mutex<HashSet<PathBuf>>,
    files: AtomicUsize,
    bytes: AtomicU64,
}

/// A new directory in `parent` named `<prefix><random>`, removed on drop;
/// created with the mode any new directory gets (not tempfile's private
/// one), since it becomes the published site.
fn temp_dir_in(parent: &Path, prefix: &str) -> Result<TempDir> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix);
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o777));
    b.tempdir_in(parent)
        .with_context(|| format!("cannot create a directory in {}", parent.display()))
}

impl Staging {
    pub(crate) fn create(out: &Path) -> Result<Staging> {
        let out = std::path::absolute(out)?;
        let (parent, name) = parent_and_name(&out)?;
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        let tmp = temp_dir_in(parent, &format!(".{name}.staging."))?;
        Ok(Staging {
            dirs: Mutex::new(HashSet::from([tmp.path().to_path_buf()])),
            out,
            tmp,
            files: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
        })
    }

    /// The staging directory.
    pub(crate) fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Writes one file at `rel`, creating its directory on first use.
    pub(crate) fn write(&self, rel: &Path, bytes: &[u8]) -> Result<()> {
        let p = self.tmp.path().join(rel);
        if let Some(d) = p.parent()
            && !self.dirs.lock().expect("dirs lock").contains(d)
        {
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
            self.dirs.lock().expect("dirs lock").insert(d.to_path_buf());
        }
        std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
        self.count_file(bytes.len() as u64);
        Ok(())
    }

    /// Counts a file written into [`Staging::path`] directly.
    pub(crate) fn count_file(&self, bytes: u64) {
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Swaps the staged site in; returns the number of files and bytes.
    pub(crate) fn commit(self) -> Result<(usize, u64)> {
        let (out, tmp) = (&self.out, self.tmp);
        let moved = |e: std::io::Error| {
            anyhow!(e).context(format!("cannot move the new site to {}", out.display()))
        };
        if out.exists() {
            // The old site goes into a directory of its own, removed after the swap.
            let (parent, name) = parent_and_name(out)?;
            let aside = temp_dir_in(parent, &format!(".{name}.old."))?;
            let old = aside.path().join("site");
            std::fs::rename(out, &old)
                .with_context(|| format!("cannot move {} aside", out.display()))?;
            if let Err(e) = std::fs::rename(tmp.path(), out) {
                let _ = std::fs::rename(&old, out);
                return Err(moved(e));
            }
            let _now_the_site = tmp.keep();
            aside
                .close()
                .with_context(|| format!("cannot remove {}", old.display()))?;
        } else {
            std::fs::rename(tmp.path(), out).map_err(moved)?;
            let _now_the_site = tmp.keep();
        }
        Ok((
            self.files.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        ))
    }
}

/// The directory holding `out`, and `out`'s name.
fn parent_and_name(out: &Path) -> Result<(&Path, String)> {
    let parent = out
        .parent()
        .ok_or_else(|| anyhow!("output directory has no parent"))?;
    let name = out
        .file_name()
        .ok_or_else(|| anyhow!("output directory has no name"))?
        .to_string_lossy()
        .into_owned();
    Ok((parent, name))
}

impl FileSink for Staging {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()> {
        self.write(rel, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_is_removed_on_drop_unless_committed() {
        let root = crate::test_support::temp("staging");
        let out = root.join("site");
        let stage = Staging::create(&out).unwrap();
        stage.write(Path::new("a/b.html"), b"new").unwrap();
        let staged = stage.path().to_path_buf();
        assert!(staged.join("a/b.html").is_file());
        drop(stage);
        assert!(!staged.exists() && !out.exists(), "dropped: nothing left");
        let stage = Staging::create(&out).unwrap();
        stage.write(Path::new("a/b.html"), b"new").unwrap();
        assert_eq!(stage.commit().unwrap(), (1, 3));
        assert_eq!(std::fs::read(out.join("a/b.html")).unwrap(), b"new");
        // Over an existing site: swapped whole, the old one gone.
        let stage = Staging::create(&out).unwrap();
        stage.write(Path::new("c.html"), b"newer").unwrap();
        stage.commit().unwrap();
        assert!(!out.join("a").exists() && out.join("c.html").is_file());
        let names: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["site"]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
