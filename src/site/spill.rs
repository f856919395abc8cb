//! Chapter Markdown waiting for its page. A one-shot build (`build`,
//! `check`) lays pages out only once every chapter is expanded (a page's
//! sidebar counts the whole book's chapters, its links name the next page),
//! so a large book's expanded Markdown waits meanwhile: about 5 MB per 1× of
//! the sample, 520 MiB of the 100× book's 715 MiB peak. Past a budget it
//! waits in an unlinked temporary file instead (the page cache, not the
//! heap), and each page reads its own back when it is rendered.
//!
//! May use: `util`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};

/// How much expanded Markdown a build keeps in memory before it spills the
/// rest. Why 64 MiB: a book 10× the sample (about 50 MiB) never touches the
/// disk, and at 100× the heap stays far below the 250 MB target.
pub(crate) const HELD_IN_MEMORY: usize = 64 << 20;

/// Where a chapter's Markdown is in the spill file.
#[derive(Debug, Clone, Copy)]
struct Span {
    at: u64,
    len: usize,
}

/// Takes chapters' Markdown as they expand: keeps it in place up to the
/// budget, writes the rest out.
pub(crate) struct Spiller {
    budget: usize,
    /// Bytes left in place so far.
    held: usize,
    out: Option<BufWriter<File>>,
    written: u64,
    spans: HashMap<PathBuf, Span>,
}

impl Spiller {
    pub(crate) fn new(budget: usize) -> Spiller {
        Spiller {
            budget,
            held: 0,
            out: None,
            written: 0,
            spans: HashMap::new(),
        }
    }

    /// Takes the Markdown of the chapter at `path` (relative to the source
    /// dir): left in place while within the budget, else written to the
    /// spill file and emptied. A path met twice (a chapter listed twice in
    /// `SUMMARY.md`) expands to the same text both times.
    pub(crate) fn take(&mut self, path: &Path, markdown: &mut String) -> Result<()> {
        // Capacity, not length: what the heap actually holds.
        if self.held.saturating_add(markdown.capacity()) <= self.budget {
            self.held += markdown.capacity();
            return Ok(());
        }
        let out = match &mut self.out {
            Some(out) => out,
            None => self
                .out
                .insert(BufWriter::new(tempfile::tempfile().context(
                    "cannot create a temporary file for the chapters' Markdown",
                )?)),
        };
        out.write_all(markdown.as_bytes())
            .context("cannot write the chapters' Markdown to a temporary file")?;
        let span = Span {
            at: self.written,
            len: markdown.len(),
        };
        self.spans.insert(path.to_path_buf(), span);
        self.written += markdown.len() as u64;
        *markdown = String::new();
        Ok(())
    }

    /// What was written out, for pages to read back; `None` if nothing was.
    pub(crate) fn finish(self) -> Result<Option<Spilled>> {
        let Some(out) = self.out else {
            return Ok(None);
        };
        let file = out
            .into_inner()
            .map_err(|e| e.into_error())
            .context("cannot write the chapters' Markdown to a temporary file")?;
        Ok(Some(Spilled {
            file: Mutex::new(file),
            spans: self.spans,
        }))
    }
}

/// Chapters' Markdown in the spill file, by chapter path.
#[derive(Debug)]
pub(crate) struct Spilled {
    file: Mutex<File>,
    spans: HashMap<PathBuf, Span>,
}

impl Spilled {
    /// The Markdown of the chapter at `path`, if it was spilled.
    pub(crate) fn read(&self, path: &Path) -> Result<Option<String>> {
        let Some(span) = self.spans.get(path) else {
            return Ok(None);
        };
        let mut bytes = vec![0; span.len];
        {
            let mut file = self.file.lock().expect("spill lock");
            file.seek(SeekFrom::Start(span.at))
                .and_then(|_| file.read_exact(&mut bytes))
                .with_context(|| {
                    format!(
                        "cannot read the Markdown of {} back from a temporary file",
                        path.display()
                    )
                })?;
        }
        // Written from a String: valid UTF-8 unless the file was changed under us.
        String::from_utf8(bytes)
            .map(Some)
            .with_context(|| format!("the spilled Markdown of {} is damaged", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_past_the_budget_and_reads_back() {
        let mut s = Spiller::new(8);
        let mut small = String::from("é1234");
        small.shrink_to_fit();
        s.take(Path::new("a.md"), &mut small).unwrap();
        assert_eq!(small, "é1234", "within the budget: left in place");
        let (mut b, mut c) = (String::from("# B\n"), String::from("ç\n"));
        s.take(Path::new("x/b.md"), &mut b).unwrap();
        s.take(Path::new("c.md"), &mut c).unwrap();
        assert!(b.is_empty() && c.is_empty());
        let spilled = s.finish().unwrap().unwrap();
        // Read back in any order.
        assert_eq!(spilled.read(Path::new("c.md")).unwrap().unwrap(), "ç\n");
        assert_eq!(spilled.read(Path::new("x/b.md")).unwrap().unwrap(), "# B\n");
        assert_eq!(spilled.read(Path::new("a.md")).unwrap(), None);
        // Nothing past the budget: no file at all.
        let mut s = Spiller::new(usize::MAX);
        s.take(Path::new("a.md"), &mut String::from("x")).unwrap();
        assert!(s.finish().unwrap().is_none());
    }
}
