//! The standalone builder: `book.toml` + `SUMMARY.md` + chapters → HTML, with
//! the AgentX preprocessor run in-process, tera templates, syntect highlighting,
//! an embedded search index, and an atomic swap of the output directory.
//! One module per output concern: [`sidebar`], [`layout`] (templates),
//! [`search`] (with [`tokens`]), [`overview`] (the landing page's table of
//! models), [`table`], [`output`] (sinks and staging), [`destination`]
//! (where an output may go), [`cache`] (what rebuilds reuse), [`spill`] (a
//! large book's Markdown waiting for its pages) and [`build`]; `engine`
//! drives rebuilds for `serve` and `watch`.
//!
//! May use: `preprocessor`, `render` (its class names), `manifest`, `decode`,
//! `data`, `util`.

mod agents;
pub(crate) mod book;
mod build;
mod cache;
mod capped;
pub(crate) mod destination;
pub(crate) mod engine;
pub(crate) mod export;
mod heading_ids;
pub(crate) mod highlight;
mod layout;
pub(crate) mod links;
pub(crate) mod markdown;
pub(crate) mod mdbook_agents;
mod output;
mod overview;
mod portable;
mod publish;
mod remote;
mod search;
mod sidebar;
mod spill;
mod table;
pub(crate) mod theme;
mod tokens;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use anyhow::{Result, bail};

use self::book::BookDir;
use crate::preprocessor::{self, Residency};

pub use self::build::build;
pub(crate) use self::build::{book_manifest, build_inspected, check_links, output_dir};
use self::cache::CacheKeys;
pub(crate) use self::cache::{ExpandCache, RenderCache};
use self::layout::redirect_html;
pub(crate) use self::output::{FileSink, MemoryFiles, SiteFile, write_atomically};
use self::output::{Inspect, Inspected, Staging};
pub use self::portable::{MarkdownReport, export_markdown};
pub(crate) use self::search::SEARCH_INDEX;
use self::search::{Catalog, SearchPage, search_index_script, site_page};
pub(crate) use self::sidebar::{ALL_CHAPTERS, SidebarIndex, SidebarItem, SidebarKind};
use self::sidebar::{SIDEBAR_FULL_LIMIT, flatten, sidebar_for, sidebar_is_shortened};

/// How [`build`] builds.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Output directory; default: `[build] build-dir` of `book.toml`.
    pub dest: Option<PathBuf>,
    /// A script added to every page (the live-reload client of `serve`).
    pub extra_script: Option<String>,
    /// Allow an output directory outside the book (`--allow-dest-outside`).
    pub allow_dest_outside: bool,
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

/// A loaded, expanded book ready to render.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub dir: BookDir,
    pub pages: Vec<PageSource>,
    pub sidebar: Vec<SidebarItem>,
    /// Lookups into `sidebar`, so each page's rows cost O(1) to pick.
    pub sidebar_index: SidebarIndex,
    pub command_sets: usize,
    /// Every command set the book shows, by chapter.
    pub manifest: Vec<Arc<Vec<crate::manifest::ManifestEntry>>>,
    /// The deployments the book shows, for search and the overview.
    pub catalog: Arc<Catalog>,
    /// The page that opens the book: `index.md`, or else the first chapter
    /// (found once: every page asks).
    landing: usize,
    /// Chapters' Markdown that waits in a file rather than in `pages`.
    spilled: Option<std::sync::Arc<spill::Spilled>>,
}

/// Where [`Site::expand_with`] sends each chapter's manifest entries.
pub(crate) type EntrySink<'a> =
    dyn FnMut(Arc<Vec<crate::manifest::ManifestEntry>>) -> Result<()> + 'a;

/// `x.md` → `x.html`
pub(crate) fn html_path(md: &Path) -> PathBuf {
    md.with_extension("html")
}

