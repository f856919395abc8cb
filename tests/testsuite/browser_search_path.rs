//! The search path from the landing page to Copy all (issue 26), on the
//! book of the real pages (`browser_real.rs`): the reader clicks the search
//! box in the top bar (1 click; the `/` key would make it 0), types what
//! they know of the launch, clicks the first result (1 click), lands on the
//! set's deployment page with its Copy all in view below the top bar, and
//! presses Copy all (not counted, as the chips path does not count it:
//! `PICK` in browser_picker.rs).
//!
//! The query is made from the model page's picker data (the file
//! `<model>.agentx-data.js` beside the model page: what the chips show),
//! the same way for every set, in this order:
//! 1. the model (`DeepSeek-V4`);
//! 2. the hardware chip (`GB300`);
//! 3. the checkpoint's name without its owner (`DeepSeek-V4-Pro-0813`),
//!    only where that hardware offers more than one checkpoint (the reader
//!    sees a choice there);
//! 4. the deployment chip's label, its `·` and brackets left out (`Disagg
//!    1P1D prefill DEP8 2 nodes decode DEP16 4 nodes`);
//! 5. where another deployment of that hardware and checkpoint has the
//!    same label, the parts of the chip's second line (split at ` · `)
//!    that the other chips' second lines lack, without the GPU count and
//!    the concurrency list (`dsv4-fp4-b300-sglang-agentic-hicache-mtp`):
//!    what tells the two chips apart;
//! 6. the point chip's first concurrency (`c120` of `c120 / c480`);
//! 7. the KV tier's word (`none`, `hicache`, `mooncake`);
//! 8. the router's word (`sglang`, `dynamo`).
//!
//! The first result must be the exact set (its deployment page and anchor).
//! The model page's "Find a launch" field (`browser_find.rs`) is given the
//! same query without the model (rule 1): the reader is on its page.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::browser::Driver;
use crate::browser_axe::exec_async;
use crate::browser_chrome::wait_for_url;
use crate::browser_search::keys;
use crate::browser_selector::Expected;

/// One set as the search path reaches it.
#[derive(Debug, Clone)]
pub(crate) struct SearchTask {
    pub(crate) anchor: String,
    /// Its deployment page, relative to the site.
    pub(crate) page: String,
    /// What the reader types.
    pub(crate) query: String,
    /// What the reader types on the model page (`browser_find.rs`): the
    /// same without the model.
    pub(crate) local_query: String,
}

/// The picker data files of a built site (`window.AGENTX_MODEL_DATA[…] =
/// {…};`), parsed.
fn picker_data(site: &Path) -> Vec<Value> {
    let mut files: Vec<_> = std::fs::read_dir(site)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".agentx-data.js"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let json = text
                .split_once("] = ")
                .and_then(|(_, j)| j.trim_end().strip_suffix(';'))
                .unwrap_or_else(|| panic!("{}: not a picker data file", f.display()));
            serde_json::from_str(json).unwrap()
        })
        .collect()
}

/// Every set of the site's picker data, with the reader's query (see the
/// module's comment).
pub(crate) fn search_tasks(site: &Path) -> Vec<SearchTask> {
    let mut out = Vec::new();
    for data in picker_data(site) {
        let deps = data["deps"].as_array().unwrap();
        for (di, dep) in deps.iter().enumerate() {
            let page = dep["href"].as_str().unwrap().replace(".md", ".html");
            for set in dep["sets"].as_array().unwrap() {
                let point = &dep["points"][set[0].as_u64().unwrap() as usize][0];
                let (tier, router) = (set[1].as_str().unwrap(), set[2].as_str().unwrap());
                // The data's usual anchors are written 0 (as agentx.js makes them).
                let anchor = match set[3].as_str() {
                    Some(a) => a.to_string(),
                    None => format!(
                        "{}-{}-{tier}-{router}",
                        dep["anchor"].as_str().unwrap(),
                        point.as_str().unwrap().replace(" / c", "-")
                    ),
                };
                let words = query_words(&data, di, set);
                out.push(SearchTask {
                    anchor,
                    page: page.clone(),
                    query: query_text(&words),
                    local_query: query_text(&words[1..]),
                });
            }
        }
    }
    out
}

