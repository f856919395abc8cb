//! The standalone builder: `book.toml` + `SUMMARY.md` + chapters → HTML, with
//! the AgentX preprocessor run in-process, tera templates, syntect highlighting,
//! an embedded search index, and an atomic swap of the output directory.
//! A folder per concern: [`pages`] (a chapter's Markdown → its HTML body, the
//! sidebar, the page laid out in its template, the landing page's table of
//! models, the link check), [`output`] (sinks and staging, where an output
//! may go, publishing, the size bound), [`search`] (the index and its
//! tokens) and [`agents`] (the book as Markdown: agent files, portable
//! Markdown). Beside them: [`theme`], [`highlight`], [`cache`] (what
//! rebuilds reuse), [`spill`] (a large book's Markdown waiting for its
//! pages), [`build`], [`export`] (with [`remote`]), and `engine`, which
//! drives rebuilds for `serve` and `watch`.
//!
//! May use: `book` (the book's config and paths), `preprocessor`, `render`
//! (its class names), `manifest`, `decode`, `data`, `util`.

pub(crate) mod agents;
mod build;
mod cache;
pub(crate) mod engine;
pub(crate) mod export;
pub(crate) mod highlight;
mod output;
pub(crate) mod pages;
mod remote;
mod search;
mod spill;
pub(crate) mod theme;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{Result, bail};

use crate::book::BookDir;
use crate::preprocessor::{self, Residency};
use crate::util::notice::{Notice, Notices};

pub use self::agents::portable::{MarkdownReport, export_markdown};
pub use self::build::build;
pub(crate) use self::build::{book_manifest, build_inspected, check_links, output_dir};
pub(crate) use self::cache::{ExpandCache, RenderCache};
pub(crate) use self::output::sink::{FileSink, SiteFile, write_atomically};
use self::pages::sidebar::flatten;
pub(crate) use self::pages::sidebar::{SidebarIndex, SidebarItem};
use self::search::Catalog;

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
    /// Warnings and notes, in the order they arose.
    pub notices: Vec<Notice>,
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
    /// What expanding and rendering it had to say, for the report.
    pub notices: Notices,
}

/// Where [`Site::expand`] sends each chapter's manifest entries.
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

/// How [`Site::expand`] reads and expands a book.
pub(crate) struct ExpandOptions<'a, 's> {
    /// How a data library opened by the expansion keeps its data.
    pub residency: Residency,
    /// Expansions of chapters whose text and data did not change are taken
    /// from here, and the new ones kept for the next rebuild (`serve`, `watch`).
    pub cache: Option<&'a mut ExpandCache>,
    /// Bytes of expanded Markdown kept in `pages`; beyond it, chapters wait
    /// in a file until each page is rendered ([`spill`]): for one-shot
    /// renders, not with a cache, which keeps its Markdown.
    pub spill_budget: usize,
    /// Where each chapter's command sets go. Without a sink they stay in
    /// [`Site::manifest`], each set counted once in `command_sets`; with
    /// one, `manifest` stays empty and `command_sets` zero (the caller counts).
    pub entries: Option<&'a mut EntrySink<'s>>,
}

impl Default for ExpandOptions<'_, '_> {
    fn default() -> Self {
        ExpandOptions {
            residency: Residency::Resident,
            cache: None,
            spill_budget: usize::MAX,
            entries: None,
        }
    }
}

impl Site {
    /// Reads the book and runs the preprocessor on it.
    pub(crate) fn load(root: &Path) -> Result<Site> {
        Site::expand(
            BookDir::open(root)?,
            &OnceLock::new(),
            ExpandOptions::default(),
        )
    }

    /// Reads the chapters of an opened book and runs the preprocessor on
    /// them, with the data library `lib`: the caller's, opened here on the
    /// first directive if it is empty, so a caller that rebuilds keeps it.
    pub(crate) fn expand(
        dir: BookDir,
        lib: &OnceLock<preprocessor::Library>,
        opts: ExpandOptions<'_, '_>,
    ) -> Result<Site> {
        let ExpandOptions {
            residency,
            cache,
            spill_budget,
            entries,
        } = opts;
        if let Some(sets) = entries {
            return Site::expand_into(dir, lib, residency, cache, spill_budget, sets);
        }
        let mut manifest = Vec::new();
        let mut keep = |sets| {
            manifest.push(sets);
            Ok(())
        };
        let mut site = Site::expand_into(dir, lib, residency, cache, spill_budget, &mut keep)?;
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

    /// [`Site::expand`], sending each chapter's command sets to `sets`.
    fn expand_into(
        dir: BookDir,
        lib: &OnceLock<preprocessor::Library>,
        residency: Residency,
        mut cache: Option<&mut ExpandCache>,
        budget: usize,
        sets: &mut EntrySink<'_>,
    ) -> Result<Site> {
        let mut book = dir.load_book()?;
        let notices = Notices::default();
        let settings = preprocessor::BookSettings {
            book: &dir,
            residency,
            notices: &notices,
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
            notices,
        })
    }
}

#[cfg(test)]
mod tests;
