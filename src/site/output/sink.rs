//! Where rendered files go: memory, or a staging directory published whole
//! ([`super::publish`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use tempfile::TempDir;

use super::publish::{
    Published, RANDOM_LEN, is_generation, parent_and_name, publish, staging_prefix,
};
use crate::util::fs::{is_plain_relative, resolve_output_dir};
use crate::util::notice::{Notice, Notices};

/// Where rendered files go: memory (`serve`, `export`, `check`) or a
/// staging directory (`build`). Pages arrive from several threads.
pub(crate) trait FileSink: Sync {
    /// Stores `bytes` at `rel`, a path relative to the site root.
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()>;

    /// [`FileSink::put`] for bytes a cache may share (a laid-out page):
    /// sinks that keep files keep the `Arc`, so an unchanged page of a
    /// rebuild is not copied; the others take the bytes, copied only when
    /// they are shared.
    fn put_shared(&self, rel: &Path, bytes: Arc<Vec<u8>>) -> Result<()> {
        self.put(rel, Arc::unwrap_or_clone(bytes))
    }
}

/// One file of a built site.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SiteFile {
    /// Path relative to the site root.
    pub path: PathBuf,
    /// Shared with the render cache while the page is unchanged.
    pub bytes: Arc<Vec<u8>>,
}

impl SiteFile {
    pub(crate) fn new(path: PathBuf, bytes: Vec<u8>) -> SiteFile {
        SiteFile {
            path,
            bytes: Arc::new(bytes),
        }
    }
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
        self.put_shared(rel, Arc::new(bytes))
    }

    fn put_shared(&self, rel: &Path, bytes: Arc<Vec<u8>>) -> Result<()> {
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
pub(in crate::site) struct Inspected<'a> {
    pub(in crate::site) inner: &'a dyn FileSink,
    pub(in crate::site) inspect: &'a Inspect,
    pub(in crate::site) problems: Mutex<Vec<String>>,
}

impl FileSink for Inspected<'_> {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()> {
        // Not shared with anything: the inner sink takes it without a copy.
        self.put_shared(rel, Arc::new(bytes))
    }

    fn put_shared(&self, rel: &Path, bytes: Arc<Vec<u8>>) -> Result<()> {
        let found = (self.inspect)(rel, &bytes);
        if !found.is_empty() {
            self.problems.lock().expect("problems lock").extend(found);
        }
        self.inner.put_shared(rel, bytes)
    }
}

/// Writes every file into a fresh directory beside `out`, then publishes it
/// (see [`super::publish`]), so a failed build never leaves a half-written
/// site and a reader never meets a missing file. How the publishing went,
/// when the user should know, goes to `notices`.
pub(crate) fn write_atomically(out: &Path, files: &[SiteFile], notices: &Notices) -> Result<()> {
    let stage = Staging::create(out)?;
    for f in files {
        stage.write(&f.path, &f.bytes)?;
    }
    stage.commit(notices)?;
    Ok(())
}

/// Writes one file whole: under a temporary name beside `out`, then renamed
/// over it. On any error the temporary file is removed (a full disk keeps
/// no partial file) and `out` is as it was.
pub(crate) fn write_file_atomically(out: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let real = resolve_output_dir(out)?;
    let (parent, name) = parent_and_name(&real)?;
    let prefix = format!(".{name}.");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".agentx-new");
    // The mode any new file gets, not tempfile's private one.
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = b
        .tempfile_in(parent)
        .with_context(|| format!("cannot create a file in {}", parent.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.flush())
        .with_context(|| format!("cannot write {}", tmp.path().display()))?;
    tmp.persist(&real)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {}", out.display()))?;
    Ok(())
}

/// A fresh directory beside the output directory that a build writes into,
/// then publishes whole; dropped without [`Staging::commit`] (an error, a
/// panic), it is removed and the old site stays as it was. A build killed
/// outright leaves its `.<name>.staging-<random>` directory behind.
pub(crate) struct Staging {
    /// The output directory, its parent resolved.
    out: PathBuf,
    tmp: TempDir,
    /// Directories already created.
    dirs: Mutex<HashSet<PathBuf>>,
    /// The generation `out` shows now, whose unchanged files are linked.
    previous: Option<Previous>,
    files: AtomicUsize,
    bytes: AtomicU64,
}

/// A new directory in `parent` named `<prefix><random>`, removed on drop;
/// created with the mode any new directory gets (not tempfile's private
/// one), since it becomes the published site. The random part is unique per
/// build, not per process: two builds in two containers (both PID 1) must
/// not share it.
fn temp_dir_in(parent: &Path, prefix: &str) -> Result<TempDir> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix).rand_bytes(RANDOM_LEN);
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o777));
    b.tempdir_in(parent)
        .with_context(|| format!("cannot create a directory in {}", parent.display()))
}

