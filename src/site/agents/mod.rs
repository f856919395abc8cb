//! The book as Markdown, for readers other than a browser: what a site
//! publishes for agents (this module), the same files under mdBook
//! ([`mdbook`]), and the book expanded for other site generators
//! ([`portable`]).
//!
//! What a site publishes for agents, in the llmstxt.org manner: a Markdown
//! twin beside every page (`page.html` → `page.md`: the page as `markdown
//! -d` writes it, each command set followed by its Copy all text),
//! `llms.txt` (the book's title and summary, one section per model linking
//! its page and each deployment's) and `llms-full.txt` (every twin in
//! reading order). `launches.json`, the manifest, lists every command set.
//! The standalone builder writes them with the site; under mdBook the
//! `agent-files` renderer writes them beside mdBook's HTML ([`publish`]).
//!
//! A twin's Copy all texts come from the manifest: from its entries in
//! memory, or read back from the manifest file a streamed build has
//! written ([`FileTexts`]), so a large book's texts are never all held.
//!
//! May use: `book`, `manifest`, `preprocessor`, `util`; of the site:
//! `portable` (the twin's Markdown), `pages::overview` (the deployments
//! shown), the root's `Site` and output types.

pub(crate) mod mdbook;
pub(super) mod portable;

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use pulldown_cmark::{Event, Tag};

use self::portable::{apply_edits, heading_edits};
use super::pages::overview::OverviewRow;
use crate::manifest::{EntrySpan, ManifestEntry};
use crate::util::cmark::MarkdownConfig;
use crate::util::escape::{fenced_into, text};
use crate::util::text::url_path;

/// The index for agents, at the site root.
pub(crate) const LLMS_TXT: &str = "llms.txt";
/// Every page's twin in one file, at the site root.
pub(crate) const LLMS_FULL_TXT: &str = "llms-full.txt";

/// The twin of the page of chapter `chapter` (`models/x.md`): the same path
/// with the `.md` extension, beside `models/x.html`.
pub(crate) fn twin_path(chapter: &Path) -> PathBuf {
    chapter.with_extension("md")
}

/// The Copy all texts of the command sets pages show.
pub(crate) trait CopyAllTexts: Sync {
    /// The text of set `id` shown on the page at `page_url` (`models/x.html`).
    fn get(&self, page_url: &str, id: &str) -> Result<Option<String>>;
}

/// The key of a set's text: its page's URL and its id, from its permalink.
fn key_of(e: &ManifestEntry) -> (&str, &str) {
    let page = e.permalink.split_once('#').map_or("", |(page, _)| page);
    (page, e.id.as_str())
}

/// Texts from manifest entries in memory, per chapter as the expansion
/// made them (each chapter lists every set it shows, with its own
/// permalinks, before the book-wide manifest drops repeats).
pub(crate) struct MemoryTexts<'a>(HashMap<(&'a str, &'a str), &'a str>);

impl<'a> MemoryTexts<'a> {
    pub(crate) fn new(chapters: &'a [Arc<Vec<ManifestEntry>>]) -> MemoryTexts<'a> {
        let all = chapters.iter().flat_map(|c| c.iter());
        MemoryTexts(all.map(|e| (key_of(e), e.text.as_str())).collect())
    }
}

impl CopyAllTexts for MemoryTexts<'_> {
    fn get(&self, page_url: &str, id: &str) -> Result<Option<String>> {
        Ok(self.0.get(&(page_url, id)).map(|t| t.to_string()))
    }
}

/// Where each set's entry is in a manifest file being written: filled as
/// the build streams entries, read by [`FileTexts`] once it is complete.
#[derive(Debug, Default)]
pub(crate) struct SpanIndex(HashMap<(String, String), EntrySpan>);

impl SpanIndex {
    /// Records `e`, whose entry (or the same set's, listed first) is at `span`.
    pub(crate) fn add(&mut self, e: &ManifestEntry, span: EntrySpan) {
        let (page, id) = key_of(e);
        self.0.insert((page.to_string(), id.to_string()), span);
    }
}

/// Texts read back from a complete manifest file, entry by entry.
pub(crate) struct FileTexts {
    file: Mutex<File>,
    spans: SpanIndex,
}

