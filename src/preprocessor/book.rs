//! Expanding every chapter of a book on all cores, then putting the
//! expansions and their deployment chapters back in reading order.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use anyhow::{Result, bail};
use mdbook_preprocessor::book::{Book, BookItem, Chapter, SectionNumber};

use super::cache::{CachedExpansion, Dependency, ExpansionCache};
use super::chapter::{ChapterOptions, DeploymentChapter, Expanded, expand_tracked};
use super::directive;
use super::library::{Library, Residency};
use super::summary::{ChapterSets, DeploymentSummary, ExpandedMarkdown};
use crate::book::{BookDir, over_max_site};
use crate::manifest::ManifestEntry;
use crate::util::cmark::MarkdownConfig;
use crate::util::fs::is_plain_relative;
use crate::util::notice::{Notice, Notices};

/// A chapter expanded by [`expand_book`], waiting to go back into the book.
struct ExpandedJob {
    /// Index of the chapter in a pre-order walk of the book.
    order: usize,
    content: String,
    chapters: Vec<DeploymentChapter>,
}

/// A chapter to expand: its Markdown, path, and name in messages.
struct Job<'a> {
    /// Index of the chapter in a pre-order walk of the book.
    order: usize,
    content: &'a str,
    path: &'a Path,
    display: String,
}

/// Chapters holding a directive, in reading order. A chapter whose path
/// leaves the source directory (absolute, or with `..`: mdBook passes
/// `SUMMARY.md` entries as written) is refused: its deployment pages are
/// placed beside it, so mdBook would write them outside the book's output.
fn jobs_in<'a>(
    items: &'a [BookItem],
    settings: &BookSettings<'_>,
    order: &mut usize,
    jobs: &mut Vec<Job<'a>>,
) -> Result<()> {
    for item in items {
        let BookItem::Chapter(ch) = item else {
            continue;
        };
        if let Some(path) = &ch.path
            && !directive::find(&ch.content, settings.markdown()).is_empty()
        {
            let source = ch.source_path.as_ref().unwrap_or(path);
            if let Some(bad) = [path, source].into_iter().find(|p| !is_plain_relative(p)) {
                bail!(
                    "chapter `{}` has the path {}, which leaves the source directory {} (it is \
                     absolute or climbs out with `..`): its AgentX pages would be written \
                     outside the book's output. Move the chapter into {} and list it in \
                     SUMMARY.md by its path relative to that directory",
                    ch.name,
                    bad.display(),
                    settings.src_dir().display(),
                    settings.src_dir().display()
                );
            }
            jobs.push(Job {
                order: *order,
                content: &ch.content,
                path,
                display: settings.src_dir().join(source).display().to_string(),
            });
        }
        *order += 1;
        jobs_in(&ch.sub_items, settings, order, jobs)?;
    }
    Ok(())
}

/// Where expansion sends the command sets and deployments of each chapter,
/// in reading order.
pub(crate) type ManifestSink<'a> = dyn FnMut(ChapterSets<'_>) -> Result<()> + 'a;

/// Which book expands, and how.
pub(crate) struct BookSettings<'a> {
    pub book: &'a BookDir,
    /// How a library opened here keeps its data.
    pub residency: Residency,
    /// Where the expansion's warnings go: the data files' and the
    /// directives left unexpanded (`on-error = "warn"`), in reading order.
    pub notices: &'a Notices,
}

impl BookSettings<'_> {
    /// The source dir as `book.toml` gives it, relative to the root (for messages).
    fn src_dir(&self) -> &Path {
        &self.book.config.book.src
    }

    /// `[output.html]`'s Markdown switches.
    fn markdown(&self) -> MarkdownConfig {
        self.book.html.markdown
    }
}

/// Expands directives in every chapter of an mdBook book, adding deployment
/// chapters; returns how many directives were left unexpanded (`on-error =
/// "warn"`), each with a warning in `settings.notices`.
///
/// `lib` holds the data, owned by the caller: when empty, it is opened with
/// `settings.residency` on the first directive (a book without one needs no
/// data directory); callers that rebuild (serve, watch) keep it, and a
/// `cache` of expansions: a chapter whose text and pages are unchanged is
/// taken from it, not expanded again. The command
/// sets of each chapter go to `sets` as soon as a batch of chapters is done,
/// so a large book never holds every set's text at once. Chapters expand on
/// all cores; errors and warnings come in reading order.
pub(crate) fn expand_book(
    book: &mut Book,
    settings: &BookSettings<'_>,
    lib: &OnceLock<Library>,
    mut cache: Option<&mut ExpansionCache>,
    sets: &mut ManifestSink<'_>,
) -> Result<usize> {
    let mut jobs = Vec::new();
    jobs_in(&book.items, settings, &mut 0, &mut jobs)?;
    if let Some(c) = cache.as_deref_mut() {
        c.begin();
        c.keep_only(&jobs.iter().map(|j| j.path).collect());
    }
    if jobs.is_empty() {
        return Ok(0);
    }
    let library = library_of(lib, settings)?;
    let mut unexpanded = 0;
    let mut results: Vec<ExpandedJob> = Vec::with_capacity(jobs.len());
    // Batches of a few chapters per core bound how many sets wait for `sets`.
    let batch = 4 * crate::util::parallel::workers_for(jobs.len());
    // Markdown of the chapters expanded so far, for `max-site-mib`.
    let mut made = 0u64;
    for chunk in jobs.chunks(batch) {
        let reused = cache.as_deref();
        let expanded =
            crate::util::parallel::map(chunk, |job| expand_job(job, settings, library, reused))?;
        // The data files decoded for this batch first, as they were met.
        settings.notices.extend(library.take_notices());
        for (job, e) in chunk.iter().zip(expanded) {
            let (mut content, mut chapters, (manifest, deployments, stamp)) = settle(
                job,
                e,
                cache.as_deref_mut(),
                settings.notices,
                &mut unexpanded,
            );
            made += content.len() as u64;
            made += chapters
                .iter()
                .map(|c| c.markdown.len() as u64)
                .sum::<u64>();
            let max = settings.book.agentx.max_site_bytes();
            if made > max {
                return Err(over_max_site(&job.display, max));
            }
            sets(ChapterSets {
                manifest,
                deployments,
                stamp,
                markdown: ExpandedMarkdown {
                    path: job.path,
                    content: &mut content,
                    subchapters: chapters.as_mut_slice(),
                },
            })?;
            results.push(ExpandedJob {
                order: job.order,
                content,
                chapters,
            });
        }
    }
    drop(jobs);
    let mut results = results.into_iter().peekable();
    apply_expansions(&mut book.items, &mut 0, &mut results);
    Ok(unexpanded)
}