impl Staging {
    pub(crate) fn create(out: &Path) -> Result<Staging> {
        let out = resolve_output_dir(out)?;
        let (parent, name) = parent_and_name(&out)?;
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        let tmp = temp_dir_in(parent, &staging_prefix(&name))?;
        Ok(Staging {
            dirs: Mutex::new(HashSet::from([tmp.path().to_path_buf()])),
            previous: Previous::of(&out, parent, &name),
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

    /// Writes one file at `rel`, creating its directory on first use. `rel`
    /// must stay below the site root: nothing is written outside it.
    pub(crate) fn write(&self, rel: &Path, bytes: &[u8]) -> Result<()> {
        if !is_plain_relative(rel) {
            bail!(
                "refusing to write {}: the path leaves the output directory",
                rel.display()
            );
        }
        let p = self.tmp.path().join(rel);
        if let Some(d) = p.parent()
            && !self.dirs.lock().expect("dirs lock").contains(d)
        {
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
            self.dirs.lock().expect("dirs lock").insert(d.to_path_buf());
        }
        let linked = self
            .previous
            .as_ref()
            .is_some_and(|prev| prev.link_if_same(rel, bytes, &p));
        if !linked {
            std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
        }
        self.count_file(bytes.len() as u64);
        Ok(())
    }

    /// Counts a file written into [`Staging::path`] directly.
    pub(crate) fn count_file(&self, bytes: u64) {
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Publishes the staged site; returns the number of files and bytes.
    /// What the user should know of how it went goes to `notices`.
    pub(crate) fn commit(self, notices: &Notices) -> Result<(usize, u64)> {
        let counts = (
            self.files.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        );
        let staged = self.tmp.keep();
        match publish(&staged, &self.out, notices) {
            Ok(Published::Swapped) => {}
            Ok(Published::SyncedInPlace) => notices.push(Notice::note(format!(
                "{} cannot be replaced by a symlink (a mount point?): the new site was \
                 synced into it file by file, so readers may meet old and new files side by \
                 side meanwhile; publish atomically by building into a directory inside it",
                self.out.display()
            ))),
            Err(e) => {
                // Renamed or not, what is left of it goes; the old site stays.
                let _ = std::fs::remove_dir_all(&staged);
                return Err(e);
            }
        }
        Ok(counts)
    }
}

/// The generation a build replaces. Why link its files: a rebuild mostly
/// writes what the last one wrote (assets, untouched pages), and writing a
/// file and later freeing the old copy cost more than comparing it with the
/// old one and linking that (a tenth of a sample-book build's CPU went to
/// removing the generation before last). A linked file keeps its old
/// modification time, which is right: its content did not change.
struct Previous {
    root: PathBuf,
    /// Directories below `root` by whether they are real directories (not
    /// symlinks): a file is only taken from inside the generation itself.
    dirs: Mutex<HashMap<PathBuf, bool>>,
}

impl Previous {
    /// The generation `out` links to, when it is one of `name`'s own.
    fn of(out: &Path, parent: &Path, name: &str) -> Option<Previous> {
        let target = std::fs::read_link(out).ok()?;
        let target = target.to_str()?;
        is_generation(name, target).then(|| Previous {
            root: parent.join(target),
            dirs: Mutex::new(HashMap::new()),
        })
    }

    /// Hard-links `to` to the previous generation's `rel` when that is a
    /// regular file holding exactly `bytes`; false when it did not (then
    /// the caller writes the file). Any failure only means a write.
    fn link_if_same(&self, rel: &Path, bytes: &[u8], to: &Path) -> bool {
        let old = self.root.join(rel);
        self.inside(rel) && holds_exactly(&old, bytes) && std::fs::hard_link(&old, to).is_ok()
    }

    /// Whether every directory of `rel` is a real directory in the generation.
    fn inside(&self, rel: &Path) -> bool {
        let mut dirs = self.dirs.lock().expect("dirs lock");
        rel.ancestors().skip(1).all(|dir| {
            if dir.as_os_str().is_empty() {
                return true;
            }
            *dirs.entry(dir.to_path_buf()).or_insert_with(|| {
                std::fs::symlink_metadata(self.root.join(dir)).is_ok_and(|m| m.is_dir())
            })
        })
    }
}

/// Whether `path` is a regular file (not a symlink) with exactly `bytes`.
fn holds_exactly(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        rustix::fs::OFlags::NOFOLLOW.bits() as i32,
    );
    let Ok(mut file) = options.open(path) else {
        return false;
    };
    if !file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
    {
        return false;
    }
    let mut buf = vec![0u8; bytes.len().clamp(1, 64 * 1024)];
    let mut rest = bytes;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return rest.is_empty(),
            Ok(n) if n <= rest.len() && buf[..n] == rest[..n] => rest = &rest[n..],
            Ok(_) => return false,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

impl FileSink for Staging {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()> {
        self.write(rel, &bytes)
    }

    fn put_shared(&self, rel: &Path, bytes: Arc<Vec<u8>>) -> Result<()> {
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
        assert_eq!(stage.commit(&Default::default()).unwrap(), (1, 3));
        assert_eq!(std::fs::read(out.join("a/b.html")).unwrap(), b"new");
        // Nothing is written outside the staged site, whatever the path.
        let stage = Staging::create(&out).unwrap();
        for rel in ["../x.html", "/tmp/x.html", "a/../../x.html", ""] {
            let err = stage.write(Path::new(rel), b"x").unwrap_err();
            assert!(
                err.to_string().contains("leaves the output directory"),
                "{rel}: {err}"
            );
        }
        drop(stage);
        assert!(!root.join("x.html").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Publishes `files` (path, content) as `out` and returns each file's inode.
    #[cfg(unix)]
    fn publish_files(out: &Path, files: &[(&str, &str)]) -> Vec<u64> {
        use std::os::unix::fs::MetadataExt;
        let stage = Staging::create(out).unwrap();
        for (rel, text) in files {
            stage.write(Path::new(rel), text.as_bytes()).unwrap();
        }
        stage.commit(&Default::default()).unwrap();
        let inode = |rel: &str| std::fs::metadata(out.join(rel)).unwrap().ino();
        files.iter().map(|(rel, _)| inode(rel)).collect()
    }

    #[cfg(unix)]
    #[test]
    fn files_the_live_site_already_holds_are_linked_not_written() {
        let root = crate::test_support::temp("staging-link");
        let out = root.join("site");
        let first = publish_files(&out, &[("a.html", "one"), ("d/b.css", "two"), ("c", "")]);
        let live = out.canonicalize().unwrap();
        let second = publish_files(&out, &[("a.html", "one"), ("d/b.css", "TWO"), ("c", "")]);
        assert_ne!(out.canonicalize().unwrap(), live, "a new generation");
        assert_eq!(second[0], first[0], "same content: the same file");
        assert_eq!(second[2], first[2], "empty and the same: linked too");
        assert_ne!(second[1], first[1], "changed: written anew");
        assert_eq!(std::fs::read_to_string(out.join("d/b.css")).unwrap(), "TWO");
        // The replaced generation still shows its own site to a late reader.
        assert_eq!(
            std::fs::read_to_string(live.join("d/b.css")).unwrap(),
            "two"
        );
        // Same length, other bytes: written.
        let third = publish_files(&out, &[("a.html", "one!")]);
        assert_ne!(third[0], first[0]);
        assert_eq!(std::fs::read_to_string(out.join("a.html")).unwrap(), "one!");
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Only files inside the live generation are reused: a symlink there
    /// (to a file or through a directory) is never linked into the new site,
    /// even when what it points to holds the same bytes.
    #[cfg(unix)]
    #[test]
    fn symlinks_in_the_live_site_are_not_followed() {
        use std::os::unix::fs::{MetadataExt, symlink};
        let root = crate::test_support::temp("staging-symlink");
        let out = root.join("site");
        let elsewhere = root.join("elsewhere");
        std::fs::create_dir_all(elsewhere.join("d")).unwrap();
        std::fs::write(elsewhere.join("a.html"), "one").unwrap();
        std::fs::write(elsewhere.join("d/b.css"), "two").unwrap();
        publish_files(&out, &[("x", "x")]);
        let live = out.canonicalize().unwrap();
        symlink(elsewhere.join("a.html"), live.join("a.html")).unwrap();
        symlink(elsewhere.join("d"), live.join("d")).unwrap();
        let new = publish_files(&out, &[("a.html", "one"), ("d/b.css", "two")]);
        let inode = |p: PathBuf| std::fs::metadata(p).unwrap().ino();
        assert_ne!(new[0], inode(elsewhere.join("a.html")));
        assert_ne!(new[1], inode(elsewhere.join("d/b.css")));
        for rel in ["a.html", "d"] {
            let m = std::fs::symlink_metadata(out.join(rel)).unwrap();
            assert!(
                !m.file_type().is_symlink(),
                "{rel}: a real file or directory"
            );
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
