//! Real-browser test: headless Chromium driven over WebDriver (Debian's
//! `chromium` + `chromium-driver`), through a minimal WebDriver client written
//! here on std's TcpStream.
//!
//! Over the exported sample book, from `file://` and from `serve`: every page
//! loads without console errors, every internal link and anchor resolves,
//! every Copy button copies exactly its block, every Copy link gives the
//! command set's URL, and such a URL opened in a fresh tab lands on and
//! highlights that command set. Then an edit to a data file under `serve`
//! reloads the open page. Prints the counts and saves a screenshot.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mdbook_agentx::{CommandSet, Library};
use serde_json::{Value, json};

use crate::support;

const CHROMIUM: &str = "/usr/bin/chromium";

pub(crate) fn chromedriver() -> Option<PathBuf> {
    let found = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() || !Path::new(CHROMIUM).exists() {
        if std::env::var_os("AGENTX_REQUIRE_BROWSER").is_some() {
            panic!(
                "chromium and chromium-driver are required here (AGENTX_REQUIRE_BROWSER is set)"
            );
        }
        eprintln!(
            "SKIPPED: chromium / chromedriver not installed (apt-get install chromium chromium-driver)"
        );
        return None;
    }
    found
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One HTTP/1.1 exchange with chromedriver. The body is read by its length:
/// chromedriver may keep the connection open.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Value {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        &s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reader = BufReader::new(s);
    let mut length: Option<usize> = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let l = line.trim_end().to_ascii_lowercase();
        if l.is_empty() {
            break;
        }
        if let Some(v) = l.strip_prefix("content-length:") {
            length = v.trim().parse().ok();
        }
        if l.starts_with("transfer-encoding:") && l.contains("chunked") {
            chunked = true;
        }
    }
    let mut payload = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).unwrap();
            payload.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = length {
        payload.resize(n, 0);
        reader.read_exact(&mut payload).unwrap();
    } else {
        reader.read_to_end(&mut payload).unwrap();
    }
    let payload = String::from_utf8_lossy(&payload);
    serde_json::from_str(&payload).unwrap_or_else(|e| panic!("{method} {path}: {e}: {payload}"))
}

