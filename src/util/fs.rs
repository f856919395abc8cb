//! Paths and files: how messages show a path, `.`/`..` resolved without the
//! file system, and the one place that decides what a build may read
//! ([`Bounds`]): files that resolve inside the book root, regular files only,
//! no larger than a cap. Directory walks go through it too, so they stay in
//! the book, cannot loop and cannot run without end.
//!
//! Why here: book sources come from pull requests. A committed symlink to
//! `/proc/self/environ`, a `data=` of `/dev/zero` or a FIFO must fail the
//! build with a message, not publish secrets, eat memory or hang.

use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use self::inside::Reach;

use anyhow::{Context, Result, anyhow, bail};

/// Default cap on one file read by a build, in MiB (`max-file-mib` under
/// `[preprocessor.agentx]`). Why 64: the largest real AgentX data file
/// (`agentx-deepseek-v4_1.json` of the cookbook) is 101 KiB and a generated
/// model with 2,000 deployments 9.3 MiB, so 64 MiB leaves room for data
/// files 600× the largest real one, while a file that never ends
/// (`/dev/zero`, a growing log) stops at 64 MiB instead of filling memory.
pub(crate) const DEFAULT_MAX_FILE_MIB: u64 = 64;

/// A walk stops with an error after this many entries: a data directory or
/// source dir that large is a mistake (`data-dir = "."` in a repository with
/// a `node_modules`), not a book.
pub(crate) const MAX_WALK_ENTRIES: usize = 200_000;

/// Where the system's pseudo-files live: never read as book inputs.
const PSEUDO_FILE_SYSTEMS: [&str; 3] = ["/proc", "/sys", "/dev"];

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

