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
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};

use super::book::BookDir;
use super::theme::Theme;
use super::{BuildOptions, ExpandCache, RenderCache, Rendered, Site};
use crate::preprocessor::Library;

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
        }
    }
}

/// Where a book's inputs are (absolute paths, as file events carry them).
#[derive(Debug, Clone)]
pub(crate) struct BookInputs {
    pub root: PathBuf,
    /// The source dir (chapters, `SUMMARY.md`, static files).
    pub src: PathBuf,
    /// The AgentX data directory (possibly inside `src`).
    pub data: PathBuf,
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
}

/// What a changed path means for the next rebuild, from its path alone (no
/// file-system access): `None` for paths no build reads, editors'
/// temporary files, and non-data files in the data directory. The data
/// directory is tested before the source dir, which may hold it.
pub(crate) fn change_kind(book: &BookInputs, path: &Path) -> Option<ChangeKind> {
    if is_editor_noise(path) {
        return None;
    }
    if path == book.root.join("book.toml") {
        Some(ChangeKind::Config)
    } else if path.starts_with(book.root.join("templates"))
        || path.starts_with(book.root.join(super::theme::THEME_DIR))
    {
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
}

impl Rebuild {
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
    library: Option<Library>,
    /// The theme, or why it failed to load (the next render reports it).
    theme: Result<Theme, String>,
    /// Why `book.toml` failed to load, until it is fixed.
    config_error: Option<String>,
    cache: RenderCache,
    expansions: ExpandCache,
}

impl Engine {
    /// Opens the book in `root` (nothing is built yet).
    pub fn open(root: &Path) -> Result<Engine> {
        // File events carry absolute paths; compare them with an absolute root.
        let root = &std::fs::canonicalize(root)
            .map_err(|e| anyhow!("cannot open book directory {}: {e}", root.display()))?;
        let dir = BookDir::open(root)?;
        Ok(Engine {
            root: root.to_path_buf(),
            theme: Theme::load(root, &dir.bounds).map_err(|e| format!("{e:#}")),
            dir,
            library: None,
            config_error: None,
            cache: RenderCache::default(),
            expansions: ExpandCache::default(),
        })
    }

    pub(crate) fn dir(&self) -> &BookDir {
        &self.dir
    }

    /// What to watch: the book root (not below it: `book.toml`), the source
    /// dir, the data dir, `templates/` and `agentx-theme/`, where they exist.
    pub(crate) fn watch_roots(&self) -> Vec<WatchRoot> {
        let root = |path: PathBuf, recursive| WatchRoot { path, recursive };
        let src = self.dir.src_dir();
        let data = self.root.join(&self.dir.agentx.data_dir);
        let mut v = vec![root(self.root.clone(), false), root(src.clone(), true)];
        if !data.starts_with(&src) {
            v.push(root(data, true));
        }
        for d in ["templates", super::theme::THEME_DIR] {
            v.push(root(self.root.join(d), true));
        }
        // A directory outside the book is not read (the build says why), so
        // not watched either: `data-dir = "/"` must not watch the whole disk.
        v.retain(|r| r.path.exists() && self.dir.bounds.admits(&r.path));
        v
    }

    /// Sorts changed paths into changes; paths that matter to no build are dropped.
    pub fn classify(&self, paths: &[PathBuf]) -> Vec<Change> {
        let inputs = BookInputs {
            root: self.root.clone(),
            src: self.dir.src_dir(),
            data: self.root.join(&self.dir.agentx.data_dir),
        };
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
        for c in changes {
            match c {
                Change::Config => {
                    match BookDir::open(&self.root) {
                        Ok(dir) => {
                            self.dir = dir;
                            self.config_error = None;
                        }
                        Err(e) => self.config_error = Some(format!("{e:#}")),
                    }
                    self.library = None;
                    self.theme =
                        Theme::load(&self.root, &self.dir.bounds).map_err(|e| format!("{e:#}"));
                    self.cache.clear();
                    self.expansions.clear();
                }
                Change::Theme => {
                    self.theme =
                        Theme::load(&self.root, &self.dir.bounds).map_err(|e| format!("{e:#}"));
                    self.cache.clear_pages();
                }
                Change::Data(paths) => {
                    if let Some(lib) = &mut self.library {
                        lib.reload(paths);
                    }
                }
                Change::Content => {}
            }
        }
        if let Some(e) = &self.config_error {
            return Err(anyhow!("{e}"));
        }
        let theme = self.theme.as_ref().map_err(|e| anyhow!("{e}"))?;
        let site = Site::expand(
            self.dir.clone(),
            &mut self.library,
            Some(&mut self.expansions),
        )?;
        let rendered = site.render_with(theme, &mut self.cache, opts)?;
        Ok(Rebuild {
            site,
            rendered,
            elapsed: start.elapsed(),
            chapters_expanded: self.expansions.chapters_expanded(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{copy_dir, mini_book, read, repo, temp};

    /// (path relative to the book root, what it means), for a book whose
    /// data directory lies inside its source dir, as the sample book's does.
    const CHANGE_KINDS: &[(&str, Option<ChangeKind>)] = &[
        ("book.toml", Some(ChangeKind::Config)),
        ("content/book.toml", Some(ChangeKind::Content)),
        ("templates/page.html", Some(ChangeKind::Theme)),
        ("agentx-theme/book.css", Some(ChangeKind::Theme)),
        ("agentx-theme/new/x.svg", Some(ChangeKind::Theme)),
        // mdBook's theme folder: not the builder's.
        ("theme/book.js", None),
        ("content/agentx/qwen3.5.jsx", Some(ChangeKind::Data)),
        ("content/agentx/deep/x.json", Some(ChangeKind::Data)),
        ("content/agentx/README.md", None),
        ("content/agentx/.x.json.swp", None),
        ("content/models/qwen3.5.md", Some(ChangeKind::Content)),
        ("content/SUMMARY.md", Some(ChangeKind::Content)),
        ("content/images/a.png", Some(ChangeKind::Content)),
        ("content/models/qwen3.5.md~", None),
        ("content/4913", None),
        ("book/index.html", None),
        ("flags/sglang.json", None),
        ("templatesx/page.html", None),
        ("README.md", None),
    ];

    #[test]
    fn change_kinds() {
        let root = Path::new("/books/b");
        let book = BookInputs {
            root: root.to_path_buf(),
            src: root.join("content"),
            data: root.join("content/agentx"),
        };
        for (rel, want) in CHANGE_KINDS {
            assert_eq!(change_kind(&book, &root.join(rel)), *want, "{rel}");
        }
        // Outside the book, even under a name the book uses.
        assert_eq!(change_kind(&book, Path::new("/other/book.toml")), None);
        assert_eq!(change_kind(&book, Path::new("/other/content/a.md")), None);
    }

    #[test]
    fn editor_noise() {
        for n in [
            "a.md~",
            ".a.md.swp",
            "4913",
            ".#a.md",
            "x.json___jb_tmp___",
            "a.tmp",
        ] {
            assert!(is_editor_noise(Path::new(n)), "{n}");
        }
        for n in ["a.md", "x.json", "book.toml"] {
            assert!(!is_editor_noise(Path::new(n)), "{n}");
        }
    }

    /// Rebuilds after `changes` and asserts the site equals a fresh render.
    fn rebuild_like_fresh(
        engine: &mut Engine,
        book: &Path,
        changes: &[Change],
        opts: &BuildOptions,
    ) -> Rebuild {
        let r = engine.rebuild(changes, opts).unwrap();
        let fresh = Site::load(book).unwrap().render_files(opts).unwrap();
        assert!(
            r.rendered.files == fresh,
            "{changes:?}: differs from a fresh render"
        );
        r
    }

    /// The engine of `serve` and `watch` reuses chapter bodies and laid-out
    /// pages; after every kind of change its site must equal a fresh render.
    #[test]
    fn rebuilds_only_what_changed_and_match_a_fresh_render() {
        let book = mini_book("engine-cache");
        let opts = BuildOptions::default();
        let mut engine = Engine::open(&book).unwrap();
        let mut rebuild = |changes: &[Change]| {
            let r = rebuild_like_fresh(&mut engine, &book, changes, &opts);
            (r.rendered.rerendered, r.rendered.laid_out)
        };
        assert_eq!(rebuild(&[Change::Content]), (4, 4));
        // Nothing changed: nothing rendered or laid out again.
        assert_eq!(rebuild(&[Change::Content]), (0, 0));
        // A chapter's text: its body and page only.
        let plain = book.join("src/plain.md");
        std::fs::write(&plain, read(&plain) + "\nOne more line.\n").unwrap();
        assert_eq!(rebuild(&[Change::Content]), (1, 1));
        // A chapter title in SUMMARY.md: every sidebar changes, no body does.
        let summary = book.join("src/SUMMARY.md");
        std::fs::write(&summary, read(&summary).replace("[Plain]", "[Plain text]")).unwrap();
        assert_eq!(rebuild(&[Change::Content]), (0, 4));
        // A template: every page is laid out again.
        std::fs::create_dir_all(book.join("templates")).unwrap();
        let page = read(&repo().join("templates/page.html"));
        std::fs::write(
            book.join("templates/page.html"),
            page.replace(
                "<main id=\"content\">",
                "<main id=\"content\" data-x=\"1\">",
            ),
        )
        .unwrap();
        assert_eq!(rebuild(&[Change::Theme]), (0, 4));
        // A data file: the pages it feeds.
        let data = book.join("data/mini.json");
        std::fs::write(
            &data,
            read(&data).replacen(
                "\"--max-running-requests\": [\"",
                "\"--max-running-requests\": [\"1",
                1,
            ),
        )
        .unwrap();
        let (bodies, pages) = rebuild(&[Change::Data(vec![data.clone()])]);
        assert!(
            bodies >= 1 && bodies == pages && pages < 4,
            "{bodies} {pages}"
        );
    }

    /// A data-file edit expands again only the chapters whose directives use
    /// that file (counted by the engine, not timed); every rebuild still
    /// equals a fresh render.
    #[test]
    fn a_data_edit_expands_only_the_chapters_that_use_the_file() {
        let book = temp("engine-expansions");
        std::fs::create_dir_all(&*book).unwrap();
        for f in ["book.toml", "agentx.css", "agentx.js"] {
            std::fs::copy(repo().join(f), book.join(f)).unwrap();
        }
        for d in ["content", "agentx"] {
            copy_dir(&repo().join(d), &book.join(d));
        }
        // A second chapter showing DeepSeek-V4.1 (the authoring guide's
        // directive is in a code block: not expanded).
        let intro = book.join("content/intro.md");
        std::fs::write(
            &intro,
            read(&intro) + "\n<<agentx page=\"DeepSeek-V4.1\">>\n",
        )
        .unwrap();
        let opts = BuildOptions::default();
        let mut engine = Engine::open(&book).unwrap();
        let mut rebuild = |changes: &[Change]| {
            rebuild_like_fresh(&mut engine, &book, changes, &opts).chapters_expanded()
        };
        let edit = |rel: &str| {
            let path = book.join(rel);
            let text = read(&path);
            let edited = text.replacen(
                "\"--max-running-requests\": [\"",
                "\"--max-running-requests\": [\"1",
                1,
            );
            assert_ne!(text, edited, "{rel}");
            std::fs::write(&path, edited).unwrap();
            vec![Change::Data(vec![path])]
        };
        // Six model chapters, the introduction, and the authoring guide (its
        // escaped directive is expanded to the literal text).
        assert_eq!(rebuild(&[Change::Content]), 8);
        assert_eq!(rebuild(&[Change::Content]), 0);
        assert_eq!(rebuild(&edit("agentx/muse-spark-open.json")), 1);
        assert_eq!(rebuild(&edit("agentx/deepseek-v4.1.json")), 2);
        // A file no chapter shows.
        std::fs::write(
            book.join("agentx/extra.json"),
            read(&book.join("agentx/glm-5.2.json")).replace("\"GLM-5.2\"", "\"GLM-Extra\""),
        )
        .unwrap();
        assert_eq!(
            rebuild(&[Change::Data(vec![book.join("agentx/extra.json")])]),
            0
        );
        // A chapter's text: that chapter.
        let glm = book.join("content/models/glm-5.2.md");
        std::fs::write(&glm, read(&glm) + "\nOne more line.\n").unwrap();
        assert_eq!(rebuild(&[Change::Content]), 1);
        // A file the page moves to: the chapter follows it.
        std::fs::remove_file(book.join("agentx/muse-spark-open.json")).unwrap();
        let moved = book.join("agentx/muse.json");
        std::fs::write(&moved, read(&repo().join("agentx/muse-spark-open.json"))).unwrap();
        let gone = book.join("agentx/muse-spark-open.json");
        assert_eq!(rebuild(&[Change::Data(vec![gone, moved])]), 1);
        // `book.toml`: every chapter.
        assert_eq!(rebuild(&[Change::Config]), 8);
    }
}
