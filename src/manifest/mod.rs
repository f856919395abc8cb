//! The build manifest, `launches.json`: one entry per command set, in book
//! order, with what a tool needs to pick a launch (model, hardware,
//! checkpoint, deployment, GPUs, nodes, concurrency, tier, router, status,
//! provenance), where it is shown (`permalink`) and the exact Copy all text.
//! Its schema is versioned ([`LAUNCHES_VERSION`]) and documented in the
//! guide (`content/guide/agent-files.md`); it replaces the undocumented `agentx-manifest.json` of earlier
//! versions, which `diff` still reads. Written entry by entry as a build
//! streams; the pure comparison of two manifests (identical, added, removed
//! and changed command sets per page) is [`compare`]. `diff` formats
//! comparisons; `sync` can compare the command sets of data files without
//! building a site.
//!
//! May use: `decode` (the command sets an entry describes), `util`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::decode::{CommandSet, Deployment, Provenance};

/// File name of the manifest in a built site.
pub const MANIFEST: &str = "launches.json";

/// The manifest's name in sites built before `launches.json` (read by `diff`).
pub const LEGACY_MANIFEST: &str = "agentx-manifest.json";

/// The schema version `launches.json` declares. Raised when a field changes
/// meaning or goes away; new fields may appear within a version.
pub const LAUNCHES_VERSION: u32 = 1;

/// One command set as built: an entry of `launches.json`. Field names are
/// the schema's (`content/guide/agent-files.md`, "launches.json"); a legacy manifest's `page`,
/// `concs` and `text` are read as `model`, `concurrency` and `copy_all`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// The stable anchor id.
    pub id: String,
    /// The set on its deployment chapter, relative to the site root
    /// (`models/x/<cell>.html#<id>`); empty when not placed in a book.
    #[serde(default)]
    pub permalink: String,
    /// The data file's `model`.
    #[serde(rename = "model", alias = "page")]
    pub page: String,
    /// Cell id.
    pub cell: String,
    /// Hardware id (`gb300`).
    #[serde(default)]
    pub hardware: String,
    /// Hardware as the data labels it (`GB300`).
    #[serde(default)]
    pub hardware_label: String,
    /// Checkpoint as the lane table shows it.
    #[serde(default)]
    pub checkpoint: String,
    /// The deployment's label (`Agg TP4`, `Disagg 1P1D · …`).
    #[serde(default)]
    pub deployment: String,
    /// Spec-decoding detail (`MTP 3-1-4`), if any.
    #[serde(default)]
    pub detail: Option<String>,
    /// GPUs the deployment uses.
    #[serde(default)]
    pub gpus: u32,
    /// Nodes the set's workers occupy.
    #[serde(default)]
    pub nodes: u32,
    /// Concurrencies of the point.
    #[serde(rename = "concurrency", alias = "concs")]
    pub concs: Vec<u32>,
    /// KV tier id.
    pub tier: String,
    /// Router id.
    pub router: String,
    /// Status id (`verified`, `derived`, …).
    pub status: String,
    /// The image the commands run in.
    #[serde(default)]
    pub image: String,
    /// Where the point's run is recorded.
    #[serde(default)]
    pub provenance: LaunchProvenance,
    /// FNV-1a 64 of `text`, hex.
    pub hash: String,
    /// The full text a reader copies (env exports, titles, commands,
    /// files): exactly what Copy all copies and `decode` prints.
    #[serde(rename = "copy_all", alias = "text")]
    pub text: String,
}

