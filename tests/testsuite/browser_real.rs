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
//!
//! Every set is also reached by search from the landing page
//! (`browser_search_path.rs`: the search box, a query of what the reader
//! knows, the first result): every query's first result is its exact set,
//! and the sets the chips take more than 5 clicks to reach are driven that
//! way as a reader does. Every set reaches Copy all in at most 5 clicks
//! with no scroll by one path or the other (the table printed per model
//! page), standalone. The search box is in view on the landing page at
//! both widths.
//!
//! The model page's "Find a launch" field (`browser_find.rs`) puts every
//! set first for its query, standalone and under mdBook (where the
//! generated deployment chapters are out of mdBook's own search); under
//! mdBook the find path is driven for the sampled sets the chips take more
//! than 5 clicks to reach, and the task table is the best of chips and
//! find. At 390 px the standalone search path and mdBook's find path are
//! driven for a sample (tables printed); the single file finds a set of
//! each model with the field; axe runs with the matches shown.
//!
//! `AGENTX_REAL_MODEL=glm-5.2.html` (a model page) limits the run to that
//! page's sets for quick iterations: standalone at 1400 px, then mdBook's
//! picker and find paths (no pages opened, axe or screenshots).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver};
use crate::browser_chrome::{axe_source, axe_violations, view};
use crate::browser_find;
use crate::browser_picker::{drive_model_pages, hardware_switches, model_page_of};
use crate::browser_search_path::{SearchTask, drive_search_path, in_view, not_first, search_tasks};
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

/// Per model page: sets, clicks from the landing page by the best path
/// (the fewer of the chips' — one click to the model page, then the
/// picker's chips — and the other path's (`path`: its name and clicks),
/// where its first result is the exact set) as median and most, the sets
/// over 5 clicks by the chips alone and by the best path, and scrolls.
/// `other` holds the other path's clicks by anchor; the chips chose every
/// `stride`th set. Returns the sets over 5 by the best path.
fn print_task_table(
    run: &crate::browser_picker::PickerRun,
    sets: &HashMap<String, Expected>,
    (other, stride): (&HashMap<&str, u64>, usize),
    what: &str,
    path: (&str, &str),
) -> Vec<String> {
    let search = other;
    eprintln!(
        "{what}: tasks from the landing page to Copy all (chips: 1 click to the model page + chips; \
         {}: {})",
        path.0, path.1
    );
    eprintln!(
        "| Model page | Sets | Exact set first by {} | Median clicks | Most clicks | \
         Sets over 5 by chips | Sets over 5 by the best path | Scrolls |",
        path.0
    );
    eprintln!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut over_best = Vec::new();
    for (model, clicks) in &run.clicks {
        let anchors: Vec<&String> = anchors_of(sets, model)
            .into_iter()
            .step_by(stride)
            .collect();
        assert_eq!(anchors.len(), clicks.len(), "{model}: every set chosen");
        let chips: Vec<u64> = clicks.iter().map(|c| c + 1).collect();
        let mut best: Vec<u64> = (anchors.iter().zip(&chips))
            .map(|(a, &c)| search.get(a.as_str()).map_or(c, |&s| s.min(c)))
            .collect();
        over_best.extend(
            (anchors.iter().zip(&best))
                .filter(|(_, c)| **c > 5)
                .map(|(a, c)| format!("{model}#{a}: {c} clicks")),
        );
        best.sort();
        let first = anchors.iter().filter(|a| search.contains_key(a.as_str()));
        eprintln!(
            "| {model} | {} | {} | {} | {} | {} | {} | 0 |",
            best.len(),
            first.count(),
            best[best.len() / 2],
            best[best.len() - 1],
            chips.iter().filter(|&&c| c > 5).count(),
            best.iter().filter(|&&c| c > 5).count(),
        );
    }
    over_best
}

/// The anchors of a model page's sets, in order (as the picker run
/// chooses them).
pub(crate) fn anchors_of<'a>(sets: &'a HashMap<String, Expected>, model: &str) -> Vec<&'a String> {
    let mut anchors: Vec<&String> = (sets.iter())
        .filter(|(_, e)| model_page_of(e.page()) == model)
        .map(|(a, _)| a)
        .collect();
    anchors.sort();
    anchors
}

