//! The builder's chrome in a real browser (headless Chromium over the
//! WebDriver helper of [`crate::browser`]): accessibility, the phone and
//! desktop layouts, keyboard keys and serve's error overlay.
//!
//! - **axe-core** (the npm package, installed by `.ci/run` into `target/axe`;
//!   `AGENTX_AXE` names another `axe.min.js`) is injected into every page type
//!   — landing, model page, deployment chapter, all chapters (a book of 120
//!   model chapters), 404, the single-file export (of the mini fixture book)
//!   — and the search panel, in light and dark: no violation of impact
//!   "serious" or "critical".
//! - Controls have borders and focus rings of 3:1 and every focusable
//!   element shows its focus ([`crate::browser_focus`], on the same pages).
//! - At 390 px the first content heading starts within 800 px and the
//!   sidebar opens from the Chapters button and closes again (Esc, focus);
//!   no page scrolls sideways and no Copy button covers code.
//! - At 1400 px no table scrolls sideways and the content reaches the window's
//!   right edge (no empty on-this-page column).
//! - Copy buttons are named by what they copy and "Copied" is announced;
//!   ←/→ open the previous and next chapter; the sidebar shows the current page.
//! - serve's overlay leads with the root cause and closes.
//!
//! Screenshots (desktop, phone, dark; search open) go to `target/browser-test/chrome/`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::browser::{Driver, Serve, chromedriver};
use crate::browser_focus;
use crate::support;

pub(crate) use crate::browser_axe::{axe_source, axe_violations, exec_async, view};

/// The sites the test opens: the sample book exported, in one file, and a
/// large book (for the page of all chapters); removed on drop.
struct Sites {
    sample: support::Scratch,
    single: support::Scratch,
    large: support::Scratch,
    _large_book: support::Scratch,
}

impl Sites {
    fn build() -> Sites {
        let sample = support::temp("chrome-sample");
        mdbook_agentx::export_offline(&support::repo(), &sample).unwrap();
        // The single file of the mini fixture book: every kind of command
        // set and the same chrome as the sample's (whose 6 MB single file
        // takes axe over a minute per scheme, for what the sample's pages
        // already check; browser_search opens the sample's single file).
        let single = support::mini_book("chrome-single");
        let html = mdbook_agentx::export_single_file(&single).unwrap().html;
        std::fs::write(single.join("book.html"), html).unwrap();
        let large_book = support::scaled_mini_book("chrome-large-book", 120);
        let large = support::temp("chrome-large");
        mdbook_agentx::export_offline(&large_book, &large).unwrap();
        Sites {
            sample,
            single,
            large,
            _large_book: large_book,
        }
    }

    fn url(dir: &Path, page: &str) -> String {
        format!("file://{}/{page}", dir.display())
    }
}

/// The largest deployment chapter of the sample (60 command sets).
const DEPLOYMENT: &str = "models/muse-spark-open/musespark-fp4-gb200-sglang-agentic-dflash-0.html";
const MODEL: &str = "models/deepseek-v4.1.html";
const GUIDE: &str = "guide/reference.html";
/// The model page at its lane table, and a command set with Env Vars and two
/// processes, for the screenshots.
const MODEL_LANES: &str = "models/deepseek-v4.1.html#deployments";
const DEPLOYMENT_SET: &str = "models/muse-spark-open/musespark-fp4-gb200-sglang-agentic-dflash-0.html\
                              #musespark-fp4-gb200-sglang-agentic-dflash-0-c1-mooncake-sglang";

fn shot_dir() -> PathBuf {
    support::repo().join("target/browser-test/chrome")
}

