//! Expanding the directives of one chapter: each becomes a section, and
//! each deployment it shows a generated chapter.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};

use super::cache::{CachedExpansion, Dependency};
use super::directive::{self, Found, Occurrence, Replacement};
use super::library::Library;
use super::parse::Directive;
use super::summary::{DeploymentSummary, ShownAt, summarize};
use crate::book::{AgentxConfig, OnError, over_max_site};
use crate::decode::{self, DecodedPage};
use crate::manifest::ManifestEntry;
use crate::render::{self, SECTION_ANCHOR, SectionOptions};
use crate::util::cmark::MarkdownConfig;
use crate::util::escape;
use crate::util::text::slug;

/// A chapter after expansion.
#[derive(Debug, Clone, Default)]
pub struct Expanded {
    /// The chapter's Markdown with every directive expanded.
    pub content: String,
    /// Deployment chapters to add below this chapter: (path relative to the
    /// book's source dir, sidebar name, Markdown).
    pub subchapters: Vec<DeploymentChapter>,
    /// Problems left visible in the page (`on-error = "warn"`).
    pub warnings: Vec<String>,
    /// Every command set the chapter now shows.
    pub manifest: Vec<ManifestEntry>,
    /// Every deployment the chapter now shows, for the standalone builder.
    pub(crate) deployments: Vec<DeploymentSummary>,
    /// Each section's render context, by section anchor (see
    /// [`render::PreviousSection`]).
    pub(crate) contexts: Vec<SectionContext>,
}

/// What a section's deployment chapters were rendered with, for the next
/// expansion of the chapter to reuse them.
#[derive(Debug, Clone)]
pub(crate) struct SectionContext {
    /// The section heading's anchor (unique in the chapter).
    pub anchor: String,
    /// Its [`render::RenderedSection::context`].
    pub context: String,
    /// The deployment chapters it rendered, as indices of the chapter's
    /// `subchapters` (another section of the chapter may render the rest).
    pub chapters: std::ops::Range<usize>,
}

/// Expands every directive of one chapter, parsing its Markdown with mdBook's
/// default switches.
///
/// `chapter_path` is the chapter's path relative to the source dir (for links
/// and sub-chapter paths); `display` names it in messages (e.g. `content/intro.md`).
pub fn expand_chapter(
    content: &str,
    chapter_path: &Path,
    display: &str,
    lib: &Library,
    on_error: OnError,
) -> Result<Expanded> {
    let options = ChapterOptions {
        on_error,
        markdown: MarkdownConfig::default(),
        max_bytes: AgentxConfig::default().max_site_bytes(),
    };
    expand_chapter_with(content, chapter_path, display, lib, options)
}

/// How chapters expand: what a bad directive does, how Markdown parses, and
/// how much Markdown a chapter may expand to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChapterOptions {
    pub on_error: OnError,
    pub markdown: MarkdownConfig,
    /// `max-site-mib` in bytes: a chapter whose directives make more
    /// Markdown than a whole site may have stops at the directive that
    /// passes it, before the rest is made.
    pub max_bytes: u64,
}

/// [`expand_chapter`] with the book's own options.
///
/// Linear in the number of directives: finding and splicing are one pass
/// each, a page is decoded once per chapter however many directives show
/// it, and anchors and sub-chapter paths are looked up in hash sets.
pub(crate) fn expand_chapter_with(
    content: &str,
    chapter_path: &Path,
    display: &str,
    lib: &Library,
    options: ChapterOptions,
) -> Result<Expanded> {
    expand_tracked(content, chapter_path, display, lib, options, None).map(|(e, _)| e)
}