/// Whether `rel` names something below a directory: relative, made of plain
/// names only (no `..`, no root, no prefix). `.` components are allowed.
pub(crate) fn is_plain_relative(rel: &Path) -> bool {
    !rel.as_os_str().is_empty()
        && rel
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// It resolves outside the book root (an absolute path, `..`, or a symlink).
    Outside {
        path: PathBuf,
        resolved: PathBuf,
        root: PathBuf,
    },
    /// A FIFO, device, socket or directory where a file was expected.
    NotRegular { path: PathBuf, kind: &'static str },
    /// Larger than the cap.
    TooLarge { path: PathBuf, size: u64, max: u64 },
    /// A directory with more entries than a walk visits.
    TooManyEntries { dir: PathBuf, max: usize },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Outside {
                path,
                resolved,
                root,
            } => {
                let shown = shown_path(path);
                let lexical = normalize(&std::path::absolute(path).unwrap_or(path.clone()));
                let how = if lexical.starts_with(root) {
                    format!("is a symlink to {}", resolved.display())
                } else {
                    format!("resolves to {}", resolved.display())
                };
                write!(
                    f,
                    "{} {how}, outside the book ({}): only files inside the book are read. \
                     Move the file into the book, or set `allow-outside = true` under \
                     [preprocessor.agentx] (and pass --allow-outside to standalone commands) \
                     if you trust every path this book names",
                    shown.display(),
                    root.display()
                )
            }
            Refusal::NotRegular { path, kind } => write!(
                f,
                "{} is {kind}, not a regular file: only regular files are read; replace it \
                 with a file",
                shown_path(path).display()
            ),
            Refusal::TooLarge { path, size, max } => write!(
                f,
                "{} is larger than the limit of {} MiB ({size} bytes or more): raise \
                 `max-file-mib` under [preprocessor.agentx] if the file is meant to be this large",
                shown_path(path).display(),
                max >> 20
            ),
            Refusal::TooManyEntries { dir, max } => write!(
                f,
                "{} holds more than {max} entries; is this the directory you \
                 meant (check `src` and `data-dir` in book.toml)?",
                shown_path(dir).display()
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// What a build may read: files inside the book root (unless
/// `allow-outside`), regular files only, at most `max_file_size` bytes.
#[derive(Debug, Clone)]
pub(crate) struct Bounds {
    /// The book root, resolved (no symlinks, no `..`).
    root: PathBuf,
    /// The book root as given, made absolute (`..` resolved, symlinks
    /// kept): paths built from it are inside too.
    given_root: PathBuf,
    allow_outside: bool,
    max_file_size: u64,
    /// A walk visits at most this many entries ([`MAX_WALK_ENTRIES`]).
    max_entries: usize,
}

impl Bounds {
    /// Bounds for the book at `root`.
    pub(crate) fn new(root: &Path, allow_outside: bool, max_file_mib: u64) -> Result<Bounds> {
        let resolved = std::fs::canonicalize(root)
            .with_context(|| format!("cannot open book directory {}", root.display()))?;
        Ok(Bounds {
            given_root: normalize(&std::path::absolute(root)?),
            root: resolved,
            allow_outside,
            max_file_size: max_file_mib.saturating_mul(1 << 20),
            max_entries: MAX_WALK_ENTRIES,
        })
    }

    /// The default bounds: inside `root`, files up to [`DEFAULT_MAX_FILE_MIB`].
    pub(crate) fn strict(root: &Path) -> Result<Bounds> {
        Bounds::new(root, false, DEFAULT_MAX_FILE_MIB)
    }

    /// The book root, resolved.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `path` with symlinks followed and `..` resolved; refused when that is
    /// outside the book root (and `allow-outside` is off). The path must exist.
    ///
    /// Refused by path first, then looked at ([`Bounds::walk_inside`]):
    /// whether a file outside the book exists, or where a symlink there
    /// leads, is not for a book to learn from the messages.
    pub(crate) fn resolve(&self, path: &Path) -> Result<PathBuf> {
        let cannot = || format!("cannot read {}", shown_path(path).display());
        if self.allow_outside {
            let resolved = std::fs::canonicalize(path).with_context(cannot)?;
            // /proc and /sys entries stat as regular files (`/proc/self/environ`
            // holds the build's environment, CI secrets included): never a
            // book input, whatever `allow-outside` says. /dev too.
            if let Some(fs) = PSEUDO_FILE_SYSTEMS
                .iter()
                .find(|fs| resolved.starts_with(fs))
            {
                bail!(
                    "{} resolves to {}, under {fs}: files of the system's pseudo-file systems \
                     are not read, even with `allow-outside`",
                    shown_path(path).display(),
                    resolved.display()
                );
            }
            return Ok(resolved);
        }
        match self.walk_inside(path)? {
            Reach::Found(resolved) => Ok(resolved),
            Reach::Missing(e) => Err(anyhow!(e).context(cannot())),
        }
    }

    /// Whether `path` (which may no longer exist) lies inside the bounds, as
    /// far as its existing part tells.
    pub(crate) fn admits(&self, path: &Path) -> bool {
        self.allow_outside || resolve_existing_part(path).is_ok_and(|p| p.starts_with(&self.root))
    }

    /// The bytes of one file inside the bounds.
    pub(crate) fn read(&self, path: &Path) -> Result<Vec<u8>> {
        let resolved = self.resolve(path)?;
        read_regular_as(&resolved, path, self.max_file_size)
    }

    /// The text of one file inside the bounds.
    pub(crate) fn read_to_string(&self, path: &Path) -> Result<String> {
        utf8(self.read(path)?, path)
    }

    /// Every non-directory entry in or below `dir`, sorted, except below the
    /// directories `prune` says to skip. Symlinks are followed when they
    /// resolve inside the bounds and refused otherwise; a symlink loop is an
    /// error naming it, and so is a tree of more than [`MAX_WALK_ENTRIES`].
    /// Paths keep `dir` as their prefix. An entry that cannot be examined (a
    /// dangling symlink) is listed, so reading it reports the problem.
    pub(crate) fn files_below(
        &self,
        dir: &Path,
        prune: impl FnMut(&Path) -> bool,
    ) -> Result<Vec<PathBuf>> {
        self.resolve(dir)?;
        // Asked by the walk's filter and for entries it reports as errors.
        let prune = std::cell::RefCell::new(prune);
        let refused: std::cell::RefCell<Option<anyhow::Error>> = Default::default();
        let mut out = Vec::new();
        let walk = walkdir::WalkDir::new(dir)
            .follow_links(true)
            .into_iter()
            .filter_entry(|e| {
                if e.depth() == 0 {
                    return true;
                }
                if (prune.borrow_mut())(e.path()) {
                    return false;
                }
                // A symlink is checked before the walk enters it: a link to
                // `/` must not be walked. A dangling one is listed, so that
                // reading it reports it where the file is used.
                if e.path_is_symlink()
                    && !self.allow_outside
                    && let Err(refusal) = self.walk_inside(e.path())
                {
                    refused.borrow_mut().get_or_insert_with(|| refusal.into());
                    return false;
                }
                true
            });
        for (n, entry) in walk.enumerate() {
            if let Some(err) = refused.borrow_mut().take() {
                return Err(err);
            }
            if n > self.max_entries {
                return Err(Refusal::TooManyEntries {
                    dir: dir.to_path_buf(),
                    max: self.max_entries,
                }
                .into());
            }
            match entry {
                Ok(e) if e.file_type().is_dir() => {}
                Ok(e) => out.push(e.into_path()),
                Err(e) if e.loop_ancestor().is_some() || e.depth() == 0 => {
                    // A link to `/` is a loop too, but say the more useful thing.
                    if let Some(p) = e.path() {
                        self.resolve(p)?;
                    }
                    return Err(anyhow!("cannot list {}: {e}", dir.display()));
                }
                Err(e) => match e.path() {
                    // A dangling link: listed (unless pruned), so that reading it
                    // reports it.
                    Some(p) if (prune.borrow_mut())(p) => {}
                    Some(p) => out.push(p.to_path_buf()),
                    None => return Err(anyhow!("cannot list {}: {e}", dir.display())),
                },
            }
        }
        if let Some(err) = refused.into_inner() {
            return Err(err);
        }
        out.sort();
        Ok(out)
    }

    /// The entries directly in `dir` (which may be missing: then none), each
    /// checked to resolve inside the bounds, sorted.
    pub(crate) fn entries_of(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        if std::fs::symlink_metadata(dir).is_err() {
            return Ok(Vec::new());
        }
        let resolved = self.resolve(dir)?;
        if !resolved.is_dir() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for entry in
            std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?
        {
            let p = entry?.path();
            self.resolve(&p)?;
            out.push(p);
            if out.len() > self.max_entries {
                return Err(Refusal::TooManyEntries {
                    dir: dir.to_path_buf(),
                    max: self.max_entries,
                }
                .into());
            }
        }
        out.sort();
        Ok(out)
    }
}

/// The bytes of a file named on the command line (no book to stay in):
/// regular files only, at most `max` bytes.
pub(crate) fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>> {
    read_regular_as(path, path, max)
}

/// Reads `path` (resolved), naming it `shown` in messages. The kind of file
/// is checked before opening, so a FIFO cannot block the build; it is
/// opened non-blocking and checked again on the open file, in case it was
/// swapped in between; at most `max` + 1 bytes are read, in case it grows.
fn read_regular_as(path: &Path, shown: &Path, max: u64) -> Result<Vec<u8>> {
    let cannot = || format!("cannot read {}", shown_path(shown).display());
    let meta = std::fs::metadata(path).with_context(cannot)?;
    regular(&meta, shown, max)?;
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut open,
        rustix::fs::OFlags::NONBLOCK.bits() as i32,
    );
    let file = open.open(path).with_context(cannot)?;
    let meta = file.metadata().with_context(cannot)?;
    regular(&meta, shown, max)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(cannot)?;
    if bytes.len() as u64 > max {
        return Err(too_large(shown, bytes.len() as u64, max));
    }
    Ok(bytes)
}

/// The text of a file named on the command line (see [`read_regular`]).
pub(crate) fn read_regular_to_string(path: &Path, max: u64) -> Result<String> {
    utf8(read_regular(path, max)?, path)
}

fn utf8(bytes: Vec<u8>, path: &Path) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        anyhow!(
            "{}: not UTF-8 text (invalid byte at offset {})",
            shown_path(path).display(),
            e.utf8_error().valid_up_to()
        )
    })
}