fn href(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// The output of one render.
pub(crate) struct Rendered {
    pub files: Vec<SiteFile>,
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
        Site::expand(BookDir::open(root)?, &mut None, None)
    }

    /// Reads the chapters of an opened book and runs the preprocessor on them,
    /// with the data library `lib` (loaded on first use, then reused), keeping
    /// every command set for the manifest. With a `cache`, chapters whose
    /// text and data did not change are taken from it (`serve`, `watch`).
    pub(crate) fn expand(
        dir: BookDir,
        lib: &mut Option<preprocessor::Library>,
        cache: Option<&mut ExpandCache>,
    ) -> Result<Site> {
        let mut manifest = Vec::new();
        let mut site = Site::expand_cached(
            dir,
            lib,
            Residency::Resident,
            cache,
            usize::MAX,
            &mut |sets| {
                manifest.push(sets);
                Ok(())
            },
        )?;
        // A command set shown by two directives counts once.
        site.command_sets = manifest
            .iter()
            .flat_map(|sets| sets.iter())
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
        sets: &mut EntrySink<'_>,
    ) -> Result<Site> {
        Site::expand_cached(dir, lib, residency, None, usize::MAX, sets)
    }

    /// [`Site::expand_with`], keeping at most `budget` bytes of expanded
    /// Markdown in `pages` and the rest in a file ([`spill`]) until each
    /// page is rendered: for one-shot renders, not for caches.
    pub(crate) fn expand_spilling(
        dir: BookDir,
        lib: &mut Option<preprocessor::Library>,
        residency: Residency,
        budget: usize,
        sets: &mut EntrySink<'_>,
    ) -> Result<Site> {
        Site::expand_cached(dir, lib, residency, None, budget, sets)
    }

    /// Expands with an expansion cache (the engine's rebuilds; `budget` is
    /// then `usize::MAX`: a cache keeps its Markdown) or a spill budget.
    fn expand_cached(
        dir: BookDir,
        lib: &mut Option<preprocessor::Library>,
        residency: Residency,
        mut cache: Option<&mut ExpandCache>,
        budget: usize,
        sets: &mut EntrySink<'_>,
    ) -> Result<Site> {
        let root = dir.root.clone();
        let mut book = dir.load_book()?;
        // Directives left unexpanded were reported as they were met.
        let settings = preprocessor::BookSettings {
            root: &root,
            src_dir: &dir.config.book.src,
            agentx: &dir.agentx,
            markdown: dir.config.output.html.markdown,
            residency,
        };
        let mut catalog = Catalog::default();
        let (chapters, catalogs) = match cache.as_deref_mut() {
            Some(c) => (Some(&mut c.chapters), Some(&mut c.catalogs)),
            None => (None, None),
        };
        let mut stamps = HashSet::new();
        let mut catalogs = catalogs;
        let mut spiller = spill::Spiller::new(budget);
        preprocessor::expand_book(&mut book, &settings, lib, chapters, &mut |chapter| {
            match (chapter.stamp, catalogs.as_deref_mut()) {
                (Some(stamp), Some(cached)) => {
                    stamps.insert(stamp);
                    catalog.merge(&cached.chapter(stamp, &chapter.deployments));
                }
                _ => catalog.add(&chapter.deployments),
            }
            let text = chapter.markdown;
            spiller.take(text.path, text.content)?;
            for sub in text.subchapters.iter_mut() {
                spiller.take(&sub.path, &mut sub.markdown)?;
            }
            sets(chapter.manifest)
        })?;
        if let Some(c) = cache {
            c.catalogs.keep_only(&stamps);
        }
        let mut pages = Vec::new();
        let mut sidebar = Vec::new();
        flatten(book.items, 0, &mut pages, &mut sidebar);
        if pages.is_empty() {
            bail!(
                "{}: no chapters; list at least one `[Title](file.md)`",
                dir.display_path(&dir.src_dir().join("SUMMARY.md"))
            );
        }
        let landing = pages
            .iter()
            .position(|p| p.path == Path::new("index.md"))
            .unwrap_or(0);
        Ok(Site {
            dir,
            landing,
            pages,
            sidebar_index: SidebarIndex::new(&sidebar),
            sidebar,
            command_sets: 0,
            manifest: Vec::new(),
            catalog: Arc::new(catalog),
            spilled: spiller.finish()?.map(std::sync::Arc::new),
        })
    }
}

#[cfg(test)]
mod tests;
