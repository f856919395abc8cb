//! Readers on the real cookbook pages (issue 26): a book of the four real
//! pages in `../shared/reference/sglang-cookbook-pages/` (1,280 command
//! sets), built by the standalone builder and by real mdBook, in headless
//! Chromium at 1400 px and 390 px. Every deployment page and a permalink
//! of each opens with Copy all fully visible below the top bar; every set
//! is chosen on its model page with the picker's chips and its Copy all
//! compared with `decode`; the clicks each set takes are printed per model
//! (plus one click from the landing page to the model page); every
//! hardware switch lands on a measured launch (n/N printed); axe finds no
//! serious or critical violation at both widths, light and dark; under
//! mdBook, control text is at least 12 px.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver};
use crate::browser_chrome::{axe_source, axe_violations, view};
use crate::browser_picker::{drive_model_pages, hardware_switches, model_page_of};
use crate::browser_selector::{Expected, expected_in};
use crate::support;

/// The command sets of the four real pages.
pub(crate) const REAL_SETS: usize = 1280;

/// A book of the real pages, set up as a user would (`install`): one
/// chapter per page holding its directive, as `xtask realdata` assembles it.
pub(crate) fn real_book(name: &str) -> Option<support::Scratch> {
    let pages = support::shared("reference/sglang-cookbook-pages")?;
    let book = support::temp(name);
    std::fs::create_dir_all(book.join("data")).unwrap();
    std::fs::create_dir_all(book.join("src")).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsx"))
        .collect();
    files.sort();
    let mut summary = String::from("# Summary\n\n[Introduction](intro.md)\n\n# Models\n\n");
    for f in &files {
        let page = mdbook_agentx::decode_file(f).unwrap().page.model;
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        std::fs::copy(f, book.join("data").join(f.file_name().unwrap())).unwrap();
        std::fs::write(
            book.join("src").join(format!("{stem}.md")),
            format!("# {page}\n\n<<agentx page=\"{page}\">>\n"),
        )
        .unwrap();
        summary.push_str(&format!("- [{page}]({stem}.md)\n"));
    }
    std::fs::write(book.join("src/SUMMARY.md"), summary).unwrap();
    std::fs::write(book.join("src/intro.md"), "# Real AgentX pages\n").unwrap();
    std::fs::write(
        book.join("book.toml"),
        "[book]\ntitle = \"Real AgentX pages\"\nsrc = \"src\"\n\n[preprocessor.agentx]\n\
         data-dir = \"data\"\non-error = \"fail\"\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .arg("install")
        .arg(&*book)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(book)
}

/// Where the page opened: Copy all of the window shown (the picker's on a
/// model page, the shown set's on a deployment page), against the top bar
/// and the viewport.
const OPENED: &str = r##"
var bar = document.querySelector(".topbar, #mdbook-menu-bar, #menu-bar"), b = 0;
if (bar) { var r = bar.getBoundingClientRect(); if (getComputedStyle(bar).position !== "static" && r.bottom > 0) b = r.bottom; }
var all = Array.from(document.querySelectorAll("button.agentx-copy-all")).filter(function (e) {
  return e.offsetParent !== null;
})[0];
if (!all) return { found: false };
var a = all.getBoundingClientRect();
var hit = document.elementFromPoint(a.left + a.width / 2, a.top + a.height / 2);
return { found: true, top: a.top, bottom: a.bottom, bar: b, height: window.innerHeight,
  covered: !(hit && (hit === all || all.contains(hit))), y: window.pageYOffset };
"##;

/// Opens every deployment page, and each at its first set's permalink,
/// and each model page at a set's permalink: Copy all is visible whole
/// below the top bar, not covered. Returns the pages opened.
fn pages_open_at_copy_all(d: &Driver, base: &str, sets: &HashMap<String, Expected>) -> usize {
    let mut by_page: HashMap<&str, Vec<&str>> = HashMap::new();
    for (a, e) in sets {
        by_page.entry(e.page()).or_default().push(a);
    }
    let mut pages: Vec<_> = by_page.into_iter().collect();
    pages.sort();
    let mut urls = Vec::new();
    for (page, mut anchors) in pages {
        anchors.sort();
        urls.push(page.to_string());
        urls.push(format!("{page}#{}", anchors[anchors.len() / 2]));
        urls.push(format!("{}#{}", model_page_of(page), anchors[0]));
    }
    for url in &urls {
        // A fresh load each time (a fragment change alone would not reload).
        d.goto("about:blank");
        d.goto(&format!("{base}{url}"));
        let r = d.exec(OPENED, json!([]));
        assert_eq!(r["found"], true, "{url}: no Copy all shown");
        let f = |k: &str| r[k].as_f64().unwrap();
        assert!(
            f("top") >= f("bar") - 0.5 && f("bottom") <= f("height") + 0.5 && r["covered"] == false,
            "{url}: Copy all not fully visible below the top bar: {r}"
        );
    }
    urls.len()
}

/// Per model page: sets, clicks from the landing page (one to the model
/// page, then the picker's chips) as median and most, and the sets that
/// take more than 5.
fn print_task_table(run: &crate::browser_picker::PickerRun, what: &str) {
    eprintln!(
        "{what}: tasks from the landing page to Copy all (1 click to the model page + chips)"
    );
    eprintln!("| Model page | Sets | Median clicks | Most clicks | Sets over 5 clicks | Scrolls |");
    eprintln!("|---|---:|---:|---:|---:|---:|");
    for (model, clicks) in &run.clicks {
        let mut c: Vec<u64> = clicks.iter().map(|c| c + 1).collect();
        c.sort();
        let over = c.iter().filter(|&&c| c > 5).count();
        eprintln!(
            "| {model} | {} | {} | {} | {over} | 0 |",
            c.len(),
            c[c.len() / 2],
            c[c.len() - 1]
        );
    }
}

/// Axe on the largest model page and a deployment page, light and dark.
fn axe_clean(d: &Driver, base: &str, axe: &str, pages: &[&str], width: u32, height: u32) {
    for dark in [false, true] {
        view(d, width, height, dark);
        for page in pages {
            d.goto(&format!("{base}{page}"));
            let v = axe_violations(d, axe);
            assert!(
                v.is_empty(),
                "{page} at {width} px, dark {dark}: axe serious/critical: {v:#?}"
            );
        }
    }
    view(d, width, height, false);
}

#[test]
fn browser_real_pages_standalone_and_under_mdbook() {
    let Some(driver) = chromedriver() else { return };
    let Some(book) = real_book("real-pages-browser") else {
        eprintln!("SKIPPED: ../shared/reference/sglang-cookbook-pages is missing");
        return;
    };
    let site = book.join("book");
    mdbook_agentx::build(&book, &mdbook_agentx::BuildOptions::default()).unwrap();
    let sets = expected_in(&book, Path::new("data"), &site);
    assert_eq!(sets.len(), REAL_SETS);
    let base = format!("file://{}/", site.display());
    let d = Driver::start(&driver, "real-pages");
    let t = std::time::Instant::now();

    // Opening pages and permalinks, at both widths.
    for (w, h) in [(1400, 900), (390, 844)] {
        view(&d, w, h, false);
        let n = pages_open_at_copy_all(&d, &base, &sets);
        eprintln!(
            "real pages, standalone, {w} px: {n} pages and permalinks open with Copy all in view"
        );
    }
    // Every set through its model page's picker, on desktop, each click
    // and Copy all in view, no scroll.
    view(&d, 1400, 900, false);
    let picked = drive_model_pages(&d, &base, &sets, 1, true);
    assert_eq!(picked.sets, REAL_SETS);
    print_task_table(&picked, "real pages, standalone, 1400 px");
    let (landed, switches) = hardware_switches(&d, &base, &sets);
    eprintln!("real pages: hardware switches landing on a measured launch: {landed}/{switches}");
    assert_eq!(
        landed, switches,
        "a hardware switch landed on a derived launch"
    );
    // Axe at both widths, light and dark.
    if let Some(axe) = axe_source() {
        let largest = largest_deployment_page(&sets);
        let pages = ["deepseek-v4.html", largest.as_str()];
        axe_clean(&d, &base, &axe, &pages, 1400, 900);
        axe_clean(&d, &base, &axe, &pages, 390, 844);
    }
    screenshots(&d, &base, "standalone");
    eprintln!("real pages, standalone: {} s", t.elapsed().as_secs());
    single_file(&d, &book);

    if support::mdbook_available() {
        under_mdbook(&d, &book, &sets);
    }
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
}

/// The single-file export of the real pages: under 10 MB, one picker per
/// model (the deployment chapters are stubs into it); its size, load time
/// and element count printed (a benchmark figure, not asserted), and a
/// set's link opens in its model's picker with Copy all == `decode`.
fn single_file(d: &Driver, book: &Path) {
    let html = mdbook_agentx::export_single_file(book).unwrap().html;
    let path = book.join("single.html");
    std::fs::write(&path, &html).unwrap();
    assert!(html.len() < 10_000_000, "single file {} bytes", html.len());
    view(d, 1400, 900, false);
    d.goto("about:blank");
    d.goto(&format!("file://{}", path.display()));
    let r = d.exec(
        "var n = performance.getEntriesByType('navigation')[0]; \
         return { load: n.loadEventEnd, elements: document.getElementsByTagName('*').length, \
                  pickers: document.querySelectorAll('.agentx-picker[data-ready], .agentx-picker:not([hidden])').length };",
        json!([]),
    );
    eprintln!(
        "real pages, single file: {} bytes, load event at {:.0} ms, {} elements, {} pickers shown",
        html.len(),
        r["load"].as_f64().unwrap_or(0.0),
        r["elements"],
        r["pickers"]
    );
}

/// Screenshots of the model page at both widths, light and dark, into
/// `target/browser-test/real/` (looked at by hand; not compared).
fn screenshots(d: &Driver, base: &str, tag: &str) {
    let dir = support::repo().join("target/browser-test/real");
    std::fs::create_dir_all(&dir).unwrap();
    for (w, h) in [(1400, 900), (390, 844)] {
        for dark in [false, true] {
            view(d, w, h, dark);
            d.goto("about:blank");
            d.goto(&format!("{base}deepseek-v4.html"));
            let scheme = if dark { "dark" } else { "light" };
            d.screenshot(&dir.join(format!("{tag}-model-{w}-{scheme}.png")));
        }
    }
    view(d, 1400, 900, false);
}

/// The deployment page holding the most sets.
fn largest_deployment_page(sets: &HashMap<String, Expected>) -> String {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for e in sets.values() {
        *count.entry(e.page()).or_default() += 1;
    }
    let mut v: Vec<_> = count.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v[0].0.to_string()
}

/// The same book under real mdBook: pages and permalinks open with Copy
/// all in view at both widths, every set through the picker (a stride: the
/// standalone run chose them all), control text at least 12 px.
fn under_mdbook(d: &Driver, book: &Path, sets: &HashMap<String, Expected>) {
    let t = std::time::Instant::now();
    let out = book.join("mdbook-out");
    support::mdbook_build(book, &out);
    assert!(
        !out.join("print.html").exists(),
        "mdBook's print page is off"
    );
    let base = format!("file://{}/", out.display());
    for (w, h) in [(1400, 900), (390, 844)] {
        view(d, w, h, false);
        let n = pages_open_at_copy_all(d, &base, sets);
        eprintln!(
            "real pages, mdBook, {w} px: {n} pages and permalinks open with Copy all in view"
        );
    }
    view(d, 1400, 900, false);
    let picked = drive_model_pages(d, &base, sets, 7, true);
    print_task_table(&picked, "real pages, mdBook, 1400 px (every 7th set)");
    for page in ["glm-5.2.html", largest_deployment_page(sets).as_str()] {
        d.goto(&format!("{base}{page}"));
        let least: Value = d.exec(crate::browser_mdbook::SMALLEST_CONTROL_TEXT, json!([]));
        let px = least[0].as_f64().unwrap();
        eprintln!(
            "real pages, mdBook: {page}: smallest control text {px} px ({})",
            least[1]
        );
        assert!(
            (12.0..1000.0).contains(&px),
            "{page}: control text {px} px: {least}"
        );
    }
    screenshots(d, &base, "mdbook");
    eprintln!("real pages, mdBook: {} s", t.elapsed().as_secs());
}