/// Where the run of a set's point is recorded (for a derived set: the
/// measured launch of the same point it is derived from). Links are kept
/// only when a reader may follow them (`http:`, `https:` or relative), as
/// on the page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchProvenance {
    /// The lane's config key in InferenceX.
    #[serde(default)]
    pub config_key: String,
    /// The recipe override the point used.
    #[serde(default, rename = "override")]
    pub override_name: Option<String>,
    /// The run that measured it.
    #[serde(default)]
    pub run: Option<String>,
    /// The pull request's number.
    #[serde(default)]
    pub pr: Option<String>,
    /// The pull request.
    #[serde(default)]
    pub pull_request: Option<String>,
    /// The comment that signed off a `verified-pr` run.
    #[serde(default)]
    pub comment: Option<String>,
    /// The job log of the point.
    #[serde(default)]
    pub job: Option<String>,
    /// The recipe at the measured commit.
    #[serde(default)]
    pub recipe: Option<String>,
    /// The InferenceX commit.
    #[serde(default)]
    pub commit: Option<String>,
    /// The date on the dashboard.
    #[serde(default)]
    pub date: Option<String>,
}

impl LaunchProvenance {
    fn of(p: &Provenance) -> LaunchProvenance {
        let url = |u: &Option<String>| {
            u.as_ref()
                .filter(|u| crate::util::escape::safe_url(u).is_some())
                .cloned()
        };
        LaunchProvenance {
            config_key: p.config_key.clone(),
            override_name: p.override_name.clone(),
            run: url(&p.run_url),
            pr: p.pr.clone(),
            pull_request: url(&p.pr_url),
            comment: url(&p.comment_url),
            job: url(&p.job_url),
            recipe: url(&p.recipe_url),
            commit: p.sha.clone(),
            date: p.date.clone(),
        }
    }
}

impl ManifestEntry {
    /// The entry of one command set of page `page`, with what the set
    /// itself knows (not its deployment's facts: see [`ManifestEntry::placed`]).
    pub fn of(page: &str, set: &CommandSet) -> ManifestEntry {
        let text = set.copy_all_text();
        ManifestEntry {
            id: set.anchor.clone(),
            permalink: String::new(),
            page: page.to_string(),
            cell: set.cell_id.clone(),
            hardware: String::new(),
            hardware_label: String::new(),
            checkpoint: String::new(),
            deployment: String::new(),
            detail: None,
            gpus: 0,
            nodes: set.worker_nodes(),
            concs: set.concs.clone(),
            tier: set.tier.id().to_string(),
            router: set.router.id().to_string(),
            status: set.status.id().to_string(),
            image: set.image.image.clone(),
            provenance: LaunchProvenance::of(&set.provenance),
            hash: text_hash(&text),
            text,
        }
    }

    /// The entry with its deployment's facts, shown on the page at `page_url`
    /// (relative to the site root).
    pub fn placed(mut self, d: &Deployment, page_url: &str) -> ManifestEntry {
        self.permalink = format!("{page_url}#{}", self.id);
        self.hardware = d.hw.clone();
        self.hardware_label = d.hw_label.clone();
        self.checkpoint = d.ckpt_label.clone();
        self.deployment = d.label.clone();
        self.detail = d.detail.clone();
        self.gpus = d.gpus;
        self
    }
}

/// A build's `launches.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    /// The schema version ([`LAUNCHES_VERSION`]); 0 in a legacy manifest.
    #[serde(default)]
    pub version: u32,
    /// `mdbook-agentx <version>`.
    pub generator: String,
    /// Every command set, in book order.
    #[serde(rename = "launches", alias = "command_sets")]
    pub command_sets: Vec<ManifestEntry>,
}

impl Manifest {
    /// The manifest of `entries` in the order the book shows them; a command
    /// set shown twice (by two directives) is listed once, where it first appears.
    pub fn new(mut entries: Vec<ManifestEntry>) -> Manifest {
        let mut seen = HashSet::new();
        entries.retain(|e| seen.insert((e.page.clone(), e.id.clone())));
        Manifest {
            version: LAUNCHES_VERSION,
            generator: generator(),
            command_sets: entries,
        }
    }

    /// The manifest as the build writes it (pretty JSON).
    pub fn to_json(&self) -> String {
        let mut w =
            ManifestWriter::with_generator(Vec::new(), &self.generator).expect("writing to memory");
        for e in &self.command_sets {
            w.push(e).expect("writing to memory");
        }
        let (bytes, _) = w.finish().expect("writing to memory");
        String::from_utf8(bytes).expect("JSON is UTF-8")
    }
}