/// The reader's query for `set` of deployment `di` (the module's rules),
/// as its words (the model first).
fn query_words(data: &Value, di: usize, set: &Value) -> Vec<String> {
    let deps = data["deps"].as_array().unwrap();
    let dep = &deps[di];
    let text = |v: &Value| v.as_str().unwrap().to_string();
    let mut words = vec![
        text(&data["model"]),
        text(&data["hw"][dep["hw"].as_u64().unwrap() as usize]),
    ];
    let same_hw: Vec<&Value> = deps.iter().filter(|d| d["hw"] == dep["hw"]).collect();
    let mut ckpts: Vec<&Value> = same_hw.iter().map(|d| &d["ckpt"]).collect();
    ckpts.dedup();
    if ckpts.len() > 1 {
        let ckpt = text(&dep["ckpt"]);
        words.push(ckpt.rsplit('/').next().unwrap().to_string());
    }
    words.push(text(&dep["label"]));
    let twins: Vec<&Value> = (deps.iter().enumerate())
        .filter(|(i, d)| *i != di && d["ckpt"] == dep["ckpt"] && d["label"] == dep["label"])
        .filter(|(_, d)| d["hw"] == dep["hw"])
        .map(|(_, d)| d)
        .collect();
    if !twins.is_empty() {
        let theirs: Vec<&str> = twins
            .iter()
            .flat_map(|t| t["sub"].as_str().unwrap().split(" · "))
            .collect();
        let sub = dep["sub"].as_str().unwrap();
        words.extend(
            sub.split(" · ")
                .filter(|p| !theirs.contains(p) && !p.ends_with("GPUs"))
                .filter(|p| {
                    !(p.starts_with('c') && p[1..].starts_with(|c: char| c.is_ascii_digit()))
                })
                .map(str::to_string),
        );
    }
    let point = &dep["points"][set[0].as_u64().unwrap() as usize][0];
    words.push(
        point
            .as_str()
            .unwrap()
            .split(" / ")
            .next()
            .unwrap()
            .to_string(),
    );
    words.push(text(&set[1]));
    words.push(text(&set[2]));
    words
}

/// The words typed: `·` and brackets left out.
fn query_text(words: &[String]) -> String {
    let query = words.join(" ").replace(['·', '(', ')'], " ");
    let query = query.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(query.is_ascii(), "a query typed with plain keys: {query}");
    query
}

/// The first result of every task's query on the landing page, by the
/// page's own search code: the tasks whose first result is not their set
/// (anchor, what was found).
pub(crate) fn not_first(d: &Driver, base: &str, tasks: &[SearchTask]) -> Vec<(String, String)> {
    d.goto(&format!("{base}index.html"));
    d.cmd("POST", "/timeouts", Some(json!({"script": 120_000})));
    let queries: Vec<&str> = tasks.iter().map(|t| t.query.as_str()).collect();
    let firsts = exec_async(
        d,
        "var qs = arguments[0], done = arguments[arguments.length - 1];
         window.__agentxSearch('', function () {
           var out = [];
           qs.forEach(function (q) {
             window.__agentxSearch(q, function (hits) { out.push(hits.length ? hits[0].url : null); });
           });
           done(out);
         });",
        json!([queries]),
    );
    let firsts = firsts.as_array().unwrap();
    assert_eq!(firsts.len(), tasks.len(), "every query answered at once");
    (tasks.iter().zip(firsts))
        .filter(|(t, got)| got.as_str() != Some(&format!("{}#{}", t.page, t.anchor)))
        .map(|(t, got)| {
            let m = format!("{:?}: first {got}, not {}#{}", t.query, t.page, t.anchor);
            (t.anchor.clone(), m)
        })
        .collect()
}

/// Whether an element is in view below the top bar and not covered, and
/// the page's scroll offset.
const IN_VIEW: &str = r##"
var e = document.querySelector(arguments[0]);
if (!e) return { found: false };
var bar = document.querySelector(".topbar, #mdbook-menu-bar, #menu-bar"), b = 0;
if (bar) { var br = bar.getBoundingClientRect(); if (getComputedStyle(bar).position !== "static" && br.bottom > 0) b = br.bottom; }
var r = e.getBoundingClientRect();
var inside = r.top >= (arguments[1] ? 0 : b) - 0.5 && r.bottom <= innerHeight + 0.5 && r.left >= -0.5 && r.right <= innerWidth + 0.5;
var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return { found: true, inView: inside && !!hit && (hit === e || e.contains(hit)), y: pageYOffset,
  top: r.top, bottom: r.bottom, bar: b, focused: document.activeElement === e };
"##;

/// Whether `css` is in view (`in_bar`: the element is in the top bar
/// itself, so only the viewport bounds it).
pub(crate) fn in_view(d: &Driver, css: &str, in_bar: bool) -> Value {
    d.exec(IN_VIEW, json!([css, in_bar]))
}

