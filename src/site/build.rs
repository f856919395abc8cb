//! Rendering a whole site, and `build`: the site streamed into a staging
//! directory and swapped in.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::cache::RenderCache;
use super::output::destination::{OutputKind, check_output};
use super::output::sink::{FileSink, Inspect, Inspected, MemoryFiles, SiteFile, Staging};
use super::pages::layout::redirect_html;
use super::pages::sidebar::{ALL_CHAPTERS, SIDEBAR_FULL_LIMIT, sidebar_is_shortened};
use super::search::{SEARCH_INDEX, search_index_script};
use super::theme::Theme;
use super::{
    BuildOptions, BuildReport, EntrySink, ExpandOptions, RenderCounts, Rendered, Site, agents,
    href, html_path, pages::links, spill,
};
use crate::book::BookDir;
use crate::preprocessor::Residency;
use crate::util::fs::is_plain_relative;
use crate::util::notice::Notice;

mod page;

use self::page::{PageRun, lock};

impl Site {
    /// Every output file (path relative to the site root → bytes), with a fresh theme and cache.
    #[cfg(test)]
    pub(crate) fn render_files(&self, opts: &BuildOptions) -> Result<Vec<SiteFile>> {
        let theme = Theme::load(&self.dir)?;
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
        let texts = agents::MemoryTexts::new(&self.manifest);
        let counts = self.render_into(markdown, theme, Some(&shared), opts, &files, Some(&texts));
        *cache = shared.into_inner().expect("render cache lock");
        let counts = counts?;
        // Entries that did not change are not formatted again.
        let manifest = cache.manifest.write(&self.manifest)?;
        files.put(Path::new(crate::manifest::MANIFEST), manifest)?;
        let mut files = files.into_sorted();
        let mut full = Vec::new();
        self.write_llms_full(&mut full, &|twin| {
            let i = files
                .binary_search_by(|f| f.path.as_path().cmp(twin))
                .map_err(|_| anyhow::anyhow!("{} was not rendered", twin.display()))?;
            Ok(files[i].bytes.clone())
        })?;
        let at = files.partition_point(|f| f.path.as_path() < Path::new(agents::LLMS_FULL_TXT));
        files.insert(
            at,
            SiteFile::new(PathBuf::from(agents::LLMS_FULL_TXT), full),
        );
        Ok(Rendered {
            files,
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
        texts: Option<&dyn agents::CopyAllTexts>,
    ) -> Result<RenderCounts> {
        assert_eq!(markdown.len(), self.pages.len(), "one Markdown per page");
        let capped = super::output::capped::Capped::new(out, self.dir.agentx.max_site_bytes());
        let out: &dyn FileSink = &capped;
        // Cache keys hash each page's Markdown, which a spilled page lacks.
        assert!(
            cache.is_none() || self.spilled.is_none(),
            "a cached render of a spilled site"
        );
        // The first chapter doubles as the front page, as in mdBook.
        let has_index = self.pages.iter().any(|p| p.path == Path::new("index.md"));
        let front_is_first = !has_index && self.pages[0].path.parent() == Some(Path::new(""));
        let run = PageRun {
            theme,
            cache,
            keys: cache.map(|_| self.cache_keys(&markdown, opts)),
            opts,
            out,
            front_is_first,
            texts,
            counts: RenderCounts::default(),
        };
        let index =
            crate::util::parallel::map_owned(markdown, |i, md| self.page_file(&run, i, md))?;
        if let (Some(c), Some(keys)) = (cache, &run.keys) {
            lock(c).keep_only(keys);
        }
        if !has_index && !front_is_first {
            let target = href(&html_path(&self.pages[0].path));
            out.put(Path::new("index.html"), redirect_html(&target).into_bytes())?;
        }
        self.special_pages(theme, opts, out)?;
        let script = match cache {
            Some(c) => lock(c).search_script(&self.catalog, index)?,
            None => Arc::new(search_index_script(&self.catalog, &index)?.into_bytes()),
        };
        out.put_shared(Path::new(SEARCH_INDEX), script)?;
        if texts.is_some() {
            out.put(Path::new(agents::LLMS_TXT), self.llms_txt().into_bytes())?;
        }
        self.assets(theme, out)?;
        self.copy_static_files(theme, out)?;
        Ok(run.counts)
    }

    /// `llms.txt` of the site.
    pub(super) fn llms_txt(&self) -> String {
        let pages: Vec<agents::PageLink<'_>> = self
            .pages
            .iter()
            .map(|p| agents::PageLink {
                path: &p.path,
                title: &p.title,
            })
            .collect();
        agents::llms_txt(
            &self.dir.title(),
            self.dir.config.book.description.as_deref(),
            &self.catalog.overview,
            &pages,
        )
    }

    /// Writes `llms-full.txt`: every page's twin, in reading order, each
    /// from `twin` (given its path in the site).
    pub(super) fn write_llms_full(
        &self,
        out: &mut dyn std::io::Write,
        twin: &dyn Fn(&Path) -> Result<Arc<Vec<u8>>>,
    ) -> Result<()> {
        let mut twins = self.pages.iter().map(|p| {
            let path = agents::twin_path(&p.path);
            let bytes = twin(&path)?;
            Ok((path, bytes))
        });
        agents::write_llms_full(out, &self.dir.title(), &mut twins)
    }

    /// `404.html`, and the page of all chapters when sidebars are shortened.
    fn special_pages(&self, theme: &Theme, opts: &BuildOptions, out: &dyn FileSink) -> Result<()> {
        out.put(
            Path::new("404.html"),
            self.not_found(theme, opts)?.into_bytes(),
        )?;
        if !sidebar_is_shortened(&self.sidebar) {
            return Ok(());
        }
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
        )
    }

    /// The theme's assets, and `[output.html] additional-css / -js`.
    fn assets(&self, theme: &Theme, out: &dyn FileSink) -> Result<()> {
        for (name, bytes) in theme.assets() {
            out.put(&Path::new("theme").join(name), bytes.to_vec())?;
        }
        let html = &self.dir.html;
        let css = html.additional_css.iter().map(|p| ("additional-css", p));
        for (key, extra) in css.chain(html.additional_js.iter().map(|p| ("additional-js", p))) {
            // Written at the same path in the site, so it must stay below both roots.
            if !is_plain_relative(extra) {
                bail!(
                    "[output.html] {key} {:?}: the path must be relative to the book root, \
                     without `..` or a leading `/` (it is copied to the same path in the site)",
                    extra
                );
            }
            let p = self.dir.root.join(extra);
            let bytes = self.dir.bounds.read(&p).with_context(|| {
                format!("[output.html] {key} names {}", self.dir.display_path(&p))
            })?;
            out.put(extra, bytes)?;
        }
        Ok(())
    }

    /// The source dir's other files. One never replaces a generated file (the
    /// manifest, a page, a theme asset): it would stale the site silently.
    fn copy_static_files(&self, theme: &Theme, out: &dyn FileSink) -> Result<()> {
        let mut generated: HashSet<PathBuf> =
            self.pages.iter().map(|p| html_path(&p.path)).collect();
        generated.extend(
            [
                "index.html",
                "404.html",
                ALL_CHAPTERS,
                SEARCH_INDEX,
                crate::manifest::MANIFEST,
                agents::LLMS_TXT,
                agents::LLMS_FULL_TXT,
            ]
            .map(PathBuf::from),
        );
        generated.extend(
            theme
                .assets()
                .map(|(name, _)| Path::new("theme").join(name)),
        );
        let html = &self.dir.html;
        generated.extend(
            html.additional_css
                .iter()
                .chain(&html.additional_js)
                .cloned(),
        );
        for SiteFile { path: rel, bytes } in self.static_files()? {
            let bytes = Arc::unwrap_or_clone(bytes);
            if generated.contains(&rel) {
                self.notices.push(Notice::warning(format!(
                    "{} is not copied: the build generates {}; rename it",
                    self.dir.display_path(&self.dir.src_dir().join(&rel)),
                    rel.display()
                )));
                continue;
            }
            out.put(&rel, bytes)?;
        }
        Ok(())
    }

    /// Non-Markdown files of the source dir (images…), except AgentX data.
    fn static_files(&self) -> Result<Vec<SiteFile>> {
        let src = self.dir.src_dir();
        let data_dir = self.dir.data_dir();
        let mut out = Vec::new();
        let bounds = &self.dir.bounds;
        for p in bounds.files_below(&src, |p| p.starts_with(&data_dir))? {
            if p.extension().is_none_or(|e| e != "md") {
                let bytes = bounds.read(&p)?;
                let rel = p.strip_prefix(&src).expect("under src").to_path_buf();
                out.push(SiteFile::new(rel, bytes));
            }
        }
        Ok(out)
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

/// [`build`], passing every rendered file through `inspect`: when it reports
/// problems, the new site is not swapped in and the problems are returned.
pub(crate) fn build_inspected(
    root: &Path,
    opts: &BuildOptions,
    inspect: &Inspect,
) -> Result<(BuildReport, Vec<String>)> {
    build_spilling(root, opts, inspect, spill::HELD_IN_MEMORY)
}

/// [`build_inspected`], with at most `spill_budget` bytes of expanded
/// Markdown waiting in memory for its page ([`spill`]).
pub(super) fn build_spilling(
    root: &Path,
    opts: &BuildOptions,
    inspect: &Inspect,
    spill_budget: usize,
) -> Result<(BuildReport, Vec<String>)> {
    let start = Instant::now();
    let dir = BookDir::open(root)?;
    let out_dir = output_dir(&dir, opts.dest.as_deref(), opts.allow_dest_outside)?;
    // Templates first: a template error should not wait for the expansion.
    let theme = Theme::load(&dir)?;
    let stage = Staging::create(&out_dir)?;
    let manifest_path = stage.path().join(crate::manifest::MANIFEST);
    let file = std::fs::File::create(&manifest_path)
        .with_context(|| format!("cannot write {}", manifest_path.display()))?;
    let mut manifest = crate::manifest::ManifestWriter::new(std::io::BufWriter::new(file))?;
    // Where each set's entry is, so pages read their Copy all texts back.
    let mut spans = agents::SpanIndex::default();
    let options = ExpandOptions {
        residency: Residency::OnDemand,
        spill_budget,
        entries: Some(&mut |sets| {
            for e in sets.iter() {
                spans.add(e, manifest.push(e)?);
            }
            Ok(())
        }),
        ..ExpandOptions::default()
    };
    let mut site = Site::expand(dir, &OnceLock::new(), options)?;
    let (_, command_sets) = manifest.finish()?;
    let texts = agents::FileTexts::open(&manifest_path, spans)?;
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
    site.render_into(markdown, &theme, None, opts, &inspected, Some(&texts))?;
    // The twins are in the staging directory now: read back one by one.
    let full_path = stage.path().join(agents::LLMS_FULL_TXT);
    let full = std::fs::File::create(&full_path)
        .with_context(|| format!("cannot write {}", full_path.display()))?;
    let mut full = std::io::BufWriter::new(full);
    site.write_llms_full(&mut full, &|twin| {
        let p = stage.path().join(twin);
        let bytes = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
        Ok(Arc::new(bytes))
    })?;
    full.flush()?;
    stage.count_file(std::fs::metadata(&full_path)?.len());
    let problems = inspected.problems.into_inner().expect("problems lock");
    let (files, bytes) = if problems.is_empty() {
        stage.commit(&site.notices)?
    } else {
        // Dropping the stage removes it; the old site stays.
        (0, 0)
    };
    let report = BuildReport {
        notices: site.notices.take(),
        out_dir,
        pages: site.pages.len(),
        command_sets,
        files,
        bytes,
        elapsed: start.elapsed(),
    };
    Ok((report, problems))
}

/// Renders the book in `dir` page by page, as [`build`] does but without
/// writing anything, and checks its internal links and anchors as pages go
/// by (`check`; `skip` as for [`links::check`]), sending each chapter's
/// command sets to `sets`: memory holds what a build holds, plus the site's
/// ids and links. Returns the build's warnings too.
pub(crate) fn check_links(
    dir: BookDir,
    lib: &OnceLock<crate::preprocessor::Library>,
    skip: &[&str],
    sets: &mut EntrySink<'_>,
) -> Result<(links::LinkCheck, Vec<Notice>)> {
    let options = ExpandOptions {
        residency: Residency::OnDemand,
        spill_budget: spill::HELD_IN_MEMORY,
        entries: Some(sets),
        ..ExpandOptions::default()
    };
    let mut site = Site::expand(dir, lib, options)?;
    let theme = Theme::load(&site.dir)?;
    let collector = links::LinkCollector::new(skip);
    let markdown = site.take_markdown();
    site.render_into(
        markdown,
        &theme,
        None,
        &BuildOptions::default(),
        &collector,
        None,
    )?;
    // The build writes the manifest too; it has no links.
    collector.name_file(Path::new(crate::manifest::MANIFEST));
    Ok((collector.finish(), site.notices.take()))
}

/// The manifest of the book in `root`: its chapters expanded, nothing
/// rendered, and the expansion's warnings. Every data file is decoded first
/// and shown to `page`.
pub(crate) fn book_manifest(
    root: &Path,
    page: &mut dyn FnMut(&crate::decode::DecodedPage),
) -> Result<(crate::manifest::Manifest, Vec<Notice>)> {
    let dir = BookDir::open(root)?;
    let lib = crate::preprocessor::Library::open_visiting(&dir, &mut |_, decoded| page(decoded))?;
    let mut entries = Vec::new();
    let options = ExpandOptions {
        residency: Residency::OnDemand,
        entries: Some(&mut |sets| {
            entries.extend(sets.iter().cloned());
            Ok(())
        }),
        ..ExpandOptions::default()
    };
    let site = Site::expand(dir, &OnceLock::from(lib), options)?;
    let notices = site.notices.take();
    drop(site);
    Ok((crate::manifest::Manifest::new(entries), notices))
}

/// The output directory of a build: `dest`, or `[build] build-dir` of
/// `book.toml`, refused by [`check_output`]'s rule (one for every output):
/// inside the book unless `allow_outside` (a `build-dir` from a pull request
/// must not write anywhere the runner can), never over anything the book
/// reads, `.git`, or a directory this tool did not make.
pub(crate) fn output_dir(
    dir: &BookDir,
    dest: Option<&Path>,
    allow_outside: bool,
) -> Result<PathBuf> {
    let (out, origin) = match dest {
        Some(d) => (d.to_path_buf(), "-d"),
        None => (dir.build_dir(), "[build] build-dir"),
    };
    check_output(dir, &out, OutputKind::Directory, origin, allow_outside)?;
    Ok(out)
}