/// [`expand_chapter_with`], also returning the pages the directives used;
/// deployment chapters that did not change are taken from `previous`, the
/// chapter's last expansion.
pub(super) fn expand_tracked(
    content: &str,
    chapter_path: &Path,
    display: &str,
    lib: &Library,
    options: ChapterOptions,
    previous: Option<&CachedExpansion>,
) -> Result<(Expanded, Vec<Dependency>)> {
    let on_error = options.on_error;
    let occurrences = directive::find(content, options.markdown);
    if occurrences.is_empty() {
        let e = Expanded {
            content: content.to_string(),
            ..Expanded::default()
        };
        return Ok((e, Vec::new()));
    }
    let mut state = ChapterState::new(chapter_path, lib, previous);
    let mut out = Expanded::default();
    let mut replacements: Vec<Replacement> = Vec::new();
    // Markdown made so far, for `max_bytes`.
    let mut made = 0u64;
    for occ in occurrences {
        let at = format!("{display}:{}:{}", occ.position.line, occ.position.column);
        let result = match &occ.found {
            Found::Escaped => {
                let lit = directive::literal_text(occ.source(content));
                replacements.push(Replacement {
                    occurrence: occ,
                    text: lit,
                });
                continue;
            }
            Found::Directive(Ok(d)) => state.expand(d),
            Found::Directive(Err(msg)) => {
                let err = anyhow!("{at}: {msg}");
                fail_or_warn(on_error, err, &occ, content, &mut replacements, &mut out)?;
                continue;
            }
        };
        match result {
            Ok(mut expanded) => {
                made += expanded.markdown.len() as u64;
                made += expanded
                    .chapters
                    .iter()
                    .map(|c| c.markdown.len() as u64)
                    .sum::<u64>();
                if made > options.max_bytes {
                    return Err(over_max_site(&at, options.max_bytes));
                }
                replacements.push(Replacement {
                    occurrence: occ,
                    text: std::mem::take(&mut expanded.markdown),
                });
                state.add(expanded, &mut out);
            }
            Err(e) => {
                // The position is context: the chain keeps the root cause last.
                let err = e.context(at);
                fail_or_warn(on_error, err, &occ, content, &mut replacements, &mut out)?;
            }
        }
    }
    out.content = directive::splice(content, &replacements);
    Ok((out, state.pages.into_iter().collect()))
}

fn fail_or_warn(
    on_error: OnError,
    err: anyhow::Error,
    occ: &Occurrence,
    content: &str,
    replacements: &mut Vec<Replacement>,
    out: &mut Expanded,
) -> Result<()> {
    match on_error {
        OnError::Fail => Err(err),
        OnError::Warn => {
            // The message can quote data (page names) and the chapter.
            let msg = &format!("{err:#}");
            replacements.push(Replacement {
                occurrence: occ.clone(),
                text: format!(
                    "> [!WARNING]\n> mdbook-agentx could not expand this directive: {}\n>\n> {}\n",
                    escape::text(msg),
                    escape::code(occ.source(content))
                ),
            });
            out.warnings.push(msg.to_string());
            Ok(())
        }
    }
}

/// A generated deployment chapter, added below the chapter of its directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeploymentChapter {
    /// Path relative to the book's source dir (`models/x/<cell>.md`).
    pub path: PathBuf,
    /// Sidebar title (`GB300 · Agg TP2·EP2`).
    pub name: String,
    /// Its Markdown.
    pub markdown: String,
}

/// What one directive expands to.
struct ExpandedDirective {
    /// The section that replaces the directive.
    markdown: String,
    chapters: Vec<DeploymentChapter>,
    /// The command sets the section shows.
    sets: Vec<ManifestEntry>,
    /// The deployments it shows.
    summaries: Vec<DeploymentSummary>,
    /// Its anchor and render context.
    anchor: String,
    context: String,
}

/// A directive's `data=` and `page=`.
type PageKey = (Option<String>, Option<String>);

