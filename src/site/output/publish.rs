//! Publishing a staged site so that readers never see a missing file.
//!
//! The output directory `book` is a symlink to a generation `.book-<random>`
//! beside it. A build renders into `.book.staging-<random>`, renames that to
//! its generation name, points a new symlink at it and renames the symlink
//! over `book`: rename(2) replaces the old symlink atomically, so every path
//! under `book/` resolves in the old site or in the new one, never in
//! neither. A replaced generation is kept for [`GRACE`] (a reader that
//! followed the old link an instant before the swap can finish reading it),
//! and the one just replaced until the next publish; the next publish after
//! that removes it. Publishes in one directory
//! are serialized by a lock on that directory, so two builds at once (even
//! in two containers) cannot remove each other's generation.
//!
//! When `book` is still a real directory (a first build over a site made by
//! an older version, or by another tool), it is exchanged with the symlink
//! in one `renameat2(RENAME_EXCHANGE)` (Linux), so even that first switch
//! never leaves `book/index.html` missing. Where that is impossible (`book`
//! is a mount point, or the file system or system cannot exchange), the new
//! site is synced into the directory in place instead: each file written
//! under a temporary name, then each renamed over the old one, then files
//! the new site lacks removed ([`in_place`]). Each file is then replaced
//! atomically, though a reader may meet old and new files side by side
//! during the renames; a write that fails (a full disk) leaves the old site
//! whole.

use std::io::ErrorKind;
use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, anyhow, bail};

use self::in_place::sync_in_place;
use crate::util::fs::is_plain_relative;
use crate::util::notice::{Notice, Notices};

/// Length of the random part of generation and staging names.
pub(in crate::site) const RANDOM_LEN: usize = 12;

/// The staging directory name's prefix for an output directory `name`.
pub(in crate::site) fn staging_prefix(name: &str) -> String {
    format!(".{name}.staging-")
}

/// The generation directory of an output directory `name` with `random`.
fn generation_name(name: &str, random: &str) -> String {
    format!(".{name}-{random}")
}

/// Whether `file` is a generation name of `name` (`.<name>-` + random).
pub(in crate::site) fn is_generation(name: &str, file: &str) -> bool {
    file.strip_prefix(&format!(".{name}-"))
        .is_some_and(|r| r.len() == RANDOM_LEN && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// How a site was published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Published {
    /// `out` now links to the new generation.
    Swapped,
    /// `out` is a directory that cannot become a symlink; synced in place.
    SyncedInPlace,
}

/// How long a replaced generation stays for readers that entered it just
/// before the swap. Why a time and not a count: a reader's open of
/// `book/index.html` can stall in the kernel, between following the old
/// link and finding the file, for longer than a whole build of a small
/// book takes (a busy machine, two cores); removing the generation before
/// last at once gave one miss in about 2,500 builds with a reader polling.
/// Why 2 s: far longer than such a stall, and short enough that fast
/// rebuilds (`watch`) leave only a few seconds of generations on disk.
const GRACE: Duration = Duration::from_secs(2);

/// Publishes the finished staging directory `staged` (in `out`'s parent,
/// named by [`staging_prefix`] + random) as `out`. On success the staging
/// directory is gone (renamed, or copied and removed).
/// Old generations that cannot be removed are warned of in `notices`.
pub(in crate::site) fn publish(staged: &Path, out: &Path, notices: &Notices) -> Result<Published> {
    publish_with(staged, out, exchange, GRACE, notices)
}

/// What swaps two names atomically: [`exchange`], or a stand-in in tests.
type Exchange = fn(&Path, &Path) -> std::io::Result<()>;

fn publish_with(
    staged: &Path,
    out: &Path,
    exchange: Exchange,
    grace: Duration,
    notices: &Notices,
) -> Result<Published> {
    let (parent, name) = parent_and_name(out)?;
    let random = staged
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix(&staging_prefix(&name)))
        .ok_or_else(|| anyhow!("{} is not a staging directory", staged.display()))?
        .to_string();
    let _lock = DirLock::new(parent)?;
    let generation = generation_name(&name, &random);
    let gen_path = parent.join(&generation);
    std::fs::rename(staged, &gen_path)
        .with_context(|| format!("cannot rename {} to {generation}", staged.display()))?;
    let swapped = swap_in(parent, &name, &generation, &random, exchange);
    match swapped {
        Ok(Some(replaced)) => {
            // Its time in the grace period starts now.
            if let Ok(dir) = std::fs::File::open(parent.join(&replaced)) {
                let _ = dir.set_modified(SystemTime::now());
            }
            remove_generations(parent, &name, &[&generation, &replaced], grace, notices);
            Ok(Published::Swapped)
        }
        Ok(None) => {
            remove_generations(parent, &name, &[&generation], grace, notices);
            Ok(Published::Swapped)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&gen_path);
            match e {
                Swap::Synced => Ok(Published::SyncedInPlace),
                Swap::Failed(e) => Err(e),
            }
        }
    }
}

