//! What a rebuild reuses of chapter expansions (`serve`, `watch`): each
//! chapter's expansion, kept with the chapter text it came from and the
//! decoded pages its directives used, so an edit of one data file expands
//! again only the chapters that show that file.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::chapter::{DeploymentChapter, Expanded, SectionContext};
use super::library::Library;
use super::summary::DeploymentSummary;
use crate::decode::DecodedPage;
use crate::manifest::ManifestEntry;

/// A page a chapter's directives used: by (`data=`, `page=`), the decoded
/// page it resolved to. The `Arc` is both the dependency and its version:
/// a library that re-reads a file holds a new one, and keeping the old one
/// here means its address cannot be reused while the entry lives.
pub(super) type Dependency = ((Option<String>, Option<String>), Arc<DecodedPage>);

/// One chapter's expansion, as a rebuild reuses it.
#[derive(Debug)]
pub(crate) struct CachedExpansion {
    /// The chapter text it was expanded from.
    source: String,
    dependencies: Vec<Dependency>,
    /// Identifies this expansion among all the cache made: the caller's own
    /// caches of what it derives from a chapter key on it.
    pub(super) stamp: u64,
    pub(super) content: String,
    pub(super) subchapters: Vec<DeploymentChapter>,
    pub(super) manifest: Arc<Vec<ManifestEntry>>,
    pub(super) deployments: Arc<Vec<DeploymentSummary>>,
    /// What each section's deployment chapters were rendered with.
    pub(super) contexts: Vec<SectionContext>,
}

impl CachedExpansion {
    /// The decoded page the directives named `key` used.
    pub(super) fn page(&self, key: &(Option<String>, Option<String>)) -> Option<&DecodedPage> {
        self.dependencies
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, page)| &**page)
    }
}

/// Expansions by chapter path. The book's settings (`book.toml`) are not in
/// the keys: clear the cache when they change.
#[derive(Debug, Default)]
pub(crate) struct ExpansionCache {
    entries: HashMap<PathBuf, Arc<CachedExpansion>>,
    next_stamp: u64,
    /// Chapters expanded (not taken from the cache) by the last
    /// [`expand_book`].
    expanded: usize,
}

impl ExpansionCache {
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// Chapters the last expansion expanded rather than took from the cache.
    pub(crate) fn expanded(&self) -> usize {
        self.expanded
    }

    /// The expansion of the chapter at `path` with text `source`, when
    /// every page it used still resolves to the same decoded page.
    pub(super) fn get(
        &self,
        path: &Path,
        source: &str,
        lib: &Library,
    ) -> Option<Arc<CachedExpansion>> {
        let e = self.entries.get(path)?;
        let current = e.source == source
            && e.dependencies.iter().all(|((data, page), used)| {
                lib.resident_entry(data.as_deref(), page.as_deref())
                    .is_some_and(|now| Arc::ptr_eq(&now, used))
            });
        current.then(|| e.clone())
    }

    /// The last expansion of the chapter at `path` when its text is still
    /// `source` (its pages changed): what a new expansion may reuse.
    pub(super) fn previous(&self, path: &Path, source: &str) -> Option<Arc<CachedExpansion>> {
        self.entries
            .get(path)
            .filter(|e| e.source == source)
            .cloned()
    }

    /// Keeps a fresh expansion and returns it as cached. Expansions with
    /// warnings are not kept: their messages can name any page of the library.
    pub(super) fn insert(
        &mut self,
        path: &Path,
        source: &str,
        expanded: Expanded,
        dependencies: Vec<Dependency>,
    ) -> Arc<CachedExpansion> {
        self.next_stamp += 1;
        let entry = Arc::new(CachedExpansion {
            source: source.to_string(),
            dependencies,
            stamp: self.next_stamp,
            content: expanded.content,
            subchapters: expanded.subchapters,
            manifest: Arc::new(expanded.manifest),
            deployments: Arc::new(expanded.deployments),
            contexts: expanded.contexts,
        });
        if expanded.warnings.is_empty() {
            self.entries.insert(path.to_path_buf(), entry.clone());
        } else {
            self.entries.remove(path);
        }
        entry
    }

    /// Starts an expansion of the book: resets the count.
    pub(super) fn begin(&mut self) {
        self.expanded = 0;
    }

    /// Counts one chapter expanded.
    pub(super) fn count_expanded(&mut self) {
        self.expanded += 1;
    }

    /// Forgets the chapters the last expansion did not meet.
    pub(super) fn keep_only(&mut self, paths: &HashSet<&Path>) {
        self.entries.retain(|p, _| paths.contains(p.as_path()));
    }
}