fn generator() -> String {
    format!("mdbook-agentx {}", env!("CARGO_PKG_VERSION"))
}

/// Writes a manifest entry by entry, so a build streams it to disk instead of
/// holding every command set's text. The output is the pretty JSON of
/// [`Manifest`]; a set already written (same page and id) is skipped.
pub(crate) struct ManifestWriter<W: Write> {
    out: Counted<W>,
    /// Every set written, by (page, id), with where its entry is.
    seen: HashMap<(String, String), EntrySpan>,
}

/// Where an entry is in a manifest's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntrySpan {
    pub at: u64,
    pub len: usize,
}

/// A writer that counts the bytes written through it.
struct Counted<W> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> ManifestWriter<W> {
    pub(crate) fn new(out: W) -> Result<Self> {
        Self::with_generator(out, &generator())
    }

    fn with_generator(out: W, generator: &str) -> Result<Self> {
        let mut out = Counted {
            inner: out,
            written: 0,
        };
        write!(
            out,
            "{{\n  \"version\": {LAUNCHES_VERSION},\n  \"generator\": {},\n  \"launches\": [",
            serde_json::to_string(generator)?
        )?;
        Ok(ManifestWriter {
            out,
            seen: HashMap::new(),
        })
    }

    /// Writes `e` unless its set is written already; returns where the
    /// set's entry is (this one's, or the one written first).
    pub(crate) fn push(&mut self, e: &ManifestEntry) -> Result<EntrySpan> {
        self.push_with(e, &mut |out| write_entry(out, e))
    }

    /// [`ManifestWriter::push`] with the entry's text from [`entry_json`].
    fn push_formatted(&mut self, e: &ManifestEntry, json: &str) -> Result<EntrySpan> {
        self.push_with(e, &mut |out| Ok(out.write_all(json.as_bytes())?))
    }

    fn push_with(
        &mut self,
        e: &ManifestEntry,
        write: &mut dyn FnMut(&mut Counted<W>) -> Result<()>,
    ) -> Result<EntrySpan> {
        let key = (e.page.clone(), e.id.clone());
        if let Some(span) = self.seen.get(&key) {
            return Ok(*span);
        }
        self.out
            .write_all(if self.seen.is_empty() { b"\n" } else { b",\n" })?;
        let at = self.out.written;
        write(&mut self.out)?;
        let span = EntrySpan {
            at,
            len: (self.out.written - at) as usize,
        };
        self.seen.insert(key, span);
        Ok(span)
    }

    /// Closes the JSON; returns the writer and the number of command sets.
    pub(crate) fn finish(mut self) -> Result<(W, usize)> {
        let n = self.seen.len();
        self.out
            .write_all(if n == 0 { b"]\n}\n" } else { b"\n  ]\n}\n" })?;
        self.out.flush()?;
        Ok((self.out.inner, n))
    }
}

