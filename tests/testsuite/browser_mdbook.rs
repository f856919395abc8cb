//! Real-browser test of the sample book built by real mdBook 0.5 (`mdbook
//! build`, this binary as the preprocessor), opened from `file://` in headless
//! Chromium: mdBook's own UI is intact (its `book.js` is not replaced by the
//! standalone builder's): highlight.js has run on every command block, each
//! block has mdBook's copy button and it copies exactly the decoded command,
//! the sidebar toggle and the theme picker work; no page logs a console error.
//! The installed assets mark a command set opened by its link, in the
//! colours of the theme picked.
//!
//! AgentX's own features in mdBook's page (the installed `agentx.js`):
//! every combination selected with the chips shows one set whose Copy all
//! equals `decode`; a model page's picker shows a launch whose Copy all
//! equals `decode` and links to it; Copy link
//! (added after every set heading, outside its text) copies a URL that,
//! loaded afresh, selects the same set.

use std::path::Path;
use std::time::{Duration, Instant};

use mdbook_agentx::{Deployment, Library};
use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver, expected_blocks};
use crate::browser_selector::{self, STATE};
use crate::support;

/// Every page's counts: highlighted blocks, copy buttons, console errors.
/// The model page's command window (pre.agentx-code, built by agentx.js
/// after mdBook's scripts ran) has its own Copy buttons.
const PAGE_FACTS: &str = r##"
var blocks = document.querySelectorAll("main pre:not(.agentx-code) > code");
var bash = document.querySelectorAll("main pre:not(.agentx-code) > code.language-bash");
var highlighted = document.querySelectorAll("main pre:not(.agentx-code) > code.language-bash.hljs");
var buttons = document.querySelectorAll("main pre:not(.agentx-code) .clip-button");
return { blocks: blocks.length, bash: bash.length, highlighted: highlighted.length,
         tokens: document.querySelectorAll("main pre > code.language-bash [class^=hljs-]").length,
         buttons: buttons.length };
"##;

/// The code blocks on screen (agentx.js shows one command set at a time, as
/// a command window), each `[pre, copy button, anchor of its set]`; from then
/// on, what a copy puts on the clipboard is kept in `window.__copied`
/// (ClipboardJS copies from a selected scratch textarea).
const VISIBLE_BLOCKS: &str = r##"
window.__copied = null;
document.addEventListener("copy", function () {
  var a = document.activeElement;
  window.__copied = a && a.value !== undefined ? a.value.slice(a.selectionStart, a.selectionEnd)
                                               : String(getSelection());
});
return Array.from(document.querySelectorAll("main div.agentx-set pre"))
  .filter(function (pre) { return pre.offsetParent !== null; })
  .map(function (pre) {
    return [pre, pre.querySelector(".clip-button"),
            pre.closest("div.agentx-set").getAttribute("data-anchor")];
  });
"##;

