//! Where a command may write: one rule for every output (`build -d`,
//! `[build] build-dir`, `watch -d`, `markdown -d`, `export --offline`,
//! `export --single-file`), decided by [`check_output`].
//!
//! An output is refused when it
//! - is, holds, or lies inside anything the book reads: the book root (an
//!   output may only lie inside it), `book.toml`, the source directory and
//!   `SUMMARY.md`, the data directory, the flag registries, `templates/`,
//!   `agentx-theme/`, mdBook's `theme/`, `additional-css`/`additional-js`;
//! - has `.git` on its path, or holds `.git`;
//! - already exists and this tool did not make it. A directory counts as
//!   made here when it is the publish symlink to one of its own generations
//!   ([`super::publish`]), empty, or holds a site's manifest
//!   (`launches.json`, or `agentx-manifest.json` of earlier versions) or portable
//!   Markdown's [`MARKDOWN_MARKER`]; the single file when its text ends
//!   with [`SINGLE_FILE_MARKER`].
//!
//! Paths are compared where they really are: the output's parent with
//! symlinks followed, and, when the output itself is a symlink, its target
//! too; every input resolved the same way, whether it exists yet or not (a
//! site written as `templates/` would be read as templates next time).
//!
//! Why: an output directory is replaced whole, and docs builds run on pull
//! requests: `build-dir = ".git"` in a pull request's `book.toml`, or a
//! mistyped `-d data`, must fail with a message instead of deleting what it
//! names.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::publish::is_generation;
use crate::book::{BookDir, TEMPLATES_DIR, THEME_DIR};
use crate::util::fs::{normalize, resolve_existing_part, resolve_output_dir, shown_path};

/// The file portable Markdown (`markdown -d`) holds at its root, so that a
/// later export recognises the directory as its own.
pub(crate) const MARKDOWN_MARKER: &str = ".agentx-markdown";

/// The last line of every single-file export, so that a later export
/// recognises the file as its own. An HTML comment after `</html>`:
/// browsers ignore it.
pub(crate) const SINGLE_FILE_MARKER: &str =
    "<!-- written by mdbook-agentx export --single-file -->";

/// What an output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputKind {
    /// A directory replaced whole: a site, or portable Markdown.
    Directory,
    /// One file (`export --single-file`).
    File,
}

impl OutputKind {
    fn noun(self) -> &'static str {
        match self {
            OutputKind::Directory => "output directory",
            OutputKind::File => "output file",
        }
    }
}

/// Something the book reads, where it resolves, and how messages name it.
struct Input {
    path: PathBuf,
    what: String,
}

/// How an output stands to an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    Is,
    IsInside,
    Holds,
}

impl Relation {
    fn of(out: &Path, input: &Path) -> Option<Relation> {
        if out == input {
            Some(Relation::Is)
        } else if out.starts_with(input) {
            Some(Relation::IsInside)
        } else if input.starts_with(out) {
            Some(Relation::Holds)
        } else {
            None
        }
    }

    fn verb(self) -> &'static str {
        match self {
            Relation::Is => "is",
            Relation::IsInside => "is inside",
            Relation::Holds => "holds",
        }
    }
}

/// Refuses `out` as an output of the book in `dir` by the rule of the
/// module documentation; `origin` says where the path came from
/// (`-d`, `[build] build-dir` …), and `allow_outside` lifts the rule that
/// an output directory lies inside the book (never the others).
pub(crate) fn check_output(
    dir: &BookDir,
    out: &Path,
    kind: OutputKind,
    origin: &str,
    allow_outside: bool,
) -> Result<()> {
    let real = resolve_output_dir(out)?;
    let root = dir.bounds.root();
    let mut named = format!("{} {} ({origin})", kind.noun(), out.display());
    if std::path::absolute(out).is_ok_and(|abs| normalize(&abs) != real) {
        // Through a symlinked directory: say where it really is.
        named.push_str(&format!(", which is {}", real.display()));
    }
    if !allow_outside && !real.starts_with(root) {
        bail!(
            "{named} is outside the book ({}); pass --allow-dest-outside to write there",
            root.display()
        );
    }
    // Where the output is, and where it leads when it is a symlink.
    let target = std::fs::symlink_metadata(&real)
        .is_ok_and(|m| m.file_type().is_symlink())
        .then(|| std::fs::canonicalize(&real).ok())
        .flatten();
    for (path, via) in [(Some(&real), None), (target.as_ref(), target.as_ref())] {
        let Some(path) = path else { continue };
        let via = via
            .map(|t| format!("it is a symlink to {}, and that ", t.display()))
            .unwrap_or_else(|| "it ".into());
        if let Some(problem) = collision(dir, path, kind) {
            bail!(
                "refusing {named}: {via}{problem}, so writing there could destroy it. Choose \
                 another {}{}",
                kind.noun(),
                example(kind)
            );
        }
    }
    match kind {
        OutputKind::Directory => check_existing_dir(&real, &named),
        OutputKind::File => check_existing_file(&real, &named),
    }
}

