//! What a rebuild reuses: rendered chapter bodies and laid-out pages, by hashes
//! of their inputs.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::markdown::RenderedMarkdown;
use super::*;

/// What a rebuild reuses (`serve`, `watch`): chapter bodies by a hash of
/// (chapter path, Markdown), so only chapters whose Markdown changed are
/// rendered again; and laid-out pages by a hash of (body, position, the
/// book's sidebar and chapter list), so only pages whose inputs changed go
/// through the templates again. The theme and `book.toml` are not in the
/// keys: clear the cache when they change.
#[derive(Default)]
pub(crate) struct RenderCache {
    pub(super) bodies: HashMap<u64, Arc<RenderedMarkdown>>,
    pub(super) pages: HashMap<u64, Vec<u8>>,
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

/// What a rebuild reuses of the expansion (`serve`, `watch`): each
/// chapter's expansion, and the search catalog of its deployments by the
/// expansion's stamp. Clear it when `book.toml` changes.
#[derive(Default)]
pub(crate) struct ExpandCache {
    pub(super) chapters: crate::preprocessor::ExpansionCache,
    pub(super) catalogs: HashMap<u64, Arc<super::search::Catalog>>,
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
