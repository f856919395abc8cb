//! The build manifest (`agentx-manifest.json`: one entry per command set) and
//! `diff` between two builds: identical, added, removed and changed command
//! sets per page, as a Markdown table for a pull-request description.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
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
    pub cell: String,
    pub concs: Vec<u32>,
    pub tier: String,
    pub router: String,
    pub status: String,
    /// FNV-1a 64 of `text`, hex.
    pub hash: String,
    /// The full text a reader copies (env exports, titles, commands, files).
    pub text: String,
}

impl ManifestEntry {
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
            hash: format!("{:016x}", fnv1a(&text)),
            text,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub generator: String,
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
pub struct ManifestWriter<W: Write> {
    out: W,
    seen: HashSet<(String, String)>,
}

impl<W: Write> ManifestWriter<W> {
    pub fn new(out: W) -> Result<Self> {
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

    pub fn push(&mut self, e: &ManifestEntry) -> Result<()> {
        if !self.seen.insert((e.page.clone(), e.id.clone())) {
            return Ok(());
        }
        self.out
            .write_all(if self.seen.len() == 1 { b"\n" } else { b",\n" })?;
        // JSON strings escape line breaks, so indenting every line is exact.
        for (i, line) in serde_json::to_string_pretty(e)?.lines().enumerate() {
            if i > 0 {
                self.out.write_all(b"\n")?;
            }
            self.out.write_all(b"    ")?;
            self.out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// Closes the JSON; returns the writer and the number of command sets.
    pub fn finish(mut self) -> Result<(W, usize)> {
        let n = self.seen.len();
        self.out
            .write_all(if n == 0 { b"]\n}\n" } else { b"\n  ]\n}\n" })?;
        self.out.flush()?;
        Ok((self.out, n))
    }
}

pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Reads a manifest from a manifest file, or a built site directory holding one.
pub fn read_manifest(path: &Path) -> Result<Manifest> {
    let file = if path.is_dir() {
        path.join(MANIFEST)
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&file).with_context(|| {
        format!(
            "cannot read {}; give a manifest, a built site directory, or a git ref of the book",
            file.display()
        )
    })?;
    serde_json::from_str(&text)
        .map_err(|e| anyhow!("{}: not an mdbook-agentx manifest: {e}", file.display()))
}

/// Builds the manifest of the book as it is at a git ref, in a scratch copy.
pub fn manifest_at_ref(book: &Path, git_ref: &str) -> Result<Manifest> {
    let book =
        std::fs::canonicalize(book).with_context(|| format!("cannot open {}", book.display()))?;
    let top = git(&book, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(top.trim());
    let sub = book
        .strip_prefix(&top)
        .unwrap_or(Path::new(""))
        .to_path_buf();
    let scratch = std::env::temp_dir().join(format!(
        "agentx-diff-{}-{}",
        std::process::id(),
        crate::decode::slug(git_ref)
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)?;
    let result = (|| {
        let archive = std::process::Command::new("git")
            .arg("-C")
            .arg(&top)
            .args(["archive", "--format=tar", git_ref])
            .output()
            .context("running git archive")?;
        if !archive.status.success() {
            bail!(
                "`{git_ref}` is neither a file, a directory nor a git ref of {}: {}",
                top.display(),
                String::from_utf8_lossy(&archive.stderr).trim()
            );
        }
        let mut tar = std::process::Command::new("tar")
            .arg("-x")
            .arg("-C")
            .arg(&scratch)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .context("running tar")?;
        use std::io::Write;
        tar.stdin
            .take()
            .expect("piped")
            .write_all(&archive.stdout)?;
        if !tar.wait()?.success() {
            bail!("tar could not unpack git archive {git_ref}");
        }
        crate::site::book_manifest(&scratch.join(&sub))
            .with_context(|| format!("building the book at {git_ref}"))
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("running git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A side of a diff: a manifest file, a built directory, or a git ref of `book`.
pub fn load_side(spec: &str, book: &Path) -> Result<Manifest> {
    let p = Path::new(spec);
    if p.exists() {
        read_manifest(p)
    } else {
        manifest_at_ref(book, spec)
    }
}

/// Counts for one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageDiff {
    pub page: String,
    pub identical: usize,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BookDiff {
    pub pages: Vec<PageDiff>,
}

/// Compares two manifests by (page, id), using the text hash.
pub fn diff(old: &Manifest, new: &Manifest) -> BookDiff {
    let index = |m: &Manifest| -> BTreeMap<(String, String), String> {
        m.command_sets
            .iter()
            .map(|e| ((e.page.clone(), e.id.clone()), e.hash.clone()))
            .collect()
    };
    let (a, b) = (index(old), index(new));
    let mut pages: BTreeMap<String, PageDiff> = BTreeMap::new();
    let new_page = |name: &str| PageDiff {
        page: name.to_string(),
        ..PageDiff::default()
    };
    for ((p, id), hash) in &a {
        let d = pages.entry(p.clone()).or_insert_with(|| new_page(p));
        match b.get(&(p.clone(), id.clone())) {
            None => d.removed.push(id.clone()),
            Some(h) if h == hash => d.identical += 1,
            Some(_) => d.changed.push(id.clone()),
        }
    }
    for (p, id) in b.keys() {
        if !a.contains_key(&(p.clone(), id.clone())) {
            let d = pages.entry(p.clone()).or_insert_with(|| new_page(p));
            d.added.push(id.clone());
        }
    }
    BookDiff {
        pages: pages.into_values().collect(),
    }
}

impl BookDiff {
    pub fn is_empty(&self) -> bool {
        self.pages
            .iter()
            .all(|p| p.added.is_empty() && p.removed.is_empty() && p.changed.is_empty())
    }

    /// The Markdown table, with a total row.
    pub fn table(&self) -> String {
        let mut t = String::from(
            "| Page | Identical | Added | Removed | Changed |\n|---|---:|---:|---:|---:|\n",
        );
        let (mut i, mut a, mut r, mut c) = (0, 0, 0, 0);
        for p in &self.pages {
            t.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                p.page,
                p.identical,
                p.added.len(),
                p.removed.len(),
                p.changed.len()
            ));
            i += p.identical;
            a += p.added.len();
            r += p.removed.len();
            c += p.changed.len();
        }
        t.push_str(&format!("| **Total** | {i} | {a} | {r} | {c} |\n"));
        t
    }

    /// The table, then each added, removed and changed command set; changed
    /// ones with a unified diff of their text.
    pub fn verbose(&self, old: &Manifest, new: &Manifest) -> String {
        let text = |m: &Manifest, page: &str, id: &str| -> String {
            m.command_sets
                .iter()
                .find(|e| e.page == page && e.id == id)
                .map(|e| e.text.clone())
                .unwrap_or_default()
        };
        let mut out = self.table();
        for p in &self.pages {
            for id in &p.added {
                out.push_str(&format!("\n**Added** {} `{id}`\n", p.page));
            }
            for id in &p.removed {
                out.push_str(&format!("\n**Removed** {} `{id}`\n", p.page));
            }
            for id in &p.changed {
                out.push_str(&format!("\n**Changed** {} `{id}`\n\n```diff\n", p.page));
                out.push_str(&unified_diff(
                    &text(old, &p.page, id),
                    &text(new, &p.page, id),
                    3,
                ));
                out.push_str("```\n");
            }
        }
        out
    }
}

/// A unified diff of two texts by lines (LCS), with `context` lines around changes.
pub fn unified_diff(a: &str, b: &str, context: usize) -> String {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: length of the LCS of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (' ' | '-' | '+', a index, b index, line).
    let mut ops: Vec<(char, usize, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', i, j, a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // Deletions first, as unified diffs show them.
            ops.push(('-', i, j, a[i]));
            i += 1;
        } else {
            ops.push(('+', i, j, b[j]));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..ops.len()).filter(|k| ops[*k].0 != ' ').collect();
    if changed.is_empty() {
        return String::new();
    }
    // Group changes whose context windows touch into hunks.
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for &k in &changed {
        let start = k.saturating_sub(context);
        let end = (k + context + 1).min(ops.len());
        match hunks.last_mut() {
            Some(h) if start <= h.1 => h.1 = end,
            _ => hunks.push((start, end)),
        }
    }
    let mut out = String::new();
    for (start, end) in hunks {
        let slice = &ops[start..end];
        let a_start = slice[0].1;
        let b_start = slice[0].2;
        let a_len = slice.iter().filter(|o| o.0 != '+').count();
        let b_len = slice.iter().filter(|o| o.0 != '-').count();
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            a_start + usize::from(a_len > 0),
            a_len,
            b_start + usize::from(b_len > 0),
            b_len
        ));
        for (kind, _, _, line) in slice {
            out.push(*kind);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
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
            hash: format!("{:016x}", fnv1a(text)),
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
        assert_eq!((String::from_utf8(bytes).unwrap(), n), (expected, 3));
        let empty = Manifest::new(Vec::new());
        assert_eq!(
            empty.to_json(),
            serde_json::to_string_pretty(&empty).unwrap() + "\n"
        );
    }

    #[test]
    fn unified_diff_hunks() {
        let a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        let b = "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\n";
        assert_eq!(
            unified_diff(a, b, 1),
            "@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n@@ -10,1 +10,2 @@\n j\n+k\n"
        );
        assert_eq!(unified_diff("x\n", "x\n", 3), "");
        assert_eq!(unified_diff("", "new\n", 3), "@@ -0,0 +1,1 @@\n+new\n");
    }
}
