//! `max-site-mib` on the files a build makes: a sink that passes files on
//! until their bytes together pass the bound, then refuses, naming the file
//! that passed it. Every render goes through it (`build`, `serve`, `check`,
//! `export`), so no book makes a site larger than its `book.toml` allows,
//! whatever its data and chapters expand to.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Result;

use super::sink::FileSink;
use crate::book::over_max_site;

/// A sink taking at most `max` bytes in all, passed on to `inner`.
pub(crate) struct Capped<'a> {
    inner: &'a dyn FileSink,
    max: u64,
    taken: AtomicU64,
}

impl<'a> Capped<'a> {
    pub(crate) fn new(inner: &'a dyn FileSink, max: u64) -> Self {
        Capped {
            inner,
            max,
            taken: AtomicU64::new(0),
        }
    }

    /// Counts `len` bytes at `rel`; the refusal when they pass the bound.
    fn take(&self, rel: &Path, len: usize) -> Result<()> {
        let before = self.taken.fetch_add(len as u64, Ordering::Relaxed);
        if before.saturating_add(len as u64) > self.max {
            return Err(over_max_site(&rel.display().to_string(), self.max));
        }
        Ok(())
    }
}

impl FileSink for Capped<'_> {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> Result<()> {
        self.take(rel, bytes.len())?;
        self.inner.put(rel, bytes)
    }

    fn put_shared(&self, rel: &Path, bytes: Arc<Vec<u8>>) -> Result<()> {
        self.take(rel, bytes.len())?;
        self.inner.put_shared(rel, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::output::sink::MemoryFiles;

    #[test]
    fn files_pass_until_the_bound_then_the_one_past_it_is_refused() {
        let files = MemoryFiles::default();
        let capped = Capped::new(&files, 2 << 20);
        capped.put(Path::new("a.html"), vec![0; 1 << 20]).unwrap();
        capped
            .put_shared(Path::new("b.html"), Arc::new(vec![0; 1 << 20]))
            .unwrap();
        let e = capped.put(Path::new("c.html"), vec![0; 1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.html: the build would write more than the 2 MiB of `max-site-mib` \
             (mdbook-agentx's bound on what a build writes, with the Markdown the directives \
             expand to); raise `max-site-mib` under [preprocessor.agentx] if the book is meant \
             to be this large"
        );
        let kept: Vec<_> = files.into_sorted().into_iter().map(|f| f.path).collect();
        assert_eq!(kept, [Path::new("a.html"), Path::new("b.html")]);
    }
}
