//! A long-lived builder for `serve` and `watch`: it keeps the decoded data,
//! the theme and the rendered chapter bodies between rebuilds, so a change
//! costs only what it touches.
//!
//! - a data file: only that file is re-read and decoded; chapters whose
//!   Markdown did not change reuse their rendered body;
//! - a template or theme file: the theme is reloaded, nothing is decoded and
//!   no chapter body is re-rendered;
//! - `book.toml`: everything is reloaded.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};

use super::theme::Theme;
use super::{
    BuildOptions, ExpandCache, ExpandOptions, RenderCache, Rendered, Site, output_dir,
    write_atomically,
};
use crate::book::BookDir;
use crate::preprocessor::Library;
use crate::util::notice::{Notice, Notices};

/// What a changed path means for the next rebuild.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// `book.toml`: reload everything.
    Config,
    /// AgentX data files: re-decode these.
    Data(Vec<PathBuf>),
    /// `templates/` or `agentx-theme/`: reload the theme.
    Theme,
    /// Chapters, `SUMMARY.md` or static files under the source dir.
    Content,
    /// An input directory itself (the source or data directory, or one
    /// holding them) was moved, created or removed: files below it may have
    /// changed without an event each (a directory moved back, or copied
    /// anew), so the data is read again, and every chapter (as always).
    Replaced(PathBuf),
}

impl Change {
    /// What changed, for the rebuild's report line.
    pub fn describe(&self, root: &Path) -> String {
        let rel = |p: &PathBuf| p.strip_prefix(root).unwrap_or(p).display().to_string();
        match self {
            Change::Config => "book.toml".into(),
            Change::Data(paths) => {
                let v: Vec<String> = paths.iter().map(rel).collect();
                format!("data {}", v.join(", "))
            }
            Change::Theme => "templates/theme".into(),
            Change::Content => "chapters".into(),
            Change::Replaced(dir) => format!("{}/ moved or replaced", rel(dir)),
        }
    }
}

/// Where a book's inputs are (absolute paths, as file events carry them).
#[derive(Debug, Clone)]
pub(crate) struct BookInputs {
    pub root: PathBuf,
    /// `book.toml`.
    pub config: PathBuf,
    /// The source dir (chapters, `SUMMARY.md`, static files).
    pub src: PathBuf,
    /// The AgentX data directory (possibly inside `src`).
    pub data: PathBuf,
    /// `templates/` and `agentx-theme/`.
    pub theme: [PathBuf; 2],
}

impl BookInputs {
    /// The inputs of `book`.
    pub(crate) fn of(book: &BookDir) -> BookInputs {
        BookInputs {
            root: book.root.clone(),
            config: book.book_toml(),
            src: book.src_dir(),
            data: book.data_dir(),
            theme: [book.templates_dir(), book.theme_dir()],
        }
    }
}

/// What a changed path touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    /// `book.toml`.
    Config,
    /// A data file of the data directory.
    Data,
    /// `templates/` or `agentx-theme/`.
    Theme,
    /// Anything else under the source dir.
    Content,
    /// The source or data directory itself, or a directory holding one.
    Replaced,
}

/// What a changed path means for the next rebuild, from its path alone (no
/// file-system access): `None` for paths no build reads, editors'
/// temporary files, and non-data files in the data directory. The data
/// directory is tested before the source dir, which may hold it.
pub(crate) fn change_kind(book: &BookInputs, path: &Path) -> Option<ChangeKind> {
    if is_editor_noise(path) {
        return None;
    }
    if path == book.config {
        Some(ChangeKind::Config)
    } else if path != book.root
        && path.starts_with(&book.root)
        && (book.src.starts_with(path) || book.data.starts_with(path))
    {
        Some(ChangeKind::Replaced)
    } else if book.theme.iter().any(|d| path.starts_with(d)) {
        Some(ChangeKind::Theme)
    } else if path.starts_with(&book.data) {
        crate::data::is_data_file(path).then_some(ChangeKind::Data)
    } else if path.starts_with(&book.src) {
        Some(ChangeKind::Content)
    } else {
        None
    }
}

