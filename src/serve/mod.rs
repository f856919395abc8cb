//! `serve` and `watch`: rebuild on change, serve the site over HTTP with live
//! reload, and show build errors in the browser.
//!
//! The site is served from memory: a rebuild renders every file first and then
//! swaps the whole set in one step, so a reader never gets a half-written page,
//! and no request can reach a file outside the site (there is no file lookup).
//! Live reload uses server-sent events on the same port (`/__agentx/events`),
//! addressed relative to `location`, so IPv6 hosts and proxies work.
//!
//! One module per concern: [`http`], [`reload`] (server-sent events),
//! [`watcher`] (file events).
//!
//! May use: `site` (the engine and the builder), `util`.

mod http;
mod pool;
mod reload;
mod watcher;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use anyhow::{Context, Result};

use self::http::*;
use self::reload::*;
use self::watcher::*;
use crate::site::engine::{Change, Engine};
use crate::site::{BuildOptions, output_dir, write_atomically};
use crate::util::escape::terminal_text;

/// How file changes are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// inotify / FSEvents / ReadDirectoryChanges through `notify`.
    Native,
    /// Scan every 300 ms: for file systems without change notification.
    Poll,
}

/// Options of `serve`.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to listen on.
    pub bind: IpAddr,
    /// Port (0 picks a free one).
    pub port: u16,
    /// Open the site in a browser.
    pub open: bool,
    /// How file changes are noticed.
    pub watch: WatchMode,
    /// Host names requests may use besides `localhost`, `127.0.0.1`,
    /// `[::1]` and the bound address (a name the machine is reached by).
    pub allow_hosts: Vec<String>,
}

