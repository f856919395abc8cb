//! Expanding directives in a book: configuration, the data library, chapter
//! expansion, and mdBook's preprocessor protocol (stdin `[context, book]`,
//! stdout book).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow, bail};
use mdbook_preprocessor::book::{Book, BookItem, Chapter, SectionNumber};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use serde::Deserialize;

use crate::data;
use crate::decode::{self, DecodedPage};
use crate::directive::{self, Found, Occurrence};
use crate::manifest::ManifestEntry;
use crate::render::{self, SECTION_ANCHOR, SectionOptions};
use crate::util::fs::shown_path;
use crate::util::text::{closest, slug};

/// Renderers whose output is built from Markdown and so can show the section.
pub fn supports(renderer: &str) -> bool {
    matches!(renderer, "html" | "markdown")
}

/// What to do when a directive cannot be expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Stop the build with the error.
    #[default]
    Fail,
    /// Keep building; leave the directive visible under a warning.
    Warn,
}

/// `[preprocessor.agentx]` in `book.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct AgentxConfig {
    /// Directory of AgentX data files, relative to the book root.
    #[serde(default = "default_data_dir")]
    pub data_dir: PathBuf,
    #[serde(default)]
    pub on_error: OnError,
    /// Flag registries for `check` (`[preprocessor.agentx.registries]`).
    #[serde(default)]
    pub registries: Option<toml::Value>,
    // mdBook's own keys for every preprocessor table; read by mdBook, not by
    // us, and listed so that `deny_unknown_fields` accepts them.
    #[allow(dead_code)]
    #[serde(default)]
    pub command: Option<toml::Value>,
    #[allow(dead_code)]
    #[serde(default)]
    pub renderers: Option<toml::Value>,
    #[allow(dead_code)]
    #[serde(default)]
    pub before: Option<toml::Value>,
    #[allow(dead_code)]
    #[serde(default)]
    pub after: Option<toml::Value>,
    #[allow(dead_code)]
    #[serde(default)]
    pub optional: Option<toml::Value>,
}

fn default_data_dir() -> PathBuf {
    PathBuf::from("content/agentx")
}

impl Default for AgentxConfig {
    fn default() -> Self {
        AgentxConfig {
            data_dir: default_data_dir(),
            on_error: OnError::Fail,
            registries: None,
            command: None,
            renderers: None,
            before: None,
            after: None,
            optional: None,
        }
    }
}

/// When a [`Library`] decodes its data files, and whether it keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Residency {
    /// Every file is decoded on load and kept, so a rebuild re-decodes only
    /// the files that changed (`serve`, `watch`, `check`).
    #[default]
    Resident,
    /// Files are only indexed by page name on load; a directive decodes the
    /// file it uses and drops it when done. Why: a one-shot build of a large
    /// book must not hold every decoded page at once (decoded pages took
    /// 35 MiB for a book 10× the sample, so about 350 MiB at 100×).
    OnDemand,
}

/// Every data file of the data directory, by page name, plus files named by `data=`.
#[derive(Debug, Default)]
pub struct Library {
    root: PathBuf,
    dir: PathBuf,
    residency: Residency,
    /// Page name → data file.
    by_page: BTreeMap<String, PathBuf>,
    /// Decoded files (resident libraries only).
    entries: HashMap<PathBuf, Arc<DecodedPage>>,
    /// Data files that failed to load, with their messages.
    failed: BTreeMap<PathBuf, String>,
    /// Files whose warnings were printed: an on-demand library may decode a
    /// file more than once.
    warned: Mutex<HashSet<PathBuf>>,
}

impl Library {
    /// Loads and decodes every data file under `data_dir` (relative to `root`).
    pub fn load(root: &Path, data_dir: &Path) -> Result<Library> {
        Library::open(root, data_dir, Residency::Resident)
    }

    /// Indexes every data file under `data_dir` by page name; each is decoded
    /// when a directive uses it.
    pub fn index(root: &Path, data_dir: &Path) -> Result<Library> {
        Library::open(root, data_dir, Residency::OnDemand)
    }

