//! The build manifest (`agentx-manifest.json`: one entry per command set, in
//! book order), written entry by entry as a build streams, and the pure
//! comparison of two manifests: identical, added, removed and changed command
//! sets per page. `diff` formats comparisons; `sync` can compare the command
//! sets of data files without building a site.
//!
//! May use: `decode` (the command sets an entry describes), `util`.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::sync::Arc;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::decode::CommandSet;

/// File name of the manifest in a built site.
pub const MANIFEST: &str = "agentx-manifest.json";

/// One command set as built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// The stable anchor id.
    pub id: String,
    /// The data file's `model`.
    pub page: String,
    /// Cell id.
    pub cell: String,
    /// Concurrencies of the point.
    pub concs: Vec<u32>,
    /// KV tier id.
    pub tier: String,
    /// Router id.
    pub router: String,
    /// Status id (`verified`, `derived`, …).
    pub status: String,
    /// FNV-1a 64 of `text`, hex.
    pub hash: String,
    /// The full text a reader copies (env exports, titles, commands, files).
    pub text: String,
}

impl ManifestEntry {
    /// The entry of one command set of page `page`.
    pub fn of(page: &str, set: &CommandSet) -> ManifestEntry {
        let text = set.copy_all_text();
        ManifestEntry {
            id: set.anchor.clone(),
            page: page.to_string(),
            cell: set.cell_id.clone(),
            concs: set.concs.clone(),
            tier: set.tier.id().to_string(),
            router: set.router.id().to_string(),
            status: set.status.id().to_string(),
            hash: text_hash(&text),
            text,
        }
    }
}

/// A build's `agentx-manifest.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    /// `mdbook-agentx <version>`.
    pub generator: String,
    /// Every command set, in book order.
    pub command_sets: Vec<ManifestEntry>,
}

impl Manifest {
    /// The manifest of `entries` in the order the book shows them; a command
    /// set shown twice (by two directives) is listed once, where it first appears.
    pub fn new(mut entries: Vec<ManifestEntry>) -> Manifest {
        let mut seen = HashSet::new();
        entries.retain(|e| seen.insert((e.page.clone(), e.id.clone())));
        Manifest {
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
    out: W,
    seen: HashSet<(String, String)>,
}

impl<W: Write> ManifestWriter<W> {
    pub(crate) fn new(out: W) -> Result<Self> {
        Self::with_generator(out, &generator())
    }

    fn with_generator(mut out: W, generator: &str) -> Result<Self> {
        write!(
            out,
            "{{\n  \"generator\": {},\n  \"command_sets\": [",
            serde_json::to_string(generator)?
        )?;
        Ok(ManifestWriter {
            out,
            seen: HashSet::new(),
        })
    }

    pub(crate) fn push(&mut self, e: &ManifestEntry) -> Result<()> {
        if self.is_new(e)? {
            write_entry(&mut self.out, e)?;
        }
        Ok(())
    }

    /// [`ManifestWriter::push`] with the entry's text from [`entry_json`].
    fn push_formatted(&mut self, e: &ManifestEntry, json: &str) -> Result<()> {
        if self.is_new(e)? {
            self.out.write_all(json.as_bytes())?;
        }
        Ok(())
    }

    /// Whether `e` is not written yet; then writes the separator before it.
    fn is_new(&mut self, e: &ManifestEntry) -> Result<bool> {
        if !self.seen.insert((e.page.clone(), e.id.clone())) {
            return Ok(false);
        }
        self.out
            .write_all(if self.seen.len() == 1 { b"\n" } else { b",\n" })?;
        Ok(true)
    }

    /// Closes the JSON; returns the writer and the number of command sets.
    pub(crate) fn finish(mut self) -> Result<(W, usize)> {
        let n = self.seen.len();
        self.out
            .write_all(if n == 0 { b"]\n}\n" } else { b"\n  ]\n}\n" })?;
        self.out.flush()?;
        Ok((self.out, n))
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
mod tests {
    use super::*;

    fn entry(page: &str, id: &str, text: &str) -> ManifestEntry {
        ManifestEntry {
            id: id.into(),
            page: page.into(),
            cell: "h200-agg".into(),
            concs: vec![1, 64],
            tier: "none".into(),
            router: "sglang".into(),
            status: "measured".into(),
            hash: text_hash(text),
            text: text.into(),
        }
    }

    #[test]
    fn streamed_manifest_is_serde_pretty_json_in_book_order_without_repeats() {
        let entries = vec![
            entry("Zeta", "b", "export A=\"1\"\npython3 -m x \\\n  --y\n"),
            entry("Alpha", "a", "tab\there — ünïcode"),
            entry("Zeta", "b", "shown again by a second directive"),
            entry("Alpha", "c", ""),
        ];
        let m = Manifest::new(entries.clone());
        let ids: Vec<&str> = m.command_sets.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["b", "a", "c"]);
        // serde_json's own pretty printer is the reference for the streamed text.
        let expected = serde_json::to_string_pretty(&m).unwrap() + "\n";
        assert_eq!(m.to_json(), expected);
        let mut w = ManifestWriter::new(Vec::new()).unwrap();
        for e in &entries {
            w.push(e).unwrap();
        }
        let (bytes, n) = w.finish().unwrap();
        assert_eq!(
            (String::from_utf8(bytes).unwrap(), n),
            (expected.clone(), 3)
        );
        // Cached per chapter: the same bytes, first and again after an edit
        // (a changed entry, a chapter's list replaced) and its revert.
        let mut cache = ManifestCache::default();
        let chapters = vec![
            Arc::new(entries[..2].to_vec()),
            Arc::new(entries[2..].to_vec()),
        ];
        assert_eq!(cache.write(&chapters).unwrap(), expected.as_bytes());
        let mut edited = entries.clone();
        edited[1].text = "edited".into();
        edited[3].id = "d".into();
        let fresh = |v: &[ManifestEntry]| {
            let mut w = ManifestWriter::new(Vec::new()).unwrap();
            v.iter().for_each(|e| w.push(e).unwrap());
            w.finish().unwrap().0
        };
        let now = vec![
            Arc::new(edited[..2].to_vec()),
            Arc::new(edited[2..].to_vec()),
        ];
        assert_eq!(cache.write(&now).unwrap(), fresh(&edited));
        assert_eq!(cache.write(&now).unwrap(), fresh(&edited));
        assert_eq!(cache.write(&chapters).unwrap(), expected.as_bytes());
        let empty = Manifest::new(Vec::new());
        assert_eq!(
            empty.to_json(),
            serde_json::to_string_pretty(&empty).unwrap() + "\n"
        );
    }
}
