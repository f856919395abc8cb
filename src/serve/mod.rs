//! `serve` and `watch`: the pieces their loops (in the binary) are made of:
//! a watcher that turns file events into changes to rebuild for, and a
//! server that serves the site over HTTP with live reload and shows build
//! errors in the browser.
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
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, RwLock};

use anyhow::{Context, Result};

use self::http::{AllowedHosts, handle};
use self::reload::{build_error_event, live_reload_script, sse_event};
pub use self::watcher::{BookWatcher, Burst};
use crate::site::BuildOptions;
use crate::site::engine::Rebuild;

/// How file changes are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// inotify / FSEvents / ReadDirectoryChanges through `notify`.
    Native,
    /// Scan every 300 ms: for file systems without change notification.
    Poll,
}

/// Options of [`Server::bind`].
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

/// The live-preview server: the site of the last good build, served from
/// memory with live reload. Bound by [`Server::bind`], it answers requests
/// once [`Server::start`] runs; each rebuild is handed over with
/// [`Server::publish`] or, when it failed, [`Server::show_error`]. The loop
/// that rebuilds on change is the caller's (`mdbook-agentx serve`).
pub struct Server {
    listener: Option<TcpListener>,
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Server {
    /// Listens on `opts.bind`:`opts.port`; nothing is answered yet.
    pub fn bind(opts: &ServeOptions) -> Result<Server> {
        let listener = TcpListener::bind(SocketAddr::new(opts.bind, opts.port))
            .with_context(|| format!("cannot listen on {}:{}", opts.bind, opts.port))?;
        let addr = listener.local_addr()?;
        Ok(Server {
            listener: Some(listener),
            addr,
            shared: Arc::new(Shared::new(AllowedHosts::new(addr, &opts.allow_hosts))),
        })
    }

    /// The site's address, `http://host:port/`.
    pub fn url(&self) -> String {
        let host = match self.addr.ip() {
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        format!("http://{host}:{}/", self.addr.port())
    }

    /// What a build for this server needs: the live-reload client on every
    /// page. The same script every build (its generation is filled in when
    /// a page is served), so the layout cache keeps the pages whose content
    /// is unchanged.
    pub fn build_options() -> BuildOptions {
        BuildOptions {
            extra_script: Some(live_reload_script()),
            ..BuildOptions::default()
        }
    }

    /// Answers requests from now on, on a thread of its own.
    pub fn start(&mut self) -> Result<()> {
        let Some(listener) = self.listener.take() else {
            return Ok(());
        };
        let for_pool = Arc::clone(&self.shared);
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
        Ok(())
    }

    /// Serves the site of `rebuild` from now on, then tells every open page
    /// to reload.
    pub fn publish(&self, rebuild: Rebuild) {
        let files: HashMap<String, Arc<Vec<u8>>> = rebuild
            .rendered
            .files
            .into_iter()
            .map(|f| (f.path.to_string_lossy().replace('\\', "/"), f.bytes))
            .collect();
        let generation = {
            let mut site = self.shared.site.write().expect("site lock");
            site.files = files;
            site.error = None;
            site.generation += 1;
            site.generation
        };
        // Sent only now that every file of the new site is in place.
        self.shared
            .broadcast(&sse_event("reload", &generation.to_string()));
    }

    /// Keeps serving the last good site and shows `error` over every open
    /// page; returns the message as the overlay words it.
    pub fn show_error(&self, error: &anyhow::Error) -> String {
        let event = build_error_event(error);
        let data = event.to_string();
        self.shared.site.write().expect("site lock").error = Some(data.clone());
        self.shared.broadcast(&sse_event("build-error", &data));
        event["message"].as_str().unwrap_or_default().to_string()
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
