//! `serve` and `watch`: rebuild on change, serve the site over HTTP with live
//! reload, and show build errors in the browser.
//!
//! The site is served from memory: a rebuild renders every file first and then
//! swaps the whole set in one step, so a reader never gets a half-written page,
//! and no request can reach a file outside the site (there is no file lookup).
//! Live reload uses server-sent events on the same port (`/__agentx/events`),
//! addressed relative to `location`, so IPv6 hosts and proxies work.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use notify::{RecursiveMode, Watcher};

use crate::site::engine::{Change, Engine};
use crate::site::{BuildOptions, write_atomically};

/// Path of the live-reload event stream.
pub(crate) const EVENTS_PATH: &str = "/__agentx/events";
/// Quiet time that ends a burst of file events.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(100);
/// A burst is cut after this long even if events keep coming.
const MAX_BURST: Duration = Duration::from_secs(1);

/// How file changes are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// inotify / FSEvents / ReadDirectoryChanges through `notify`.
    Native,
    /// Scan every 300 ms: for file systems without change notification.
    Poll,
}

/// The client script added to every served page. `generation` lets a page
/// loaded just before a rebuild notice it missed the reload.
fn live_reload_script(generation: u64) -> String {
    format!(
        r#"(function () {{
  var generation = {generation};
  if (!window.EventSource) return;
  var es = new EventSource("{EVENTS_PATH}");
  function overlay(message) {{
    var d = document.getElementById("agentx-overlay");
    if (!d) {{
      d = document.createElement("div");
      d.id = "agentx-overlay";
      d.setAttribute("role", "alert");
      document.body.appendChild(d);
    }}
    d.textContent = "mdbook-agentx: the last build failed; showing the previous site.\n\n" + message;
  }}
  es.addEventListener("hello", function (e) {{
    if (Number(e.data) !== generation) location.reload();
  }});
  es.addEventListener("reload", function () {{ location.reload(); }});
  es.addEventListener("build-error", function (e) {{ overlay(JSON.parse(e.data).message); }});
}})();"#
    )
}

/// What the server currently serves.
struct Served {
    files: HashMap<String, Arc<Vec<u8>>>,
    /// The last build's error, while it lasts.
    error: Option<String>,
    generation: u64,
}

struct Shared {
    site: RwLock<Served>,
    clients: Mutex<Vec<Sender<String>>>,
}

impl Shared {
    fn broadcast(&self, event: &str) {
        let mut clients = self.clients.lock().expect("clients lock");
        clients.retain(|c| c.send(event.to_string()).is_ok());
    }
}

fn sse_event(name: &str, data: &str) -> String {
    let mut s = format!("event: {name}\n");
    for line in data.lines() {
        s.push_str(&format!("data: {line}\n"));
    }
    if data.is_empty() {
        s.push_str("data: \n");
    }
    s.push('\n');
    s
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
    let shared = Arc::new(Shared {
        site: RwLock::new(Served {
            files: HashMap::new(),
            error: None,
            generation: 0,
        }),
        clients: Mutex::new(Vec::new()),
    });
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
    let accept = Arc::clone(&shared);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let shared = Arc::clone(&accept);
            std::thread::spawn(move || {
                let _ = handle(stream, &shared);
            });
        }
    });
    watcher.run(&mut engine, |engine, changes, first_event| {
        rebuild_into(engine, &shared, changes, Some(first_event));
    })
}

/// Rebuilds on change and writes the site to disk, without a server.
pub fn watch(root: &Path, dest: Option<PathBuf>, mode: WatchMode) -> Result<()> {
    let mut engine = Engine::open(root)?;
    let out = dest.unwrap_or_else(|| root.join(&engine.dir().config.build.build_dir));
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
                Err(e) => eprintln!("error: {e:#}"),
            },
            Err(e) => eprintln!(
                "error: build failed, {} left as it was: {e:#}",
                out.display()
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
    let opts = BuildOptions {
        dest: None,
        extra_script: Some(live_reload_script(generation)),
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
                .map(|(p, b)| (p.to_string_lossy().replace('\\', "/"), Arc::new(b)))
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
            let message = format!("{e:#}");
            eprintln!("error: build failed; still serving the last good site: {message}");
            shared.site.write().expect("site lock").error = Some(message.clone());
            let data = serde_json::json!({ "message": message }).to_string();
            shared.broadcast(&sse_event("build-error", &data));
        }
    }
}

/// Watches the book's inputs. Started before the first build, so that no
/// change made while it runs (or right after the address is printed) is lost.
struct BookWatcher {
    watcher: Box<dyn Watcher>,
    rx: Receiver<notify::Result<notify::Event>>,
    watched: Vec<PathBuf>,
}