/// The data library in `lib`, opened now with `settings.residency` if it is empty.
fn library_of<'l>(lib: &'l OnceLock<Library>, settings: &BookSettings<'_>) -> Result<&'l Library> {
    if let Some(library) = lib.get() {
        return Ok(library);
    }
    let opened = Library::open(settings.book, settings.residency)?;
    Ok(lib.get_or_init(|| opened))
}

/// One chapter's expansion: from `cache` when its text and pages are
/// unchanged, else made now.
fn expand_job(
    job: &Job<'_>,
    settings: &BookSettings<'_>,
    library: &Library,
    cache: Option<&ExpansionCache>,
) -> Result<Expansion> {
    if let Some(hit) = cache.and_then(|c| c.get(job.path, job.content, library)) {
        return Ok(Expansion::Cached(hit));
    }
    let options = ChapterOptions {
        on_error: settings.book.agentx.on_error,
        markdown: settings.markdown(),
        max_bytes: settings.book.agentx.max_site_bytes(),
    };
    // A chapter whose pages changed re-renders only the deployments that did.
    let previous = cache.and_then(|c| c.previous(job.path, job.content));
    let (e, deps) = expand_tracked(
        job.content,
        job.path,
        &job.display,
        library,
        options,
        previous.as_deref(),
    )?;
    Ok(Expansion::Fresh(e, deps))
}

/// A chapter's expansion: taken from the cache, or made now with the pages it used.
enum Expansion {
    Cached(Arc<CachedExpansion>),
    Fresh(Expanded, Vec<Dependency>),
}

/// What the book and the sink get of a cached expansion.
/// A chapter's Markdown, deployment chapters and [`SetsParts`], from the
/// cache or from a fresh expansion (then cached, when there is a cache, and
/// its warnings given: here, once and in reading order, for every command).
fn settle(
    job: &Job<'_>,
    e: Expansion,
    cache: Option<&mut ExpansionCache>,
    notices: &Notices,
    unexpanded: &mut usize,
) -> (String, Vec<DeploymentChapter>, SetsParts) {
    let mut warn = |warnings: &[String]| {
        *unexpanded += warnings.len();
        notices.extend(warnings.iter().map(Notice::warning));
    };
    match (e, cache) {
        (Expansion::Cached(hit), _) => hit_parts(&hit),
        (Expansion::Fresh(e, deps), Some(c)) => {
            c.count_expanded();
            warn(&e.warnings);
            hit_parts(&c.insert(job.path, job.content, e, deps))
        }
        (Expansion::Fresh(e, _), None) => {
            warn(&e.warnings);
            let sets = (Arc::new(e.manifest), Arc::new(e.deployments), None);
            (e.content, e.subchapters, sets)
        }
    }
}

/// A chapter's manifest entries, deployments and expansion stamp, for its
/// [`ChapterSets`].
type SetsParts = (
    Arc<Vec<ManifestEntry>>,
    Arc<Vec<DeploymentSummary>>,
    Option<u64>,
);

fn hit_parts(hit: &CachedExpansion) -> (String, Vec<DeploymentChapter>, SetsParts) {
    let sets = (
        hit.manifest.clone(),
        hit.deployments.clone(),
        Some(hit.stamp),
    );
    (hit.content.clone(), hit.subchapters.clone(), sets)
}

/// Puts expanded chapters back into the book, in the walk [`jobs_in`] made,
/// and adds their deployment chapters (which are not walked: generated
/// Markdown is never expanded again).
fn apply_expansions(
    items: &mut [BookItem],
    order: &mut usize,
    results: &mut std::iter::Peekable<impl Iterator<Item = ExpandedJob>>,
) {
    for item in items.iter_mut() {
        let BookItem::Chapter(ch) = item else {
            continue;
        };
        let base_len = ch.sub_items.len();
        if results.peek().is_some_and(|r| r.order == *order) {
            let done = results.next().expect("peeked");
            ch.content = done.content;
            let mut parent_names = ch.parent_names.clone();
            parent_names.push(ch.name.clone());
            for (i, sub) in done.chapters.into_iter().enumerate() {
                let number = ch.number.as_ref().map(|n| {
                    let mut v: Vec<u32> = n.to_vec();
                    v.push((base_len + i + 1) as u32);
                    SectionNumber::new(v)
                });
                ch.sub_items.push(BookItem::Chapter(Chapter {
                    name: sub.name,
                    content: sub.markdown,
                    number,
                    sub_items: Vec::new(),
                    path: Some(sub.path),
                    source_path: None,
                    parent_names: parent_names.clone(),
                }));
            }
        }
        *order += 1;
        apply_expansions(&mut ch.sub_items[..base_len], order, results);
    }
}