impl FileTexts {
    pub(crate) fn open(manifest: &Path, spans: SpanIndex) -> Result<FileTexts> {
        let file =
            File::open(manifest).with_context(|| format!("cannot read {}", manifest.display()))?;
        Ok(FileTexts {
            file: Mutex::new(file),
            spans,
        })
    }
}

impl CopyAllTexts for FileTexts {
    fn get(&self, page_url: &str, id: &str) -> Result<Option<String>> {
        let Some(span) = self.spans.0.get(&(page_url.to_string(), id.to_string())) else {
            return Ok(None);
        };
        let mut bytes = vec![0; span.len];
        {
            let mut file = self.file.lock().expect("manifest file lock");
            file.seek(SeekFrom::Start(span.at))?;
            file.read_exact(&mut bytes)?;
        }
        let entry: ManifestEntry =
            serde_json::from_slice(&bytes).context("reading a manifest entry back")?;
        Ok(Some(entry.text))
    }
}

/// The twin of a page: its Markdown as `markdown -d` writes it (headings
/// carry their anchors as `<a id>`), and after each command set its Copy
/// all text, found by the page's URL and the set's id.
pub(crate) fn twin(
    md: &str,
    chapter: &Path,
    markdown: MarkdownConfig,
    texts: &dyn CopyAllTexts,
) -> Result<String> {
    let events: Vec<(Event<'_>, Range<usize>)> = markdown.parser(md).into_offset_iter().collect();
    let mut edits = heading_edits(md, &events);
    edits.extend(script_blocks(&events).map(|r| (r, String::new())));
    let page_url = url_path(&chapter.with_extension("html"));
    for (at, id) in set_ends(&events) {
        if let Some(all) = texts.get(&page_url, id)? {
            edits.push((at..at, copy_all_block(&all)));
        }
    }
    edits.sort_by_key(|(r, _)| r.start);
    Ok(apply_edits(md, edits))
}

/// The selector's element and its JSON (HTML blocks the page's script
/// reads): nothing a reader of Markdown can use, and the largest part of a
/// deployment chapter's text.
fn script_blocks<'e>(
    events: &'e [(Event<'_>, Range<usize>)],
) -> impl Iterator<Item = Range<usize>> + 'e {
    // The deployment selector's and the model page's picker's: data for
    // agentx.js, not for a reader of the Markdown (a model's picker data
    // was a whole model's launches, 24 KB per directive on the sample).
    const SELECTOR: [&str; 4] = [
        "<div class=\"agentx-selector\"",
        "<script type=\"application/json\" class=\"agentx-selector-data\">",
        "<div class=\"agentx-picker\"",
        "<script type=\"application/json\" class=\"agentx-model-data\">",
    ];
    events.windows(2).filter_map(|w| match w {
        [
            (Event::Start(Tag::HtmlBlock), block),
            (Event::Html(first), _),
        ] if SELECTOR.iter().any(|s| first.starts_with(s)) => Some(block.clone()),
        _ => None,
    })
}

/// Where each command set's wrapper closes (the start of its `</div>`),
/// with the set's id: HTML blocks only, so text in code is never taken
/// for a wrapper.
fn set_ends<'e>(events: &'e [(Event<'_>, Range<usize>)]) -> Vec<(usize, &'e str)> {
    const OPEN: &str = "<div class=\"agentx-set\" data-anchor=\"";
    let mut ends = Vec::new();
    let mut open: Option<&str> = None;
    for (e, range) in events {
        let Event::Html(html) = e else { continue };
        if let Some(rest) = html.strip_prefix(OPEN) {
            // Ids are slugs ([a-z0-9-]): written as they are, no entity.
            open = rest.split_once('"').map(|(id, _)| id);
        } else if html.trim_end() == "</div>"
            && let Some(id) = open.take()
        {
            ends.push((range.start, id));
        }
    }
    ends
}

/// A set's Copy all text as a fenced `bash` block under its label.
fn copy_all_block(all: &str) -> String {
    let mut out = String::with_capacity(all.len() + 96);
    out.push_str("**Copy all** (the whole set as one script):\n\n");
    // The fence ends with a blank line, before the wrapper's `</div>`.
    fenced_into(&mut out, "bash", all.strip_suffix('\n').unwrap_or(all));
    out
}

/// One chapter as `llms.txt` links it.
pub(crate) struct PageLink<'a> {
    pub path: &'a Path,
    pub title: &'a str,
}