    pub(crate) fn open(root: &Path, data_dir: &Path, residency: Residency) -> Result<Library> {
        let dir = root.join(data_dir);
        let mut lib = Library {
            root: root.to_path_buf(),
            dir: dir.clone(),
            residency,
            ..Library::default()
        };
        if !dir.is_dir() {
            bail!(
                "data directory {} does not exist; set `data-dir` under [preprocessor.agentx] in \
                 book.toml (relative to the book root)",
                dir.display()
            );
        }
        for path in data::data_files_in(&dir)? {
            lib.insert(path);
        }
        Ok(lib)
    }

    /// Messages of the data files that failed to load.
    pub fn failures(&self) -> Vec<String> {
        self.failed.values().cloned().collect()
    }

    /// Whether a path is a data file this library reads.
    pub fn is_data_file(&self, path: &Path) -> bool {
        path.starts_with(&self.dir) && data::is_data_file(path)
    }

    fn insert(&mut self, path: PathBuf) {
        let model = match self.residency {
            Residency::Resident => match self.load_entry(&path) {
                Ok(entry) => {
                    let model = entry.model.clone();
                    self.entries.insert(path.clone(), Arc::new(entry));
                    model
                }
                Err(e) => {
                    self.failed.insert(path, format!("{e:#}"));
                    return;
                }
            },
            Residency::OnDemand => {
                let shown = shown_path(&path);
                let name = std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", shown.display()))
                    .and_then(|text| data::page_name(&text, &shown));
                match name {
                    Ok(model) => model,
                    Err(e) => {
                        self.failed.insert(path, format!("{e:#}"));
                        return;
                    }
                }
            }
        };
        if self.residency == Residency::OnDemand
            && let Some(other) = self.by_page.get(&model).cloned()
        {
            // Two files claim one page. A resident library decodes both and
            // only a file that decodes claims a name; do the same here, so
            // `build` and `serve` agree on which file a page comes from.
            if let Err(e) = self.load_entry(&other) {
                self.failed.insert(other, format!("{e:#}"));
                self.by_page.remove(&model);
            }
            if let Err(e) = self.load_entry(&path) {
                self.failed.insert(path, format!("{e:#}"));
                return;
            }
        }
        if let Some(other) = self.by_page.get(&model) {
            self.entries.remove(&path);
            self.failed.insert(
                path.clone(),
                format!(
                    "{}: page `{model}` is already defined by {}",
                    path.display(),
                    other.display()
                ),
            );
            return;
        }
        self.by_page.insert(model, path);
    }

    /// Re-reads changed data files (new, edited or deleted); others stay decoded.
    pub fn reload(&mut self, changed: &[PathBuf]) {
        for path in changed {
            self.entries.remove(path);
            self.failed.remove(path);
            self.by_page.retain(|_, p| p != path);
            self.warned.lock().expect("warned lock").remove(path);
        }
        for path in changed {
            if path.is_file() && self.is_data_file(path) {
                self.insert(path.clone());
            }
        }
        // A file that clashed with a removed one may now load.
        let retry: Vec<PathBuf> = self
            .failed
            .iter()
            .filter(|(_, m)| m.contains("is already defined by"))
            .map(|(p, _)| p.clone())
            .collect();
        for p in retry {
            self.failed.remove(&p);
            self.insert(p);
        }
    }

    /// Every decoded page by name (resident libraries; an on-demand library has none).
    pub fn pages(&self) -> impl Iterator<Item = (&str, &DecodedPage)> {
        self.by_page
            .iter()
            .filter_map(|(name, path)| Some((name.as_str(), &**self.entries.get(path)?)))
    }

    /// A decoded page of a resident library.
    pub fn page(&self, name: &str) -> Option<&DecodedPage> {
        self.by_page
            .get(name)
            .and_then(|p| self.entries.get(p))
            .map(|e| &**e)
    }

    /// The page a directive names: kept, or decoded now.
    fn entry_for_page(&self, name: &str) -> Result<Arc<DecodedPage>> {
        let Some(path) = self.by_page.get(name) else {
            bail!("{}", self.unknown_page(name));
        };
        match self.entries.get(path) {
            Some(e) => Ok(e.clone()),
            None => Ok(Arc::new(self.load_entry(path)?)),
        }
    }

