//! Watching the book's inputs and cutting file events into debounced bursts.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use notify::{RecursiveMode, Watcher};

use super::*;
use crate::site::engine::{Change, Engine, WatchRoot};

/// Quiet time that ends a burst of file events.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(100);
/// A burst is cut after this long even if events keep coming.
const MAX_BURST: Duration = Duration::from_secs(1);

/// Watches the book's inputs. Started before the first build, so that no
/// change made while it runs (or right after the address is printed) is lost.
pub(super) struct BookWatcher {
    watcher: Box<dyn Watcher>,
    rx: Receiver<notify::Result<notify::Event>>,
    watched: Vec<PathBuf>,
}

impl BookWatcher {
    pub(super) fn start(engine: &Engine, mode: WatchMode) -> Result<BookWatcher> {
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let watcher: Box<dyn Watcher> = match mode {
            WatchMode::Native => Box::new(notify::recommended_watcher(tx)?),
            WatchMode::Poll => Box::new(notify::PollWatcher::new(
                tx,
                // Contents, not only mtimes: an edit within the same timestamp tick
                // that keeps the size would otherwise go unseen.
                notify::Config::default()
                    .with_poll_interval(Duration::from_millis(300))
                    .with_compare_contents(true),
            )?),
        };
        let mut w = BookWatcher {
            watcher,
            rx,
            watched: Vec::new(),
        };
        w.watch_new_roots(engine, true)?;
        Ok(w)
    }

    /// Watches roots not watched yet (directories such as `templates/` may
    /// appear later).
    fn watch_new_roots(&mut self, engine: &Engine, strict: bool) -> Result<()> {
        for WatchRoot { path, recursive } in engine.watch_roots() {
            if self.watched.contains(&path) {
                continue;
            }
            let mode = if recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            match self.watcher.watch(&path, mode) {
                Ok(()) => self.watched.push(path),
                Err(e) if strict => {
                    return Err(e).with_context(|| format!("cannot watch {}", path.display()));
                }
                Err(_) => {}
            }
        }
        Ok(())
    }

    /// Watches again each root that was moved, removed or created, or whose
    /// parent was (an event names it or a directory above it). Why: the
    /// watcher drops the watch of a directory moved away or removed, and
    /// does not add one when it comes back, since only the book root (not
    /// recursively) watches where it lives: `content/` moved away and back,
    /// or deleted and copied anew, would go unwatched for good.
    fn rewatch_replaced_roots(&mut self, engine: &Engine, paths: &[PathBuf]) -> Result<()> {
        let replaced: Vec<PathBuf> = self
            .watched
            .iter()
            .filter(|root| paths.iter().any(|p| root.starts_with(p)))
            .cloned()
            .collect();
        for root in replaced {
            let _ = self.watcher.unwatch(&root);
            self.watched.retain(|w| *w != root);
        }
        self.watch_new_roots(engine, false)
    }

    /// Hands each debounced burst of changes to `rebuild`, forever.
    pub(super) fn run(
        mut self,
        engine: &mut Engine,
        mut rebuild: impl FnMut(&mut Engine, &[Change], Instant),
    ) -> Result<()> {
        loop {
            let (paths, first) = next_burst(&self.rx)?;
            // Before the rebuild reads the files, so that no edit after it goes unseen.
            self.rewatch_replaced_roots(engine, &paths)?;
            let changes = engine.classify(&paths);
            if changes.is_empty() {
                continue;
            }
            rebuild(engine, &changes, first);
            self.watch_new_roots(engine, false)?;
        }
    }
}

/// Blocks for the next event, then gathers events until `DEBOUNCE` of quiet.
fn next_burst(rx: &Receiver<notify::Result<notify::Event>>) -> Result<(Vec<PathBuf>, Instant)> {
    let first = rx.recv().map_err(|_| anyhow!("the file watcher stopped"))?;
    let start = Instant::now();
    let mut paths = Vec::new();
    let mut add = |ev: notify::Result<notify::Event>| match ev {
        Ok(ev) if !ev.kind.is_access() => paths.extend(ev.paths),
        Ok(_) => {}
        Err(e) => eprintln!("warning: file watcher: {e}"),
    };
    add(first);
    loop {
        if start.elapsed() > MAX_BURST {
            break;
        }
        match rx.recv_timeout(DEBOUNCE) {
            Ok(ev) => add(ev),
            Err(RecvTimeoutError::Timeout) => break,
            Err(RecvTimeoutError::Disconnected) => return Err(anyhow!("the file watcher stopped")),
        }
    }
    Ok((paths, start))
}