/// Why the new generation did not become `out`.
enum Swap {
    /// `out` cannot become a symlink; the site was synced into it instead.
    Synced,
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for Swap {
    fn from(e: anyhow::Error) -> Swap {
        Swap::Failed(e)
    }
}

/// Points `out` at `generation`; returns the name of the generation it
/// replaced, if it pointed at one of this output's generations.
fn swap_in(
    parent: &Path,
    name: &str,
    generation: &str,
    random: &str,
    exchange: Exchange,
) -> Result<Option<String>, Swap> {
    let out = parent.join(name);
    let link = parent.join(format!(".{name}.link-{random}"));
    let moved = |e: std::io::Error| {
        anyhow!(e).context(format!("cannot publish the new site at {}", out.display()))
    };
    let old = match std::fs::symlink_metadata(&out) {
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(moved(e).into()),
        Ok(m) if m.file_type().is_symlink() => Some(std::fs::read_link(&out).map_err(moved)?),
        Ok(m) if m.is_dir() => return first_switch(parent, name, generation, random, exchange),
        Ok(_) => {
            return Err(anyhow!(
                "{} is a file, not a directory: remove it, or choose another output directory",
                out.display()
            )
            .into());
        }
    };
    make_symlink(generation, &link)?;
    if let Err(e) = std::fs::rename(&link, &out) {
        let _ = std::fs::remove_file(&link);
        return Err(moved(e).into());
    }
    // Only a generation of this output (a plain sibling name) counts: a
    // link somewhere else is replaced, and what it pointed to left alone.
    Ok(old
        .as_deref()
        .and_then(|p| p.to_str())
        .filter(|p| is_generation(name, p))
        .map(str::to_string))
}

/// `out` is a real directory: exchange it with a symlink to the new
/// generation in one step (the old directory becomes a replaced
/// generation), or else sync the new site into it.
fn first_switch(
    parent: &Path,
    name: &str,
    generation: &str,
    random: &str,
    exchange: Exchange,
) -> Result<Option<String>, Swap> {
    let out = parent.join(name);
    let link = parent.join(format!(".{name}.link-{random}"));
    make_symlink(generation, &link)?;
    match exchange(&link, &out) {
        Ok(()) => {
            let old = generation_name(name, &old_site_random(random));
            std::fs::rename(&link, parent.join(&old))
                .with_context(|| format!("cannot rename the old site {}", link.display()))?;
            Ok(Some(old))
        }
        Err(_) => {
            let _ = std::fs::remove_file(&link);
            sync_in_place(&parent.join(generation), &out)?;
            Err(Swap::Synced)
        }
    }
}

/// The random part of the generation name a replaced real directory gets:
/// `random` with its last character changed, so it is never the new
/// generation's own name (a rename onto that fails: "Directory not empty").
fn old_site_random(random: &str) -> String {
    let head: String = random.chars().take(RANDOM_LEN - 1).collect();
    let last = if random.ends_with('x') { 'y' } else { 'x' };
    format!("{head}{last}")
}

fn make_symlink(target: &str, link: &Path) -> Result<()> {
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink(target, link);
    #[cfg(not(unix))]
    let made: std::io::Result<()> = Err(std::io::Error::from(ErrorKind::Unsupported));
    made.with_context(|| format!("cannot create the symlink {}", link.display()))
}

/// Swaps two names atomically (Linux `renameat2(RENAME_EXCHANGE)`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    Ok(renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)?)
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(ErrorKind::Unsupported.into())
}

/// Removes `name`'s generations in `parent`, except those in `keep` and
/// those replaced (or made) less than `grace` ago. A failure only leaves a
/// directory behind, so it is reported, not fatal.
fn remove_generations(
    parent: &Path,
    name: &str,
    keep: &[&str],
    grace: Duration,
    notices: &Notices,
) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(file) = file.to_str() else { continue };
        let Ok(meta) = entry.metadata() else { continue };
        let recent = meta
            .modified()
            .is_ok_and(|t| now.duration_since(t).unwrap_or_default() < grace);
        if meta.is_dir()
            && is_generation(name, file)
            && !keep.contains(&file)
            && !recent
            && let Err(e) = std::fs::remove_dir_all(entry.path())
        {
            notices.push(Notice::warning(format!(
                "cannot remove the old site {}: {e}",
                entry.path().display()
            )));
        }
    }
}

/// The directory holding `out`, and `out`'s name.
pub(in crate::site) fn parent_and_name(out: &Path) -> Result<(&Path, String)> {
    let parent = out
        .parent()
        .ok_or_else(|| anyhow!("output directory has no parent"))?;
    let name = out
        .file_name()
        .ok_or_else(|| anyhow!("output directory has no name"))?
        .to_string_lossy()
        .into_owned();
    if !is_plain_relative(Path::new(&name)) {
        bail!("{} cannot be an output directory", out.display());
    }
    Ok((parent, name))
}

/// An exclusive lock on a directory (`flock`), held while publishing into
/// it; released when dropped (or when the process dies).
struct DirLock {
    _dir: std::fs::File,
}

impl DirLock {
    fn new(dir: &Path) -> Result<DirLock> {
        let file =
            std::fs::File::open(dir).with_context(|| format!("cannot open {}", dir.display()))?;
        // Blocks until the lock is free; a signal only interrupts the wait.
        #[cfg(unix)]
        while let Err(e) = rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive) {
            if e != rustix::io::Errno::INTR {
                let e = std::io::Error::from(e);
                return Err(anyhow!(e).context(format!("cannot lock {}", dir.display())));
            }
        }
        Ok(DirLock { _dir: file })
    }
}

mod in_place;

#[cfg(all(test, unix))]
mod tests;