    /// The data file a directive names with `data=` (relative to the book root).
    fn entry_for_file(&self, rel: &str) -> Result<Arc<DecodedPage>> {
        let path = self.root.join(rel);
        match self.entries.get(&path) {
            Some(e) => Ok(e.clone()),
            None => Ok(Arc::new(self.load_entry(&path)?)),
        }
    }

    fn load_entry(&self, path: &Path) -> Result<DecodedPage> {
        // Messages name the file as the user would type it, not by its absolute path.
        let shown = shown_path(path);
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", shown.display()))?;
        let decoded = decode::decode_str(&text, &shown)?;
        if !decoded.ignored.is_empty()
            && self
                .warned
                .lock()
                .expect("warned lock")
                .insert(path.to_path_buf())
        {
            for key in &decoded.ignored {
                eprintln!("warning: {}: ignored unknown key `{key}`", shown.display());
            }
        }
        Ok(decoded.page)
    }

    /// The message for an unknown page: the known pages, the closest one, broken files.
    fn unknown_page(&self, name: &str) -> String {
        let known: Vec<&str> = self.by_page.keys().map(String::as_str).collect();
        let mut msg = format!("unknown page `{name}`");
        if !self.failed.is_empty() {
            // The page is most likely in a file that did not load: say that first.
            msg.push_str(&format!(
                "; {} data file(s) failed to load and may define it: {}.",
                self.failed.len(),
                self.failures().join("; ")
            ));
        } else if let Some(best) = closest(name, &known) {
            msg.push_str(&format!("; did you mean `{best}`?"));
        }
        if known.is_empty() {
            msg.push_str(" No data file loaded");
        } else {
            msg.push_str(&format!(" Known pages: {}", known.join(", ")));
        }
        msg
    }
}

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
}

/// Expands every directive of one chapter.
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
    let occurrences = directive::find(content);
    if occurrences.is_empty() {
        return Ok(Expanded {
            content: content.to_string(),
            ..Expanded::default()
        });
    }
    let chapter_file = chapter_path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = chapter_path
        .file_stem()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let chapter_dir = chapter_path.parent().unwrap_or(Path::new(""));
    let mut out = Expanded::default();
    let mut replacements: Vec<(Occurrence, String)> = Vec::new();
    let mut used_anchors: Vec<String> = Vec::new();
    for occ in occurrences {
        let at = format!("{display}:{}:{}", occ.position.line, occ.position.column);
        let d = match &occ.found {
            Found::Escaped => {
                let lit = directive::literal_text(occ.source(content));
                replacements.push((occ, lit));
                continue;
            }
            Found::Directive(Ok(d)) => d.clone(),
            Found::Directive(Err(msg)) => {
                let msg = format!("{at}: {msg}");
                fail_or_warn(on_error, &msg, &occ, content, &mut replacements, &mut out)?;
                continue;
            }
        };
        let result = expand_one(
            &d,
            lib,
            &stem,
            &chapter_file,
            chapter_dir,
            &mut used_anchors,
        );
        match result {
            Ok(expanded) => {
                replacements.push((occ, expanded.markdown));
                out.manifest.extend(expanded.sets);
                for s in expanded.chapters {
                    if !out.subchapters.iter().any(|c| c.path == s.path) {
                        out.subchapters.push(s);
                    }
                }
            }
            Err(e) => {
                let msg = format!("{at}: {e:#}");
                fail_or_warn(on_error, &msg, &occ, content, &mut replacements, &mut out)?;
            }
        }
    }
    out.content = directive::splice(content, &replacements);
    Ok(out)
}

