//! The offline selector in a real browser (headless Chromium over the
//! shared WebDriver helper), on the exported sample book from `file://`.
//!
//! Every combination of the sample book (576) is selected with the chips of
//! its deployment chapter: exactly one command set is shown, the URL is its
//! anchor, and its Copy all text equals what `decode` prints. Every set's
//! URL, loaded afresh, restores the same selection. On each model page,
//! every set is chosen with the picker's chips, each click and Copy all in
//! view, and its Copy all equals `decode` (browser_picker.rs); back/forward
//! walk the selections; no console errors.
//! Prints the counts and the figures of docs/BENCHMARKS.md (scroll height
//! of the largest deployment page, clicks, bytes a page loads).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use mdbook_agentx::Library;
use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver};
use crate::browser_chrome::view;
use crate::browser_picker;
use crate::support;

/// Selects each listed set with the chips (concurrency, KV offload,
/// router: the rows that differ inside one deployment chapter) and reports
/// what the page then shows and what Copy all copies.
pub(crate) const DRIVE: &str = r##"
var targets = arguments[0], out = [];
function chip(row, value) {
  return document.querySelector('.agentx-chip[data-row="' + row + '"][value="' + value + '"]');
}
function visible(e) { return e.getClientRects().length > 0; }
targets.forEach(function (t) {
  var clicks = 0;
  [["point", String(t.point)], ["tier", t.tier], ["router", t.router]].forEach(function (rv) {
    var c = chip(rv[0], rv[1]);
    if (c && c.getAttribute("aria-pressed") !== "true") { c.click(); clicks++; }
  });
  var shown = Array.prototype.filter.call(document.querySelectorAll("div.agentx-set"), visible);
  var copy = null, all = shown.length === 1 && shown[0].querySelector("button.agentx-copy-all");
  window.__agentxLastCopy = null;
  if (all) { all.click(); copy = window.__agentxLastCopy; }
  out.push({ anchor: t.anchor, shown: shown.map(function (e) { return e.getAttribute("data-anchor"); }),
             hash: location.hash.slice(1), copy: copy, clicks: clicks });
});
return out;
"##;

/// What is selected now: the shown set and the pressed chips.
pub(crate) const STATE: &str = r##"
var shown = Array.prototype.filter.call(document.querySelectorAll("div.agentx-set"),
  function (e) { return e.getClientRects().length > 0; });
var pressed = Array.prototype.map.call(document.querySelectorAll('.agentx-chip[aria-pressed="true"]'),
  function (c) { return c.getAttribute("data-row") + "=" + c.value; });
return { shown: shown.map(function (e) { return e.getAttribute("data-anchor"); }), pressed: pressed,
         active: document.documentElement.classList.contains("agentx-active"),
         height: document.documentElement.scrollHeight };
"##;

/// A set of the sample book, with everything the browser test compares.
pub(crate) struct Expected {
    /// Page (relative to the site) of its deployment chapter.
    page: String,
    point: usize,
    tier: &'static str,
    router: &'static str,
    /// What `decode` prints for it.
    pub(crate) copy_all: String,
}

impl Expected {
    /// Page (relative to the site) of its deployment chapter.
    pub(crate) fn page(&self) -> &str {
        &self.page
    }
}

/// Every set of the exported site, by anchor, with its page: the pages are
/// read from the site (`data-anchor` of each set), the text from the decoder.
pub(crate) fn expected(site: &Path) -> HashMap<String, Expected> {
    expected_in(&support::repo(), Path::new("agentx"), site)
}

/// [`expected`] of the book at `book` whose data is in `data_dir`.
pub(crate) fn expected_in(book: &Path, data_dir: &Path, site: &Path) -> HashMap<String, Expected> {
    let lib = Library::load(book, data_dir).unwrap();
    let mut page_of: HashMap<String, String> = HashMap::new();
    for (rel, bytes) in support::files_under(site) {
        let rel = rel.to_string_lossy().replace('\\', "/");
        // mdBook's print.html holds every chapter again: a set's page is
        // its chapter.
        if !rel.ends_with(".html") || rel == "print.html" {
            continue;
        }
        let html = String::from_utf8_lossy(&bytes);
        for part in html
            .split("<div class=\"agentx-set\" data-anchor=\"")
            .skip(1)
        {
            let anchor = &part[..part.find('"').unwrap()];
            page_of.insert(anchor.to_string(), rel.clone());
        }
    }
    let mut out = HashMap::new();
    for (_, page) in lib.pages() {
        for s in page.command_sets() {
            let e = Expected {
                page: page_of
                    .get(&s.anchor)
                    .unwrap_or_else(|| panic!("{} is on no page", s.anchor))
                    .clone(),
                point: s.point,
                tier: s.tier.id(),
                router: s.router.id(),
                copy_all: s.copy_all_text(),
            };
            out.insert(s.anchor.clone(), e);
        }
    }
    out
}