/// Builds, serves and rebuilds on change until the process is stopped.
pub fn serve(root: &Path, opts: &ServeOptions) -> Result<()> {
    if !opts.bind.is_loopback() {
        eprintln!(
            "warning: serving on {}, which other machines can reach; the preview has no \
             authentication. Use --bind 127.0.0.1 to keep it local.",
            opts.bind
        );
    }
    let listener = TcpListener::bind(SocketAddr::new(opts.bind, opts.port))
        .with_context(|| format!("cannot listen on {}:{}", opts.bind, opts.port))?;
    let addr = listener.local_addr()?;
    let mut engine = Engine::open(root)?;
    let shared = Arc::new(Shared::new(AllowedHosts::new(addr, &opts.allow_hosts)));
    let watcher = BookWatcher::start(&engine, opts.watch)?;
    rebuild_into(&mut engine, &shared, &[Change::Content], None);
    let host = match addr.ip() {
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    let url = format!("http://{host}:{}/", addr.port());
    eprintln!("Serving {} on {url} (Ctrl-C stops)", root.display());
    if opts.open {
        open_browser(&url);
    }
    let for_pool = Arc::clone(&shared);
    let handler = Arc::new(move |stream| {
        let _ = handle(stream, &for_pool);
    });
    std::thread::Builder::new()
        .name("agentx-accept".into())
        .spawn(move || {
            let pool = pool::Pool::new(pool::MAX_WORKERS, pool::spawn_thread, handler);
            pool::accept_loop(&listener, &pool);
        })
        .context("cannot start the server thread")?;
    watcher.run(&mut engine, |engine, changes, first_event| {
        rebuild_into(engine, &shared, changes, Some(first_event));
    })
}

/// Rebuilds on change and writes the site to disk, without a server. The
/// output directory is `dest` or `[build] build-dir`, inside the book unless
/// `allow_dest_outside`.
pub fn watch(
    root: &Path,
    dest: Option<PathBuf>,
    allow_dest_outside: bool,
    mode: WatchMode,
) -> Result<()> {
    let mut engine = Engine::open(root)?;
    let out = output_dir(engine.dir(), dest.as_deref(), allow_dest_outside)?;
    let write = |engine: &mut Engine, changes: &[Change], first: Option<Instant>| {
        let what: Vec<String> = changes.iter().map(|c| c.describe(root)).collect();
        match engine.rebuild(changes, &BuildOptions::default()) {
            Ok(r) => match write_atomically(&out, &r.rendered.files) {
                Ok(()) => eprintln!(
                    "rebuilt ({}) in {} ms{}: {} of {} pages re-rendered, written to {}",
                    what.join("; "),
                    r.elapsed.as_millis(),
                    since(first),
                    r.rendered.rerendered,
                    r.site.pages.len(),
                    out.display()
                ),
                Err(e) => eprintln!("error: {}", terminal_text(&format!("{e:#}"))),
            },
            Err(e) => eprintln!(
                "error: build failed, {} left as it was: {}",
                out.display(),
                terminal_text(&format!("{e:#}"))
            ),
        }
    };
    let watcher = BookWatcher::start(&engine, mode)?;
    write(&mut engine, &[Change::Content], None);
    eprintln!("Watching {} (Ctrl-C stops)", root.display());
    watcher.run(&mut engine, |e, c, first| write(e, c, Some(first)))
}

fn since(first: Option<Instant>) -> String {
    first
        .map(|t| format!(" ({} ms after the change)", t.elapsed().as_millis()))
        .unwrap_or_default()
}

fn rebuild_into(engine: &mut Engine, shared: &Shared, changes: &[Change], first: Option<Instant>) {
    let generation = shared.site.read().expect("site lock").generation + 1;
    // The same script every build (its generation is filled in when a page
    // is served), so the layout cache keeps the pages whose content is unchanged.
    let opts = BuildOptions {
        extra_script: Some(live_reload_script()),
        ..BuildOptions::default()
    };
    let what: Vec<String> = changes
        .iter()
        .map(|c| c.describe(&engine.dir().root))
        .collect();
    match engine.rebuild(changes, &opts) {
        Ok(r) => {
            let files: HashMap<String, Arc<Vec<u8>>> = r
                .rendered
                .files
                .into_iter()
                .map(|f| (f.path.to_string_lossy().replace('\\', "/"), f.bytes))
                .collect();
            {
                let mut site = shared.site.write().expect("site lock");
                site.files = files;
                site.error = None;
                site.generation = generation;
            }
            // Sent only now that every file of the new site is in place.
            shared.broadcast(&sse_event("reload", &generation.to_string()));
            eprintln!(
                "rebuilt ({}) in {} ms{}: {} of {} pages re-rendered",
                what.join("; "),
                r.elapsed.as_millis(),
                since(first),
                r.rendered.rerendered,
                r.site.pages.len()
            );
        }
        Err(e) => {
            let event = build_error_event(&e);
            eprintln!(
                "error: build failed; still serving the last good site: {}",
                terminal_text(event["message"].as_str().unwrap_or_default())
            );
            let data = event.to_string();
            shared.site.write().expect("site lock").error = Some(data.clone());
            shared.broadcast(&sse_event("build-error", &data));
        }
    }
}

fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("warning: cannot open a browser ({opener}: {e}); visit {url}");
    }
}

/// What the server currently serves.
struct Served {
    files: HashMap<String, Arc<Vec<u8>>>,
    /// The last build's error (its `build-error` event data), while it lasts.
    error: Option<String>,
    generation: u64,
}

struct Shared {
    site: RwLock<Served>,
    clients: Mutex<Vec<Sender<String>>>,
    /// Host header values the server answers.
    hosts: AllowedHosts,
    /// Live-reload streams open now.
    event_streams: std::sync::atomic::AtomicUsize,
}

impl Shared {
    fn new(hosts: AllowedHosts) -> Shared {
        Shared {
            site: RwLock::new(Served {
                files: HashMap::new(),
                error: None,
                generation: 0,
            }),
            clients: Mutex::new(Vec::new()),
            hosts,
            event_streams: Default::default(),
        }
    }

    fn broadcast(&self, event: &str) {
        let mut clients = self.clients.lock().expect("clients lock");
        clients.retain(|c| c.send(event.to_string()).is_ok());
    }
}

#[cfg(test)]
mod tests;