fn fail_or_warn(
    on_error: OnError,
    msg: &str,
    occ: &Occurrence,
    content: &str,
    replacements: &mut Vec<(Occurrence, String)>,
    out: &mut Expanded,
) -> Result<()> {
    match on_error {
        OnError::Fail => Err(anyhow!("{msg}")),
        OnError::Warn => {
            let source = occ.source(content);
            let shown = source.replace('`', "'");
            replacements.push((
                occ.clone(),
                format!(
                    "> [!WARNING]\n> mdbook-agentx could not expand this directive: {}\n>\n> `{shown}`\n",
                    msg.replace('\n', " ")
                ),
            ));
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
}

/// A chapter expanded by [`expand_book`], waiting to go back into the book.
struct ExpandedJob {
    /// Index of the chapter in a pre-order walk of the book.
    order: usize,
    content: String,
    chapters: Vec<DeploymentChapter>,
}

fn expand_one(
    d: &directive::Directive,
    lib: &Library,
    stem: &str,
    chapter_file: &str,
    chapter_dir: &Path,
    used_anchors: &mut Vec<String>,
) -> Result<ExpandedDirective> {
    let entry = match (&d.data, &d.page) {
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
            e
        }
        (None, Some(page)) => lib.entry_for_page(page)?,
        (None, None) => unreachable!("the parser requires page or data"),
    };
    let page = &*entry;
    let deployments: Vec<&decode::Deployment> = match &d.hardware {
        None => page.deployments.iter().collect(),
        Some(hw) => {
            let known = &page.hardware;
            for h in hw {
                if !known.contains(h) {
                    bail!(
                        "hardware `{h}` has no deployment on page `{}`; it has: {}",
                        page.model,
                        known.join(", ")
                    );
                }
            }
            page.deployments
                .iter()
                .filter(|dep| hw.contains(&dep.hw))
                .collect()
        }
    };
    let anchor = if used_anchors.is_empty() {
        SECTION_ANCHOR.to_string()
    } else {
        let mut a = format!("{SECTION_ANCHOR}-{}", slug(&page.model));
        let mut n = 2;
        while used_anchors.contains(&a) {
            a = format!("{SECTION_ANCHOR}-{}-{n}", slug(&page.model));
            n += 1;
        }
        a
    };
    used_anchors.push(anchor.clone());
    let opts = SectionOptions {
        heading_level: d.level.unwrap_or(2),
        anchor,
        subchapter_dir: stem.to_string(),
        chapter_file: chapter_file.to_string(),
    };
    let section = render::render_section(page, &deployments, &opts);
    let chapters = section
        .subchapters
        .into_iter()
        .map(|s| DeploymentChapter {
            path: chapter_dir.join(&s.rel_path),
            name: s.name,
            markdown: s.markdown,
        })
        .collect();
    let sets = deployments
        .iter()
        .flat_map(|d| d.command_sets.iter())
        .map(|s| ManifestEntry::of(&page.model, s))
        .collect();
    Ok(ExpandedDirective {
        markdown: section.markdown,
        chapters,
        sets,
    })
}

/// Reads `[preprocessor.agentx]` from mdBook's config.
pub(crate) fn config_from_mdbook(
    cfg: &mdbook_preprocessor::config::Config,
) -> Result<AgentxConfig> {
    Ok(cfg
        .get::<AgentxConfig>("preprocessor.agentx")
        .context("invalid [preprocessor.agentx] in book.toml")?
        .unwrap_or_default())
}

/// A chapter to expand: its Markdown, path, and name in messages.
struct Job<'a> {
    /// Index of the chapter in a pre-order walk of the book.
    order: usize,
    content: &'a str,
    path: &'a Path,
    display: String,
}

/// Chapters holding a directive, in reading order.
fn jobs_in<'a>(items: &'a [BookItem], src_dir: &Path, order: &mut usize, jobs: &mut Vec<Job<'a>>) {
    for item in items {
        let BookItem::Chapter(ch) = item else {
            continue;
        };
        if let Some(path) = &ch.path
            && !directive::find(&ch.content).is_empty()
        {
            let source = ch.source_path.as_ref().unwrap_or(path);
            jobs.push(Job {
                order: *order,
                content: &ch.content,
                path,
                display: src_dir.join(source).display().to_string(),
            });
        }
        *order += 1;
        jobs_in(&ch.sub_items, src_dir, order, jobs);
    }
}

/// Where expansion sends the command sets of each chapter, in reading order.
pub(crate) type ManifestSink<'a> = dyn FnMut(Vec<ManifestEntry>) -> Result<()> + 'a;

