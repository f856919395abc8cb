//! Search in a real browser: a table of queries a reader would type, each
//! with the first result expected, run through the page's own search code
//! on the exported sample book; then the search box driven with real keys
//! (`/`, typing, ↓, Enter, Esc), the index loaded only on first use, and
//! the single-file export's inline index.
//!
//! How the expected results were found: by hand, from the data files in
//! `agentx/` and the ranking rule the guide states
//! (`content/guide/picking-a-launch.md`). Every query word must equal a
//! whole token; a word scores by the best field holding
//! it — title 8 (a page title, a heading, a command set's heading `c16 ·
//! Dynamo + SGLang · No KV offload`), id 6 (cell id, set anchor), context 4
//! (model, hardware, checkpoint, deployment, status, tier and router ids),
//! body 1 (flags, environment names, programs, process titles). Ties go to
//! pages, then launches, then headings; measured launches before derived
//! ones; then reading order: the chapters of `content/SUMMARY.md` (GLM-5.2,
//! DeepSeek-V4, DeepSeek-V4.1, Qwen3.5, Qwen3.8-Flash-Next, Muse Spark
//! Open), cells in data order, sets by point, router (Dynamo first), tier.

use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver};
use crate::browser_chrome::{exec_async, view, wait_for_url};
use crate::support;

