//! The standalone builder: `book.toml` + `SUMMARY.md` + chapters → HTML, with
//! the AgentX preprocessor run in-process, tera templates, syntect highlighting,
//! an embedded search index, and an atomic swap of the output directory.

pub(crate) mod book;
pub(crate) mod engine;
pub(crate) mod export;
pub(crate) mod highlight;
pub(crate) mod links;
pub(crate) mod markdown;
pub(crate) mod theme;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use mdbook_preprocessor::book::BookItem;
use serde::Serialize;

use self::book::BookDir;
use self::highlight::escape_html;
use self::markdown::{Heading, LinkMode, RenderedMarkdown};
use self::theme::Theme;
use crate::preprocessor::{self, Residency};

/// What the build writes besides pages.
pub(crate) const SEARCH_INDEX: &str = "search-index.js";

/// How [`build`] builds.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Output directory; default: `[build] build-dir` of `book.toml`.
    pub dest: Option<PathBuf>,
    /// A script added to every page (the live-reload client of `serve`).
    pub extra_script: Option<String>,
}

/// What a build produced.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// The output directory.
    pub out_dir: PathBuf,
    /// Pages written.
    pub pages: usize,
    /// Command sets in the book (each counted once).
    pub command_sets: usize,
    /// Files written.
    pub files: usize,
    /// Bytes written.
    pub bytes: u64,
    /// How long the build took.
    pub elapsed: Duration,
}

/// One chapter in reading order.
#[derive(Debug, Clone)]
pub(crate) struct PageSource {
    /// Path relative to the source dir (`models/x.md`).
    pub path: PathBuf,
    pub title: String,
    pub number: Option<String>,
    pub markdown: String,
}

/// A sidebar row.
#[derive(Debug, Clone, Serialize, Hash)]
pub(crate) struct SidebarItem {
    /// `chapter`, `draft`, `part`, `separator`, or `more` (a link to the
    /// page listing every chapter, in a shortened sidebar).
    pub kind: &'static str,
    pub title: String,
    pub href: String,
    pub number: Option<String>,
    pub depth: usize,
    pub active: bool,
    /// Index of the enclosing chapter's row.
    #[serde(skip)]
    pub parent: Option<usize>,
}

/// Above this many rows, each page's sidebar lists the top-level chapters and
/// only the branch of the current page. Why: every page carries its sidebar,
/// so listing all rows everywhere grows with pages × rows; a book 100× the
/// sample (3,400 pages) spent most of its build and memory there.
pub(crate) const SIDEBAR_FULL_LIMIT: usize = 300;

/// In such a book, at most this many top-level rows, around the current
/// page's, plus links to the page listing every chapter. Why: a book of 600
/// model chapters still grew with pages × top-level rows (a 100× book wrote
/// 896 MiB, 247 MiB of it sidebars).
pub(crate) const TOP_LEVEL_WINDOW: usize = 40;

/// The page listing every chapter, written when sidebars are shortened.
pub(crate) const ALL_CHAPTERS: &str = "all-chapters.html";

/// Whether pages show a shortened sidebar (and the book gets [`ALL_CHAPTERS`]).
fn sidebar_is_shortened(rows: &[SidebarItem]) -> bool {
    rows.len() > SIDEBAR_FULL_LIMIT
}

/// The sidebar rows shown on the page at row `current`.
fn sidebar_for(rows: &[SidebarItem], current: Option<usize>) -> Vec<SidebarItem> {
    if !sidebar_is_shortened(rows) {
        return rows
            .iter()
            .enumerate()
            .map(|(i, r)| SidebarItem {
                active: Some(i) == current,
                ..r.clone()
            })
            .collect();
    }
    let mut branch = Vec::new();
    let mut at = current;
    while let Some(i) = at {
        branch.push(i);
        at = rows[i].parent;
    }
    // The window of top-level rows: centred on the current page's top-level
    // ancestor, shifted to stay inside the list.
    let top: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].depth == 0).collect();
    let (lo, hi) = if top.len() <= TOP_LEVEL_WINDOW {
        (0, top.len())
    } else {
        let centre = branch
            .last()
            .and_then(|a| top.iter().position(|t| t == a))
            .unwrap_or(0);
        let lo = centre
            .saturating_sub(TOP_LEVEL_WINDOW / 2)
            .min(top.len() - TOP_LEVEL_WINDOW);
        (lo, lo + TOP_LEVEL_WINDOW)
    };
    let first = if lo == 0 { 0 } else { top[lo] };
    let end = top.get(hi).copied().unwrap_or(rows.len());
    let more = |n: usize| SidebarItem {
        kind: "more",
        title: format!("All chapters ({n} more)"),
        href: ALL_CHAPTERS.to_string(),
        number: None,
        depth: 0,
        active: false,
        parent: None,
    };
    let shown_rows = (first..end)
        .filter(|&i| rows[i].depth == 0 || rows[i].parent.is_some_and(|p| branch.contains(&p)));
    let mut shown: Vec<SidebarItem> = shown_rows
        .map(|i| SidebarItem {
            active: Some(i) == current,
            ..rows[i].clone()
        })
        .collect();
    // Every hidden chapter, at any depth, is counted once: before the window
    // or after its start. Part titles and separators are hidden too, not counted.
    let is_chapter = |r: &SidebarItem| matches!(r.kind, "chapter" | "draft");
    let before = rows[..first].iter().filter(|r| is_chapter(r)).count();
    let after = rows[first..].iter().filter(|r| is_chapter(r)).count()
        - shown.iter().filter(|r| is_chapter(r)).count();
    if before > 0 {
        shown.insert(0, more(before));
    }
    if after > 0 {
        shown.push(more(after));
    }
    shown
}

