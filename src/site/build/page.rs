//! One page of a render: its body (HTML and the files beside it), its
//! twin for agents, its layout, each from the render cache when unchanged.

use std::borrow::Cow;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use anyhow::Result;

use crate::site::cache::{CacheKeys, RenderCache};
use crate::site::output::sink::FileSink;
use crate::site::pages::lazy;
use crate::site::pages::page_html::{self, LinkMode, RenderedMarkdown};
use crate::site::search::{SearchPage, site_page};
use crate::site::theme::Theme;
use crate::site::{BuildOptions, RenderCounts, Site, agents, href, html_path};

/// Markdown bytes from which a page's twin is made on a thread of its own.
const LONG_PAGE: usize = 1 << 20;

impl Site {
    /// One page: its body (rendered or cached), laid out (or cached), written;
    /// returns what the search index needs of it.
    pub(super) fn page_file(
        &self,
        run: &PageRun<'_>,
        i: usize,
        md: Cow<'_, str>,
    ) -> Result<SearchPage> {
        let page = &self.pages[i];
        let spilled = match &self.spilled {
            Some(s) => s.read(&page.path)?,
            None => None,
        };
        let md = spilled.map_or(md, Cow::Owned);
        // A long page's twin is made beside its HTML on a second thread:
        // one chapter of 10,000 directives is otherwise all on one core.
        let (body, twin) = if md.len() >= LONG_PAGE && run.texts.is_some() {
            std::thread::scope(|s| {
                let twin = s.spawn(|| self.twin_if_wanted(run, i, &md));
                let body = self.body_of(run, i, &md);
                (body, twin.join().expect("twin thread"))
            })
        } else {
            (self.body_of(run, i, &md), self.twin_if_wanted(run, i, &md))
        };
        if let Some(twin) = twin? {
            if i == 0 && run.front_is_first {
                run.out.put_shared(Path::new("index.md"), twin.clone())?;
            }
            run.out.put_shared(&agents::twin_path(&page.path), twin)?;
        }
        drop(md);
        let keys = run.keys.as_ref();
        for (path, bytes) in &body.beside {
            run.out.put_shared(path, bytes.clone())?;
        }
        let cached = run
            .cache
            .zip(keys)
            .and_then(|(c, k)| lock(c).pages.get(&k.pages[i]).cloned());
        let html = match cached {
            Some(html) => html,
            None => {
                run.counts.pages.fetch_add(1, Ordering::Relaxed);
                let html = Arc::new(
                    self.render_page(i, &body, run.theme, run.opts)?
                        .into_bytes(),
                );
                if let (Some(c), Some(k)) = (run.cache, keys) {
                    lock(c).pages.insert(k.pages[i], html.clone());
                }
                html
            }
        };
        if i == 0 && run.front_is_first {
            run.out.put_shared(Path::new("index.html"), html.clone())?;
        }
        run.out.put_shared(&html_path(&page.path), html)?;
        let url = href(&html_path(&page.path));
        Ok(site_page(&page.path, &page.title, &url, &body.headings))
    }

    /// Page `i`'s body: its HTML and what goes beside it, from the cache
    /// when its Markdown is unchanged.
    fn body_of(&self, run: &PageRun<'_>, i: usize, md: &str) -> Arc<RenderedMarkdown> {
        let page = &self.pages[i];
        let keys = run.keys.as_ref();
        let cached = run
            .cache
            .zip(keys)
            .and_then(|(c, k)| lock(c).bodies.get(&k.bodies[i]).cloned());
        if let Some(body) = cached {
            return body;
        }
        run.counts.bodies.fetch_add(1, Ordering::Relaxed);
        let options = self.dir.html.markdown;
        let mut body = page_html::render(md, &page.path, &LinkMode::Pages, options);
        // A model page's whole launch data goes beside it (site/pages/lazy.rs).
        if let Some((html, files)) = lazy::split_model_data(&body.html, &page.path) {
            body.html = html;
            body.beside = files.into_iter().map(|(p, b)| (p, Arc::new(b))).collect();
        }
        let body = Arc::new(body);
        if let (Some(c), Some(k)) = (run.cache, keys) {
            lock(c).bodies.insert(k.bodies[i], body.clone());
        }
        body
    }

    /// Page `i`'s twin when the build writes agent files.
    fn twin_if_wanted(
        &self,
        run: &PageRun<'_>,
        i: usize,
        md: &str,
    ) -> Result<Option<Arc<Vec<u8>>>> {
        run.texts
            .map(|texts| self.twin_of(run, i, md, texts))
            .transpose()
    }

    /// The twin of page `i` ([`agents::twin`]), from the cache when its
    /// body is: a set's Copy all text is made of what its Markdown shows
    /// (exports, process titles and placements, commands, files), so the
    /// page's Markdown determines its twin.
    fn twin_of(
        &self,
        run: &PageRun<'_>,
        i: usize,
        md: &str,
        texts: &dyn agents::CopyAllTexts,
    ) -> Result<Arc<Vec<u8>>> {
        let key = run.keys.as_ref().map(|k| k.bodies[i]);
        if let (Some(c), Some(k)) = (run.cache, key)
            && let Some(twin) = lock(c).twins.get(&k)
        {
            return Ok(twin.clone());
        }
        let options = self.dir.html.markdown;
        let twin = agents::twin(md, &self.pages[i].path, options, texts)?;
        let twin = Arc::new(twin.into_bytes());
        if let (Some(c), Some(k)) = (run.cache, key) {
            lock(c).twins.insert(k, twin.clone());
        }
        Ok(twin)
    }
}

/// What every page of one render shares.
pub(super) struct PageRun<'a> {
    pub(super) theme: &'a Theme,
    pub(super) cache: Option<&'a Mutex<RenderCache>>,
    /// The cache keys of each page (with a cache only).
    pub(super) keys: Option<CacheKeys>,
    pub(super) opts: &'a BuildOptions,
    pub(super) out: &'a dyn FileSink,
    /// Whether the first chapter is also written as `index.html`.
    pub(super) front_is_first: bool,
    /// Where the twins' Copy all texts come from; without, no agent files.
    pub(super) texts: Option<&'a dyn agents::CopyAllTexts>,
    pub(super) counts: RenderCounts,
}

pub(super) fn lock(c: &Mutex<RenderCache>) -> std::sync::MutexGuard<'_, RenderCache> {
    c.lock().expect("render cache lock")
}