/// A real mouse click (a user gesture, which copying needs) on `button`,
/// after hovering `pre` until mdBook has faded its buttons in.
fn hover_and_click(d: &Driver, pre: &Value, button: &Value) {
    d.exec(
        "arguments[0].scrollIntoView({block: 'center'});",
        json!([pre]),
    );
    let mouse = |actions: Value| {
        let source = json!({"type": "pointer", "id": "mouse",
            "parameters": {"pointerType": "mouse"}, "actions": actions});
        d.cmd("POST", "/actions", Some(json!({ "actions": [source] })));
    };
    mouse(json!([{"type": "pointerMove", "duration": 0, "origin": pre, "x": 0, "y": 0}]));
    let shown = "var s = getComputedStyle(arguments[0].parentNode); \
                 return s.visibility === 'visible' && s.opacity === '1';";
    let t = Instant::now();
    while d.exec(shown, json!([button])) != Value::Bool(true) {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "copy button not shown on hover"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    mouse(json!([
        {"type": "pointerMove", "duration": 0, "origin": button, "x": 0, "y": 0},
        {"type": "pointerDown", "button": 0},
        {"type": "pointerUp", "button": 0}
    ]));
    d.cmd("DELETE", "/actions", None);
}

/// The sample book's deployment with this anchor, decoded.
fn deployment(anchor: &str) -> Deployment {
    let lib = Library::load(&support::repo(), Path::new("agentx")).unwrap();
    lib.pages()
        .flat_map(|(_, page)| page.deployments.iter())
        .find(|d| d.anchor == anchor)
        .unwrap_or_else(|| panic!("no deployment {anchor}"))
        .clone()
}

fn mdbook_site() -> Option<support::Scratch> {
    if !support::mdbook_available() {
        return None;
    }
    let book = support::sample_book_copy("browser-mdbook");
    support::mdbook_build(&book, Path::new("site"));
    Some(book)
}

fn pages(site: &Path) -> Vec<String> {
    let mut v: Vec<String> = support::files_under(site)
        .into_iter()
        .map(|(p, _)| p.to_string_lossy().replace('\\', "/"))
        .filter(|p| p.ends_with(".html") && p != "404.html" && p != "print.html" && p != "toc.html")
        .collect();
    v.sort();
    v
}

/// Polls `script` until it returns true.
pub(crate) fn wait_until(d: &Driver, script: &str, what: &str) {
    let t = Instant::now();
    while d.exec(script, json!([])) != Value::Bool(true) {
        assert!(t.elapsed() < Duration::from_secs(5), "{what}: timed out");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn mdbook_output_in_a_browser() {
    let Some(driver) = chromedriver() else { return };
    let Some(book) = mdbook_site() else { return };
    let site = book.join("site");
    let d = Driver::start(&driver, "mdbook");
    let base = format!("file://{}/", site.display());
    let (mut blocks, mut tokens) = (0, 0);
    let all = pages(&site);
    for page in &all {
        d.goto(&format!("{base}{page}"));
        let errors = d.console_errors();
        assert!(errors.is_empty(), "{page}: console errors: {errors:?}");
        let f = d.exec(PAGE_FACTS, json!([]));
        assert_eq!(
            f["highlighted"], f["bash"],
            "{page}: highlight.js did not run on every command block"
        );
        assert_eq!(
            f["buttons"], f["blocks"],
            "{page}: a block without mdBook's copy button"
        );
        blocks += f["bash"].as_u64().unwrap();
        tokens += f["tokens"].as_u64().unwrap();
    }
    assert!(
        blocks > 500 && tokens > blocks,
        "{blocks} blocks, {tokens} tokens"
    );
    eprintln!(
        "mdbook browser: {} pages, {blocks} highlighted command blocks ({tokens} tokens), no console error",
        all.len()
    );

    copy_buttons_copy_the_decoded_commands(&d, &base);
    let sets = browser_selector::expected(&site);
    let n = browser_selector::drive_every_combination(&d, &base, &sets);
    assert_eq!(n, sets.len());
    eprintln!("mdbook browser: {n} combinations selected, one set shown each, Copy all = decode");
    model_page_selector(&d, &base);
    control_text_sizes(&d, &base);
    copy_link_round_trip(&d, &base);
    sidebar_toggle(&d, &base);
    theme_picker_and_target(&d, &base);
    // Screenshots of a model page as a reader first opens it (mdBook hides
    // the sidebar on a phone when no choice is stored).
    d.exec("localStorage.removeItem('mdbook-sidebar');", json!([]));
    for (name, w, h) in [("desktop", 1280, 900), ("phone", 390, 844)] {
        d.cmd(
            "POST",
            "/window/rect",
            Some(json!({"width": w, "height": h})),
        );
        d.goto(&format!("{base}models/glm-5.2.html"));
        d.screenshot(&support::repo().join(format!("target/screenshots/mdbook-{name}.png")));
    }
}

/// On one deployment page, every copy button of one command set copies
/// exactly its block as decoded.
fn copy_buttons_copy_the_decoded_commands(d: &Driver, base: &str) {
    let dep = deployment("musespark-fp4-b200-sglang-agentic-dflash-0");
    let url =
        format!("{base}models/muse-spark-open/musespark-fp4-b200-sglang-agentic-dflash-0.html");
    d.goto(&url);
    let blocks = d.exec(VISIBLE_BLOCKS, json!([]));
    let blocks = blocks.as_array().unwrap();
    assert!(!blocks.is_empty(), "{url}: no code block on screen");
    for block in blocks {
        let anchor = block[2].as_str().unwrap();
        let set = dep
            .command_sets
            .iter()
            .find(|s| s.anchor == anchor)
            .unwrap();
        let want = expected_blocks(set);
        d.exec("window.__copied = null;", json!([]));
        hover_and_click(d, &block[0], &block[1]);
        let r = d.exec(
            "return [window.__copied, arguments[0].className + '|' + arguments[0].textContent];",
            json!([block[1]]),
        );
        let text = r[0]
            .as_str()
            .unwrap_or_else(|| panic!("{url}: nothing copied: {r}"));
        assert!(
            want.iter().any(|w| w.trim_end() == text.trim_end()),
            "{url}#{anchor}: copied text is not one of the set's decoded blocks:\n{text}"
        );
        assert!(r[1].as_str().unwrap().contains("Copied!"), "{r}");
    }
    eprintln!(
        "mdbook browser: {} copy buttons on screen copied decoded blocks",
        blocks.len()
    );
}

/// A model page's picker shows a launch in its window, whose Copy all is
/// what `decode` prints, and its link leads to the same set on its
/// deployment chapter.
fn model_page_selector(d: &Driver, base: &str) {
    d.goto(&format!("{base}models/glm-5.2.html"));
    let r = d.exec(
        "var w = document.querySelector('.agentx-picker .agentx-data-window'); if (!w) return null; \
         window.__agentxLastCopy = null; w.querySelector('button.agentx-copy-all').click(); \
         return [w.getAttribute('data-anchor'), window.__agentxLastCopy, \
                 w.querySelector('.agentx-window-foot a').href];",
        json!([]),
    );
    assert!(!r.is_null(), "models/glm-5.2.html: no picker with a window");
    let anchor = r[0].as_str().unwrap();
    let lib = Library::load(&support::repo(), Path::new("agentx")).unwrap();
    let set = lib
        .pages()
        .flat_map(|(_, p)| p.command_sets())
        .find(|s| s.anchor == anchor)
        .unwrap_or_else(|| panic!("no set {anchor}"));
    assert_eq!(
        r[1].as_str(),
        Some(set.copy_all_text().as_str()),
        "{anchor}"
    );
    let href = r[2].as_str().unwrap();
    assert!(href.ends_with(&format!("#{anchor}")), "{href}");
    d.goto(href);
    assert_eq!(d.exec(STATE, json!([]))["shown"], json!([anchor]), "{href}");
}

/// The smallest text of the AgentX controls (selector rows, chips, the
/// command window's bar, tabs and buttons) on a page, in px, and what it is.
pub(crate) const SMALLEST_CONTROL_TEXT: &str = r##"
var least = [1000, ""];
document.querySelectorAll(".agentx-selector-on *, .agentx-window-bar *, .agentx-tabs *, .agentx-block-actions *")
  .forEach(function (e) {
    var own = Array.prototype.some.call(e.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim(); });
    if (!own || !e.getClientRects().length) return;
    var px = parseFloat(getComputedStyle(e).fontSize);
    if (px < least[0]) least = [px, e.tagName + "." + e.className + " " + e.textContent.trim().slice(0, 30)];
  });
return least;
"##;

/// Under mdBook (root font 10 px) the controls' text is at least 12 px on
/// the model page's picker and a deployment page's selector.
fn control_text_sizes(d: &Driver, base: &str) {
    for page in [
        "models/glm-5.2.html",
        "models/glm-5.2/glm5-2-fp4-b300-sglang-agentic-mtp-0.html",
    ] {
        d.goto(&format!("{base}{page}"));
        let least = d.exec(SMALLEST_CONTROL_TEXT, json!([]));
        let px = least[0].as_f64().unwrap();
        eprintln!(
            "mdbook browser: {page}: smallest control text {px} px ({})",
            least[1]
        );
        assert!(
            (12.0..1000.0).contains(&px),
            "{page}: control text {px} px: {least}"
        );
    }
}

/// Every set heading has one Copy link; the one of the shown set copies
/// its URL, and that URL, loaded afresh, selects the same set.
fn copy_link_round_trip(d: &Driver, base: &str) {
    let page =
        format!("{base}models/muse-spark-open/musespark-fp4-b200-sglang-agentic-dflash-0.html");
    d.goto(&page);
    let r = d.exec(
        "var hs = document.querySelectorAll('h3.agentx-set[id]');\n\
         var one = Array.prototype.every.call(hs, function (h) {\n\
           var n = h.nextElementSibling;\n\
           return n && n.querySelectorAll('button.agentx-copy-link').length === 1; });\n\
         var shown = document.querySelector('div.agentx-set.agentx-shown button.agentx-copy-link');\n\
         window.__agentxLastCopy = null;\n\
         if (shown) shown.click();\n\
         return [hs.length, one, shown ? shown.getAttribute('data-anchor') : null, window.__agentxLastCopy];",
        json!([]),
    );
    assert!(r[0].as_u64().unwrap() > 1, "{page}: no set headings ({r})");
    assert_eq!(
        r[1], true,
        "{page}: a set heading without exactly one Copy link"
    );
    let anchor = r[2].as_str().expect("no Copy link in the shown set");
    let url = r[3].as_str().expect("Copy link copied nothing");
    assert_eq!(url, format!("{page}#{anchor}"));
    d.goto(&format!("{base}intro.html"));
    d.goto(url);
    assert_eq!(d.exec(STATE, json!([]))["shown"], json!([anchor]), "{url}");
    eprintln!("mdbook browser: Copy link round trip ({anchor})");
}

fn sidebar_toggle(d: &Driver, base: &str) {
    d.goto(&format!("{base}intro.html"));
    let visible = "return document.documentElement.classList.contains('sidebar-visible');";
    let before = d.exec(visible, json!([]));
    d.exec(
        "document.getElementById('mdbook-sidebar-toggle').click();",
        json!([]),
    );
    let toggled = format!(
        "return document.documentElement.classList.contains('sidebar-visible') === {};",
        before != Value::Bool(true)
    );
    wait_until(d, &toggled, "sidebar toggle");
    d.exec(
        "document.getElementById('mdbook-sidebar-toggle').click();",
        json!([]),
    );
    let back = format!(
        "return document.documentElement.classList.contains('sidebar-visible') === {before};"
    );
    wait_until(d, &back, "sidebar toggle back");
}

/// The outline colour of a set opened by its link, in a theme: its window
/// is marked.
fn target_outline(d: &Driver, url: &str, anchor: &str) -> String {
    d.goto(&format!(
        "{base}intro.html",
        base = url.rsplit_once("models/").unwrap().0
    ));
    d.goto(&format!("{url}#{anchor}"));
    let r = d.exec(
        "var h = document.getElementById(arguments[0]).closest('div.agentx-set'); var s = getComputedStyle(h); \
         return [s.outlineStyle, s.outlineColor, h.classList.contains('agentx-targeted')];",
        json!([anchor]),
    );
    assert_eq!(r[0], "solid", "{url}#{anchor}: not marked ({r})");
    assert_eq!(r[2], true);
    r[1].as_str().unwrap().to_string()
}

fn theme_picker_and_target(d: &Driver, base: &str) {
    let set = &deployment("glm5-2-fp4-b300-sglang-agentic-mtp-0").command_sets[1];
    let url = format!("{base}models/glm-5.2/glm5-2-fp4-b300-sglang-agentic-mtp-0.html");
    let light = target_outline(d, &url, &set.anchor);
    d.exec(
        "document.getElementById('mdbook-theme-toggle').click();",
        json!([]),
    );
    wait_until(
        d,
        "return getComputedStyle(document.getElementById('mdbook-theme-list')).display !== 'none';",
        "theme list",
    );
    d.exec(
        "document.getElementById('mdbook-theme-navy').click();",
        json!([]),
    );
    wait_until(
        d,
        "return document.documentElement.classList.contains('navy');",
        "navy theme",
    );
    assert_eq!(
        d.exec("return localStorage.getItem('mdbook-theme');", json!([])),
        "navy"
    );
    d.screenshot(&support::repo().join("target/screenshots/mdbook-navy.png"));
    let navy = target_outline(d, &url, &set.anchor);
    assert_ne!(light, navy, "agentx.css follows mdBook's theme variables");
    assert!(d.console_errors().is_empty());
}