/// A suggestion for the fix.
fn example(kind: OutputKind) -> &'static str {
    match kind {
        OutputKind::Directory => ", such as `book` (the default) inside the book root",
        OutputKind::File => ", such as `book.html` in the book root",
    }
}

/// What `out` (resolved) collides with, if anything: an input of the book,
/// or `.git`.
fn collision(dir: &BookDir, out: &Path, kind: OutputKind) -> Option<String> {
    let root = dir.bounds.root();
    let inputs = inputs(dir);
    // The most specific first: an output that is the data directory says
    // so, not that it lies inside the source directory holding it.
    for wanted in [Relation::Is, Relation::IsInside, Relation::Holds] {
        for input in &inputs {
            // Inside the book root is where outputs belong.
            if wanted == Relation::IsInside && input.path == root {
                continue;
            }
            if Relation::of(out, &input.path) == Some(wanted) {
                return Some(format!(
                    "{} {}, which the book reads",
                    wanted.verb(),
                    input.what
                ));
            }
        }
    }
    git_collision(out, kind)
}

/// Whether `out` is `.git`, lies inside one, or (a directory) holds one.
fn git_collision(out: &Path, kind: OutputKind) -> Option<String> {
    let mut git = PathBuf::new();
    for c in out.components() {
        git.push(c);
        if c == Component::Normal(".git".as_ref()) {
            let verb = if git == out { "is" } else { "is inside" };
            return Some(format!(
                "{verb} {}, a git repository's own files",
                git.display()
            ));
        }
    }
    // Holding one: only a real directory holds anything (a symlink's
    // target is checked on its own).
    let git = out.join(".git");
    let real_dir = std::fs::symlink_metadata(out).is_ok_and(|m| m.is_dir());
    (kind == OutputKind::Directory && real_dir && std::fs::symlink_metadata(&git).is_ok())
        .then(|| format!("holds {}, a git repository's own files", git.display()))
}

/// Everything the book reads, resolved (see the module documentation).
fn inputs(dir: &BookDir) -> Vec<Input> {
    let root = dir.bounds.root();
    let shown = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let mut v = Vec::new();
    let mut add = |rel: &Path, what: &dyn Fn(&str) -> String| {
        let abs = dir.root.join(rel);
        // What resolves outside the book is not read (unless `allow-outside`):
        // the build refuses it, with its own message.
        if let Ok(path) = resolve_existing_part(&abs)
            && dir.bounds.admits(&path)
        {
            let what = what(&shown(&path));
            v.push(Input { path, what });
        }
    };
    add(Path::new(""), &|_| "the book root".into());
    add(Path::new("book.toml"), &|p| p.into());
    let src = &dir.config.book.src;
    add(src, &|p| {
        format!("the source directory {} (`src` in book.toml)", dir_name(p))
    });
    add(&src.join("SUMMARY.md"), &|p| p.into());
    add(&dir.agentx.data_dir, &|p| {
        format!(
            "the data directory {} (`data-dir` in book.toml)",
            dir_name(p)
        )
    });
    for d in [TEMPLATES_DIR, THEME_DIR, "theme"] {
        add(Path::new(d), &|p| dir_name(p));
    }
    let mut registries = Vec::new();
    if let Some(r) = &dir.agentx.registries {
        string_leaves(r, &mut registries);
    }
    for r in registries {
        add(Path::new(&r), &|p| format!("the flag registry {p}"));
    }
    let html = &dir.html;
    for (files, key) in [
        (&html.additional_css, "additional-css"),
        (&html.additional_js, "additional-js"),
    ] {
        for f in files {
            add(f, &|p| format!("{p} (`{key}` in book.toml)"));
        }
    }
    v
}