/// The clicks from the landing page by the chips (one to the model page,
/// then the chips), by anchor, of a picker run that chose every `stride`th
/// set.
fn chip_clicks<'a>(
    sets: &'a HashMap<String, Expected>,
    picked: &crate::browser_picker::PickerRun,
    stride: usize,
) -> HashMap<&'a str, u64> {
    let mut chips = HashMap::new();
    for (model, clicks) in &picked.clicks {
        let anchors = anchors_of(sets, model).into_iter().step_by(stride);
        chips.extend(
            anchors
                .map(|a| a.as_str())
                .zip(clicks.iter().map(|c| c + 1)),
        );
    }
    chips
}

/// The search path on the real pages at 1400 px: every set's query puts
/// the exact set first (the page's own search code, on the landing page),
/// and the sets the chips take more than 5 clicks to reach are driven as
/// a reader does. Returns the search path's clicks by anchor (the sets
/// whose query finds them first).
fn search_path<'a>(
    d: &Driver,
    base: &str,
    tasks: &[SearchTask],
    sets: &'a HashMap<String, Expected>,
    picked: &crate::browser_picker::PickerRun,
) -> HashMap<&'a str, u64> {
    let missed = not_first(d, base, tasks);
    eprintln!(
        "real pages, search: the exact set first for {}/{} queries",
        tasks.len() - missed.len(),
        tasks.len()
    );
    for (_, m) in &missed {
        eprintln!("  not first: {m}");
    }
    let chips = chip_clicks(sets, picked, 1);
    // Driven: every set over 5 by the chips, and every 40th other set.
    let over: Vec<&SearchTask> = (tasks.iter())
        .filter(|t| chips[t.anchor.as_str()] > 5)
        .collect();
    let sample = (tasks.iter())
        .filter(|t| chips[t.anchor.as_str()] <= 5)
        .step_by(40);
    let driven: Vec<&SearchTask> = over.iter().copied().chain(sample).collect();
    let t0 = std::time::Instant::now();
    let driven = drive_search_path(d, base, &driven, sets);
    eprintln!(
        "real pages, search path driven as a reader for {} sets ({} over 5 clicks by the chips, \
         every 40th other): {} s",
        driven.len(),
        over.len(),
        t0.elapsed().as_secs()
    );
    if let Some(most) = over.iter().max_by_key(|t| chips[t.anchor.as_str()]) {
        let dir = support::repo().join("target/browser-test/real");
        crate::browser_search_path::screenshots(d, base, most, &dir);
    }
    let first = (tasks.iter()).filter(|t| !missed.iter().any(|(a, _)| *a == t.anchor));
    let search_clicks = |t: &SearchTask| driven.get(&t.anchor).copied().unwrap_or(2);
    first
        .map(|t| {
            (
                sets.get_key_value(&t.anchor).unwrap().0.as_str(),
                search_clicks(t),
            )
        })
        .collect()
}

