//! The standalone builder: `book.toml` + `SUMMARY.md` + chapters → HTML, with
//! the AgentX preprocessor run in-process, tera templates, syntect highlighting,
//! an embedded search index, and an atomic swap of the output directory.

pub mod book;
pub mod engine;
pub mod export;
pub mod highlight;
pub mod links;
pub mod markdown;
pub mod theme;

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use mdbook_preprocessor::book::BookItem;
use serde::Serialize;

use self::book::BookDir;
use self::markdown::{Heading, LinkMode, RenderedMarkdown};
use self::theme::Theme;
use crate::preprocess;

/// Maps items on all cores, keeping order; the first error wins.
fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(items.len());
    if workers <= 1 {
        return items.iter().map(&f).collect();
    }
    // Interleaved rather than chunked: neighbouring chapters differ a lot in
    // size (a model page, then its heavy deployment pages).
    let f = &f;
    let results: Vec<Vec<(usize, Result<R>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                s.spawn(move || {
                    (w..items.len())
                        .step_by(workers)
                        .map(|i| (i, f(&items[i])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("render threads do not panic"))
            .collect()
    });
    let mut slots: Vec<Option<Result<R>>> = (0..items.len()).map(|_| None).collect();
    for (i, r) in results.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots
        .into_iter()
        .map(|r| r.expect("every item mapped"))
        .collect()
}

/// What the build writes besides pages.
pub const SEARCH_INDEX: &str = "search-index.js";

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
    pub out_dir: PathBuf,
    pub pages: usize,
    pub command_sets: usize,
    pub files: usize,
    pub bytes: u64,
    pub elapsed: Duration,
    /// Directives left unexpanded (`on-error = "warn"`).
    pub warnings: Vec<String>,
}

/// One chapter in reading order.
#[derive(Debug, Clone)]
pub struct PageSource {
    /// Path relative to the source dir (`models/x.md`).
    pub path: PathBuf,
    pub title: String,
    pub number: Option<String>,
    pub depth: usize,
    pub markdown: String,
}

/// A sidebar row.
#[derive(Debug, Clone, Serialize)]
pub struct SidebarItem {
    /// `chapter`, `draft`, `part` or `separator`.
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
pub const SIDEBAR_FULL_LIMIT: usize = 300;

/// The sidebar rows shown on the page at row `current`.
fn sidebar_for(rows: &[SidebarItem], current: Option<usize>) -> Vec<SidebarItem> {
    let mut branch = Vec::new();
    let mut at = current;
    while let Some(i) = at {
        branch.push(i);
        at = rows[i].parent;
    }
    rows.iter()
        .enumerate()
        .filter(|(_, r)| {
            rows.len() <= SIDEBAR_FULL_LIMIT
                || r.depth == 0
                || r.parent.is_some_and(|p| branch.contains(&p))
        })
        .map(|(i, r)| SidebarItem {
            active: Some(i) == current,
            ..r.clone()
        })
        .collect()
}

/// A loaded, expanded book ready to render.
#[derive(Debug, Clone)]
pub struct Site {
    pub dir: BookDir,
    pub pages: Vec<PageSource>,
    pub sidebar: Vec<SidebarItem>,
    pub command_sets: usize,
    pub warnings: Vec<String>,
    /// Every command set the book shows.
    pub manifest: Vec<crate::diff::ManifestEntry>,
}

/// `x.md` → `x.html`
pub fn html_path(md: &Path) -> PathBuf {
    md.with_extension("html")
}

fn href(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// Rendered chapter bodies by a hash of (chapter path, Markdown): a rebuild
/// re-renders only chapters whose Markdown changed.
pub type BodyCache = HashMap<u64, Arc<RenderedMarkdown>>;

fn body_key(page: &PageSource) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    page.path.hash(&mut h);
    page.markdown.hash(&mut h);
    h.finish()
}

/// The output of one render.
pub struct Rendered {
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// Chapters whose body was rendered (not taken from the cache).
    pub rerendered: usize,
}

impl Site {
    /// Reads the book and runs the preprocessor on it.
    pub fn load(root: &Path) -> Result<Site> {
        Site::expand(BookDir::open(root)?, &mut None)
    }