/// What the directives of one chapter share.
struct ChapterState<'l> {
    lib: &'l Library,
    /// The chapter's file name (`deepseek-v4.1.md`), for links back.
    chapter_file: String,
    /// Its stem: the directory of its deployment chapters.
    stem: String,
    chapter_dir: PathBuf,
    /// Section anchors given so far, and the next number to try per base.
    anchors: HashSet<String>,
    next_number: HashMap<String, usize>,
    /// Pages decoded for this chapter, by `page=` / `data=`.
    pages: HashMap<PageKey, Arc<DecodedPage>>,
    /// The section whose picker holds the data of a page and `hardware=`,
    /// by those: the first one shown in this chapter.
    pickers: HashMap<(PageKey, Option<Vec<String>>), String>,
    /// Deployment chapters added so far.
    chapter_paths: HashSet<PathBuf>,
    /// Deployments summarized so far, by their chapter.
    summarized: HashSet<PathBuf>,
    /// Command sets in the manifest so far, by page and anchor.
    listed_sets: HashSet<(String, String)>,
    /// The chapter's last expansion.
    previous: Option<&'l CachedExpansion>,
}

impl<'l> ChapterState<'l> {
    fn new(chapter_path: &Path, lib: &'l Library, previous: Option<&'l CachedExpansion>) -> Self {
        let name = |f: Option<&std::ffi::OsStr>| {
            f.map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        ChapterState {
            lib,
            chapter_file: name(chapter_path.file_name()),
            stem: name(chapter_path.file_stem()),
            chapter_dir: chapter_path.parent().unwrap_or(Path::new("")).to_path_buf(),
            anchors: HashSet::new(),
            next_number: HashMap::new(),
            pages: HashMap::new(),
            pickers: HashMap::new(),
            chapter_paths: HashSet::new(),
            summarized: HashSet::new(),
            listed_sets: HashSet::new(),
            previous,
        }
    }

    fn expand(&mut self, d: &Directive) -> Result<ExpandedDirective> {
        let key = (d.data.clone(), d.page.clone());
        let entry = self.page(d, &key)?;
        let page = &*entry;
        let deployments = shown_deployments(page, d.hardware.as_deref())?;
        let opts = SectionOptions {
            heading_level: d.level.unwrap_or(2),
            anchor: self.section_anchor(&page.model),
            subchapter_dir: self.stem.clone(),
            chapter_file: self.chapter_file.clone(),
        };
        // Only deployments whose chapter this chapter does not have yet are
        // rendered and summarized: a later directive of the same page would
        // produce the same again, and the first is kept.
        let fresh: Vec<(&decode::Deployment, PathBuf)> = deployments
            .iter()
            .map(|d| (*d, self.chapter_dir.join(render::subchapter_path(&opts, d))))
            .filter(|(_, path)| !self.chapter_paths.contains(path))
            .collect();
        let dir = &self.chapter_dir;
        let paths = &self.chapter_paths;
        let wanted = |rel: &str| !paths.contains(&dir.join(rel));
        // The same section of the last expansion, with the chapters it rendered.
        let last = self.previous.and_then(|p| {
            let s = p.contexts.iter().find(|s| s.anchor == opts.anchor)?;
            let chapters: HashMap<&Path, &str> = p.subchapters[s.chapters.clone()]
                .iter()
                .map(|c| (c.path.as_path(), c.markdown.as_str()))
                .collect();
            Some((p.page(&key)?, s.context.as_str(), chapters))
        });
        let lookup = |rel: &str| {
            let (_, _, chapters) = last.as_ref()?;
            chapters.get(dir.join(rel).as_path()).copied()
        };
        let previous = last
            .as_ref()
            .map(|(page, context, _)| render::PreviousSection {
                page,
                context,
                chapter: &lookup,
            });
        // A page and hardware shown again in this chapter names the first
        // section's picker instead of carrying the same data again.
        let shown = (key.clone(), d.hardware.clone());
        let picker = match self.pickers.get(&shown) {
            Some(first) => render::ModelDataJson::like(first),
            None => render::model_data_json(page, &deployments, &opts.subchapter_dir),
        };
        let section = render::render_section(
            page,
            &deployments,
            &picker,
            &opts,
            &wanted,
            previous.as_ref(),
        );
        refuse_section_links(&page.model, &section)?;
        self.pickers
            .entry(shown)
            .or_insert_with(|| opts.anchor.clone());
        let chapters: Vec<DeploymentChapter> = section
            .subchapters
            .into_iter()
            .map(|s| DeploymentChapter {
                path: self.chapter_dir.join(&s.rel_path),
                name: s.name,
                markdown: s.markdown,
            })
            .collect();
        let at = ShownAt {
            model: &page.model,
            model_chapter: self.chapter_dir.join(&self.chapter_file),
            section_anchor: &opts.anchor,
        };
        let summaries = fresh
            .iter()
            .map(|(d, path)| summarize(&at, d, path.clone()))
            .collect();
        let sets = self.manifest_entries(page, &key, &deployments, &opts);
        Ok(ExpandedDirective {
            markdown: section.markdown,
            chapters,
            sets,
            summaries,
            anchor: opts.anchor,
            context: section.context,
        })
    }

    /// The page a directive names (`key`: its `data` and `page`), decoded
    /// once per chapter however many directives name it.
    fn page(&mut self, d: &Directive, key: &PageKey) -> Result<Arc<DecodedPage>> {
        if let Some(p) = self.pages.get(key) {
            return Ok(p.clone());
        }
        let p = page_of(d, self.lib)?;
        self.pages.insert(key.clone(), p.clone());
        Ok(p)
    }

    /// The manifest entries of `deployments` of `page` (the directive's
    /// `key`) not listed yet. Those of a deployment unchanged since the
    /// chapter's last expansion are copied from it (an entry is made of the
    /// model and the set only).
    fn manifest_entries(
        &mut self,
        page: &DecodedPage,
        key: &PageKey,
        deployments: &[&decode::Deployment],
        opts: &SectionOptions,
    ) -> Vec<ManifestEntry> {
        let chapter_dir = &self.chapter_dir;
        // The set's permalink: its deployment chapter's page.
        let page_url = |d: &decode::Deployment| {
            let path = chapter_dir.join(render::subchapter_path(opts, d));
            crate::util::text::url_path(&path.with_extension("html"))
        };
        let last_entries = self.previous.and_then(|p| {
            let old = p.page(key).filter(|old| old.model == page.model)?;
            let deployments: HashMap<&str, &decode::Deployment> = old
                .deployments
                .iter()
                .map(|d| (d.anchor.as_str(), d))
                .collect();
            let entries: HashMap<&str, &ManifestEntry> = (p.manifest.iter())
                .filter(|e| e.page == page.model)
                .map(|e| (e.id.as_str(), e))
                .collect();
            Some((deployments, entries))
        });
        let unchanged = |d: &decode::Deployment| {
            let (deployments, entries) = last_entries.as_ref()?;
            let old = deployments.get(d.anchor.as_str())?;
            (*old == d).then_some(entries)
        };
        // Manifests list a set once, where it first appears: later
        // directives of the same page add only sets not listed yet.
        deployments
            .iter()
            .flat_map(|d| {
                let last = unchanged(d);
                d.command_sets.iter().map(move |s| (last, *d, s))
            })
            .filter(|(_, _, s)| {
                self.listed_sets
                    .insert((page.model.clone(), s.anchor.clone()))
            })
            .map(
                |(last, d, s)| match last.and_then(|l| l.get(s.anchor.as_str())) {
                    Some(old) => (*old).clone(),
                    None => ManifestEntry::of(&page.model, s).placed(d, &page_url(d)),
                },
            )
            .collect()
    }

    /// Adds a directive's sets, deployments and chapters to the chapter's
    /// expansion: a deployment two directives show has one chapter, listed
    /// once (found in hash sets, so many directives stay linear).
    fn add(&mut self, e: ExpandedDirective, out: &mut Expanded) {
        out.manifest.extend(e.sets);
        for d in e.summaries {
            if self.summarized.insert(d.chapter.clone()) {
                out.deployments.push(d);
            }
        }
        let first = out.subchapters.len();
        for s in e.chapters {
            if self.chapter_paths.insert(s.path.clone()) {
                out.subchapters.push(s);
            }
        }
        out.contexts.push(SectionContext {
            anchor: e.anchor,
            context: e.context,
            chapters: first..out.subchapters.len(),
        });
    }

    /// The section heading's anchor: the plain one for a chapter's first
    /// directive, then one with the page's slug (and a number if need be).
    fn section_anchor(&mut self, model: &str) -> String {
        let anchor = if self.anchors.is_empty() {
            SECTION_ANCHOR.to_string()
        } else {
            let base = format!("{SECTION_ANCHOR}-{}", slug(model));
            let n = self.next_number.entry(base.clone()).or_insert(1);
            loop {
                let candidate = match *n {
                    1 => base.clone(),
                    n => format!("{base}-{n}"),
                };
                *n += 1;
                if !self.anchors.contains(&candidate) {
                    break candidate;
                }
            }
        };
        self.anchors.insert(anchor.clone());
        anchor
    }
}

/// Fails when generated Markdown holds anything mdBook's `links`
/// preprocessor would expand: it runs after this one over the whole page,
/// code included, and the text it sees is the joined command lines and
/// files, not the data's strings one by one. Loading refuses every string
/// that could open such a link; this is the check of the text itself.
/// [`refuse_mdbook_links`] over a rendered section and each of its
/// deployment chapters.
fn refuse_section_links(model: &str, section: &render::RenderedSection) -> Result<()> {
    refuse_mdbook_links(model, None, &section.markdown)?;
    for s in &section.subchapters {
        refuse_mdbook_links(model, Some(&s.rel_path), &s.markdown)?;
    }
    Ok(())
}

fn refuse_mdbook_links(model: &str, chapter: Option<&str>, markdown: &str) -> Result<()> {
    let Some(at) = escape::mdbook_link(markdown) else {
        return Ok(());
    };
    let line = markdown[..at.start].matches('\n').count() + 1;
    let whose = match chapter {
        Some(c) => format!("the deployment chapter {c}"),
        None => "the section".to_string(),
    };
    bail!(
        "page `{model}`: line {line} of {whose} would hold {:?}, which mdBook's `links` \
         preprocessor (run after agentx) would expand, reading a file of the build machine \
         into the page; the data's text joins into mdBook's include syntax there: fix the \
         data",
        &markdown[at]
    )
}

/// The page a directive names, by `page=` or `data=` (both must agree).
fn page_of(d: &Directive, lib: &Library) -> Result<Arc<DecodedPage>> {
    match (&d.data, &d.page) {
        (Some(file), page) => {
            let e = lib.entry_for_file(file)?;
            if let Some(p) = page
                && *p != e.model
            {
                bail!(
                    "page=\"{p}\" does not match data=\"{file}\", whose model is `{}`",
                    e.model
                );
            }
            Ok(e)
        }
        (None, Some(page)) => lib.entry_for_page(page),
        (None, None) => unreachable!("the parser requires page or data"),
    }
}

/// The deployments a directive shows: all, or those on the hardware it names.
fn shown_deployments<'p>(
    page: &'p DecodedPage,
    hardware: Option<&[String]>,
) -> Result<Vec<&'p decode::Deployment>> {
    let Some(hw) = hardware else {
        return Ok(page.deployments.iter().collect());
    };
    if let Some(h) = hw.iter().find(|h| !page.hardware.contains(h)) {
        bail!(
            "hardware `{h}` has no deployment on page `{}`; it has: {}",
            page.model,
            page.hardware.join(", ")
        );
    }
    Ok(page
        .deployments
        .iter()
        .filter(|dep| hw.contains(&dep.hw))
        .collect())
}

#[cfg(test)]
mod tests;