impl BookWatcher {
    fn start(engine: &Engine, mode: WatchMode) -> Result<BookWatcher> {
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
        for (path, recursive) in engine.watch_roots() {
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

    /// Hands each debounced burst of changes to `rebuild`, forever.
    fn run(
        mut self,
        engine: &mut Engine,
        mut rebuild: impl FnMut(&mut Engine, &[Change], Instant),
    ) -> Result<()> {
        loop {
            let (paths, first) = next_burst(&self.rx)?;
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

/// The site path a request names, or `None` for anything that could leave the
/// site (`..`, encoded or not, backslashes, NUL) — answered with 404.
pub(crate) fn site_path(target: &str) -> Option<String> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    if !decoded.starts_with('/') || decoded.contains('\\') || decoded.contains('\0') {
        return None;
    }
    let mut parts = Vec::new();
    for seg in decoded.split('/') {
        match seg {
            "" | "." => {}
            ".." => return None,
            s => parts.push(s),
        }
    }
    let mut p = parts.join("/");
    if p.is_empty() || decoded.ends_with('/') {
        if !p.is_empty() {
            p.push('/');
        }
        p.push_str("index.html");
    }
    Some(p)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

pub(crate) fn content_type(path: &str) -> &'static str {
    match path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .as_deref()
    {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("woff") => "font/woff",
        Some("txt" | "md" | "toml" | "conf") => "text/plain; charset=utf-8",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

fn handle(stream: TcpStream, shared: &Shared) -> Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    // Skip the headers; nothing in them changes the answer.
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
    }
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"method not allowed\n",
            method == "HEAD",
        );
    }
    if target == EVENTS_PATH {
        return event_stream(stream, shared);
    }
    let head = method == "HEAD";
    let site = shared.site.read().expect("site lock");
    let found = site_path(target).and_then(|p| {
        site.files
            .get(&p)
            .map(|b| (p.clone(), Arc::clone(b)))
            .or_else(|| {
                // `/models` → `/models/index.html`, as static servers do.
                let idx = format!("{p}/index.html");
                site.files.get(&idx).map(|b| (idx, Arc::clone(b)))
            })
    });
    match found {
        Some((p, body)) => {
            drop(site);
            respond(&mut stream, "200 OK", content_type(&p), &body, head)
        }
        None => {
            let body = site
                .files
                .get("404.html")
                .cloned()
                .unwrap_or_else(|| Arc::new(b"not found\n".to_vec()));
            drop(site);
            respond(
                &mut stream,
                "404 Not Found",
                "text/html; charset=utf-8",
                &body,
                head,
            )
        }
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    ctype: &str,
    body: &[u8],
    head: bool,
) -> Result<()> {
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(header.as_bytes())?;
    if !head {
        stream.write_all(body)?;
    }
    stream.flush()?;
    Ok(())
}

fn event_stream(mut stream: TcpStream, shared: &Shared) -> Result<()> {
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\n",
    )?;
    let (tx, rx) = mpsc::channel::<String>();
    {
        let site = shared.site.read().expect("site lock");
        let mut hello = sse_event("hello", &site.generation.to_string());
        if let Some(e) = &site.error {
            hello.push_str(&sse_event(
                "build-error",
                &serde_json::json!({ "message": e }).to_string(),
            ));
        }
        stream.write_all(hello.as_bytes())?;
        stream.flush()?;
        shared.clients.lock().expect("clients lock").push(tx);
    }
    // The read side only tells us when the client goes away.
    let mut probe = stream.try_clone()?;
    probe.set_read_timeout(Some(Duration::from_millis(1)))?;
    loop {
        match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(event) => stream.write_all(event.as_bytes())?,
            // A comment line keeps proxies from closing an idle stream.
            Err(RecvTimeoutError::Timeout) => stream.write_all(b": keep-alive\n\n")?,
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        }
        stream.flush()?;
        let mut buf = [0u8; 1];
        if let Ok(0) = probe.read(&mut buf) {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_paths() {
        let cases: &[(&str, Option<&str>)] = &[
            ("/", Some("index.html")),
            ("/intro.html", Some("intro.html")),
            ("/models/", Some("models/index.html")),
            ("/models/x.html?y=1#z", Some("models/x.html")),
            ("/a%20b.html", Some("a b.html")),
            ("/../Cargo.toml", None),
            ("/%2e%2e/Cargo.toml", None),
            ("/%2E%2E%2FCargo.toml", None),
            ("/models/..%2f..%2fetc/passwd", None),
            ("/a\\..\\b", None),
            ("/%00", None),
            ("/%zz", None),
            ("relative", None),
            ("//etc/passwd", Some("etc/passwd")),
        ];
        for (target, want) in cases {
            assert_eq!(site_path(target).as_deref(), *want, "{target}");
        }
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("a/b.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("theme/book.css"), "text/css; charset=utf-8");
        assert_eq!(
            content_type("search-index.js"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("x.bin"), "application/octet-stream");
    }

    #[test]
    fn sse_format() {
        assert_eq!(sse_event("reload", "3"), "event: reload\ndata: 3\n\n");
        assert_eq!(sse_event("x", "a\nb"), "event: x\ndata: a\ndata: b\n\n");
    }
}
