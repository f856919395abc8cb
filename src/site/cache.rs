//! What a rebuild reuses: rendered chapter bodies and laid-out pages, by hashes
//! of their inputs.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::pages::page_html::RenderedMarkdown;
use super::search::{Catalog, SearchPage};
use super::{BuildOptions, Site};
use crate::preprocessor::DeploymentSummary;
use anyhow::Result;

/// What a rebuild reuses (`serve`, `watch`): chapter bodies by a hash of
/// (chapter path, Markdown), so only chapters whose Markdown changed are
/// rendered again; and laid-out pages by a hash of (body, position, the
/// book's sidebar and chapter list), so only pages whose inputs changed go
/// through the templates again. The theme and `book.toml` are not in the
/// keys: clear the cache when they change.
#[derive(Default)]
pub(crate) struct RenderCache {
    pub(super) bodies: HashMap<u64, Arc<RenderedMarkdown>>,
    pub(super) pages: HashMap<u64, Arc<Vec<u8>>>,
    /// Markdown twins of pages, by their body's key.
    pub(super) twins: HashMap<u64, Arc<Vec<u8>>>,
    /// The manifest's entries as JSON, by chapter.
    pub(super) manifest: crate::manifest::ManifestCache,
    /// The last search index, with what it was made from.
    search: Option<SearchScript>,
}

/// `search-index.js`, and the catalog and pages it indexes.
struct SearchScript {
    catalog: Arc<Catalog>,
    pages: Vec<SearchPage>,
    script: Arc<Vec<u8>>,
}

impl RenderCache {
    pub(crate) fn clear(&mut self) {
        self.bodies.clear();
        self.pages.clear();
        self.twins.clear();
        self.manifest.clear();
        self.search = None;
    }

    /// `search-index.js` of `catalog` and `pages`: the last one when both
    /// are equal to its own (an edit of a flag's value changes no word).
    pub(super) fn search_script(
        &mut self,
        catalog: &Arc<Catalog>,
        pages: Vec<SearchPage>,
    ) -> Result<Arc<Vec<u8>>> {
        if let Some(last) = &self.search
            && last.pages == pages
            && (Arc::ptr_eq(&last.catalog, catalog) || *last.catalog == **catalog)
        {
            return Ok(last.script.clone());
        }
        let script = Arc::new(super::search::search_index_script(catalog, &pages)?.into_bytes());
        self.search = Some(SearchScript {
            catalog: catalog.clone(),
            pages,
            script: script.clone(),
        });
        Ok(script)
    }

    /// Forgets laid-out pages only (the templates changed).
    pub(crate) fn clear_pages(&mut self) {
        self.pages.clear();
    }
}

/// What a rebuild reuses of the expansion (`serve`, `watch`): each
/// chapter's expansion, and the search catalog of its deployments.
/// Clear it when `book.toml` changes.
#[derive(Default)]
pub(crate) struct ExpandCache {
    pub(super) chapters: crate::preprocessor::ExpansionCache,
    pub(super) catalogs: CatalogCache,
}

/// Search catalogs of chapters, by the expansion's stamp, and of single
/// deployments, by their summary: a data edit expands a chapter again, and
/// then only the deployments whose summary changed are tokenized again
/// (merging the deployments' catalogs in order gives the chapter's, see
/// [`Catalog::merge`]).
#[derive(Default)]
pub(crate) struct CatalogCache {
    chapters: HashMap<u64, Arc<Catalog>>,
    /// By deployment chapter: its catalog and what it was made from.
    deployments: HashMap<PathBuf, DeploymentCatalog>,
}

/// The catalog of one deployment, with the summary it was made from.
struct DeploymentCatalog {
    /// The expansion that showed it last (an entry no live expansion
    /// shows is dropped).
    stamp: u64,
    /// Its chapter's summaries and its index there: nothing is copied.
    summaries: Arc<Vec<DeploymentSummary>>,
    at: usize,
    catalog: Arc<Catalog>,
}

