//! The model page's GPU budget filter ("I have N GPUs on M nodes") in a
//! real browser, on the exported sample book: off by default (every
//! deployment offered); with a budget typed into its fields (keys, as a
//! reader types them), the hardware, checkpoint and deployment chips offer
//! exactly the deployments that fit (checked against the decoded data:
//! `gpus` ≤ N, `nodes` ≤ M), each offered one chosen has Copy all ==
//! `decode`; a budget nothing fits says so and offers every deployment;
//! Clear turns it off. Axe finds nothing serious at 1400 and 390 px, light
//! and dark; screenshots in target/browser-test/budget/.

use std::collections::{BTreeSet, HashMap};

use mdbook_agentx::Library;
use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver};
use crate::browser_chrome::{axe_source, axe_violations, view};
use crate::browser_mdbook::wait_until;
use crate::browser_picker::{TARGETS, model_page_of};
use crate::browser_selector::{Expected, expected};
use crate::support;

/// The deployments the picker's chips offer now: every deployment chip
/// under every hardware and checkpoint chip (each pressed in turn), with
/// the budget's status line and the window's set.
const OFFERED: &str = r##"
function chips(row) {
  return Array.from(document.querySelectorAll('.agentx-picker .agentx-chip[data-row="' + row + '"]'));
}
function press(row, value) {
  var c = chips(row).filter(function (c) { return c.value === value; })[0];
  if (c && c.getAttribute("aria-pressed") !== "true") c.click();
}
var w = document.querySelector(".agentx-picker .agentx-data-window");
var out = { deps: [], shown: w && w.getAttribute("data-anchor"), hash: location.hash.slice(1),
  status: document.querySelector(".agentx-picker .agentx-budget-status").textContent,
  none: document.querySelector(".agentx-picker .agentx-budget-status").classList.contains("agentx-budget-none"),
  clear: !document.querySelector(".agentx-picker .agentx-budget-clear").hidden };
chips("hw").map(function (c) { return c.value; }).forEach(function (hw) {
  press("hw", hw);
  chips("ckpt").map(function (c) { return c.value; }).forEach(function (k) {
    press("ckpt", k);
    chips("dep").forEach(function (d) { if (out.deps.indexOf(+d.value) < 0) out.deps.push(+d.value); });
  });
});
out.deps.sort(function (a, b) { return a - b; });
return out;
"##;

/// Chooses each listed deployment (hardware, checkpoint, deployment chips)
/// and copies all: per deployment, the window's set and the copied text.
const CHOOSE: &str = r##"
var deps = arguments[0], data = arguments[1], out = [];
function press(row, value) {
  var c = document.querySelector('.agentx-picker .agentx-chip[data-row="' + row + '"][value="' +
    String(value).replace(/"/g, '\\"') + '"]');
  if (!c) return false;
  if (c.getAttribute("aria-pressed") !== "true") c.click();
  return true;
}
deps.forEach(function (i) {
  var d = data[i];
  var ok = press("hw", d.hw) && press("ckpt", d.ckpt) && press("dep", i);
  var w = document.querySelector(".agentx-picker .agentx-data-window");
  window.__agentxLastCopy = null;
  if (ok) w.querySelector("button.agentx-copy-all").click();
  out.push({ dep: i, pressed: ok, shown: w.getAttribute("data-anchor"), copy: window.__agentxLastCopy });
});
return out;
"##;

/// Types `text` into the element `css` as a reader would: focus, select
/// all, delete, then the keys (WebDriver's key input, which fires `input`).
pub(crate) fn type_into(d: &Driver, css: &str, text: &str) {
    let id = crate::browser_axe::element_id(d, css);
    d.cmd(
        "POST",
        &format!("/element/{id}/value"),
        Some(json!({ "text": format!("\u{E009}a\u{E000}\u{E003}{text}") })),
    );
}

/// Has the picker load the model's whole data (the standalone page carries
/// only its first launch's window) and waits for it.
pub(crate) fn load_whole_data(d: &Driver) {
    let lazy = d.exec(
        "var p = document.querySelector('.agentx-picker'); \
         if (!JSON.parse(document.querySelector('script.agentx-model-data').textContent).full) return false; \
         var c = p.querySelector('.agentx-chip[data-row=\"point\"][aria-pressed=\"false\"], .agentx-chip[aria-pressed=\"false\"]'); \
         if (c) c.click(); return !!c;",
        json!([]),
    );
    if lazy == Value::Bool(true) {
        wait_until(
            d,
            "return document.querySelector('.agentx-picker').getAttribute('data-full') === 'loaded' && \
             !!document.querySelector('.agentx-picker .agentx-data-window');",
            "the model's whole data loads",
        );
    }
}

/// One deployment of a model page's data, as the filter reads it.
#[derive(Debug, Clone)]
struct Dep {
    anchor: String,
    hw: u64,
    ckpt: String,
    gpus: u32,
    nodes: u32,
}

/// The model page's deployments from its data script, each checked against
/// the decoded deployment of the same anchor.
fn page_deps(d: &Driver, decoded: &HashMap<String, (u32, u32)>, model: &str) -> Vec<Dep> {
    let data = d.exec(
        "return JSON.parse(document.querySelector('script.agentx-model-data').textContent).deps \
           .map(function (d) { return [d.anchor, d.hw, d.ckpt, d.gpus, d.nodes]; });",
        json!([]),
    );
    data.as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let dep = Dep {
                anchor: v[0].as_str().unwrap().to_string(),
                hw: v[1].as_u64().unwrap(),
                ckpt: v[2].as_str().unwrap().to_string(),
                gpus: v[3]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{model}: no gpus: {v}"))
                    as u32,
                nodes: v[4]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{model}: no nodes: {v}"))
                    as u32,
            };
            assert_eq!(
                decoded.get(&dep.anchor),
                Some(&(dep.gpus, dep.nodes)),
                "{model}: {} against decode",
                dep.anchor
            );
            dep
        })
        .collect()
}