/// Writes an entry as the manifest lists it: pretty JSON, indented.
fn write_entry(out: &mut impl Write, e: &ManifestEntry) -> Result<()> {
    // JSON strings escape line breaks, so indenting every line is exact.
    for (i, line) in serde_json::to_string_pretty(e)?.lines().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(b"    ")?;
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// [`write_entry`] into a string, for [`ManifestCache`] (a streamed build
/// writes straight into its file).
fn entry_json(e: &ManifestEntry) -> Result<String> {
    let mut out = Vec::new();
    write_entry(&mut out, e)?;
    Ok(String::from_utf8(out)?)
}

/// Each chapter's entries as the manifest lists them, kept between
/// rebuilds (`serve`, `watch`): a rebuild formats only entries that differ
/// from the ones the same chapter had, and copies the others' text.
#[derive(Debug, Default)]
pub(crate) struct ManifestCache {
    /// By chapter, in book order.
    chapters: Vec<ChapterJson>,
}

/// A chapter's entries and each one's JSON.
type ChapterJson = (Arc<Vec<ManifestEntry>>, Vec<Arc<str>>);

impl ManifestCache {
    /// The manifest of `chapters`' entries, in order (as [`ManifestWriter`]
    /// writes it); remembers their text for the next call.
    pub(crate) fn write(&mut self, chapters: &[Arc<Vec<ManifestEntry>>]) -> Result<Vec<u8>> {
        // Sized for every entry's text once: no copying as it grows.
        let size: usize = self
            .chapters
            .iter()
            .flat_map(|(_, t)| t.iter().map(|t| t.len() + 2))
            .sum();
        let mut w = ManifestWriter::new(Vec::with_capacity(size + 4096))?;
        let mut next = Vec::with_capacity(chapters.len());
        for (i, entries) in chapters.iter().enumerate() {
            let old = self.chapters.get(i);
            let texts = match old {
                Some((was, texts)) if Arc::ptr_eq(was, entries) => texts.clone(),
                _ => entries
                    .iter()
                    .enumerate()
                    .map(|(j, e)| match old {
                        Some((was, texts)) if was.get(j) == Some(e) => Ok(texts[j].clone()),
                        _ => Ok(Arc::from(entry_json(e)?)),
                    })
                    .collect::<Result<Vec<_>>>()?,
            };
            for (e, json) in entries.iter().zip(&texts) {
                w.push_formatted(e, json)?;
            }
            next.push((entries.clone(), texts));
        }
        self.chapters = next;
        Ok(w.finish()?.0)
    }

    pub(crate) fn clear(&mut self) {
        self.chapters.clear();
    }
}

/// The `hash` of an entry: FNV-1a 64 of its text, hex.
pub(crate) fn text_hash(text: &str) -> String {
    format!("{:016x}", fnv1a(text))
}

pub(crate) fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Counts for one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageDiff {
    /// Page name.
    pub page: String,
    /// Command sets whose text is the same.
    pub identical: usize,
    /// Ids of command sets only the new side has.
    pub added: Vec<String>,
    /// Ids of command sets only the old side has.
    pub removed: Vec<String>,
    /// Ids of command sets whose text changed.
    pub changed: Vec<String>,
}

/// A comparison of two manifests, per page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ManifestDiff {
    /// Pages in name order.
    pub pages: Vec<PageDiff>,
}

/// Each entry's text by (page, id).
pub(crate) fn texts_by_key(m: &Manifest) -> BTreeMap<(&str, &str), &str> {
    m.command_sets
        .iter()
        .map(|e| ((e.page.as_str(), e.id.as_str()), e.text.as_str()))
        .collect()
}

/// Compares two manifests by (page, id), by their text: a stored `hash`
/// is not trusted (a manifest is a file anyone can edit).
pub fn compare(old: &Manifest, new: &Manifest) -> ManifestDiff {
    let (a, b) = (texts_by_key(old), texts_by_key(new));
    let mut pages: BTreeMap<String, PageDiff> = BTreeMap::new();
    let new_page = |name: &str| PageDiff {
        page: name.to_string(),
        ..PageDiff::default()
    };
    for (&(p, id), text) in &a {
        let d = pages.entry(p.to_string()).or_insert_with(|| new_page(p));
        match b.get(&(p, id)) {
            None => d.removed.push(id.to_string()),
            Some(t) if t == text => d.identical += 1,
            Some(_) => d.changed.push(id.to_string()),
        }
    }
    for &(p, id) in b.keys() {
        if !a.contains_key(&(p, id)) {
            let d = pages.entry(p.to_string()).or_insert_with(|| new_page(p));
            d.added.push(id.to_string());
        }
    }
    ManifestDiff {
        pages: pages.into_values().collect(),
    }
}

impl ManifestDiff {
    /// Whether nothing was added, removed or changed.
    pub fn is_empty(&self) -> bool {
        self.pages
            .iter()
            .all(|p| p.added.is_empty() && p.removed.is_empty() && p.changed.is_empty())
    }
}

#[cfg(test)]
mod tests;