#[test]
fn browser_chrome_accessibility_and_layout() {
    let Some(driver) = chromedriver() else { return };
    let Some(axe) = axe_source() else { return };
    let sites = Sites::build();
    let d = Driver::start(&driver, "chrome");
    d.cmd("POST", "/timeouts", Some(json!({"script": 120_000})));
    let server = Serve::start();
    let http = format!("http://127.0.0.1:{}/", server.port);
    let pages: Vec<(&str, String)> = vec![
        ("landing", Sites::url(&sites.sample, "index.html")),
        ("model page", Sites::url(&sites.sample, MODEL)),
        ("deployment chapter", Sites::url(&sites.sample, DEPLOYMENT)),
        // A page of the user guide: its tables of options and code.
        ("guide page", Sites::url(&sites.sample, GUIDE)),
        (
            "all chapters",
            Sites::url(&sites.large, "all-chapters.html"),
        ),
        // Served, as 404.html links from the site root.
        ("404", format!("{http}no-such-page.html")),
        ("single-file export", Sites::url(&sites.single, "book.html")),
    ];
    axe_finds_a_planted_violation(&d, &axe, &pages[0].1);
    browser_focus::planted_control_is_caught(&d);
    let mut problems = Vec::new();
    for dark in [false, true] {
        let scheme = if dark { "dark" } else { "light" };
        for (kind, url) in &pages {
            view(&d, 1400, 900, dark);
            d.goto(url);
            let errors = d.console_errors();
            if !errors.is_empty() && *kind != "404" {
                problems.push(format!("{kind} ({scheme}): console errors {errors:?}"));
            }
            let t = Instant::now();
            let v = axe_violations(&d, &axe);
            eprintln!(
                "axe, {kind}, {scheme}: {} serious or critical violations ({} ms)",
                v.len(),
                t.elapsed().as_millis()
            );
            problems.extend(v.into_iter().map(|v| format!("{kind} ({scheme}): {v}")));
            problems.extend(browser_focus::controls_and_focus(
                &d,
                &format!("{kind} ({scheme})"),
            ));
        }
        // The picker and a deployment page's selector on a phone.
        problems.extend(axe_on_phone(&d, &axe, &pages[1..3], dark));
        view(&d, 1400, 900, dark);
        // The search panel open, with results and badges.
        d.goto(&pages[1].1);
        open_search(&d, "deepseek-v4.1 c16");
        let v = axe_violations(&d, &axe);
        eprintln!(
            "axe, search panel, {scheme}: {} serious or critical violations",
            v.len()
        );
        problems.extend(
            v.into_iter()
                .map(|v| format!("search panel ({scheme}): {v}")),
        );
        problems.extend(browser_focus::controls_and_focus(
            &d,
            &format!("search panel ({scheme})"),
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    phone_layout(&d, &sites);
    desktop_layout(&d, &sites);
    keys_and_copy_names(&d, &sites);
    screenshots(&d, &sites);
    error_overlay(&d, &server, &axe);
}

/// Axe's serious and critical violations of `pages` at 390 px.
fn axe_on_phone(d: &Driver, axe: &str, pages: &[(&str, String)], dark: bool) -> Vec<String> {
    let scheme = if dark { "dark" } else { "light" };
    let mut problems = Vec::new();
    for (kind, url) in pages {
        view(d, 390, 844, dark);
        d.goto(url);
        let v = axe_violations(d, axe);
        eprintln!(
            "axe, {kind} at 390 px, {scheme}: {} serious or critical violations",
            v.len()
        );
        problems.extend(
            v.into_iter()
                .map(|v| format!("{kind} at 390 px ({scheme}): {v}")),
        );
    }
    problems
}

/// The check can fail: axe reports a grey-on-white paragraph planted in the page.
fn axe_finds_a_planted_violation(d: &Driver, axe: &str, url: &str) {
    view(d, 1400, 900, false);
    d.goto(url);
    d.exec(
        "var p = document.createElement('p'); p.textContent = 'planted'; p.style.cssText = 'color:#aaa;background:#fff';
         document.querySelector('main').appendChild(p);",
        json!([]),
    );
    let v = axe_violations(d, axe);
    assert!(
        v.iter().any(|v| v.starts_with("serious color-contrast")),
        "axe missed a 2.3:1 paragraph: {v:?}"
    );
}

/// Types `query` into the search box the way a reader does, and waits for results.
pub(crate) fn open_search(d: &Driver, query: &str) -> Value {
    exec_async(
        d,
        "var q = arguments[0], done = arguments[arguments.length - 1];
         var input = document.getElementById('search-input');
         input.focus(); input.value = q; input.dispatchEvent(new Event('input'));
         var t = Date.now();
         (function wait() {
           var status = document.getElementById('search-status').textContent;
           if (status && status.indexOf('Loading') < 0) {
             var first = document.querySelector('#search-results a');
             return done({ status: status, first: first && first.textContent, href: first && first.getAttribute('href'),
                           count: document.querySelectorAll('#search-results a').length });
           }
           if (Date.now() - t > 10000) return done({ status: 'timeout' });
           setTimeout(wait, 20);
         })();",
        json!([query]),
    )
}

/// 390 px: the content starts within the first screen, the sidebar opens and
/// closes, nothing scrolls sideways, and no Copy button covers code.
fn phone_layout(d: &Driver, sites: &Sites) {
    view(d, 390, 844, false);
    for page in ["index.html", MODEL, DEPLOYMENT] {
        d.goto(&Sites::url(&sites.sample, page));
        let r = d.exec(
            "var h = document.querySelector('main h1');
             return { top: h.getBoundingClientRect().top + scrollY, width: document.documentElement.scrollWidth,
                      view: innerWidth };",
            json!([]),
        );
        let top = r["top"].as_f64().unwrap();
        assert!(top < 800.0, "{page}: the first heading starts at {top} px");
        assert!(
            r["width"].as_f64() <= r["view"].as_f64(),
            "{page}: the page scrolls sideways at 390 px: {r}"
        );
        eprintln!("390 px, {page}: first heading at {top} px");
        if page != "index.html" {
            let (first, screens) = first_command_on_phone(d);
            eprintln!(
                "390 px, {page}: the first command ends at {first} px (two screens: {screens} px)"
            );
            assert!(
                first <= screens,
                "{page}: the first command ends at {first} px, after two screens ({screens} px)"
            );
        }
        assert_no_button_covers_code(d, page);
        let p = browser_focus::controls_and_focus(d, &format!("390 px, {page}"));
        assert!(p.is_empty(), "{}", p.join("\n"));
    }
    sidebar_toggles(d);
}

/// Where the first command of the shown launch ends on a phone (its top
/// plus three lines, in page px), and two screens' height: the picker (or
/// selector) and the first command are to be within two screens.
pub(crate) fn first_command_on_phone(d: &Driver) -> (f64, f64) {
    let r = d.exec(
        "var pre = document.querySelector('.agentx-picker pre, div.agentx-set.agentx-shown pre');
         var top = pre.getBoundingClientRect().top + scrollY;
         var line = parseFloat(getComputedStyle(pre).lineHeight) || 19;
         return [top + 3 * line + 12, 2 * innerHeight];",
        json!([]),
    );
    (r[0].as_f64().unwrap(), r[1].as_f64().unwrap())
}

fn assert_no_button_covers_code(d: &Driver, page: &str) {
    let covered = d.exec(
        "var bad = [];
         document.querySelectorAll('.codeblock').forEach(function (c, i) {
           var b = c.querySelector('button').getBoundingClientRect();
           var code = c.querySelector('pre code').getClientRects()[0];
           if (code && b.bottom > code.top + 1) bad.push(i);
         });
         return bad;",
        json!([]),
    );
    assert_eq!(covered, json!([]), "{page}: Copy buttons over code");
}

/// The Chapters button opens the sidebar (focus inside, aria-expanded) and
/// Esc closes it, returning focus to the button.
fn sidebar_toggles(d: &Driver) {
    let state = "var s = document.getElementById('sidebar'), b = document.querySelector('.menu-toggle');
                 var r = s.getBoundingClientRect();
                 return { expanded: b.getAttribute('aria-expanded'), visible: getComputedStyle(s).visibility === 'visible' && r.left >= 0 && r.right > 0,
                          focusInside: s.contains(document.activeElement), focusOnButton: document.activeElement === b };";
    let closed = d.exec(state, json!([]));
    assert_eq!(closed["expanded"], "false");
    assert_eq!(
        closed["visible"], false,
        "the sidebar is closed at first: {closed}"
    );
    d.exec("document.querySelector('.menu-toggle').click();", json!([]));
    std::thread::sleep(Duration::from_millis(400));
    let open = d.exec(state, json!([]));
    assert_eq!(open["expanded"], "true", "{open}");
    assert_eq!(open["visible"], true, "{open}");
    assert_eq!(open["focusInside"], true, "{open}");
    d.exec(
        "document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));",
        json!([]),
    );
    std::thread::sleep(Duration::from_millis(400));
    let closed = d.exec(state, json!([]));
    assert_eq!(closed["expanded"], "false", "{closed}");
    assert_eq!(closed["visible"], false, "{closed}");
    assert_eq!(closed["focusOnButton"], true, "{closed}");
    eprintln!("390 px: the sidebar opens from the Chapters button and closes with Esc");
}

/// 1400 px: no table scrolls sideways on any model page or the largest
/// deployment chapter, and the content column reaches the right edge.
fn desktop_layout(d: &Driver, sites: &Sites) {
    view(d, 1400, 900, false);
    let models = std::fs::read_dir(sites.sample.join("models")).unwrap();
    let mut pages: Vec<String> = models
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".html"))
        .map(|n| format!("models/{n}"))
        .collect();
    pages.sort();
    pages.push(DEPLOYMENT.into());
    for page in &pages {
        d.goto(&Sites::url(&sites.sample, page));
        let r = d.exec(
            "var wide = [];
             document.querySelectorAll('.table-wrap').forEach(function (w, i) {
               if (w.scrollWidth > w.clientWidth + 1) wide.push(i + ': ' + w.scrollWidth + ' > ' + w.clientWidth);
             });
             var main = document.querySelector('main').getBoundingClientRect();
             return { wide: wide, tables: document.querySelectorAll('.table-wrap').length,
                      mainRight: main.right, view: document.documentElement.clientWidth };",
            json!([]),
        );
        assert_eq!(r["wide"], json!([]), "{page}: tables scroll sideways");
        assert!(r["tables"].as_u64().unwrap() > 0, "{page}");
        assert!(
            r["mainRight"].as_f64().unwrap() >= r["view"].as_f64().unwrap() - 1.0,
            "{page}: the content leaves an empty column: {r}"
        );
    }
    eprintln!(
        "1400 px: {} pages, no table scrolls sideways, no empty column",
        pages.len()
    );
}

/// Copy buttons say what they copy and announce it; ←/→ page; the sidebar
/// shows the current page.
fn keys_and_copy_names(d: &Driver, sites: &Sites) {
    view(d, 1400, 900, false);
    d.goto(&Sites::url(&sites.sample, DEPLOYMENT));
    let r = d.exec(
        "var names = Array.from(document.querySelectorAll('button.copy-code')).map(function (b) { return b.getAttribute('aria-label'); });
         var a = document.querySelector('#sidebar [aria-current=page]').getBoundingClientRect();
         var s = document.getElementById('sidebar').getBoundingClientRect();
         var inSets = Array.from(document.querySelectorAll('div.agentx-set button.copy-code'));
         var undescribed = inSets.filter(function (b) {
           return b.getAttribute('aria-describedby') !== b.closest('div.agentx-set').querySelector('h3.agentx-set').id;
         }).length;
         var first = document.querySelector('h4.agentx-process + p + .codeblock button');
         first.click();
         return { names: names, visible: a.top >= s.top && a.bottom <= s.bottom,
                  inSets: inSets.length, undescribed: undescribed,
                  first: first.getAttribute('aria-label'), next: document.querySelector('.pager a[rel=next]').href };",
        json!([]),
    );
    let names = r["names"].as_array().unwrap();
    assert!(names.iter().all(|n| {
        let n = n.as_str().unwrap_or("");
        n.starts_with("Copy ") && n.len() > 5
    }));
    assert!(names.contains(&json!("Copy Env Vars")), "{names:?}");
    // A set's Copy buttons are described by its heading (agentx.js adds it).
    assert!(r["inSets"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(
        r["undescribed"], 0,
        "Copy buttons not described by their set's heading"
    );
    assert_eq!(r["visible"], true, "the sidebar shows the current page");
    std::thread::sleep(Duration::from_millis(300));
    let announced = d.exec(
        "return document.getElementById('agentx-announce').textContent;",
        json!([]),
    );
    let first = r["first"].as_str().unwrap();
    assert_eq!(announced, json!(first.replacen("Copy ", "Copied ", 1)));
    // → opens the next chapter (not while typing), ← comes back.
    d.exec(
        "document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));",
        json!([]),
    );
    wait_for_url(d, r["next"].as_str().unwrap());
    d.exec(
        "document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));",
        json!([]),
    );
    wait_for_url(d, &Sites::url(&sites.sample, DEPLOYMENT));
    eprintln!(
        "{} Copy buttons named by what they copy; \"{announced}\" announced; ←/→ page",
        names.len()
    );
}

/// Waits until the page is `want`; a `want` without a fragment matches the
/// page with any (a deployment chapter's selector puts its set's anchor in
/// the URL).
pub(crate) fn wait_for_url(d: &Driver, want: &str) {
    let t = Instant::now();
    loop {
        let url = d.cmd("GET", "/url", None);
        let page = match url.as_str() {
            Some(u) if !want.contains('#') => u.split('#').next(),
            u => u,
        };
        if page == Some(want) {
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "at {url}, not {want}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A screenshot: name, width, height, dark, page, a search to open.
struct Shot(
    &'static str,
    u32,
    u32,
    bool,
    &'static str,
    Option<&'static str>,
);

/// Screenshots to look at: desktop, phone and dark, with search open.
fn screenshots(d: &Driver, sites: &Sites) {
    let shots = [
        Shot("landing-1400", 1400, 900, false, "index.html", None),
        Shot("model-1400", 1400, 900, false, MODEL, None),
        Shot("deployment-1400-dark", 1400, 900, true, DEPLOYMENT, None),
        Shot("model-lanes-1400", 1400, 900, false, MODEL_LANES, None),
        Shot(
            "deployment-set-1400",
            1400,
            900,
            false,
            DEPLOYMENT_SET,
            None,
        ),
        Shot(
            "search-1400-dark",
            1400,
            900,
            true,
            MODEL,
            Some("deepseek GB200"),
        ),
        Shot("landing-390", 390, 844, false, "index.html", None),
        Shot("model-390-dark", 390, 844, true, MODEL, None),
        Shot("deployment-390", 390, 844, false, DEPLOYMENT, None),
        Shot("model-lanes-390", 390, 844, false, MODEL_LANES, None),
        Shot(
            "deployment-set-390-dark",
            390,
            844,
            true,
            DEPLOYMENT_SET,
            None,
        ),
        Shot(
            "search-390",
            390,
            844,
            false,
            "index.html",
            Some("c16 hicache"),
        ),
    ];
    for Shot(name, w, h, dark, page, query) in shots {
        view(d, w, h, dark);
        d.goto(&Sites::url(&sites.sample, page));
        if let Some(q) = query {
            open_search(d, q);
        }
        d.screenshot(&shot_dir().join(format!("{name}.png")));
    }
    view(d, 390, 844, false);
    d.goto(&Sites::url(&sites.sample, DEPLOYMENT));
    d.exec("document.querySelector('.menu-toggle').click();", json!([]));
    std::thread::sleep(Duration::from_millis(400));
    d.screenshot(&shot_dir().join("sidebar-390-open.png"));
    eprintln!("screenshots in {}", shot_dir().display());
}

/// serve's overlay: the root cause (file:line:column) first, then the
/// consequence; it closes.
fn error_overlay(d: &Driver, server: &Serve, axe: &str) {
    view(d, 1400, 900, false);
    d.goto(&format!("http://127.0.0.1:{}/{MODEL}", server.port));
    std::thread::sleep(Duration::from_millis(300));
    let data = server.book.join("agentx/deepseek-v4.1.json");
    let text = std::fs::read_to_string(&data).unwrap();
    // A trailing comma after the first key: malformed JSON at line 2.
    let first_line_end = text.find('\n').unwrap();
    let second_end = first_line_end + 1 + text[first_line_end + 1..].find('\n').unwrap();
    let broken = format!("{},,{}", &text[..second_end], &text[second_end..]);
    std::fs::write(&data, &broken).unwrap();
    let t = Instant::now();
    let overlay = loop {
        let r = d.exec(
            "var o = document.getElementById('agentx-overlay'); if (!o) return null;
             return Array.from(o.querySelectorAll('p')).map(function (p) { return p.textContent; });",
            json!([]),
        );
        if !r.is_null() {
            break r;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "no overlay");
        std::thread::sleep(Duration::from_millis(50));
    };
    let lines: Vec<&str> = overlay
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let cause = lines[1];
    assert!(
        cause.contains("agentx/deepseek-v4.1.json:2:") && cause.contains("malformed JSON"),
        "the overlay leads with the cause: {lines:?}"
    );
    assert!(
        lines[2].starts_with("Consequence: ") && lines[2].contains("unknown page `DeepSeek-V4.1`"),
        "{lines:?}"
    );
    let v = axe_violations(d, axe);
    assert!(v.is_empty(), "overlay: {v:?}");
    d.screenshot(&shot_dir().join("serve-error-overlay.png"));
    d.exec(
        "document.querySelector('#agentx-overlay .overlay-close').click();",
        json!([]),
    );
    let gone = d.exec(
        "return document.getElementById('agentx-overlay') === null;",
        json!([]),
    );
    assert_eq!(gone, true, "the close button closes the overlay");
    eprintln!(
        "serve overlay: \"{cause}\" first, then \"{}\"; closes",
        lines[2]
    );
    std::fs::write(&data, text).unwrap();
}