/// Selects every set of every deployment chapter with its chips.
pub(crate) fn drive_every_combination(
    d: &Driver,
    base: &str,
    sets: &HashMap<String, Expected>,
) -> usize {
    let mut by_page: HashMap<&str, Vec<(&String, &Expected)>> = HashMap::new();
    for (a, e) in sets {
        by_page.entry(e.page.as_str()).or_default().push((a, e));
    }
    let mut pages: Vec<_> = by_page.into_iter().collect();
    pages.sort_by_key(|(p, _)| p.to_string());
    let mut n = 0;
    for (page, mut list) in pages {
        list.sort_by_key(|(a, _)| a.to_string());
        d.goto(&format!("{base}{page}"));
        let targets: Vec<Value> = list
            .iter()
            .map(
                |(a, e)| json!({"anchor": a, "point": e.point, "tier": e.tier, "router": e.router}),
            )
            .collect();
        let r = d.exec(DRIVE, json!([targets]));
        for (got, (anchor, e)) in r.as_array().unwrap().iter().zip(&list) {
            assert_eq!(got["shown"], json!([anchor]), "{page}: selecting {anchor}");
            assert_eq!(got["hash"], json!(anchor), "{page}: the URL of {anchor}");
            assert_eq!(
                got["copy"].as_str(),
                Some(e.copy_all.as_str()),
                "{page}#{anchor}: Copy all differs from decode"
            );
            n += 1;
        }
        let errors = d.console_errors();
        assert!(errors.is_empty(), "{page}: console errors: {errors:?}");
    }
    n
}

/// Every set's URL, loaded afresh, shows that set and presses its chips.
fn urls_restore(d: &Driver, base: &str, sets: &HashMap<String, Expected>) -> usize {
    // Round-robin over the pages, so that each URL is a new document (a
    // fresh load, as in a new tab), not a jump within the page before.
    let mut by_page: HashMap<&str, Vec<&String>> = HashMap::new();
    for (a, e) in sets {
        by_page.entry(e.page.as_str()).or_default().push(a);
    }
    let mut queues: Vec<Vec<&String>> = by_page.into_values().collect();
    queues.sort();
    let mut anchors: Vec<&String> = Vec::new();
    while queues.iter().any(|q| !q.is_empty()) {
        for q in queues.iter_mut() {
            if let Some(a) = q.pop() {
                anchors.push(a);
            }
        }
    }
    let mut n = 0;
    let mut last_page = "";
    for a in anchors {
        let e = &sets[a];
        if e.page == last_page {
            d.goto("about:blank");
        }
        last_page = &e.page;
        d.goto(&format!("{base}{}#{a}", e.page));
        let r = d.exec(STATE, json!([]));
        assert_eq!(r["shown"], json!([a]), "{}#{a}: shown", e.page);
        let pressed: Vec<&str> = r["pressed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for want in [
            format!("point={}", e.point),
            format!("tier={}", e.tier),
            format!("router={}", e.router),
        ] {
            assert!(pressed.contains(&want.as_str()), "{a}: {want} not pressed");
        }
        n += 1;
    }
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    n
}

/// A real click (a trusted event, with user activation, as a reader's) on
/// the first element matching `css`.
fn click(d: &Driver, css: &str) {
    d.exec(
        "document.querySelector(arguments[0]).scrollIntoView({block: 'center'});",
        json!([css]),
    );
    let id = crate::browser_axe::element_id(d, css);
    d.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
}