/// Names editors give their temporary and backup files; never a reason to rebuild.
pub(crate) fn is_editor_noise(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return true;
    };
    name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".swo")
        || name.ends_with(".tmp")
        || name.ends_with(".bck")
        || name.starts_with(".#")
        || name == "4913" // vim's probe file for write permission
        || name.contains("___jb_tmp___")
        || name.contains("___jb_old___")
}

/// A directory to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WatchRoot {
    pub path: PathBuf,
    /// Whether changes below it count, or only its own entries.
    pub recursive: bool,
}

/// The outcome of one rebuild.
pub struct Rebuild {
    pub(crate) site: Site,
    pub(crate) rendered: Rendered,
    pub(crate) elapsed: Duration,
    /// Chapters whose directives were expanded (the others came from the cache).
    pub(crate) chapters_expanded: usize,
    /// What expanding and rendering had to say.
    notices: Vec<Notice>,
}

impl Rebuild {
    /// Warnings of the rebuild, in the order they arose.
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// Writes the site into `out` (swapped in whole); returns what the
    /// user should know of how publishing went.
    pub fn write_to(&self, out: &Path) -> Result<Vec<Notice>> {
        let notices = Notices::default();
        write_atomically(out, &self.rendered.files, &notices)?;
        Ok(notices.take())
    }

    /// How long the rebuild took.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// Pages of the site.
    pub fn pages(&self) -> usize {
        self.site.pages.len()
    }

    /// Chapters whose directives were expanded (the others came from the cache).
    pub fn chapters_expanded(&self) -> usize {
        self.chapters_expanded
    }

    /// Chapter bodies rendered from Markdown (the others came from the cache).
    pub fn bodies_rendered(&self) -> usize {
        self.rendered.rerendered
    }

    /// Pages laid out with the templates (the others came from the cache).
    pub fn pages_laid_out(&self) -> usize {
        self.rendered.laid_out
    }
}

/// A long-lived builder: keeps the decoded data, the theme and rendered pages between rebuilds.
pub struct Engine {
    root: PathBuf,
    dir: BookDir,
    /// Opened by the first rebuild that meets a directive, then kept.
    library: OnceLock<Library>,
    /// The theme, or why it failed to load (the next render reports it).
    theme: Result<Theme, String>,
    /// Why `book.toml` failed to load, until it is fixed.
    config_error: Option<String>,
    /// `--allow-outside` of the command line: a `book.toml` edited while
    /// serving is checked again, so that setting `allow-outside = true`
    /// there cannot switch the guard off (`crate::book::standalone_outside_reads`).
    outside_allowed: bool,
    cache: RenderCache,
    expansions: ExpandCache,
}

impl Engine {
    /// Opens the book in `root` (nothing is built yet). `allow_outside`
    /// is the command line's `--allow-outside`: without it a `book.toml`
    /// setting `allow-outside = true` is refused, now and whenever it is
    /// read again.
    pub fn open(root: &Path, allow_outside: bool) -> Result<Engine> {
        // File events carry absolute paths; compare them with an absolute root.
        let root = &std::fs::canonicalize(root)
            .with_context(|| format!("cannot open book directory {}", root.display()))?;
        crate::book::standalone_outside_reads(root, allow_outside)?;
        let dir = BookDir::open(root)?;
        Ok(Engine {
            root: root.to_path_buf(),
            theme: Theme::load(&dir).map_err(|e| format!("{e:#}")),
            dir,
            library: OnceLock::new(),
            config_error: None,
            outside_allowed: allow_outside,
            cache: RenderCache::default(),
            expansions: ExpandCache::default(),
        })
    }

    /// The book root, absolute (file events carry absolute paths).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where this book builds to: `dest`, or `[build] build-dir`; inside
    /// the book unless `allow_outside` (see `build`).
    pub fn output_dir(&self, dest: Option<&Path>, allow_outside: bool) -> Result<PathBuf> {
        output_dir(&self.dir, dest, allow_outside)
    }