/// A loaded, expanded book ready to render.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub dir: BookDir,
    pub pages: Vec<PageSource>,
    pub sidebar: Vec<SidebarItem>,
    pub command_sets: usize,
    /// Every command set the book shows.
    pub manifest: Vec<crate::manifest::ManifestEntry>,
}

/// `x.md` → `x.html`
pub(crate) fn html_path(md: &Path) -> PathBuf {
    md.with_extension("html")
}

fn href(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// What a rebuild reuses (`serve`, `watch`): chapter bodies by a hash of
/// (chapter path, Markdown), so only chapters whose Markdown changed are
/// rendered again; and laid-out pages by a hash of (body, position, the
/// book's sidebar and chapter list), so only pages whose inputs changed go
/// through the templates again. The theme and `book.toml` are not in the
/// keys: clear the cache when they change.
#[derive(Default)]
pub(crate) struct RenderCache {
    bodies: HashMap<u64, Arc<RenderedMarkdown>>,
    pages: HashMap<u64, Vec<u8>>,
}

impl RenderCache {
    pub(crate) fn clear(&mut self) {
        self.bodies.clear();
        self.pages.clear();
    }

    /// Forgets laid-out pages only (the templates changed).
    pub(crate) fn clear_pages(&mut self) {
        self.pages.clear();
    }
}

fn body_key(path: &Path, markdown: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut h);
    markdown.hash(&mut h);
    h.finish()
}

/// Where rendered files go: memory (`serve`, `export`, `check`) or a
/// staging directory (`build`). Pages arrive from several threads.
pub(crate) trait FileSink: Sync {
    /// Stores `bytes` at `rel`, a path relative to the site root.
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()>;
}

/// Files kept in memory.
#[derive(Default)]
pub(crate) struct MemoryFiles(Mutex<Vec<(PathBuf, Vec<u8>)>>);

impl MemoryFiles {
    /// The files, by path: threads finish pages in any order.
    pub(crate) fn into_sorted(self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut v = self.0.into_inner().expect("files lock");
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }
}

impl FileSink for MemoryFiles {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()> {
        self.0
            .lock()
            .expect("files lock")
            .push((rel.to_path_buf(), bytes));
        Ok(())
    }
}

/// The output of one render.
pub(crate) struct Rendered {
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// Chapters whose body was rendered (not taken from the cache).
    pub rerendered: usize,
    /// Pages laid out with the templates (not taken from the cache).
    pub laid_out: usize,
}

/// How many bodies and pages a render made rather than took from a cache.
#[derive(Debug, Default)]
struct RenderCounts {
    bodies: AtomicUsize,
    pages: AtomicUsize,
}

impl Site {
    /// Reads the book and runs the preprocessor on it.
    pub(crate) fn load(root: &Path) -> Result<Site> {
        Site::expand(BookDir::open(root)?, &mut None)
    }

    /// Reads the chapters of an opened book and runs the preprocessor on them,
    /// with the data library `lib` (loaded on first use, then reused), keeping
    /// every command set for the manifest.
    pub(crate) fn expand(dir: BookDir, lib: &mut Option<preprocessor::Library>) -> Result<Site> {
        let mut manifest = Vec::new();
        let mut site = Site::expand_with(dir, lib, Residency::Resident, &mut |sets| {
            manifest.extend(sets);
            Ok(())
        })?;
        // A command set shown by two directives counts once.
        site.command_sets = manifest
            .iter()
            .map(|e| (&e.page, &e.id))
            .collect::<HashSet<_>>()
            .len();
        site.manifest = manifest;
        Ok(site)
    }