/// Back and forward walk the selections of a deployment chapter; the
/// Combinations table's links select.
fn back_and_forward(d: &Driver, base: &str, page: &str) {
    d.goto(&format!("{base}{page}"));
    let shown = || d.exec(STATE, json!([]))["shown"].clone();
    let first = shown();
    let other = |row: &str| {
        format!(".agentx-chip[data-row=\"{row}\"][aria-pressed=\"false\"]:not(:disabled)")
    };
    click(d, &other("point"));
    let second = shown();
    click(d, &other("router"));
    let third = shown();
    assert_ne!(first, second);
    assert_ne!(second, third);
    d.cmd("POST", "/back", Some(json!({})));
    assert_eq!(shown(), second, "back");
    d.cmd("POST", "/back", Some(json!({})));
    assert_eq!(shown(), first, "back again");
    d.cmd("POST", "/forward", Some(json!({})));
    assert_eq!(shown(), second, "forward");
    // A link of the Combinations table selects its set.
    let target = d.exec(
        "var a = document.querySelectorAll('td a[href^=\"#\"]'); return a[a.length - 1].getAttribute('href').slice(1);",
        json!([]),
    );
    let target = target.as_str().unwrap();
    click(d, &format!("td a[href=\"#{target}\"]"));
    assert_eq!(shown(), json!([target]), "the Combinations table's link");
}

pub(crate) fn gzip_len(bytes: &[u8]) -> usize {
    let mut child = Command::new("gzip")
        .arg("-9c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip");
    let mut stdin = child.stdin.take().unwrap();
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out.stdout.len()
}

/// Bytes each page loads: its HTML and the theme files it links (the search
/// index loads only when the box is used, and is not counted). Prints them
/// per kind of page, and checks the selector's budget on the largest page.
fn page_bytes(site: &Path) {
    let files: HashMap<String, Vec<u8>> = support::files_under(site)
        .into_iter()
        .map(|(p, b)| (p.to_string_lossy().replace('\\', "/"), b))
        .collect();
    let theme_files = [
        "theme/book.css",
        "theme/highlight.css",
        "theme/agentx.css",
        "theme/book.js",
        "theme/agentx.js",
    ];
    let theme: usize = theme_files.iter().map(|f| files[*f].len()).sum();
    let theme_gz: usize = theme_files.iter().map(|f| gzip_len(&files[*f])).sum();
    let kind = |p: &str| match p.matches('/').count() {
        0 => "other pages",
        1 => "model pages",
        _ => "deployment chapters",
    };
    let mut by_kind: HashMap<&str, Vec<(usize, &String)>> = HashMap::new();
    for (p, b) in files.iter().filter(|(p, _)| p.ends_with(".html")) {
        by_kind.entry(kind(p)).or_default().push((b.len(), p));
    }
    eprintln!(
        "bytes each page loads: its HTML + the theme files ({theme} B, {theme_gz} B gzip, cached after the first page)"
    );
    let mut kinds: Vec<_> = by_kind.into_iter().collect();
    kinds.sort();
    for (k, mut v) in kinds {
        v.sort();
        let (max, page) = v[v.len() - 1];
        eprintln!(
            "  {k} ({}): HTML min {} B, median {} B, max {max} B ({} B gzip, {page})",
            v.len(),
            v[0].0,
            v[v.len() / 2].0,
            gzip_len(&files[page])
        );
    }
    let largest = files
        .iter()
        .filter(|(p, _)| p.ends_with(".html"))
        .max_by_key(|(_, b)| b.len())
        .unwrap()
        .0;
    let html = String::from_utf8_lossy(&files[largest]);
    let data = html
        .split("class=\"agentx-selector-data\">")
        .nth(1)
        .and_then(|s| s.split("</script>").next())
        .unwrap_or("");
    let js = &files["theme/agentx.js"];
    let (js_gz, data_gz) = (gzip_len(js), gzip_len(data.as_bytes()));
    eprintln!(
        "selector on the largest page ({largest}): agentx.js {} B ({js_gz} B gzip) + data {} B ({data_gz} B gzip) = {} B gzip",
        js.len(),
        data.len(),
        js_gz + data_gz
    );
    assert!(
        js_gz + data_gz < 25 * 1024,
        "selector JS + data: {} B gzip",
        js_gz + data_gz
    );
}