/// (query, the first result as `path » title`, why).
const QUERIES: &[(&str, &str, &str)] = &[
    (
        "deepseek-v4.1 c16",
        "DeepSeek-V4.1 » GB200 · Agg DEP4 · DSpark 5 » c16 · Dynamo + SGLang · No KV offload",
        "c16 in a set heading (8) + the model (4); DeepSeek-V4.1 measured c16 in cell agg#1 (GB200, \
         behind Dynamo, no offload, verified-pr) and dspark#0 (B300, in progress): agg#1 comes first",
    ),
    (
        "DeepSeek GB200",
        "DeepSeek-V4.1 » GB200 · Agg TP4 · DSpark 5",
        "only DeepSeek-V4.1 has GB200 cells; their pages hold gb200 in the title (8) + deepseek in \
         context (4), their sets only in context (8); agg#0 is first",
    ),
    (
        "--enable-hierarchical-cache",
        "GLM-5.2 » GB300 · Agg DEP8 (2 nodes) · MTP 4-1-5 » c8 · Dynamo + SGLang · HiCache (host DRAM)",
        "a flag (1) of every HiCache set; the first measured HiCache launch in reading order is GLM-5.2's \
         first cell at its first point, c8",
    ),
    (
        "hicache-ratio",
        "GLM-5.2 » B300 · Agg TP8 · MTP 3-1-4 » c1 · SGLang · HiCache (host DRAM)",
        "glm-5.2.json's GB300 cells size HiCache with --hicache-size; the B300 cell (its third) uses \
         --hicache-ratio and measured c1 with HiCache",
    ),
    (
        "etcd",
        "GLM-5.2 » GB300 · Agg DEP8 (2 nodes) · MTP 4-1-5 » c8 · Dynamo + SGLang · HiCache (host DRAM)",
        "etcd runs in Dynamo launches only (program, process title, ETCD_* names: body 1); GLM-5.2's \
         first cell was submitted behind Dynamo and measured c8",
    ),
    (
        "verified",
        "GLM-5.2 » GB300 · Agg DEP8 (2 nodes) · MTP 4-1-5",
        "status words are context (4) for deployment pages and sets; pages first; GLM-5.2's first cell \
         is verified (PR pending merge), and verified matches verified-pr",
    ),
    (
        "dsv41-fp4-gb200-dynamo-sglang-agentic-agg#1",
        "DeepSeek-V4.1 » GB200 · Agg DEP4 · DSpark 5",
        "the cell id as the deployment page shows it: an id (6) of that page and its sets; pages first",
    ),
    (
        "dsv41-fp4-gb200-dynamo-sglang-agentic-agg",
        "DeepSeek-V4.1 » GB200 · Agg TP4 · DSpark 5",
        "without #n it names both GB200 cells; #0 comes first",
    ),
    (
        "c1",
        "GLM-5.2 » B300 · Agg TP8 · MTP 3-1-4 » c1 · SGLang · HiCache (host DRAM)",
        "whole tokens: c16 and c128 are other words; GLM-5.2's GB300 cells start at c8 and c24, its \
         B300 cell measured c1 with HiCache",
    ),
    (
        "glm-5.2 b200",
        "GLM-5.2 » B200 · Agg TP8 · MTP 3-1-4",
        "b200 in the page title (8) + the model (4) beats the sets' 4 + 4",
    ),
    (
        "qwen3.5 h200 mooncake",
        "Qwen3.5 » H200 · Agg TP8 · MTP 3-1-4 · measured with HiCache » c4 · Dynamo + SGLang · Mooncake store (external linker)",
        "no Qwen3.5 point was measured with Mooncake, so every match is derived; the first H200 cell \
         in qwen3.5.jsx is the HiCache one, its first point c4, Dynamo before SGLang",
    ),
    (
        "muse spark gb200 c12",
        "Muse Spark Open » GB200 · Agg TP4·EP4 · DFlash 8 » c12 · SGLang · HiCache (host DRAM)",
        "the GB200 cell measured c12 with HiCache behind SGLang; the derived c12 sets score the same \
         but come after",
    ),
    (
        "in progress b300",
        "DeepSeek-V4.1 » B300 · Agg TP4 · DSpark 5",
        "b300 in the page title (8) + in, progress (status, 4 + 4); GLM-5.2's and DeepSeek-V4's B300 \
         cells are verified, DeepSeek-V4.1's dspark#0 is in progress (PR #4226)",
    ),
    (
        "mooncake_master",
        "DeepSeek-V4 » GB300 · Disagg 1P1D · prefill DEP8 (2 nodes) · decode DEP8 (2 nodes) · MTP 3-1-4 » c64 · Dynamo + SGLang · Mooncake store (external linker)",
        "a program of Mooncake-tier sets (body 1); the first launch measured with Mooncake is \
         DeepSeek-V4's disagg#2 at c64",
    ),
    (
        "deepseek-v4 c384 hicache",
        "DeepSeek-V4 » GB300 · Disagg 2P1D · prefill DEP8 (2 nodes) · decode DEP8 (2 nodes) · MTP 3-1-4 » c384 · Dynamo + SGLang · HiCache (host DRAM)",
        "c384 exists only in disagg#3, measured with Mooncake; its HiCache sets are derived (c384 and \
         HiCache in the title: 16, + the model 4); deepseek-v4 does not match DeepSeek-V4.1",
    ),
    (
        "derived dynamo qwen3.8-flash-next",
        "Qwen3.8-Flash-Next » GB300 · Agg TP1 · MTP 3-1-4 » c8 · Dynamo + SGLang · No KV offload",
        "Qwen3.8-Flash-Next was submitted behind SGLang only, so its Dynamo sets are derived; first \
         cell GB300, first point c8, no offload first",
    ),
    (
        "prefill worker gb300",
        "GLM-5.2 » GB300 · Disagg 1P3D · prefill DEP4 · decode TP4 · MTP 2-1-3 » c24 · Dynamo + SGLang · HiCache (host DRAM)",
        "worker is a process title (body 1), so only sets match, and only disaggregated ones have a \
         prefill worker; GLM-5.2's disagg#0 measured c24 with HiCache",
    ),
    (
        "deepseek-v4.1 c16 sglang",
        "DeepSeek-V4.1 » B300 · Agg TP4 · DSpark 5 » c16 · SGLang · No KV offload",
        "sglang without dynamo names the SGLang router: the Dynamo + SGLang sets are left out (without \
         sglang, agg#1's measured c16 behind Dynamo comes first); dspark#0 (B300) measured c16 behind \
         SGLang with no offload, in progress",
    ),
    (
        "16 gpus",
        "GLM-5.2 » GB300 · Disagg 1P3D · prefill DEP4 · decode TP4 · MTP 2-1-3",
        "a count and its noun are one word (16gpus, context 4): glm-5.2.json's disagg#0 and \
         deepseek-v4.json's GB300 1P1D cell have gpus: 16; pages first, GLM-5.2 first in reading order",
    ),
    (
        "4 nodes",
        "GLM-5.2 » GB300 · Disagg 1P3D · prefill DEP4 · decode TP4 · MTP 2-1-3",
        "nodes are the workers' nodes: one prefill and three decode workers of one node each (not the \
         4 of MTP 4-1-5); DeepSeek-V4's GB300 1P1D cell has two workers of two nodes each, after it",
    ),
    (
        "deepseek-v4 1p1d prefill dep8 2 nodes",
        "DeepSeek-V4 » GB300 · Disagg 1P1D · prefill DEP8 (2 nodes) · decode DEP8 (2 nodes) · MTP 3-1-4",
        "the words of a deployment chip's label: deepseek-v4.json's only 1P1D cell with a DEP8 prefill \
         is disagg#2, whose workers run on 2 nodes each (4 in all: `2 nodes` is a word of its label, \
         not its size); pages first",
    ),
    (
        "combinations",
        "GLM-5.2 » GB300 · Agg DEP8 (2 nodes) · MTP 4-1-5 » Combinations",
        "a heading of every deployment chapter; the first in reading order",
    ),
];