/// `llms.txt`: `# title`, `> summary`, what the site publishes, then one
/// section per model (its page, then each deployment's page, with counts)
/// and the other pages. Links go to the twins, relative to the site root.
pub(crate) fn llms_txt(
    title: &str,
    description: Option<&str>,
    rows: &[OverviewRow],
    pages: &[PageLink<'_>],
) -> String {
    let link =
        |t: &str, chapter: &Path| format!("[{}]({})", text(t), url_path(&twin_path(chapter)));
    let models = models(rows);
    let sets: usize = rows.iter().map(|r| r.sets).sum();
    let mut out = format!("# {}\n\n", text(title));
    let summary = match description {
        Some(d) if !d.trim().is_empty() => text(d),
        _ => format!(
            "Launch commands for {} models: {} deployments, {sets} command sets.",
            models.len(),
            rows.len()
        ),
    };
    out.push_str(&format!("> {summary}\n\n"));
    out.push_str(
        "Every page is also published as Markdown beside its HTML (`page.html` → `page.md`, \
         the links below); in a deployment's page each command set ends with its **Copy all** \
         text, the whole launch as one script. `llms-full.txt` holds every page in reading \
         order, and `launches.json` lists every command set with its model, hardware, GPUs, \
         nodes, concurrency, KV tier, router, status, permalink and Copy all text.\n",
    );
    let title_of = |chapter: &Path| {
        pages
            .iter()
            .find(|p| p.path == chapter)
            .map_or("", |p| p.title)
    };
    for (model, chapter, deployments) in &models {
        let total: usize = deployments.iter().map(|r| r.sets).sum();
        out.push_str(&format!("\n## {}\n\n", text(model)));
        out.push_str(&format!(
            "- {}: the model page, {} deployments, {total} command sets\n",
            link(title_of(chapter), chapter),
            deployments.len()
        ));
        for r in deployments {
            out.push_str(&format!(
                "- {}: {} command sets\n",
                link(&r.title, &r.chapter),
                r.sets
            ));
        }
    }
    let generated = |p: &Path| rows.iter().any(|r| r.chapter == p || r.model_chapter == p);
    let others: Vec<&PageLink<'_>> = pages.iter().filter(|p| !generated(p.path)).collect();
    if !others.is_empty() {
        out.push_str("\n## Other pages\n\n");
        for p in others {
            out.push_str(&format!("- {}\n", link(p.title, p.path)));
        }
    }
    out.push_str(&format!(
        "\n## Optional\n\n- [Every page in one file]({LLMS_FULL_TXT})\n- [Every command set as \
         JSON]({}): schema version {}\n",
        crate::manifest::MANIFEST,
        crate::manifest::LAUNCHES_VERSION
    ));
    out
}

/// A model's section: its name, the chapter of its directive, its deployments.
type ModelSection<'r> = (&'r str, &'r Path, Vec<&'r OverviewRow>);

/// The rows grouped by (model, chapter of its section), in reading order.
fn models(rows: &[OverviewRow]) -> Vec<ModelSection<'_>> {
    let mut out: Vec<ModelSection<'_>> = Vec::new();
    for r in rows {
        match out
            .iter_mut()
            .find(|(m, c, _)| *m == r.model && *c == r.model_chapter)
        {
            Some((_, _, v)) => v.push(r),
            None => out.push((&r.model, &r.model_chapter, vec![r])),
        }
    }
    out
}

/// Writes `llms-full.txt`: the title, then each page's twin after a rule
/// and a `Source:` line naming it. `twins` yields each page's twin path and
/// its bytes in reading order, so a streamed build reads them back one by one.
pub(crate) fn write_llms_full(
    out: &mut dyn Write,
    title: &str,
    twins: &mut dyn Iterator<Item = Result<(PathBuf, Arc<Vec<u8>>)>>,
) -> Result<()> {
    write!(
        out,
        "# {}\n\n> Every page of this site, in reading order, as Markdown.\n",
        text(title)
    )?;
    for twin in twins {
        let (path, bytes) = twin?;
        write!(out, "\n---\n\nSource: {}\n\n", url_path(&path))?;
        out.write_all(&bytes)?;
        if !bytes.ends_with(b"\n") {
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