pub(crate) struct Driver {
    child: Child,
    port: u16,
    session: String,
    profile: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| {
            http(
                self.port,
                "DELETE",
                &format!("/session/{}", self.session),
                None,
            )
        });
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Driver {
    pub(crate) fn start(driver: &Path, tag: &str) -> Driver {
        let port = free_port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile =
            std::env::temp_dir().join(format!("agentx-chrome-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--no-first-run",
                         "--disable-quic", "--window-size=1280,900",
                         format!("--user-data-dir={}", profile.display())]
            },
            "goog:loggingPrefs": {"browser": "ALL"}
        }}});
        let r = http(port, "POST", "/session", Some(&caps));
        let session = r["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {r}"))
            .to_string();
        Driver {
            child,
            port,
            session,
            profile,
        }
    }

    pub(crate) fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let r = http(
            self.port,
            method,
            &format!("/session/{}{path}", self.session),
            body.as_ref(),
        );
        if let Some(err) = r["value"].get("error") {
            panic!(
                "WebDriver {method} {path}: {err}: {}",
                r["value"]["message"]
            );
        }
        r["value"].clone()
    }

    pub(crate) fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    pub(crate) fn exec(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Console entries at level SEVERE since the last call.
    pub(crate) fn console_errors(&self) -> Vec<String> {
        let v = self.cmd("POST", "/se/log", Some(json!({"type": "browser"})));
        v.as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or("").to_string())
            .collect()
    }

    pub(crate) fn screenshot(&self, to: &Path) {
        let b64 = self.cmd("GET", "/screenshot", None);
        let bytes = base64_decode(b64.as_str().unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let table = |c: u8| -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some((c - b'A') as u32),
            b'a'..=b'z' => Some((c - b'a' + 26) as u32),
            b'0'..=b'9' => Some((c - b'0' + 52) as u32),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let Some(v) = table(c) else { continue };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// What a page looks like from inside the browser.
const COLLECT: &str = r##"
var ids = Array.from(document.querySelectorAll("[id]")).map(function (e) { return e.id; });
// A model page's URL may name any set of its picker (which has no element
// with that id; the picker opens it).
var data = document.querySelector("script.agentx-model-data");
if (data) JSON.parse(data.textContent).deps.forEach(function (d) {
  d.sets.forEach(function (s) {
    ids.push(s[3] === 0 ? [d.anchor, d.points[s[0]][0].replace(/ \/ c/g, "-"), s[1], s[2]].join("-") : s[3]);
  });
});
var links = Array.from(document.querySelectorAll("a[href]")).map(function (a) { return a.href; });
var copies = [], anchor = null;
var nodes = document.querySelectorAll("h3.agentx-set, button.copy-code, button.agentx-copy-link");
for (var i = 0; i < nodes.length; i++) {
  var n = nodes[i];
  if (n.tagName === "H3") { anchor = n.id; continue; }
  window.__agentxLastCopy = null;
  n.click();
  copies.push({ anchor: anchor, kind: n.classList.contains("agentx-copy-link") ? "link" : "code", text: window.__agentxLastCopy });
}
return { ids: ids, links: links, copies: copies, href: location.href.split("#")[0] };
"##;

/// The blocks a command set shows, in page order, as decoded (not as rendered).
pub(crate) fn expected_blocks(set: &CommandSet) -> Vec<String> {
    let mut v = Vec::new();
    if !set.placeholders.is_empty() {
        let exports: Vec<String> = set
            .placeholders
            .iter()
            .map(|p| format!("export {}=\"<{}>\"", p.name, p.description))
            .collect();
        v.push(exports.join("\n"));
    }
    for p in &set.processes {
        v.push(p.command.to_string());
        for f in &p.files {
            v.push(f.content.trim_end().to_string());
        }
    }
    for f in &set.loose_files {
        v.push(f.content.trim_end().to_string());
    }
    v
}

#[derive(Default, Debug)]
struct Counts {
    pages: usize,
    links: usize,
    command_sets: usize,
    copies: usize,
    fresh_tabs: usize,
}

/// What visiting the pages found.
#[derive(Default)]
struct Visit {
    counts: Counts,
    /// Page URL → its ids.
    ids_by_page: HashMap<String, HashSet<String>>,
    /// Every link, with the page it is on.
    links: Vec<Link>,
    /// Every Copy link button's URL, with its command set.
    copy_links: Vec<CopyLink>,
}

struct Link {
    from: String,
    href: String,
}

struct CopyLink {
    anchor: String,
    url: String,
}

/// Visits every page of `pages` under `base` (a `file://` or `http://` URL).
fn check_site(
    d: &Driver,
    base: &str,
    pages: &[String],
    expected: &HashMap<String, Vec<String>>,
    shot: Option<&Path>,
) -> Counts {
    let mut visit = Visit::default();
    d.console_errors();
    for page in pages {
        visit_page(d, &format!("{base}{page}"), expected, &mut visit);
        if let (Some(shot), true) = (shot, page.ends_with("models/muse-spark-open.html")) {
            d.screenshot(shot);
        }
    }
    check_links(base, &mut visit);
    open_in_fresh_tabs(d, &mut visit);
    visit.counts
}

/// One page: no console error, and every Copy button copies exactly the
/// text of the decoded command set it belongs to.
fn visit_page(d: &Driver, url: &str, expected: &HashMap<String, Vec<String>>, visit: &mut Visit) {
    d.goto(url);
    let errors = d.console_errors();
    assert!(errors.is_empty(), "{url}: console errors: {errors:?}");
    let r = d.exec(COLLECT, json!([]));
    let href = r["href"].as_str().unwrap().to_string();
    let strings = |v: &Value| -> Vec<String> {
        let items = v.as_array().unwrap().iter();
        items.map(|v| v.as_str().unwrap().to_string()).collect()
    };
    visit
        .ids_by_page
        .insert(href.clone(), strings(&r["ids"]).into_iter().collect());
    for l in strings(&r["links"]) {
        let from = url.to_string();
        visit.links.push(Link { from, href: l });
    }
    let mut by_set: HashMap<String, Vec<String>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for c in r["copies"].as_array().unwrap() {
        let anchor = c["anchor"].as_str().unwrap_or("").to_string();
        let text = c["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{url}: a button copied nothing"))
            .to_string();
        visit.counts.copies += 1;
        if c["kind"] == "link" {
            assert_eq!(
                text,
                format!("{href}#{anchor}"),
                "{url}: Copy link of {anchor}"
            );
            order.push(anchor.clone());
            visit.copy_links.push(CopyLink { anchor, url: text });
        } else if !anchor.is_empty() {
            by_set.entry(anchor).or_default().push(text);
        }
    }
    for anchor in &order {
        let want = expected
            .get(anchor)
            .unwrap_or_else(|| panic!("{url}: unknown command set {anchor}"));
        let got = by_set.get(anchor).cloned().unwrap_or_default();
        assert_eq!(
            &got, want,
            "{url}#{anchor}: copied text differs from the decoded command set"
        );
        visit.counts.command_sets += 1;
    }
    visit.counts.pages += 1;
}

/// Every internal link and anchor resolves.
fn check_links(base: &str, visit: &mut Visit) {
    for Link { from, href: link } in &visit.links {
        if !link.starts_with(base) {
            continue; // another site
        }
        visit.counts.links += 1;
        let (target, frag) = link.split_once('#').unwrap_or((link, ""));
        let target = if target.ends_with('/') {
            format!("{target}index.html")
        } else {
            target.to_string()
        };
        let ids = visit.ids_by_page.get(&target).unwrap_or_else(|| {
            panic!("{from}: link {link} goes to a page that was not visited or does not exist")
        });
        if !frag.is_empty() {
            assert!(ids.contains(frag), "{from}: link {link}: no id `{frag}`");
        }
    }
}

/// A Copy link URL opened in a fresh tab shows and marks its command set,
/// with Copy all in view below the top bar: the first and last command set
/// of every page.
fn open_in_fresh_tabs(d: &Driver, visit: &mut Visit) {
    let main = d.cmd("GET", "/window", None).as_str().unwrap().to_string();
    let mut by_page: HashMap<&str, Vec<&CopyLink>> = HashMap::new();
    for l in &visit.copy_links {
        let page = l.url.split('#').next().unwrap();
        by_page.entry(page).or_default().push(l);
    }
    let mut pages_sorted: Vec<_> = by_page.into_iter().collect();
    pages_sorted.sort_by_key(|(p, _)| p.to_string());
    let mut sample: Vec<&CopyLink> = Vec::new();
    for (_, v) in pages_sorted {
        sample.push(v[0]);
        if v.len() > 1 {
            sample.push(v[v.len() - 1]);
        }
    }
    for CopyLink { anchor, url } in sample {
        let tab = d.cmd("POST", "/window/new", Some(json!({"type": "tab"})));
        let handle = tab["handle"].as_str().unwrap().to_string();
        d.cmd("POST", "/window", Some(json!({ "handle": handle })));
        d.goto(url);
        // The set's window is marked, and its Copy all shows below the
        // sticky top bar.
        let r = d.exec(
            "var e = document.getElementById(arguments[0]); if (!e) return null; \
             var set = e.closest('div.agentx-set'), all = set.querySelector('button.agentx-copy-all'); \
             var b = all.getBoundingClientRect(), bar = document.querySelector('.topbar').getBoundingClientRect(); \
             return { targeted: set.classList.contains('agentx-targeted'), top: b.top, bottom: b.bottom, \
                      bar: bar.bottom, height: window.innerHeight };",
            json!([anchor]),
        );
        assert!(!r.is_null(), "{url}: no element {anchor}");
        assert_eq!(r["targeted"], true, "{url}: not marked");
        let (top, bottom) = (r["top"].as_f64().unwrap(), r["bottom"].as_f64().unwrap());
        assert!(
            top >= r["bar"].as_f64().unwrap() && bottom <= r["height"].as_f64().unwrap(),
            "{url}: Copy all not in view below the top bar ({r})"
        );
        d.cmd("DELETE", "/window", None);
        d.cmd("POST", "/window", Some(json!({ "handle": main })));
        visit.counts.fresh_tabs += 1;
    }
}

pub(crate) fn pages_of(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = support::files_under(dir)
        .into_iter()
        .map(|(p, _)| p.to_string_lossy().replace('\\', "/"))
        .filter(|p| p.ends_with(".html") && p != "404.html")
        .collect();
    v.sort();
    v
}

fn expected_by_anchor() -> HashMap<String, Vec<String>> {
    let lib = Library::load(&support::repo(), Path::new("agentx")).unwrap();
    lib.pages()
        .flat_map(|(_, page)| {
            page.command_sets()
                .map(|s| (s.anchor.clone(), expected_blocks(s)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `serve` on a copy of the sample book (so it can be edited), stopped and
/// removed on drop.
pub(crate) struct Serve {
    child: Child,
    pub(crate) port: u16,
    pub(crate) book: support::Scratch,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    pub(crate) fn start() -> Serve {
        let book = support::sample_book_copy("browser-book");
        let mut child = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
            .arg("serve")
            .arg(&*book)
            .args(["--port", "0"])
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let port: u16 = loop {
            let line = lines.next().expect("serve output").unwrap();
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                break rest.split('/').next().unwrap().parse().unwrap();
            }
        };
        std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
        Serve { child, port, book }
    }
}

#[test]
fn browser_file_and_serve() {
    let Some(driver) = chromedriver() else { return };
    let expected = expected_by_anchor();
    let out = support::temp("browser-export");
    mdbook_agentx::export_offline(&support::repo(), &out).unwrap();
    let pages = pages_of(&out);
    let shot = support::repo().join("target/browser-test/muse-spark-open.png");
    let d = Driver::start(&driver, "file");

    let base = format!("file://{}/", out.display());
    let c = check_site(&d, &base, &pages, &expected, Some(&shot));
    eprintln!(
        "file://: {} pages, {} internal links, {} command sets ({} copy buttons), {} links opened in fresh tabs; screenshot {}",
        c.pages,
        c.links,
        c.command_sets,
        c.copies,
        c.fresh_tabs,
        shot.display()
    );
    // Every command set of the data (576 in the sample), each page once
    // (37: 8 chapters, 28 deployment chapters, index.html), 404 aside.
    assert_eq!(c.command_sets, support::sample_counts().command_sets);
    assert_eq!(c.pages, support::sample_pages());

    // The same over HTTP from `serve`.
    let server = Serve::start();
    let base = format!("http://127.0.0.1:{}/", server.port);
    let c = check_site(&d, &base, &pages, &expected, None);
    eprintln!(
        "serve (http://): {} pages, {} internal links, {} command sets ({} copy buttons), {} links opened in fresh tabs",
        c.pages, c.links, c.command_sets, c.copies, c.fresh_tabs
    );
    assert_eq!(c.command_sets, support::sample_counts().command_sets);
    live_reload(&d, &base, &server.book);
}

/// An open page reloads after a data edit and shows the new command.
fn live_reload(d: &Driver, base: &str, book: &Path) {
    let page =
        format!("{base}models/muse-spark-open/musespark-fp4-b200-sglang-agentic-dflash-0.html");
    d.goto(&page);
    d.exec("window.__notReloaded = true;", json!([]));
    std::thread::sleep(Duration::from_millis(300)); // let the event stream connect
    let data = book.join("agentx/muse-spark-open.json");
    let text = std::fs::read_to_string(&data).unwrap();
    let edited = text.replacen(
        "RadixArk/Muse-Spark-Open-DFlash2",
        "RadixArk/Muse-Spark-Open-DFlash3",
        4,
    );
    assert_ne!(text, edited);
    std::fs::write(&data, edited).unwrap();
    let t = Instant::now();
    loop {
        let r = d.exec(
            "return { fresh: window.__notReloaded !== true, has: document.body.textContent.indexOf('Muse-Spark-Open-DFlash3') >= 0 };",
            json!([]),
        );
        if r["fresh"] == true && r["has"] == true {
            break;
        }
        // Generous: a wait, not a timing. Under load (other builds on the
        // two cores) the debounce and rebuild alone took over 5 s.
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the page did not reload after the edit"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!(
        "live reload: page reloaded with the edit {} ms after the write",
        t.elapsed().as_millis()
    );
}