/// The ranked results of `query`, computed by the page's search code.
fn results(d: &Driver, query: &str) -> Vec<Value> {
    let r = exec_async(
        d,
        "var done = arguments[arguments.length - 1]; window.__agentxSearch(arguments[0], done);",
        json!([query]),
    );
    r.as_array().unwrap().clone()
}

fn shown(hit: &Value) -> String {
    let path = hit["path"].as_str().unwrap();
    let title = hit["title"].as_str().unwrap();
    if path.is_empty() {
        title.to_string()
    } else {
        format!("{path} » {title}")
    }
}

#[test]
fn browser_search() {
    let Some(driver) = chromedriver() else { return };
    let out = support::temp("search-export");
    mdbook_agentx::export_offline(&support::repo(), &out).unwrap();
    let d = Driver::start(&driver, "search");
    d.cmd("POST", "/timeouts", Some(json!({"script": 60_000})));
    view(&d, 1400, 900, false);
    let base = format!("file://{}/", out.display());
    d.goto(&format!("{base}models/deepseek-v4.1.html"));
    let mut failures = Vec::new();
    for (query, want, why) in QUERIES {
        let hits = results(&d, query);
        let first = hits.first().map(shown).unwrap_or_default();
        eprintln!("{query:?}: {} results, first: {first}", hits.len());
        if first != *want {
            failures.push(format!(
                "{query:?}: first {first:?}, expected {want:?} ({why})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Whole tokens: c1 finds no c16, c160 nothing.
    let c1 = results(&d, "c1");
    assert!(c1.iter().all(|h| !shown(h).contains("c16")), "c1 found c16");
    assert!(results(&d, "c160").is_empty());
    // A set opens at its page and anchor.
    let hit = &results(&d, "deepseek-v4.1 c16")[0];
    assert_eq!(
        hit["url"],
        "models/deepseek-v4.1/dsv41-fp4-gb200-dynamo-sglang-agentic-agg-1.html#dsv41-fp4-gb200-dynamo-sglang-agentic-agg-1-c16-none-dynamo"
    );
    eprintln!("{} queries give their expected first result", QUERIES.len());
    search_box_with_keys(&d, &base);
    single_file_search(&d);
}

/// Key presses as a reader makes them (WebDriver actions: real key events
/// to the focused element).
pub(crate) fn keys(d: &Driver, text: &str) {
    let mut actions = Vec::new();
    for c in text.chars() {
        actions.push(json!({"type": "keyDown", "value": c.to_string()}));
        actions.push(json!({"type": "keyUp", "value": c.to_string()}));
    }
    d.cmd(
        "POST",
        "/actions",
        Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})),
    );
}

const ARROW_DOWN: &str = "\u{E015}";
const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";

/// The search status and first result once results are shown.
fn shown_results(d: &Driver) -> Value {
    exec_async(
        d,
        "var done = arguments[arguments.length - 1], t = Date.now();
         (function wait() {
           var status = document.getElementById('search-status').textContent;
           if (status && status.indexOf('Loading') < 0) {
             var first = document.querySelector('#search-results a');
             return done({ status: status, first: first && first.textContent, href: first && first.getAttribute('href') });
           }
           if (Date.now() - t > 10000) return done({ status: 'timeout' });
           setTimeout(wait, 20);
         })();",
        json!([]),
    )
}

/// `/` focuses the box (loading the index only then), typing searches, ↓
/// moves to the results, Enter opens the set highlighted, Esc closes.
fn search_box_with_keys(d: &Driver, base: &str) {
    d.goto(&format!("{base}models/deepseek-v4.1.html"));
    let loaded = "return { index: window.AGENTX_SEARCH_INDEX !== undefined,
                   script: document.querySelector('script[src$=\"search-index.js\"]') !== null,
                   focused: document.activeElement.id };";
    let before = d.exec(loaded, json!([]));
    assert_eq!(
        before["index"], false,
        "the index loads before use: {before}"
    );
    assert_eq!(before["script"], false, "{before}");
    keys(d, "/");
    keys(d, "c160");
    let after = d.exec(loaded, json!([]));
    assert_eq!(after["focused"], "search-input", "/ focuses the search box");
    let r = shown_results(d);
    assert!(
        r["status"].as_str().unwrap().starts_with("No results"),
        "{r}"
    );
    let script = d.exec(loaded, json!([]));
    assert_eq!(
        script["script"], true,
        "the index is loaded on first use: {script}"
    );
    d.exec("document.getElementById('search-status').textContent = ''; document.getElementById('search-input').value = '';", json!([]));
    let query = "deepseek-v4.1 c16";
    keys(d, query);
    let r = shown_results(d);
    let count = results(d, query).len();
    assert_eq!(r["status"], format!("{count} results"), "{r}");
    let first = r["first"].as_str().unwrap();
    assert!(first.starts_with(&format!("{} ", QUERIES[0].1)), "{first}");
    assert!(
        first.ends_with("✓ Verified · PR pending merge"),
        "the status badge: {first}"
    );
    keys(d, ARROW_DOWN);
    let focus = d.exec(
        "var a = document.activeElement; return { href: a.getAttribute('href'), url: a.href };",
        json!([]),
    );
    assert_eq!(focus["href"], r["href"], "↓ moves to the first result");
    keys(d, ENTER);
    let want = focus["url"].as_str().unwrap().to_string();
    assert!(
        want.starts_with(base) && want.ends_with("agg-1-c16-none-dynamo"),
        "{want}"
    );
    wait_for_url(d, &want);
    let targeted = d.exec(
        "return document.getElementById(location.hash.slice(1)).closest('div.agentx-set').classList.contains('agentx-targeted');",
        json!([]),
    );
    assert_eq!(targeted, true, "the set opens highlighted");
    keys(d, "s");
    keys(d, "c1");
    shown_results(d);
    keys(d, ESCAPE);
    let hidden = d.exec(
        "return document.getElementById('search-panel').hidden;",
        json!([]),
    );
    assert_eq!(hidden, true, "Esc closes the results");
    eprintln!(
        "search box: / focuses, ↓ and Enter open {want}, Esc closes; index loaded on first use"
    );
}

/// The single file carries the index inline: a hit opens its section's set.
fn single_file_search(d: &Driver) {
    let dir = support::temp("search-single");
    std::fs::create_dir_all(&*dir).unwrap();
    let html = mdbook_agentx::export_single_file(&support::repo())
        .unwrap()
        .html;
    std::fs::write(dir.join("book.html"), html).unwrap();
    d.goto(&format!("file://{}/book.html", dir.display()));
    let hit = &results(d, "deepseek-v4.1 c16")[0];
    let url = hit["url"].as_str().unwrap();
    assert!(url.starts_with('#'), "{url}");
    let found = d.exec(
        "return document.getElementById(arguments[0].slice(1)) !== null;",
        json!([url]),
    );
    assert_eq!(found, true, "{url} is in the single file");
    eprintln!("single file: {} → {url}", shown(hit));
}