#[test]
fn browser_selector_every_combination() {
    let Some(driver) = chromedriver() else { return };
    let out = support::temp("selector-export");
    mdbook_agentx::export_offline(&support::repo(), &out).unwrap();
    let sets = expected(&out);
    assert_eq!(sets.len(), support::sample_counts().command_sets);
    let base = format!("file://{}/", out.display());
    let d = Driver::start(&driver, "selector");
    view(&d, 1400, 900, false);
    d.console_errors();

    let t = std::time::Instant::now();
    let selected = drive_every_combination(&d, &base, &sets);
    let t1 = t.elapsed();
    let restored = urls_restore(&d, &base, &sets);
    let t2 = t.elapsed();
    let largest = largest_page(&sets);
    back_and_forward(&d, &base, &largest);
    let picked = browser_picker::drive_model_pages(&d, &base, &sets, 1, true);
    let model_urls = browser_picker::model_urls_restore(&d, &base, &sets, 9);
    let (landed, switches) = browser_picker::hardware_switches(&d, &base, &sets);
    eprintln!(
        "hardware switches landing on a measured launch: {landed}/{switches} (deployment chips in one column)"
    );
    assert_eq!(
        landed, switches,
        "a hardware switch landed on a derived launch"
    );
    eprintln!(
        "(chips {} ms, URLs {} ms, from model pages {} ms)",
        t1.as_millis(),
        (t2 - t1).as_millis(),
        (t.elapsed() - t2).as_millis()
    );
    eprintln!(
        "selector: {selected} combinations selected with a deployment page's chips (one set shown, \
         URL = its anchor, Copy all = decode), {restored} URLs restored in a fresh load; picker: {} \
         sets chosen on their model page ({} pages) in at most {} clicks, each click and Copy all \
         in view, Copy all = decode; {model_urls} model-page URLs restored",
        picked.sets, picked.pages, picked.most_clicks
    );
    assert_eq!(selected, sets.len());
    assert_eq!(restored, sets.len());
    assert_eq!(picked.sets, sets.len());
    assert!(picked.most_clicks <= 6, "{} clicks", picked.most_clicks);

    // The largest deployment chapter: how long it is with the selector, and
    // with every set shown.
    d.goto(&format!("{base}{largest}"));
    let active = d.exec(STATE, json!([]));
    d.exec(
        "document.querySelector('.agentx-show-all').click();",
        json!([]),
    );
    let all = d.exec(STATE, json!([]));
    assert_eq!(active["active"], true);
    assert_eq!(all["active"], false);
    let count = sets.values().filter(|e| e.page == largest).count();
    eprintln!(
        "scroll height at 1400 px of {largest} ({count} sets): {} px with the selector, {} px with all sets shown",
        active["height"], all["height"]
    );
    assert!(active["height"].as_f64().unwrap() < 6000.0);
    page_bytes(&out);
    screenshots(&d, &base, &largest);
}

/// The deployment chapter with the most sets.
fn largest_page(sets: &HashMap<String, Expected>) -> String {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for e in sets.values() {
        *count.entry(e.page.as_str()).or_default() += 1;
    }
    let mut v: Vec<_> = count.into_iter().collect();
    v.sort_by_key(|(p, n)| (std::cmp::Reverse(*n), p.to_string()));
    v[0].0.to_string()
}

/// Screenshots to look at, in target/browser-test/selector/.
fn screenshots(d: &Driver, base: &str, largest: &str) {
    let dir = support::repo().join("target/browser-test/selector");
    let model = format!("{}.html", largest.rsplit_once('/').unwrap().0);
    for (name, w, h, dark, page) in [
        ("model-1400", 1400, 900, false, &model),
        ("deployment-1400", 1400, 900, false, &largest.to_string()),
        (
            "deployment-1400-dark",
            1400,
            900,
            true,
            &largest.to_string(),
        ),
        ("deployment-390", 390, 844, false, &largest.to_string()),
        ("model-390-dark", 390, 844, true, &model),
    ] {
        view(d, w, h, dark);
        d.goto(&format!("{base}{page}"));
        d.exec(
            "var s = document.querySelector('.agentx-selector-on'); if (s) s.scrollIntoView();",
            json!([]),
        );
        d.screenshot(&dir.join(format!("{name}.png")));
    }
    view(d, 1400, 900, false);
    eprintln!("screenshots in {}", dir.display());
}