    /// Reads the chapters of an opened book and runs the preprocessor on them,
    /// with the data library `lib` (loaded on first use, then reused).
    pub fn expand(dir: BookDir, lib: &mut Option<preprocess::Library>) -> Result<Site> {
        let root = dir.root.clone();
        let mut book = dir.load_book()?;
        let expansion =
            preprocess::expand_book(&mut book, &root, &dir.config.book.src, &dir.agentx, lib)?;
        // A command set shown by two directives counts once.
        let command_sets = expansion
            .manifest
            .iter()
            .map(|e| (&e.page, &e.id))
            .collect::<HashSet<_>>()
            .len();
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
            command_sets,
            warnings: expansion.warnings,
            manifest: expansion.manifest,
        })
    }

    /// Every output file (path relative to the site root → bytes), with a fresh theme and cache.
    pub fn render_files(&self, opts: &BuildOptions) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        let theme = Theme::load(&self.dir.root)?;
        Ok(self.render_with(&theme, &mut BodyCache::new(), opts)?.files)
    }

    /// Every output file, reusing cached chapter bodies.
    pub fn render_with(
        &self,
        theme: &Theme,
        bodies: &mut BodyCache,
        opts: &BuildOptions,
    ) -> Result<Rendered> {
        let keys: Vec<u64> = self.pages.iter().map(body_key).collect();
        let missing: Vec<usize> = (0..self.pages.len())
            .filter(|i| !bodies.contains_key(&keys[*i]))
            .collect();
        let fresh = parallel_map(&missing, |&i| {
            let page = &self.pages[i];
            Ok(Arc::new(markdown::render(
                &page.markdown,
                &page.path,
                &LinkMode::Pages,
            )))
        })?;
        for (i, body) in missing.iter().zip(fresh) {
            bodies.insert(keys[*i], body);
        }
        let used: HashSet<u64> = keys.iter().copied().collect();
        bodies.retain(|k, _| used.contains(k));
        let indices: Vec<usize> = (0..self.pages.len()).collect();
        let rendered = parallel_map(&indices, |&i| {
            self.render_page(i, &bodies[&keys[i]], theme, opts)
        })?;
        let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        let mut index = Vec::new();
        let mut front: Option<Vec<u8>> = None;
        for (i, (page, html)) in self.pages.iter().zip(rendered).enumerate() {
            index.extend(search_entries(page, &bodies[&keys[i]].headings));
            let bytes = html.into_bytes();
            if i == 0 {
                front = Some(bytes.clone());
            }
            files.push((html_path(&page.path), bytes));
        }
        // The first chapter doubles as the front page, as in mdBook.
        if !self.pages.iter().any(|p| p.path == Path::new("index.md")) {
            if self.pages[0].path.parent() == Some(Path::new("")) {
                files.push((PathBuf::from("index.html"), front.unwrap_or_default()));
            } else {
                let target = href(&html_path(&self.pages[0].path));
                files.push((
                    PathBuf::from("index.html"),
                    redirect_html(&target).into_bytes(),
                ));
            }
        }
        files.push((
            PathBuf::from("404.html"),
            self.not_found(theme, opts)?.into_bytes(),
        ));
        files.push((
            PathBuf::from(SEARCH_INDEX),
            format!(
                "window.AGENTX_SEARCH_INDEX = {};\n",
                serde_json::to_string(&index)?
            )
            .into_bytes(),
        ));
        for (name, bytes) in theme.assets() {
            files.push((PathBuf::from("theme").join(name), bytes.to_vec()));
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
            files.push((extra.clone(), bytes));
        }
        files.extend(self.static_files()?);
        files.push((
            PathBuf::from(crate::diff::MANIFEST),
            self.manifest().to_json().into_bytes(),
        ));
        Ok(Rendered {
            files,
            rerendered: missing.len(),
        })
    }

    /// The manifest of every command set the book shows.
    pub fn manifest(&self) -> crate::diff::Manifest {
        crate::diff::Manifest::new(self.manifest.clone())
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
        ctx.insert("sidebar", &self.sidebar);
        ctx.insert("inline_js", &opts.extra_script);
        theme
            .render("page.html", &ctx)
            .context("rendering 404.html")
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
                            depth,
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
pub fn build(root: &Path, opts: &BuildOptions) -> Result<BuildReport> {
    let start = Instant::now();
    let dir = BookDir::open(root)?;
    let out_dir = opts
        .dest
        .clone()
        .unwrap_or_else(|| root.join(&dir.config.build.build_dir));
    check_output_dir(root, &dir.src_dir(), &out_dir)?;
    let site = Site::expand(dir, &mut None)?;
    let files = site.render_files(opts)?;
    let bytes = files.iter().map(|(_, b)| b.len() as u64).sum();
    let count = files.len();
    write_atomically(&out_dir, &files)?;
    Ok(BuildReport {
        out_dir,
        pages: site.pages.len(),
        command_sets: site.command_sets,
        files: count,
        bytes,
        elapsed: start.elapsed(),
        warnings: site.warnings,
    })
}

/// Refuses output directories that would replace the book itself.
fn check_output_dir(root: &Path, src: &Path, out: &Path) -> Result<()> {
    let abs = |p: &Path| std::path::absolute(p).map(|p| markdown::normalize(&p));
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
pub fn write_atomically(out: &Path, files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
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
    // Leftovers of a build that was interrupted (Ctrl-C during `watch`).
    if let Ok(entries) = std::fs::read_dir(parent) {
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.starts_with(&format!(".{name}.tmp-")) || n.starts_with(&format!(".{name}.old-")) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let write = || -> Result<()> {
        let mut dirs: HashMap<PathBuf, ()> = HashMap::new();
        for (rel, bytes) in files {
            let p = tmp.join(rel);
            if let Some(d) = p.parent()
                && dirs.insert(d.to_path_buf(), ()).is_none()
            {
                std::fs::create_dir_all(d)
                    .with_context(|| format!("cannot create {}", d.display()))?;
            }
            std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
        }
        Ok(())
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    if out.exists() {
        let old = parent.join(format!(".{name}.old-{}", std::process::id()));
        if old.exists() {
            std::fs::remove_dir_all(&old)?;
        }
        std::fs::rename(&out, &old)
            .with_context(|| format!("cannot move {} aside", out.display()))?;
        if let Err(e) = std::fs::rename(&tmp, &out) {
            let _ = std::fs::rename(&old, &out);
            return Err(e)
                .with_context(|| format!("cannot move the new site to {}", out.display()));
        }
        std::fs::remove_dir_all(&old)
            .with_context(|| format!("cannot remove {}", old.display()))?;
    } else {
        std::fs::rename(&tmp, &out)
            .with_context(|| format!("cannot move the new site to {}", out.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
        assert_eq!(hrefs.len(), 2 + 200);
        assert!(hrefs.contains(&"a.html") && hrefs.contains(&"b/199.html"));
        assert!(!hrefs.contains(&"a/0.html"));
        assert!(shown.iter().any(|r| r.active && r.href == "b/4.html"));
        // Small books list every row.
        assert_eq!(sidebar_for(&rows[..50], Some(3)).len(), 50);
    }
}