    /// Reads and expands the book, sending the command sets of each chapter
    /// to `sets` instead of keeping them (`manifest` stays empty and
    /// `command_sets` zero: the caller counts).
    pub(crate) fn expand_with(
        dir: BookDir,
        lib: &mut Option<preprocessor::Library>,
        residency: Residency,
        sets: &mut preprocessor::ManifestSink<'_>,
    ) -> Result<Site> {
        let root = dir.root.clone();
        let mut book = dir.load_book()?;
        // Directives left unexpanded were reported as they were met.
        preprocessor::expand_book(
            &mut book,
            &root,
            &dir.config.book.src,
            &dir.agentx,
            lib,
            residency,
            sets,
        )?;
        let mut pages = Vec::new();
        let mut sidebar = Vec::new();
        flatten(book.items, 0, &mut pages, &mut sidebar);
        if pages.is_empty() {
            bail!(
                "{}: no chapters; list at least one `[Title](file.md)`",
                dir.display_path(&dir.src_dir().join("SUMMARY.md"))
            );
        }
        Ok(Site {
            dir,
            pages,
            sidebar,
            command_sets: 0,
            manifest: Vec::new(),
        })
    }

    /// Every output file (path relative to the site root → bytes), with a fresh theme and cache.
    pub(crate) fn render_files(&self, opts: &BuildOptions) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        let theme = Theme::load(&self.dir.root)?;
        Ok(self
            .render_with(&theme, &mut RenderCache::default(), opts)?
            .files)
    }

    /// Every output file, in memory, reusing cached bodies and pages.
    pub(crate) fn render_with(
        &self,
        theme: &Theme,
        cache: &mut RenderCache,
        opts: &BuildOptions,
    ) -> Result<Rendered> {
        let markdown = self
            .pages
            .iter()
            .map(|p| Cow::Borrowed(p.markdown.as_str()))
            .collect();
        let files = MemoryFiles::default();
        let shared = Mutex::new(std::mem::take(cache));
        let counts = self.render_into(markdown, theme, Some(&shared), opts, &files);
        *cache = shared.into_inner().expect("render cache lock");
        let counts = counts?;
        // Written from the entries in place: a rebuild should not copy every set's text.
        let mut manifest = crate::manifest::ManifestWriter::new(Vec::new())?;
        for e in &self.manifest {
            manifest.push(e)?;
        }
        files.put(Path::new(crate::manifest::MANIFEST), manifest.finish()?.0)?;
        Ok(Rendered {
            files: files.into_sorted(),
            rerendered: counts.bodies.into_inner(),
            laid_out: counts.pages.into_inner(),
        })
    }

    /// Moves every chapter's Markdown out, for [`Site::render_into`] to free
    /// page by page.
    fn take_markdown(&mut self) -> Vec<Cow<'static, str>> {
        self.pages
            .iter_mut()
            .map(|p| Cow::Owned(std::mem::take(&mut p.markdown)))
            .collect()
    }

    /// Renders every page (from `markdown`, one per page) and every other
    /// file of the site except the manifest into `out`; returns how many
    /// chapter bodies and pages were made rather than taken from `cache`.
    ///
    /// Pages render on all cores, each from Markdown to its file in one
    /// step, so with owned Markdown and no cache a page's text, body and HTML
    /// are freed as soon as it is written.
    fn render_into(
        &self,
        markdown: Vec<Cow<'_, str>>,
        theme: &Theme,
        cache: Option<&Mutex<RenderCache>>,
        opts: &BuildOptions,
        out: &dyn FileSink,
    ) -> Result<RenderCounts> {
        assert_eq!(markdown.len(), self.pages.len(), "one Markdown per page");
        // Cache keys of each page's body and laid-out page (none without a cache).
        let (keys, page_keys): (Vec<u64>, Vec<u64>) = match cache {
            Some(_) => {
                let layout = self.layout_key(opts);
                self.pages
                    .iter()
                    .zip(&markdown)
                    .enumerate()
                    .map(|(i, (p, md))| {
                        let body = body_key(&p.path, md);
                        let mut h = std::collections::hash_map::DefaultHasher::new();
                        (layout, i, body).hash(&mut h);
                        (body, h.finish())
                    })
                    .unzip()
            }
            None => (Vec::new(), Vec::new()),
        };
        // The first chapter doubles as the front page, as in mdBook.
        let has_index = self.pages.iter().any(|p| p.path == Path::new("index.md"));
        let front_is_first = !has_index && self.pages[0].path.parent() == Some(Path::new(""));
        let counts = RenderCounts::default();
        fn lock(c: &Mutex<RenderCache>) -> std::sync::MutexGuard<'_, RenderCache> {
            c.lock().expect("render cache lock")
        }
        let index = crate::util::parallel::map_owned(markdown, |i, md| {
            let page = &self.pages[i];
            let cached = cache.and_then(|c| lock(c).bodies.get(&keys[i]).cloned());
            let body = match cached {
                Some(body) => body,
                None => {
                    counts.bodies.fetch_add(1, Ordering::Relaxed);
                    let body = Arc::new(markdown::render(&md, &page.path, &LinkMode::Pages));
                    if let Some(c) = cache {
                        lock(c).bodies.insert(keys[i], body.clone());
                    }
                    body
                }
            };
            drop(md);
            let cached = cache.and_then(|c| lock(c).pages.get(&page_keys[i]).cloned());
            let html = match cached {
                Some(html) => html,
                None => {
                    counts.pages.fetch_add(1, Ordering::Relaxed);
                    let html = self.render_page(i, &body, theme, opts)?.into_bytes();
                    if let Some(c) = cache {
                        lock(c).pages.insert(page_keys[i], html.clone());
                    }
                    html
                }
            };
            if i == 0 && front_is_first {
                out.put(Path::new("index.html"), html.clone())?;
            }
            out.put(&html_path(&page.path), html)?;
            Ok(search_entries(page, &body.headings))
        })?;
        if let Some(c) = cache {
            let used: HashSet<u64> = keys.iter().copied().collect();
            let used_pages: HashSet<u64> = page_keys.iter().copied().collect();
            let mut c = lock(c);
            c.bodies.retain(|k, _| used.contains(k));
            c.pages.retain(|k, _| used_pages.contains(k));
        }
        if !has_index && !front_is_first {
            let target = href(&html_path(&self.pages[0].path));
            out.put(Path::new("index.html"), redirect_html(&target).into_bytes())?;
        }
        out.put(
            Path::new("404.html"),
            self.not_found(theme, opts)?.into_bytes(),
        )?;
        if sidebar_is_shortened(&self.sidebar) {
            if let Some(p) = self
                .pages
                .iter()
                .find(|p| html_path(&p.path) == Path::new(ALL_CHAPTERS))
            {
                bail!(
                    "chapter {} would be replaced by the generated list of all chapters \
                     ({ALL_CHAPTERS}, written for books with more than {SIDEBAR_FULL_LIMIT} \
                     sidebar rows); rename the chapter",
                    p.path.display()
                );
            }
            out.put(
                Path::new(ALL_CHAPTERS),
                self.all_chapters(theme, opts)?.into_bytes(),
            )?;
        }
        let index: Vec<SearchEntry> = index.into_iter().flatten().collect();
        out.put(
            Path::new(SEARCH_INDEX),
            format!(
                "window.AGENTX_SEARCH_INDEX = {};\n",
                serde_json::to_string(&index)?
            )
            .into_bytes(),
        )?;
        for (name, bytes) in theme.assets() {
            out.put(&Path::new("theme").join(name), bytes.to_vec())?;
        }
        for extra in self
            .dir
            .config
            .output
            .html
            .additional_css
            .iter()
            .chain(&self.dir.config.output.html.additional_js)
        {
            let p = self.dir.root.join(extra);
            let bytes = std::fs::read(&p).with_context(|| {
                format!("[output.html] names {}, which cannot be read", p.display())
            })?;
            out.put(extra, bytes)?;
        }
        // A file in the source dir never replaces a generated one (the
        // manifest, a page, a theme asset): it would stale the site silently.
        let mut generated: HashSet<PathBuf> =
            self.pages.iter().map(|p| html_path(&p.path)).collect();
        generated.extend(
            [
                "index.html",
                "404.html",
                ALL_CHAPTERS,
                SEARCH_INDEX,
                crate::manifest::MANIFEST,
            ]
            .map(PathBuf::from),
        );
        generated.extend(
            theme
                .assets()
                .map(|(name, _)| Path::new("theme").join(name)),
        );
        let html = &self.dir.config.output.html;
        generated.extend(
            html.additional_css
                .iter()
                .chain(&html.additional_js)
                .cloned(),
        );
        for (rel, bytes) in self.static_files()? {
            if generated.contains(&rel) {
                eprintln!(
                    "warning: {} is not copied: the build generates {}; rename it",
                    self.dir.display_path(&self.dir.src_dir().join(&rel)),
                    rel.display()
                );
                continue;
            }
            out.put(&rel, bytes)?;
        }
        Ok(counts)
    }

    /// A hash of everything a page's layout reads besides its own body: the
    /// sidebar, every chapter's path, title and number (prev/next links) and
    /// the live-reload script.
    fn layout_key(&self, opts: &BuildOptions) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.sidebar.hash(&mut h);
        for p in &self.pages {
            (&p.path, &p.title, &p.number).hash(&mut h);
        }
        opts.extra_script.hash(&mut h);
        h.finish()
    }

    fn stylesheets(&self) -> Vec<String> {
        let mut v = vec![
            "theme/book.css".to_string(),
            "theme/highlight.css".to_string(),
        ];
        v.extend(
            self.dir
                .config
                .output
                .html
                .additional_css
                .iter()
                .map(|p| href(p)),
        );
        v
    }

    fn scripts(&self) -> Vec<String> {
        let mut v = vec![SEARCH_INDEX.to_string(), "theme/book.js".to_string()];
        v.extend(
            self.dir
                .config
                .output
                .html
                .additional_js
                .iter()
                .map(|p| href(p)),
        );
        v
    }

    fn render_page(
        &self,
        i: usize,
        body: &RenderedMarkdown,
        theme: &Theme,
        opts: &BuildOptions,
    ) -> Result<String> {
        let page = &self.pages[i];
        let depth = page.path.components().count().saturating_sub(1);
        let root = "../".repeat(depth);
        let current = href(&html_path(&page.path));
        let row = self
            .sidebar
            .iter()
            .position(|s| s.kind == "chapter" && s.href == current);
        let sidebar = sidebar_for(&self.sidebar, row);
        let link = |p: &PageSource| serde_json::json!({"title": p.title, "href": href(&html_path(&p.path))});
        let toc: Vec<&Heading> = body
            .headings
            .iter()
            .filter(|h| (2..=3).contains(&h.level) && !h.is_set)
            .collect();
        let title = body
            .headings
            .iter()
            .find(|h| h.level == 1)
            .map(|h| h.text.clone())
            .unwrap_or_else(|| page.title.clone());
        let mut ctx = self.base_context(&root);
        ctx.insert(
            "page",
            &serde_json::json!({
                "title": title,
                "content": body.html,
                "path": current,
                "number": page.number,
            }),
        );
        ctx.insert("sidebar", &sidebar);
        ctx.insert("toc", &toc);
        ctx.insert("prev", &i.checked_sub(1).map(|j| link(&self.pages[j])));
        ctx.insert("next", &self.pages.get(i + 1).map(link));
        ctx.insert("inline_js", &opts.extra_script);
        theme
            .render("page.html", &ctx)
            .with_context(|| format!("rendering {}", page.path.display()))
    }

    fn base_context(&self, root: &str) -> tera::Context {
        let mut ctx = tera::Context::new();
        ctx.insert(
            "book",
            &serde_json::json!({
                "title": self.dir.title(),
                "description": self.dir.config.book.description,
                "language": self.dir.config.book.language.clone().unwrap_or_else(|| "en".into()),
                "authors": self.dir.config.book.authors,
            }),
        );
        ctx.insert("root", root);
        ctx.insert("favicon", &format!("{root}theme/favicon.svg"));
        ctx.insert("home", "index.html");
        ctx.insert(
            "show_numbers",
            &!self.dir.config.output.html.no_section_label,
        );
        ctx.insert("stylesheets", &self.stylesheets());
        ctx.insert("scripts", &self.scripts());
        ctx.insert("inline_css", &Option::<String>::None);
        ctx.insert("inline_js", &Option::<String>::None);
        ctx.insert("toc", &Vec::<Heading>::new());
        ctx.insert("prev", &Option::<()>::None);
        ctx.insert("next", &Option::<()>::None);
        ctx
    }

    fn not_found(&self, theme: &Theme, opts: &BuildOptions) -> Result<String> {
        // Served for any missing path, so links are absolute from the site root.
        let mut ctx = self.base_context("/");
        ctx.insert("page", &serde_json::json!({
            "title": "Page not found",
            "content": "<h1 id=\"page-not-found\">Page not found</h1>\n<p>This page does not exist. Use the chapter list or the search box.</p>\n",
            "path": "404.html",
            "number": null,
        }));
        ctx.insert("sidebar", &sidebar_for(&self.sidebar, None));
        ctx.insert("inline_js", &opts.extra_script);
        theme
            .render("page.html", &ctx)
            .context("rendering 404.html")
    }

    /// The page listing every chapter, for books whose sidebars are shortened.
    fn all_chapters(&self, theme: &Theme, opts: &BuildOptions) -> Result<String> {
        let mut content = String::from(
            "<h1 id=\"all-chapters\">All chapters</h1>\n<ol class=\"chapters all-chapters\">\n",
        );
        let show_numbers = !self.dir.config.output.html.no_section_label;
        for r in &self.sidebar {
            let number = match (&r.number, show_numbers) {
                (Some(n), true) => format!("<span class=\"number\">{}</span> ", escape_html(n)),
                _ => String::new(),
            };
            let title = escape_html(&r.title);
            content.push_str(&match r.kind {
                "part" => format!("<li class=\"part-title\">{title}</li>\n"),
                "separator" => "<li class=\"separator\" aria-hidden=\"true\"></li>\n".into(),
                "draft" => format!(
                    "<li class=\"chapter-item depth-{} draft\">{number}{title}</li>\n",
                    r.depth
                ),
                _ => format!(
                    "<li class=\"chapter-item depth-{}\"><a href=\"{}\">{number}{title}</a></li>\n",
                    r.depth,
                    escape_html(&r.href)
                ),
            });
        }
        content.push_str("</ol>\n");
        let mut ctx = self.base_context("");
        ctx.insert(
            "page",
            &serde_json::json!({
                "title": "All chapters",
                "content": content,
                "path": ALL_CHAPTERS,
                "number": null,
            }),
        );
        ctx.insert("sidebar", &sidebar_for(&self.sidebar, None));
        ctx.insert("inline_js", &opts.extra_script);
        theme
            .render("page.html", &ctx)
            .with_context(|| format!("rendering {ALL_CHAPTERS}"))
    }

    /// Non-Markdown files of the source dir (images…), except AgentX data.
    fn static_files(&self) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        let src = self.dir.src_dir();
        let data_dir = self.dir.root.join(&self.dir.agentx.data_dir);
        let mut out = Vec::new();
        let mut stack = vec![src.clone()];
        while let Some(d) = stack.pop() {
            for entry in
                std::fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))?
            {
                let p = entry?.path();
                if p.starts_with(&data_dir) {
                    continue;
                }
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_none_or(|e| e != "md") {
                    let rel = p.strip_prefix(&src).expect("under src").to_path_buf();
                    out.push((rel, std::fs::read(&p)?));
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

fn redirect_html(target: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0; url={target}\"><title>Redirect</title></head><body><a href=\"{target}\">Continue</a></body></html>\n"
    )
}

#[derive(Serialize)]
struct SearchEntry {
    /// Text shown.
    t: String,
    /// Extra text matched (ids).
    s: String,
    /// URL relative to the site root.
    u: String,
    /// `page`, `heading` or `set`.
    k: &'static str,
}

fn search_entries(page: &PageSource, headings: &[Heading]) -> Vec<SearchEntry> {
    let url = href(&html_path(&page.path));
    let mut v = vec![SearchEntry {
        t: page.title.clone(),
        s: String::new(),
        u: url.clone(),
        k: "page",
    }];
    for h in headings.iter().filter(|h| h.level > 1) {
        v.push(SearchEntry {
            t: if h.is_set {
                format!("{} — {}", h.text, page.title)
            } else {
                h.text.clone()
            },
            s: h.id.clone(),
            u: format!("{url}#{}", h.id),
            k: if h.is_set { "set" } else { "heading" },
        });
    }
    v
}

/// Chapters in reading order and the sidebar rows; chapter texts are moved, not copied.
fn flatten(
    items: Vec<BookItem>,
    depth: usize,
    pages: &mut Vec<PageSource>,
    sidebar: &mut Vec<SidebarItem>,
) {
    flatten_under(items, depth, None, pages, sidebar)
}

fn flatten_under(
    items: Vec<BookItem>,
    depth: usize,
    parent: Option<usize>,
    pages: &mut Vec<PageSource>,
    sidebar: &mut Vec<SidebarItem>,
) {
    for item in items {
        match item {
            BookItem::Separator => sidebar.push(SidebarItem {
                kind: "separator",
                title: String::new(),
                href: String::new(),
                number: None,
                depth,
                active: false,
                parent,
            }),
            BookItem::PartTitle(t) => sidebar.push(SidebarItem {
                kind: "part",
                title: t,
                href: String::new(),
                number: None,
                depth,
                active: false,
                parent,
            }),
            BookItem::Chapter(mut ch) => {
                let number = ch.number.as_ref().map(|n| n.to_string());
                match &ch.path {
                    Some(path) => {
                        sidebar.push(SidebarItem {
                            kind: "chapter",
                            title: ch.name.clone(),
                            href: href(&html_path(path)),
                            number: number.clone(),
                            depth,
                            active: false,
                            parent,
                        });
                        pages.push(PageSource {
                            path: path.clone(),
                            title: ch.name.clone(),
                            number,
                            markdown: std::mem::take(&mut ch.content),
                        });
                    }
                    None => sidebar.push(SidebarItem {
                        kind: "draft",
                        title: ch.name.clone(),
                        href: String::new(),
                        number,
                        depth,
                        active: false,
                        parent,
                    }),
                }
                let row = sidebar.len() - 1;
                flatten_under(
                    std::mem::take(&mut ch.sub_items),
                    depth + 1,
                    Some(row),
                    pages,
                    sidebar,
                );
            }
        }
    }
}

/// Builds the book in `root` and swaps the result into the output directory.
///
/// Pages stream to a staging directory as they are rendered and the manifest
/// as chapters are expanded, and data files are decoded one directive at a
/// time: memory holds the chapters' Markdown, not the whole site.
pub fn build(root: &Path, opts: &BuildOptions) -> Result<BuildReport> {
    let (report, _) = build_inspected(root, opts, &|_, _| Vec::new())?;
    Ok(report)
}

/// Problems `build_inspected` finds in one output file (path relative to the site root).
pub(crate) type Inspect = dyn Fn(&Path, &[u8]) -> Vec<String> + Sync;

/// [`build`], passing every rendered file through `inspect`: when it reports
/// problems, the new site is not swapped in and the problems are returned.
pub(crate) fn build_inspected(
    root: &Path,
    opts: &BuildOptions,
    inspect: &Inspect,
) -> Result<(BuildReport, Vec<String>)> {
    let start = Instant::now();
    let dir = BookDir::open(root)?;
    let out_dir = opts
        .dest
        .clone()
        .unwrap_or_else(|| root.join(&dir.config.build.build_dir));
    check_output_dir(root, &dir.src_dir(), &out_dir)?;
    // Templates first: a template error should not wait for the expansion.
    let theme = Theme::load(&dir.root)?;
    let stage = Staging::create(&out_dir)?;
    let manifest_path = stage.path().join(crate::manifest::MANIFEST);
    let file = std::fs::File::create(&manifest_path)
        .with_context(|| format!("cannot write {}", manifest_path.display()))?;
    let mut manifest = crate::manifest::ManifestWriter::new(std::io::BufWriter::new(file))?;
    let mut site = Site::expand_with(dir, &mut None, Residency::OnDemand, &mut |sets| {
        sets.iter().try_for_each(|e| manifest.push(e))
    })?;
    let (_, command_sets) = manifest.finish()?;
    let manifest_len = std::fs::metadata(&manifest_path)
        .with_context(|| format!("cannot read {}", manifest_path.display()))?
        .len();
    stage.count_file(manifest_len);
    let markdown = site.take_markdown();
    let inspected = Inspected {
        inner: &stage,
        inspect,
        problems: Mutex::new(Vec::new()),
    };
    site.render_into(markdown, &theme, None, opts, &inspected)?;
    let problems = inspected.problems.into_inner().expect("problems lock");
    let (files, bytes) = if problems.is_empty() {
        stage.commit()?
    } else {
        // Dropping the stage removes it; the old site stays.
        (0, 0)
    };
    let report = BuildReport {
        out_dir,
        pages: site.pages.len(),
        command_sets,
        files,
        bytes,
        elapsed: start.elapsed(),
    };
    Ok((report, problems))
}

/// A sink that checks each file before passing it on.
struct Inspected<'a> {
    inner: &'a dyn FileSink,
    inspect: &'a Inspect,
    problems: Mutex<Vec<String>>,
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

/// The manifest of the book in `root`: its chapters expanded, nothing rendered.
pub(crate) fn book_manifest(root: &Path) -> Result<crate::manifest::Manifest> {
    let mut entries = Vec::new();
    Site::expand_with(
        BookDir::open(root)?,
        &mut None,
        Residency::OnDemand,
        &mut |sets| {
            entries.extend(sets);
            Ok(())
        },
    )?;
    Ok(crate::manifest::Manifest::new(entries))
}

/// Refuses output directories that would replace the book itself.
fn check_output_dir(root: &Path, src: &Path, out: &Path) -> Result<()> {
    let abs = |p: &Path| std::path::absolute(p).map(|p| crate::util::fs::normalize(&p));
    let (root, src, out) = (abs(root)?, abs(src)?, abs(out)?);
    if out == root || root.starts_with(&out) || src.starts_with(&out) || out.starts_with(&src) {
        bail!(
            "output directory {} would overwrite the book or its sources; choose another with -d",
            out.display()
        );
    }
    Ok(())
}

/// Writes every file into a fresh directory beside `out`, then swaps it in, so
/// a failed build never leaves a half-written site.
pub(crate) fn write_atomically(out: &Path, files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    let stage = Staging::create(out)?;
    for (rel, bytes) in files {
        stage.write(rel, bytes)?;
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

#[cfg(test)]
mod tests;

#[cfg(test)]
mod sidebar_tests {
    use super::*;

    fn row(depth: usize, parent: Option<usize>, href: &str) -> SidebarItem {
        SidebarItem {
            kind: "chapter",
            title: href.into(),
            href: href.into(),
            number: None,
            depth,
            active: false,
            parent,
        }
    }

    #[test]
    fn large_sidebars_show_only_the_current_branch() {
        // Two top-level chapters, each with many children.
        let mut rows = vec![row(0, None, "a.html")];
        for i in 0..200 {
            rows.push(row(1, Some(0), &format!("a/{i}.html")));
        }
        let b = rows.len();
        rows.push(row(0, None, "b.html"));
        for i in 0..200 {
            rows.push(row(1, Some(b), &format!("b/{i}.html")));
        }
        let shown = sidebar_for(&rows, Some(b + 5));
        let hrefs: Vec<&str> = shown.iter().map(|r| r.href.as_str()).collect();
        // Both top-level rows, b's children, and a link for a's 200 children.
        assert_eq!(hrefs.len(), 2 + 200 + 1);
        assert_eq!(shown.last().unwrap().title, "All chapters (200 more)");
        assert!(hrefs.contains(&"a.html") && hrefs.contains(&"b/199.html"));
        assert!(!hrefs.contains(&"a/0.html"));
        assert!(shown.iter().any(|r| r.active && r.href == "b/4.html"));
        // Small books list every row.
        assert_eq!(sidebar_for(&rows[..50], Some(3)).len(), 50);
    }

    /// `top` top-level chapters (`{t}.html`) with `children` children each (`{t}/{c}.html`).
    fn tree(top: usize, children: usize) -> Vec<SidebarItem> {
        let mut rows = Vec::new();
        for t in 0..top {
            let parent = rows.len();
            rows.push(row(0, None, &format!("{t}.html")));
            for c in 0..children {
                rows.push(row(1, Some(parent), &format!("{t}/{c}.html")));
            }
        }
        rows
    }

    #[test]
    fn many_top_level_chapters_show_a_window_and_links_to_all_chapters() {
        // 100 top-level chapters with 3 children each: 400 rows.
        let rows = tree(100, 3);
        let at = |t: usize, c: usize| rows.iter().position(|r| r.href == format!("{t}/{c}.html"));
        let hrefs = |shown: &[SidebarItem]| -> Vec<String> {
            shown.iter().map(|r| r.href.clone()).collect()
        };
        // In the middle: 20 top-level rows before the current one's, 19 after;
        // 30 model chapters and their 90 children before the window.
        let shown = sidebar_for(&rows, at(50, 1));
        let h = hrefs(&shown);
        assert_eq!(shown.len(), 1 + TOP_LEVEL_WINDOW + 3 + 1);
        assert_eq!(
            (shown[0].kind, shown[0].title.as_str()),
            ("more", "All chapters (120 more)")
        );
        assert_eq!(h[0], ALL_CHAPTERS);
        assert_eq!(h[1], "30.html");
        assert_eq!(h[h.len() - 2], "69.html");
        assert_eq!(shown.last().unwrap().title, "All chapters (237 more)");
        assert!(h.contains(&"50/2.html".to_string()) && !h.contains(&"49/0.html".to_string()));
        assert!(shown.iter().any(|r| r.active && r.href == "50/1.html"));
        // At the start and the end the window stays full.
        let first = sidebar_for(&rows, at(0, 0));
        assert_eq!(first[0].href, "0.html");
        assert_eq!(first.last().unwrap().title, "All chapters (357 more)");
        assert_eq!(first.len(), TOP_LEVEL_WINDOW + 3 + 1);
        let last = sidebar_for(&rows, at(99, 2));
        assert_eq!(last[0].title, "All chapters (240 more)");
        assert_eq!(last[1].href, "60.html");
        assert_eq!(last[last.len() - 2].href, "99/2.html");
        assert_eq!(last.last().unwrap().title, "All chapters (117 more)");
        // Pages with no row (404) show the window at the start.
        assert_eq!(hrefs(&sidebar_for(&rows, None))[..2], ["0.html", "1.html"]);
        // Hidden part titles are not counted as chapters.
        let mut with_part = vec![SidebarItem {
            kind: "part",
            ..row(0, None, "")
        }];
        with_part.extend(rows.iter().map(|r| SidebarItem {
            parent: r.parent.map(|p| p + 1),
            ..r.clone()
        }));
        let shown = sidebar_for(&with_part, at(50, 1).map(|i| i + 1));
        assert_eq!(shown[0].title, "All chapters (120 more)");
        assert_eq!(shown[1].href, "30.html");
        // Few top-level chapters with many children: all top-level rows show,
        // and the other chapters' children are reached through the link.
        let wide = tree(30, 20);
        let shown = sidebar_for(&wide, Some(5 * 21 + 1));
        assert_eq!(shown.len(), 30 + 20 + 1);
        assert_eq!(shown.last().unwrap().title, "All chapters (580 more)");
    }
}