/// Expands directives in every chapter of an mdBook book, adding deployment
/// chapters; returns the directives left unexpanded (`on-error = "warn"`).
///
/// `lib` holds the data: when empty, it is opened with `residency` on the
/// first directive; callers that rebuild (serve, watch) keep it. The command
/// sets of each chapter go to `sets` as soon as a batch of chapters is done,
/// so a large book never holds every set's text at once. Chapters expand on
/// all cores; errors and warnings come in reading order. Warnings are
/// printed to stderr as they come, and returned for reports.
pub(crate) fn expand_book(
    book: &mut Book,
    root: &Path,
    src_dir: &Path,
    cfg: &AgentxConfig,
    lib: &mut Option<Library>,
    residency: Residency,
    sets: &mut ManifestSink<'_>,
) -> Result<Vec<String>> {
    let mut jobs = Vec::new();
    jobs_in(&book.items, src_dir, &mut 0, &mut jobs);
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    if lib.is_none() {
        *lib = Some(Library::open(root, &cfg.data_dir, residency)?);
    }
    let library = lib.as_ref().expect("opened above");
    let mut warnings = Vec::new();
    let mut results: Vec<ExpandedJob> = Vec::with_capacity(jobs.len());
    // Batches of a few chapters per core bound how many sets wait for `sets`.
    let batch = 4 * crate::util::parallel::workers_for(jobs.len());
    for chunk in jobs.chunks(batch) {
        let expanded = crate::util::parallel::map(chunk, |job| {
            expand_chapter(job.content, job.path, &job.display, library, cfg.on_error)
        })?;
        for (job, e) in chunk.iter().zip(expanded) {
            // Printed here, once and in reading order, for every command.
            for w in &e.warnings {
                eprintln!("warning: {w}");
            }
            warnings.extend(e.warnings);
            sets(e.manifest)?;
            results.push(ExpandedJob {
                order: job.order,
                content: e.content,
                chapters: e.subchapters,
            });
        }
    }
    drop(jobs);
    let mut results = results.into_iter().peekable();
    apply_expansions(&mut book.items, &mut 0, &mut results);
    Ok(warnings)
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

/// The mdBook preprocessor: expands every `<<agentx …>>` directive of a book
/// and adds the deployment chapters. Configured by `[preprocessor.agentx]`;
/// data files are decoded when a directive uses them.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentxPreprocessor;

impl Preprocessor for AgentxPreprocessor {
    fn name(&self) -> &str {
        "agentx"
    }

    fn run(&self, ctx: &PreprocessorContext, mut book: Book) -> Result<Book> {
        let cfg = config_from_mdbook(&ctx.config)?;
        let warnings = expand_book(
            &mut book,
            &ctx.root,
            &ctx.config.book.src,
            &cfg,
            &mut None,
            Residency::OnDemand,
            &mut |_| Ok(()),
        )?;
        if !warnings.is_empty() {
            eprintln!(
                "mdbook-agentx: {} directive(s) left unexpanded (on-error = \"warn\")",
                warnings.len()
            );
        }
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> Result<bool> {
        Ok(supports(renderer))
    }
}

/// The mdBook protocol: `[context, book]` on `input`, the book on `output`.
/// Nothing but the book JSON is written to `output`; messages go to stderr.
pub fn run_protocol(mut input: impl Read, mut output: impl Write) -> Result<()> {
    let mut text = String::new();
    input
        .read_to_string(&mut text)
        .context("reading [context, book] from stdin")?;
    // Look at the version before the typed parse: a format change would make
    // that parse fail with a message that does not say why.
    let raw: serde_json::Value = serde_json::from_str(&text).context(
        "stdin is not JSON; run without arguments only as an mdBook preprocessor \
         (see `mdbook-agentx --help` for the other commands)",
    )?;
    let version = raw
        .get(0)
        .and_then(|c| c.get("mdbook_version"))
        .and_then(|v| v.as_str())
        .unwrap_or("unknown");
    if !version.starts_with("0.5.") {
        bail!(
            "mdbook-agentx supports mdBook 0.5.x, but was called by mdBook {version}; install \
             mdBook 0.5 (`cargo install mdbook --version '^0.5' --locked`)"
        );
    }
    let (ctx, book) = mdbook_preprocessor::parse_input(text.as_bytes())
        .context("cannot parse mdBook's [context, book] input")?;
    let book = AgentxPreprocessor.run(&ctx, book)?;
    serde_json::to_writer(&mut output, &book).context("writing the book to stdout")?;
    output.flush()?;
    Ok(())
}