/// Sets the budget's two fields (empty: no limit) and checks what the
/// chips offer against `deps`; then chooses each offered deployment and
/// compares Copy all with `decode`. Returns the deployments offered.
fn check_budget(
    d: &Driver,
    model: &str,
    deps: &[Dep],
    gpus: Option<u32>,
    nodes: Option<u32>,
    sets: &HashMap<String, Expected>,
    targets: &Value,
) -> usize {
    let text = |v: Option<u32>| v.map(|n| n.to_string()).unwrap_or_default();
    type_into(d, ".agentx-picker .agentx-budget-gpus", &text(gpus));
    type_into(d, ".agentx-picker .agentx-budget-nodes", &text(nodes));
    let what = format!("{model} with gpus {gpus:?}, nodes {nodes:?}");
    let fits = |x: &Dep| gpus.is_none_or(|n| x.gpus <= n) && nodes.is_none_or(|m| x.nodes <= m);
    let fitting: BTreeSet<u64> = (0..deps.len() as u64)
        .filter(|&i| fits(&deps[i as usize]))
        .collect();
    let all: BTreeSet<u64> = (0..deps.len() as u64).collect();
    let got = d.exec(OFFERED, json!([]));
    // The chosen launch fits (the picker moved to one) and is the URL.
    let shown = got["shown"].as_str().unwrap();
    let dep = targets[shown]["dep"].as_u64().unwrap();
    let offered: BTreeSet<u64> = serde_json::from_value(got["deps"].clone()).unwrap();
    let status = got["status"].as_str().unwrap();
    assert_eq!(
        got["hash"], got["shown"],
        "{what}: the URL names the chosen launch"
    );
    if gpus.is_none() && nodes.is_none() {
        assert_eq!(offered, all, "{what}: off offers every deployment");
        assert!(status.starts_with("Off"), "{what}: {status}");
        assert_eq!(got["clear"], false, "{what}: Clear shown");
    } else if fitting.is_empty() {
        assert_eq!(offered, all, "{what}: nothing fits, every deployment stays");
        assert_eq!(got["none"], true, "{what}: {status}");
        assert!(
            status.starts_with("No deployment fits "),
            "{what}: {status}"
        );
    } else {
        assert_eq!(
            offered, fitting,
            "{what}: the chips offer exactly those that fit"
        );
        assert!(
            fitting.contains(&dep),
            "{what}: the chosen {shown} does not fit"
        );
        assert_eq!(
            status,
            format!(
                "{} of {} deployments fit {}.",
                fitting.len(),
                deps.len(),
                budget_words(gpus, nodes)
            ),
            "{what}"
        );
    }
    let data: Vec<Value> = deps
        .iter()
        .map(|x| json!({"hw": x.hw.to_string(), "ckpt": x.ckpt}))
        .collect();
    let chosen = d.exec(CHOOSE, json!([offered, data]));
    for c in chosen.as_array().unwrap() {
        assert_eq!(c["pressed"], true, "{what}: {c}");
        let anchor = c["shown"].as_str().unwrap();
        assert_eq!(
            targets[anchor]["dep"], c["dep"],
            "{what}: the window is not the chosen deployment's"
        );
        assert_eq!(
            c["copy"].as_str(),
            Some(sets[anchor].copy_all.as_str()),
            "{what}: {anchor}: Copy all differs from decode"
        );
    }
    offered.len()
}

/// `8 GPUs on 2 nodes`, as the status line words a budget.
fn budget_words(gpus: Option<u32>, nodes: Option<u32>) -> String {
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = Vec::new();
    if let Some(n) = gpus {
        parts.push(plural(n, "GPU", "GPUs"));
    }
    if let Some(m) = nodes {
        parts.push(plural(m, "node", "nodes"));
    }
    parts.join(" on ")
}

/// GPUs and nodes of every decoded deployment, by anchor.
fn decoded_sizes() -> HashMap<String, (u32, u32)> {
    let lib = Library::load(&support::repo(), std::path::Path::new("agentx")).unwrap();
    lib.pages()
        .flat_map(|(_, p)| p.deployments.iter())
        .map(|d| (d.anchor.clone(), (d.gpus, d.nodes)))
        .collect()
}

