//! Watching the book's inputs and cutting file events into debounced bursts.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use notify::{RecursiveMode, Watcher};

use super::WatchMode;
use crate::site::engine::{Change, Engine, WatchRoot};
use crate::util::notice::Notice;

/// Quiet time that ends a burst of file events.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(100);
/// A burst is cut after this long even if events keep coming.
const MAX_BURST: Duration = Duration::from_secs(1);

/// Watches the book's inputs. Started before the first build, so that no
/// change made while it runs (or right after the address is printed) is lost.
pub struct BookWatcher {
    watcher: Box<dyn Watcher>,
    rx: Receiver<notify::Result<notify::Event>>,
    watched: Vec<PathBuf>,
}

impl BookWatcher {
    /// Watches what `engine`'s book reads, the way `mode` says.
    pub fn start(engine: &Engine, mode: WatchMode) -> Result<BookWatcher> {
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

    /// Blocks until a debounced burst of file events changes something a
    /// build of `engine`'s book reads. Directories that appeared since the
    /// last call (`templates/`…) are watched first.
    pub fn next_changes(&mut self, engine: &Engine) -> Result<Burst> {
        self.watch_new_roots(engine, false)?;
        let mut notices = Vec::new();
        loop {
            let (paths, first_event) = next_burst(&self.rx, &mut notices)?;
            // Before the rebuild reads the files, so that no edit after it goes unseen.
            self.rewatch_replaced_roots(engine, &paths)?;
            let changes = engine.classify(&paths);
            if !changes.is_empty() {
                return Ok(Burst {
                    changes,
                    first_event,
                    notices,
                });
            }
        }
    }
}

/// Changes to rebuild for, from one burst of file events.
#[derive(Debug)]
pub struct Burst {
    /// What changed.
    pub changes: Vec<Change>,
    /// When the first event of the burst came.
    pub first_event: Instant,
    /// Errors the file watcher reported meanwhile.
    pub notices: Vec<Notice>,
}

/// Blocks for the next event, then gathers events until `DEBOUNCE` of quiet;
/// the watcher's errors go to `notices`.
fn next_burst(
    rx: &Receiver<notify::Result<notify::Event>>,
    notices: &mut Vec<Notice>,
) -> Result<(Vec<PathBuf>, Instant)> {
    let first = rx.recv().context("the file watcher stopped")?;
    let start = Instant::now();
    let mut paths = Vec::new();
    let mut add = |ev: notify::Result<notify::Event>| match ev {
        Ok(ev) if !ev.kind.is_access() => paths.extend(ev.paths),
        Ok(_) => {}
        Err(e) => notices.push(Notice::warning(format!("file watcher: {e}"))),
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