/// A real click (WebDriver's, which would scroll an element out of view
/// into view: callers check [`in_view`] first).
pub(crate) fn click(d: &Driver, css: &str) {
    let e = d.cmd(
        "POST",
        "/element",
        Some(json!({"using": "css selector", "value": css})),
    );
    let id = e.as_object().unwrap().values().next().unwrap();
    let id = id.as_str().unwrap();
    d.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
}

/// Waits for the search results of what was typed; their count.
fn results_shown(d: &Driver) -> Value {
    exec_async(
        d,
        "var done = arguments[arguments.length - 1], t = Date.now();
         (function wait() {
           var status = document.getElementById('search-status').textContent;
           if (status && status.indexOf('Loading') < 0) return done(status);
           if (Date.now() - t > 10000) return done('timeout');
           setTimeout(wait, 20);
         })();",
        json!([]),
    )
}

/// The Copy all shown on a deployment page: the set it belongs to, its
/// place, and what it copies.
const COPY_ALL: &str = r##"
var all = Array.from(document.querySelectorAll("button.agentx-copy-all")).filter(function (e) {
  return e.offsetParent !== null;
});
if (all.length !== 1) return { shown: all.length };
var set = all[0].closest("[data-anchor]");
all[0].setAttribute("data-search-path", "1");
return { shown: 1, anchor: set && set.getAttribute("data-anchor") };
"##;

/// Screenshots of the search path of `task` into `dir` (looked at by
/// hand; not compared): the results on the landing page, and the page the
/// first result opens.
pub(crate) fn screenshots(d: &Driver, base: &str, task: &SearchTask, dir: &Path) {
    d.goto("about:blank");
    d.goto(&format!("{base}index.html"));
    click(d, "#search-input");
    keys(d, &task.query);
    results_shown(d);
    d.screenshot(&dir.join("standalone-search-results-1400.png"));
    click(d, "#search-results li:first-child a");
    wait_for_url(d, &format!("{base}{}#{}", task.page, task.anchor));
    d.screenshot(&dir.join("standalone-search-landed-1400.png"));
}

/// Drives the search path for each task as a reader at the current
/// window size: the landing page, the search box clicked, the query typed,
/// the first result clicked, Copy all in view on the page that opens and
/// equal to `decode`; no scroll anywhere (the landing page's offset
/// stays 0; the deployment page opens where it shows the set). Returns
/// the clicks each took by anchor (the box and the result: 2).
pub(crate) fn drive_search_path(
    d: &Driver,
    base: &str,
    tasks: &[&SearchTask],
    sets: &HashMap<String, Expected>,
) -> HashMap<String, u64> {
    let mut clicks = HashMap::new();
    for t in tasks {
        let what = format!("{:?} → {}#{}", t.query, t.page, t.anchor);
        d.goto("about:blank");
        d.goto(&format!("{base}index.html"));
        let input = in_view(d, "#search-input", true);
        assert_eq!(input["inView"], true, "{what}: the search box: {input}");
        let mut n = 0;
        click(d, "#search-input");
        n += 1;
        let focused = in_view(d, "#search-input", true);
        assert_eq!(focused["focused"], true, "{what}: {focused}");
        keys(d, &t.query);
        let status = results_shown(d);
        assert!(
            status.as_str().unwrap().ends_with("results") || status == "1 result",
            "{what}: {status}"
        );
        let first = "#search-results li:first-child a";
        let r = in_view(d, first, true);
        assert_eq!(r["inView"], true, "{what}: the first result: {r}");
        assert_eq!(r["y"], 0, "{what}: the landing page scrolled");
        click(d, first);
        n += 1;
        wait_for_url(d, &format!("{base}{}#{}", t.page, t.anchor));
        let shown = d.exec(COPY_ALL, json!([]));
        assert_eq!(
            shown["anchor"],
            json!(t.anchor),
            "{what}: the set shown: {shown}"
        );
        let all = in_view(d, "button[data-search-path]", false);
        assert_eq!(
            all["inView"], true,
            "{what}: Copy all not in view below the top bar: {all}"
        );
        let copied = d.exec(
            "var y = pageYOffset; window.__agentxLastCopy = null; \
             document.querySelector('button[data-search-path]').click(); \
             return { copy: window.__agentxLastCopy, scrolled: pageYOffset !== y };",
            json!([]),
        );
        assert_eq!(copied["scrolled"], false, "{what}: Copy all scrolled");
        assert_eq!(
            copied["copy"].as_str(),
            Some(sets[&t.anchor].copy_all.as_str()),
            "{what}: Copy all differs from decode"
        );
        clicks.insert(t.anchor.clone(), n);
    }
    clicks
}