    /// What to watch: the book root (not below it: `book.toml`), the source
    /// dir, the data dir, `templates/` and `agentx-theme/`, where they exist.
    pub(crate) fn watch_roots(&self) -> Vec<WatchRoot> {
        let root = |path: PathBuf, recursive| WatchRoot { path, recursive };
        let inputs = BookInputs::of(&self.dir);
        let mut v = vec![
            root(self.root.clone(), false),
            root(inputs.src.clone(), true),
        ];
        if !inputs.data.starts_with(&inputs.src) {
            v.push(root(inputs.data, true));
        }
        for d in inputs.theme {
            v.push(root(d, true));
        }
        // A directory outside the book is not read (the build says why), so
        // not watched either: `data-dir = "/"` must not watch the whole disk.
        v.retain(|r| r.path.exists() && self.dir.bounds.admits(&r.path));
        v
    }

    /// Sorts changed paths into changes; paths that matter to no build are dropped.
    pub fn classify(&self, paths: &[PathBuf]) -> Vec<Change> {
        let inputs = BookInputs::of(&self.dir);
        let mut out = Vec::new();
        let mut data = Vec::new();
        for p in paths {
            let change = match change_kind(&inputs, p) {
                None => continue,
                Some(ChangeKind::Data) => {
                    data.push(p.clone());
                    continue;
                }
                Some(ChangeKind::Config) => Change::Config,
                Some(ChangeKind::Theme) => Change::Theme,
                Some(ChangeKind::Content) => Change::Content,
                Some(ChangeKind::Replaced) => Change::Replaced(p.clone()),
            };
            if !out.contains(&change) {
                out.push(change);
            }
        }
        if !data.is_empty() {
            data.sort();
            data.dedup();
            out.push(Change::Data(data));
        }
        if out.contains(&Change::Config) {
            return vec![Change::Config];
        }
        out
    }

    /// Takes changes into account, then renders the whole site (from caches where possible).
    pub fn rebuild(&mut self, changes: &[Change], opts: &BuildOptions) -> Result<Rebuild> {
        let start = Instant::now();
        if changes.contains(&Change::Config) {
            self.reload_all();
        } else if changes.iter().any(|c| matches!(c, Change::Replaced(_))) {
            // Chapters are read anew by every rebuild; the data is not.
            self.library = OnceLock::new();
            self.expansions.clear();
        }
        for c in changes {
            match c {
                Change::Theme => {
                    self.theme = Theme::load(&self.dir).map_err(|e| format!("{e:#}"));
                    self.cache.clear_pages();
                }
                Change::Data(paths) => {
                    if let Some(lib) = self.library.get_mut() {
                        lib.reload(paths);
                    }
                }
                Change::Config | Change::Replaced(_) | Change::Content => {}
            }
        }
        if let Some(e) = &self.config_error {
            return Err(anyhow!("{e}"));
        }
        let theme = self.theme.as_ref().map_err(|e| anyhow!("{e}"))?;
        let options = ExpandOptions {
            cache: Some(&mut self.expansions),
            ..ExpandOptions::default()
        };
        let site = Site::expand(self.dir.clone(), &self.library, options)?;
        let rendered = site.render_with(theme, &mut self.cache, opts)?;
        Ok(Rebuild {
            notices: site.notices.take(),
            site,
            rendered,
            elapsed: start.elapsed(),
            chapters_expanded: self.expansions.chapters_expanded(),
        })
    }

    /// Reads everything again: `book.toml`, the theme, the data (on the
    /// next directive), every chapter.
    fn reload_all(&mut self) {
        let opened = crate::book::standalone_outside_reads(&self.root, self.outside_allowed)
            .and_then(|()| BookDir::open(&self.root));
        match opened {
            Ok(dir) => {
                self.dir = dir;
                self.config_error = None;
            }
            Err(e) => self.config_error = Some(format!("{e:#}")),
        }
        self.library = OnceLock::new();
        self.theme = Theme::load(&self.dir).map_err(|e| format!("{e:#}"));
        self.cache.clear();
        self.expansions.clear();
    }
}

#[cfg(test)]
mod tests;