impl CatalogCache {
    /// The catalog of the expansion `stamp` showing `deployments`.
    pub(super) fn chapter(
        &mut self,
        stamp: u64,
        deployments: &Arc<Vec<DeploymentSummary>>,
    ) -> Arc<Catalog> {
        if let Some(part) = self.chapters.get(&stamp) {
            return part.clone();
        }
        let mut part = Catalog::default();
        for (at, d) in deployments.iter().enumerate() {
            let catalog = match self.deployments.get(&d.chapter) {
                Some(hit) if hit.summaries.get(hit.at) == Some(d) => hit.catalog.clone(),
                _ => Arc::new(Catalog::of(std::slice::from_ref(d))),
            };
            part.merge(&catalog);
            let entry = DeploymentCatalog {
                stamp,
                summaries: deployments.clone(),
                at,
                catalog,
            };
            self.deployments.insert(d.chapter.clone(), entry);
        }
        let part = Arc::new(part);
        self.chapters.insert(stamp, part.clone());
        part
    }

    /// Forgets the chapters of other expansions than `stamps`, and the
    /// deployments none of those shows.
    pub(super) fn keep_only(&mut self, stamps: &HashSet<u64>) {
        self.chapters.retain(|stamp, _| stamps.contains(stamp));
        self.deployments.retain(|_, d| stamps.contains(&d.stamp));
    }

    pub(super) fn clear(&mut self) {
        self.chapters.clear();
        self.deployments.clear();
    }
}

impl ExpandCache {
    pub(crate) fn clear(&mut self) {
        self.chapters.clear();
        self.catalogs.clear();
    }

    /// Chapters the last expansion expanded rather than took from the cache.
    pub(crate) fn chapters_expanded(&self) -> usize {
        self.chapters.expanded()
    }
}

/// A hasher for the cache keys: foldhash's quality variant, seeded once per
/// process (so keys are stable across rebuilds, and text from a pull request
/// cannot be crafted ahead of time to collide). SipHash over every page's
/// Markdown was 5.5% of the samples of a rebuild after a data edit (`perf`).
fn key_hasher() -> impl Hasher {
    static SEED: OnceLock<foldhash::quality::SeedableRandomState> = OnceLock::new();
    SEED.get_or_init(foldhash::quality::SeedableRandomState::random)
        .build_hasher()
}

pub(super) fn body_key(path: &Path, markdown: &str) -> u64 {
    let mut h = key_hasher();
    path.hash(&mut h);
    markdown.hash(&mut h);
    h.finish()
}

/// The cache keys of one render, by page index.
pub(super) struct CacheKeys {
    /// Of each chapter body: a hash of (path, Markdown).
    pub(super) bodies: Vec<u64>,
    /// Of each laid-out page: a hash of (layout, index, body key).
    pub(super) pages: Vec<u64>,
}

impl RenderCache {
    /// Forgets what this render did not use.
    pub(super) fn keep_only(&mut self, keys: &CacheKeys) {
        let bodies: HashSet<u64> = keys.bodies.iter().copied().collect();
        let pages: HashSet<u64> = keys.pages.iter().copied().collect();
        self.bodies.retain(|k, _| bodies.contains(k));
        self.twins.retain(|k, _| bodies.contains(k));
        self.pages.retain(|k, _| pages.contains(k));
    }
}

impl Site {
    /// The cache keys of every page, for `markdown` (one per page).
    pub(super) fn cache_keys(&self, markdown: &[Cow<'_, str>], opts: &BuildOptions) -> CacheKeys {
        let layout = self.layout_key(opts);
        let (bodies, pages) = self
            .pages
            .iter()
            .zip(markdown)
            .enumerate()
            .map(|(i, (p, md))| {
                let body = body_key(&p.path, md);
                let mut h = key_hasher();
                (layout, i, body).hash(&mut h);
                (body, h.finish())
            })
            .unzip();
        CacheKeys { bodies, pages }
    }

    /// A hash of everything a page's layout reads besides its own body: the
    /// sidebar, every chapter's path, title and number (prev/next links), the
    /// live-reload script and the overview of the models.
    pub(super) fn layout_key(&self, opts: &BuildOptions) -> u64 {
        let mut h = key_hasher();
        self.sidebar.hash(&mut h);
        for p in &self.pages {
            (&p.path, &p.title, &p.number).hash(&mut h);
        }
        opts.extra_script.hash(&mut h);
        // The landing page shows the overview of the models.
        self.catalog.overview.hash(&mut h);
        h.finish()
    }
}