/// `p` as a directory name: with one trailing `/`.
fn dir_name(p: &str) -> String {
    format!("{}/", p.trim_end_matches('/'))
}

/// Every string in `v` (the registries table names files by strings only).
fn string_leaves(v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::String(s) => out.push(s.clone()),
        toml::Value::Table(t) => t.values().for_each(|v| string_leaves(v, out)),
        toml::Value::Array(a) => a.iter().for_each(|v| string_leaves(v, out)),
        _ => {}
    }
}

/// An output directory is missing, this tool's publish symlink, empty, or
/// holds a marker of a site or portable Markdown this tool wrote.
fn check_existing_dir(real: &Path, named: &str) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(real) else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(real).unwrap_or_default();
        if is_own_generation(real, &target) {
            return Ok(());
        }
        bail!(
            "refusing {named}: it is a symlink to {}, which mdbook-agentx did not make; building \
             would replace the link. Remove the link, or choose another output directory",
            target.display()
        );
    }
    if !meta.is_dir() {
        bail!(
            "refusing {named}: it is a file, not a directory; remove it, or choose another output \
             directory"
        );
    }
    let mut entries = std::fs::read_dir(real)
        .with_context(|| format!("cannot list {}", shown_path(real).display()))?;
    let empty = entries.next().is_none();
    // A site of this tool holds its manifest (`agentx-manifest.json` when
    // an earlier version built it).
    let marked = [
        crate::manifest::MANIFEST,
        crate::manifest::LEGACY_MANIFEST,
        MARKDOWN_MARKER,
    ]
    .iter()
    .any(|m| std::fs::symlink_metadata(real.join(m)).is_ok_and(|m| m.is_file()));
    if empty || marked {
        return Ok(());
    }
    bail!(
        "refusing {named}: it is an existing directory that mdbook-agentx did not write (it holds \
         no {} or {MARKDOWN_MARKER}), and an output directory is replaced whole. Choose another \
         output directory, or empty this one yourself if nothing in it is needed",
        crate::manifest::MANIFEST
    )
}

/// Whether the symlink `real` points at one of its own generations: a
/// sibling named `.<name>-<random>` that is a real directory (or is gone).
fn is_own_generation(real: &Path, target: &Path) -> bool {
    let (Some(name), Some(parent), Some(t)) = (
        real.file_name().and_then(|n| n.to_str()),
        real.parent(),
        target.to_str(),
    ) else {
        return false;
    };
    is_generation(name, t)
        && std::fs::symlink_metadata(parent.join(t))
            .map_or(true, |m| m.is_dir() && !m.file_type().is_symlink())
}

/// An output file is missing, or a regular file ending with
/// [`SINGLE_FILE_MARKER`].
fn check_existing_file(real: &Path, named: &str) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(real) else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        bail!(
            "refusing {named}: it is a symlink (to {}), and the export would replace it. Remove \
             the link, or choose another file name",
            std::fs::read_link(real).unwrap_or_default().display()
        );
    }
    if !meta.is_file() {
        bail!("refusing {named}: it exists and is not a file; choose another file name");
    }
    if ends_with_marker(real) {
        return Ok(());
    }
    bail!(
        "refusing {named}: it is an existing file that mdbook-agentx did not write (it does not \
         end with its export marker), and the export would replace it. Choose another file \
         name, or remove this file yourself if it is not needed"
    )
}

/// Whether the regular file at `path` ends with [`SINGLE_FILE_MARKER`] (and
/// a line break): only its tail is read.
fn ends_with_marker(path: &Path) -> bool {
    let tail = SINGLE_FILE_MARKER.len() as u64 + 2;
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    // Checked to be a regular file; should it be swapped for a FIFO or a
    // symlink meanwhile, do not wait on it or follow it.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut open,
        (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW).bits() as i32,
    );
    let Ok(mut f) = open.open(path) else {
        return false;
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut buf = Vec::new();
    f.seek(SeekFrom::Start(len.saturating_sub(tail))).is_ok()
        && f.take(tail).read_to_end(&mut buf).is_ok()
        && String::from_utf8_lossy(&buf)
            .trim_end()
            .ends_with(SINGLE_FILE_MARKER)
}

#[cfg(all(test, unix))]
mod tests;
