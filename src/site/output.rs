//! Where rendered files go: memory, or a staging directory swapped in whole.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use anyhow::{Context, Result, anyhow};

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
/// panic), it is removed and the old site stays as it was.
pub(crate) struct Staging {
    out: PathBuf,
    tmp: PathBuf,
    /// Directories already created.
    dirs: Mutex<HashSet<PathBuf>>,
    files: AtomicUsize,
    bytes: AtomicU64,
    committed: bool,
}

impl Staging {
    pub(crate) fn create(out: &Path) -> Result<Staging> {
        let out = std::path::absolute(out)?;
        let parent = out
            .parent()
            .ok_or_else(|| anyhow!("output directory has no parent"))?;
        let name = out
            .file_name()
            .ok_or_else(|| anyhow!("output directory has no name"))?
            .to_string_lossy()
            .into_owned();
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        // Leftovers of a build that was interrupted (Ctrl-C during `watch`),
        // but not the directory of a build still running in another process.
        if let Ok(entries) = std::fs::read_dir(parent) {
            for e in entries.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                let pid = n
                    .strip_prefix(&format!(".{name}.tmp-"))
                    .or_else(|| n.strip_prefix(&format!(".{name}.old-")));
                if let Some(pid) = pid
                    && !pid.parse().is_ok_and(process_is_running)
                {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
        std::fs::create_dir_all(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        Ok(Staging {
            out,
            tmp: tmp.clone(),
            dirs: Mutex::new(HashSet::from([tmp])),
            files: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
            committed: false,
        })
    }

    /// The staging directory.
    pub(crate) fn path(&self) -> &Path {
        &self.tmp
    }

    /// Writes one file at `rel`, creating its directory on first use.
    pub(crate) fn write(&self, rel: &Path, bytes: &[u8]) -> Result<()> {
        let p = self.tmp.join(rel);
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
    pub(crate) fn commit(mut self) -> Result<(usize, u64)> {
        let (out, tmp) = (&self.out, &self.tmp);
        let parent = out.parent().expect("checked in create");
        let name = out
            .file_name()
            .expect("checked in create")
            .to_string_lossy();
        if out.exists() {
            let old = parent.join(format!(".{name}.old-{}", std::process::id()));
            if old.exists() {
                std::fs::remove_dir_all(&old)?;
            }
            std::fs::rename(out, &old)
                .with_context(|| format!("cannot move {} aside", out.display()))?;
            if let Err(e) = std::fs::rename(tmp, out) {
                let _ = std::fs::rename(&old, out);
                return Err(e)
                    .with_context(|| format!("cannot move the new site to {}", out.display()));
            }
            self.committed = true;
            std::fs::remove_dir_all(&old)
                .with_context(|| format!("cannot remove {}", old.display()))?;
        } else {
            std::fs::rename(tmp, out)
                .with_context(|| format!("cannot move the new site to {}", out.display()))?;
            self.committed = true;
        }
        Ok((
            self.files.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        ))
    }
}

/// Whether process `pid` is running (Linux); elsewhere, never, so leftovers
/// are always cleaned as before.
fn process_is_running(pid: u32) -> bool {
    pid != std::process::id() && Path::new("/proc").join(pid.to_string()).exists()
}

impl FileSink for Staging {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()> {
        self.write(rel, &bytes)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}