/// The landing page shows the search box in the top bar, in view without
/// a scroll, at both widths.
fn landing_search_box(d: &Driver, base: &str) {
    for (w, h) in [(1400, 900), (390, 844)] {
        view(d, w, h, false);
        d.goto("about:blank");
        d.goto(&format!("{base}index.html"));
        let r = in_view(d, "#search-input", true);
        assert_eq!(
            r["inView"], true,
            "{w} px: the landing page's search box: {r}"
        );
        eprintln!(
            "real pages, landing page, {w} px: the search box in view (top {} px, bottom {} px)",
            r["top"], r["bottom"]
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
    let mut sets = expected_in(&book, Path::new("data"), &site);
    assert_eq!(sets.len(), REAL_SETS);
    let only = std::env::var("AGENTX_REAL_MODEL").ok();
    if let Some(model) = &only {
        sets.retain(|_, e| model_page_of(e.page()) == *model);
        assert!(
            !sets.is_empty(),
            "AGENTX_REAL_MODEL={model}: no such model page"
        );
    }
    let base = format!("file://{}/", site.display());
    let d = Driver::start(&driver, "real-pages");
    let t = std::time::Instant::now();

    landing_search_box(&d, &base);
    // Opening pages and permalinks, at both widths.
    for (w, h) in [(1400, 900), (390, 844)] {
        if only.is_some() {
            break;
        }
        view(&d, w, h, false);
        let n = pages_open_at_copy_all(&d, &base, &sets);
        eprintln!(
            "real pages, standalone, {w} px: {n} pages and permalinks open with Copy all in view"
        );
    }
    // Every set through its model page's picker, on desktop, each click
    // and Copy all in view, no scroll; and by search from the landing page.
    view(&d, 1400, 900, false);
    let picked = drive_model_pages(&d, &base, &sets, 1, true);
    assert_eq!(picked.sets, sets.len());
    let tasks: Vec<SearchTask> = (search_tasks(&site).into_iter())
        .filter(|t| sets.contains_key(&t.anchor))
        .collect();
    assert_eq!(tasks.len(), sets.len(), "a query for every set");
    let search = search_path(&d, &base, &tasks, &sets, &picked);
    let over = print_task_table(
        &picked,
        &sets,
        (&search, 1),
        "real pages, standalone, 1400 px",
        ("search", "the box + the first result"),
    );
    assert!(
        over.is_empty(),
        "sets over 5 clicks by the chips and by search:\n{}",
        over.join("\n")
    );
    // The model page's "Find a launch" field ranks every set first.
    browser_find::picker_ranking(&d, &base, &tasks, "standalone");
    let stride = if only.is_some() { 16 } else { 64 };
    browser_find::standalone_find_path(&d, &base, &tasks, &sets, stride);
    if only.is_some() {
        if support::mdbook_available() {
            under_mdbook(&d, &book, &sets, &tasks, true);
        }
        return;
    }
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
    let axe = axe_source();
    browser_find::screenshots_and_axe(&d, &base, "deepseek-v4.html", "standalone", axe.as_deref());
    eprintln!("real pages, standalone: {} s", t.elapsed().as_secs());
    single_file(&d, &book, &sets, &tasks);

    if support::mdbook_available() {
        under_mdbook(&d, &book, &sets, &tasks, false);
    } else {
        browser_find::phone_paths(&d, &base, None, &tasks, &sets, 48);
    }
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
}

/// The single-file export of the real pages: under 10 MB, one picker per
/// model (the deployment chapters are stubs into it); its size, load time
/// and element count printed (a benchmark figure, not asserted), and a
/// set of each model found with its picker's field ("Find a launch") with
/// Copy all == `decode`.
fn single_file(d: &Driver, book: &Path, sets: &HashMap<String, Expected>, tasks: &[SearchTask]) {
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
    let n = browser_find::single_file_find(d, tasks, sets);
    eprintln!(
        "real pages, single file: {n} sets found with the pickers' field (Enter), Copy all == decode"
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
/// all in view at both widths; every 7th set through the picker's chips
/// (the standalone run chose them all), every set first in the find
/// field's matches, the find path driven where the chips take more than 5
/// clicks (the task table: the best of chips and find; none over 5, no
/// scroll); control text at least 12 px; then both builds at 390 px
/// (`browser_find::phone_paths`). `only`: one model page, quick (no pages
/// opened, screenshots or axe; a shorter stride at 390 px).
fn under_mdbook(
    d: &Driver,
    book: &Path,
    sets: &HashMap<String, Expected>,
    tasks: &[SearchTask],
    only: bool,
) {
    let t = std::time::Instant::now();
    let out = book.join("mdbook-out");
    support::mdbook_build(book, &out);
    assert!(
        !out.join("print.html").exists(),
        "mdBook's print page is off"
    );
    let base = format!("file://{}/", out.display());
    for (w, h) in [(1400, 900), (390, 844)] {
        if only {
            break;
        }
        view(d, w, h, false);
        let n = pages_open_at_copy_all(d, &base, sets);
        eprintln!(
            "real pages, mdBook, {w} px: {n} pages and permalinks open with Copy all in view"
        );
    }
    view(d, 1400, 900, false);
    let picked = drive_model_pages(d, &base, sets, 7, true);
    browser_find::picker_ranking(d, &base, tasks, "mdBook");
    let chips = chip_clicks(sets, &picked, 7);
    let find = browser_find::mdbook_find_path(d, &base, tasks, sets, &chips);
    let over = print_task_table(
        &picked,
        sets,
        (&find, 7),
        "real pages, mdBook, 1400 px (every 7th set by the chips)",
        (
            "find",
            "the model page in the sidebar + the field + the first match",
        ),
    );
    assert!(
        over.is_empty(),
        "sets over 5 clicks by the chips and by find under mdBook:\n{}",
        over.join("\n")
    );
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
    if !only {
        screenshots(d, &base, "mdbook");
        let axe = axe_source();
        browser_find::screenshots_and_axe(d, &base, "deepseek-v4.html", "mdbook", axe.as_deref());
    }
    let standalone = format!("file://{}/", book.join("book").display());
    let stride = if only { 8 } else { 48 };
    browser_find::phone_paths(d, &standalone, Some(&base), tasks, sets, stride);
    eprintln!("real pages, mdBook and 390 px: {} s", t.elapsed().as_secs());
}