#[test]
fn browser_budget_offers_exactly_the_deployments_that_fit() {
    let Some(driver) = chromedriver() else { return };
    let out = support::temp("budget-export");
    mdbook_agentx::export_offline(&support::repo(), &out).unwrap();
    let sets = expected(&out);
    let decoded = decoded_sizes();
    let base = format!("file://{}/", out.display());
    let d = Driver::start(&driver, "budget");
    view(&d, 1400, 900, false);
    d.console_errors();
    let mut models: Vec<String> = sets.values().map(|e| model_page_of(e.page())).collect();
    models.sort();
    models.dedup();
    let (mut budgets, mut pages) = (0, 0);
    for model in &models {
        d.goto(&format!("{base}{model}"));
        let has_budget = d.exec(
            "return !!document.querySelector('.agentx-picker .agentx-budget-gpus');",
            json!([]),
        );
        let deps = page_deps(&d, &decoded, model);
        assert_eq!(has_budget, json!(deps.len() > 1), "{model}: the budget row");
        if deps.len() < 2 {
            continue;
        }
        load_whole_data(&d);
        let targets = d.exec(TARGETS, json!([]));
        let gpus: BTreeSet<u32> = deps.iter().map(|x| x.gpus).collect();
        let nodes: BTreeSet<u32> = deps.iter().map(|x| x.nodes).collect();
        let (min_gpus, max_gpus) = (*gpus.first().unwrap(), *gpus.last().unwrap());
        let min_nodes = *nodes.first().unwrap();
        let mut cases: Vec<(Option<u32>, Option<u32>)> = vec![(None, None)];
        cases.extend(gpus.iter().map(|&n| (Some(n), None)));
        cases.extend(nodes.iter().map(|&m| (None, Some(m))));
        cases.push((Some(max_gpus), Some(min_nodes)));
        // Nothing fits: fewer GPUs than the smallest uses.
        cases.push((Some(min_gpus - 1), None));
        cases.push((None, None));
        for (g, n) in cases {
            check_budget(&d, model, &deps, g, n, &sets, &targets);
            budgets += 1;
        }
        // Clear turns the budget off.
        type_into(
            &d,
            ".agentx-picker .agentx-budget-gpus",
            &min_gpus.to_string(),
        );
        d.exec(
            "document.querySelector('.agentx-picker .agentx-budget-clear').click();",
            json!([]),
        );
        let got = d.exec(OFFERED, json!([]));
        assert_eq!(
            got["deps"].as_array().unwrap().len(),
            deps.len(),
            "{model}: Clear"
        );
        assert_eq!(got["clear"], false, "{model}: Clear hides itself");
        let errors = d.console_errors();
        assert!(errors.is_empty(), "{model}: console errors: {errors:?}");
        pages += 1;
    }
    eprintln!("budget: {budgets} budgets on {pages} model pages, the chips checked against decode");
    assert!(pages >= 2, "{pages} model pages with a budget row");
    axe_and_screenshots(&d, &base, &models);
}

/// The model page with the most deployments, a budget set: axe at 1400 and
/// 390 px, light and dark (with some fitting, and with none), and
/// screenshots to look at.
fn axe_and_screenshots(d: &Driver, base: &str, models: &[String]) {
    let count = |m: &String| {
        d.goto(&format!("{base}{m}"));
        d.exec(
            "return JSON.parse(document.querySelector('script.agentx-model-data').textContent).deps.length;",
            json!([]),
        )
        .as_u64()
        .unwrap()
    };
    let model = models.iter().max_by_key(|m| count(m)).unwrap().clone();
    let dir = support::repo().join("target/browser-test/budget");
    let axe = axe_source();
    for (w, h) in [(1400, 900), (390, 844)] {
        for dark in [false, true] {
            view(d, w, h, dark);
            d.goto(&format!("{base}{model}"));
            type_into(d, ".agentx-picker .agentx-budget-gpus", "8");
            let scheme = if dark { "dark" } else { "light" };
            d.exec(
                "document.querySelector('.agentx-picker').scrollIntoView();",
                json!([]),
            );
            d.screenshot(&dir.join(format!("model-{w}-{scheme}.png")));
            if let Some(axe) = &axe {
                let v = axe_violations(d, axe);
                assert!(v.is_empty(), "{model} at {w} px, {scheme}, 8 GPUs: {v:#?}");
                type_into(d, ".agentx-picker .agentx-budget-gpus", "1");
                let v = axe_violations(d, axe);
                assert!(
                    v.is_empty(),
                    "{model} at {w} px, {scheme}, nothing fits: {v:#?}"
                );
            }
            d.screenshot(&dir.join(format!("model-{w}-{scheme}-none.png")));
        }
    }
    view(d, 1400, 900, false);
    eprintln!("budget screenshots of {model} in {}", dir.display());
}