fn too_large(path: &Path, size: u64, max: u64) -> anyhow::Error {
    Refusal::TooLarge {
        path: path.to_path_buf(),
        size,
        max,
    }
    .into()
}

/// Refuses anything but a regular file of at most `max` bytes.
fn regular(meta: &std::fs::Metadata, path: &Path, max: u64) -> Result<()> {
    if !meta.is_file() {
        return Err(Refusal::NotRegular {
            path: path.to_path_buf(),
            kind: file_kind(&meta.file_type()),
        }
        .into());
    }
    if meta.len() > max {
        return Err(too_large(path, meta.len(), max));
    }
    Ok(())
}

/// "a FIFO", "a directory", … for messages.
fn file_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        } else if t.is_char_device() {
            return "a character device";
        } else if t.is_block_device() {
            return "a block device";
        } else if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// `path` made absolute with its longest existing ancestor resolved
/// (symlinks followed) and the rest appended as written (`..` resolved
/// lexically): where a file that may not exist yet would be.
pub(crate) fn resolve_existing_part(path: &Path) -> Result<PathBuf> {
    let abs = normalize(&std::path::absolute(path)?);
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        match std::fs::canonicalize(existing) {
            Ok(real) => {
                let mut out = real;
                out.extend(rest.iter().rev());
                return Ok(out);
            }
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    existing = parent;
                }
                _ => return Ok(abs),
            },
        }
    }
}

/// Where an output directory really is: its parent resolved (symlinks
/// followed), its own name kept, since the publish symlink of that name is
/// replaced, never written through.
pub(crate) fn resolve_output_dir(out: &Path) -> Result<PathBuf> {
    let abs = normalize(&std::path::absolute(out)?);
    match (abs.parent(), abs.file_name()) {
        (Some(parent), Some(name)) => Ok(resolve_existing_part(parent)?.join(name)),
        _ => Err(anyhow!(
            "{} cannot be an output directory: it has no parent",
            out.display()
        )),
    }
}

/// Every non-directory entry in or below `dir`, sorted, for directories named
/// on the command line (no book to stay in): loops are errors, not endless
/// walks, and so are trees of more than [`MAX_WALK_ENTRIES`] entries.
pub(crate) fn files_below(dir: &Path, prune: impl FnMut(&Path) -> bool) -> Result<Vec<PathBuf>> {
    Bounds {
        root: PathBuf::from("/"),
        given_root: PathBuf::from("/"),
        allow_outside: true,
        max_file_size: 0,
        max_entries: MAX_WALK_ENTRIES,
    }
    .files_below(dir, prune)
}

mod inside;

#[cfg(all(test, unix))]
mod tests;
