//! The model page's launch picker in a real browser (headless Chromium
//! over the shared WebDriver helper): every set of a model is chosen with
//! the picker's chips, from the model page's first launch, and its window's
//! Copy all compared with `decode`; each clicked chip and the Copy all
//! button are in view below the top bar when clicked; the URL is the set's
//! anchor and, loaded afresh, restores it; back/forward walk the choices.
//! Used over the sample book (`browser_selector.rs`) and the real pages
//! (`browser_real.rs`).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::browser::Driver;
use crate::browser_selector::Expected;

/// Every set of the model page's data, as the chips that choose it:
/// `anchor → {hw, ckpt, dep, point, tier, router}` (the data's usual
/// anchors are written 0 and made from the keys, as agentx.js makes them).
pub(crate) const TARGETS: &str = r##"
var data = JSON.parse(document.querySelector("script.agentx-model-data").textContent), out = {};
data.deps.forEach(function (d, di) {
  d.sets.forEach(function (s) {
    var a = s[3] === 0 ? [d.anchor, d.points[s[0]][0].replace(/ \/ c/g, "-"), s[1], s[2]].join("-") : s[3];
    out[a] = { hw: d.hw, ckpt: d.ckpt, dep: di, point: s[0], tier: s[1], router: s[2] };
  });
});
return out;
"##;

/// Chooses each listed set with the chips, row by row from the top, each
/// only where it is not already pressed; then Copy all. Reports per set
/// the clicks, whether each clicked element and Copy all were in view
/// below the top bar (and not covered), the window's set, the URL and the
/// copied text. Between sets the first choice is restored with its chips
/// (uncounted), as on a fresh load.
pub(crate) const PICK: &str = r##"
var targets = arguments[0], first = arguments[1], out = [];
function bar() {
  var b = document.querySelector(".topbar, #mdbook-menu-bar, #menu-bar");
  if (!b) return 0;
  var r = b.getBoundingClientRect();
  return r.bottom > 0 && getComputedStyle(b).position !== "static" ? r.bottom : 0;
}
function inView(e) {
  var r = e.getBoundingClientRect();
  if (r.top < bar() - 0.5 || r.bottom > window.innerHeight + 0.5 || r.left < 0 || r.right > window.innerWidth + 0.5) return false;
  var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !!hit && (hit === e || e.contains(hit));
}
function chip(row, value) {
  return document.querySelector('.agentx-picker .agentx-chip[data-row="' + row + '"][value="' +
    String(value).replace(/"/g, '\\"') + '"]');
}
function press(t, count) {
  var clicks = 0, seen = true;
  [["hw", t.hw], ["ckpt", t.ckpt], ["dep", t.dep], ["point", t.point], ["tier", t.tier], ["router", t.router]]
    .forEach(function (kv) {
      var c = chip(kv[0], kv[1]);
      if (!c) { seen = "no chip " + kv[0] + "=" + kv[1]; return; }
      if (c.getAttribute("aria-pressed") === "true") return;
      if (count && !inView(c)) seen = "chip " + kv[0] + "=" + kv[1] + " not in view";
      c.click();
      clicks++;
    });
  return [clicks, seen];
}
targets.forEach(function (t) {
  var y = window.pageYOffset, r = press(t, true);
  var w = document.querySelector(".agentx-picker .agentx-data-window");
  var all = w && w.querySelector("button.agentx-copy-all");
  if (all && r[1] === true && !inView(all)) r[1] = "Copy all not in view";
  window.__agentxLastCopy = null;
  if (all) all.click();
  out.push({ anchor: t.anchor, clicks: r[0], inView: r[1], scrolled: window.pageYOffset !== y,
    shown: w && w.getAttribute("data-anchor"), hash: location.hash.slice(1), copy: window.__agentxLastCopy });
  press(first, false);
});
return out;
"##;

/// Sets of a model page whose URL is checked after choosing (see
/// [`drive_model_pages`]).
const URL_CHECKS: usize = 12;

/// What the picker runs showed.
#[derive(Debug, Default)]
pub(crate) struct PickerRun {
    /// Sets chosen and checked.
    pub sets: usize,
    /// The most clicks one set took from the first launch.
    pub most_clicks: u64,
    /// Model pages visited.
    pub pages: usize,
    /// Per model page: the clicks each set took, in anchor order.
    pub clicks: Vec<(String, Vec<u64>)>,
}

/// The model page of a deployment page (`models/x/dep.html` → `models/x.html`).
pub(crate) fn model_page_of(page: &str) -> String {
    format!("{}.html", page.rsplit_once('/').unwrap().0)
}

/// Chooses every set of `sets` (or every `stride`th of each model page,
/// in anchor order) on its model page with the chips, and checks the
/// window, the URL and Copy all. With `in_view`, every click and Copy all
/// must be in view below the top bar, the picker first brought there.
pub(crate) fn drive_model_pages(
    d: &Driver,
    base: &str,
    sets: &HashMap<String, Expected>,
    stride: usize,
    in_view: bool,
) -> PickerRun {
    let mut by_model: HashMap<String, Vec<&String>> = HashMap::new();
    for (a, e) in sets {
        by_model.entry(model_page_of(e.page())).or_default().push(a);
    }
    let mut models: Vec<_> = by_model.into_iter().collect();
    models.sort();
    let mut run = PickerRun::default();
    for (model, mut anchors) in models {
        anchors.sort();
        d.goto(&format!("{base}{model}"));
        let targets = d.exec(TARGETS, json!([]));
        let first = current_choice(d, &targets);
        load_whole_data(d, &first);
        let chosen: Vec<Value> = anchors
            .iter()
            .step_by(stride.max(1))
            .map(|a| {
                let mut t = targets[a.as_str()].clone();
                assert!(t.is_object(), "{model}: {a} is not in the model data");
                t["anchor"] = json!(a);
                t
            })
            .collect();
        if in_view {
            d.exec(
                "var p = document.querySelector('.agentx-picker'); window.scrollTo(0, 0); \
                 var top = p.getBoundingClientRect().top, b = document.querySelector('.topbar, #mdbook-menu-bar'); \
                 var bar = b ? b.getBoundingClientRect().bottom : 0; \
                 if (top + p.offsetHeight > window.innerHeight) window.scrollTo(0, top - bar - 8);",
                json!([]),
            );
        }
        let picked = d.exec(PICK, json!([chosen, first]));
        let clicks = picked
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["clicks"].as_u64().unwrap());
        run.clicks.push((model.clone(), clicks.collect()));
        for (i, got) in picked.as_array().unwrap().iter().enumerate() {
            let anchor = got["anchor"].as_str().unwrap();
            assert_eq!(
                got["shown"],
                json!(anchor),
                "{model}: choosing {anchor}: {got}"
            );
            // Chromium ignores history changes beyond 200 in 10 s (each
            // chip is one), so the URL is checked on the first sets only.
            if i < URL_CHECKS {
                assert_eq!(got["hash"], json!(anchor), "{model}: the URL of {anchor}");
            }
            assert_eq!(
                got["copy"].as_str(),
                Some(sets[anchor].copy_all.as_str()),
                "{model}#{anchor}: Copy all differs from decode"
            );
            if in_view {
                assert_eq!(got["inView"], true, "{model} → {anchor}: {got}");
                assert_eq!(
                    got["scrolled"], false,
                    "{model} → {anchor}: the page scrolled"
                );
            }
            run.most_clicks = run.most_clicks.max(got["clicks"].as_u64().unwrap());
            run.sets += 1;
        }
        let errors = d.console_errors();
        assert!(errors.is_empty(), "{model}: console errors: {errors:?}");
        run.pages += 1;
    }
    run
}

/// On a page that carries only its first launch's window (the standalone
/// builder's, site/pages/lazy.rs), has the picker load the model's whole data
/// (as a reader's first other choice does) and waits for it, then chooses
/// the first launch again: the picks that follow are synchronous.
fn load_whole_data(d: &Driver, first: &Value) {
    let lazy = d.exec(
        "var p = document.querySelector('.agentx-picker'); \
         if (!JSON.parse(document.querySelector('script.agentx-model-data').textContent).full) return false; \
         var c = p.querySelector('.agentx-chip[aria-pressed=\"false\"]'); if (c) c.click(); return !!c;",
        json!([]),
    );
    if lazy != Value::Bool(true) {
        return;
    }
    let rows = ["hw", "ckpt", "dep", "point", "tier", "router"].map(|k| json!([k, first[k]]));
    crate::browser_mdbook::wait_until(
        d,
        "return document.querySelector('.agentx-picker').getAttribute('data-full') === 'loaded' && \
         !!document.querySelector('.agentx-picker .agentx-data-window');",
        "the model's whole data loads",
    );
    d.exec(
        "for (const [row, v] of arguments[0]) { \
           var c = document.querySelector('.agentx-picker .agentx-chip[data-row=\"' + row + '\"][value=\"' + v + '\"]'); \
           if (c && c.getAttribute('aria-pressed') !== 'true') c.click(); } return true;",
        json!([rows]),
    );
    assert_eq!(
        current_choice(d, &d.exec(TARGETS, json!([]))),
        *first,
        "the first launch chosen again"
    );
}

/// The pressed chips of the model page's first launch, as a target.
fn current_choice(d: &Driver, targets: &Value) -> Value {
    let anchor = d.exec(
        "return document.querySelector('.agentx-picker .agentx-data-window').getAttribute('data-anchor');",
        json!([]),
    );
    targets[anchor.as_str().unwrap()].clone()
}

/// A model page loaded afresh at a set's URL shows that set; back and
/// forward walk the chosen sets. Returns the URLs checked.
pub(crate) fn model_urls_restore(
    d: &Driver,
    base: &str,
    sets: &HashMap<String, Expected>,
    stride: usize,
) -> usize {
    let mut anchors: Vec<&String> = sets.keys().collect();
    anchors.sort();
    let shown = "var w = document.querySelector('.agentx-picker .agentx-data-window'); \
                 return w && w.getAttribute('data-anchor');";
    let mut n = 0;
    for a in anchors.iter().step_by(stride.max(1)) {
        let model = model_page_of(sets[a.as_str()].page());
        d.goto("about:blank");
        d.goto(&format!("{base}{model}#{a}"));
        assert_eq!(d.exec(shown, json!([])), json!(a), "{model}#{a}: restored");
        n += 1;
    }
    // Back and forward over two chip choices of the last model page.
    let before = d.exec(shown, json!([]));
    let other = |row: &str| {
        format!(
            "var c = document.querySelector('.agentx-picker .agentx-chip[data-row=\"{row}\"][aria-pressed=\"false\"]:not(:disabled)'); \
             if (c) c.click(); return !!c;"
        )
    };
    if d.exec(&other("point"), json!([])) == json!(true) {
        let second = d.exec(shown, json!([]));
        assert_ne!(before, second);
        d.cmd("POST", "/back", Some(json!({})));
        assert_eq!(d.exec(shown, json!([])), before, "back");
        d.cmd("POST", "/forward", Some(json!({})));
        assert_eq!(d.exec(shown, json!([])), second, "forward");
    }
    n
}

/// From `starts` (chip targets), each other hardware's chip: the window's
/// set and status after the switch, and whether the deployment chips stand
/// in one column in the data's order.
const HW_SWITCHES: &str = r##"
var starts = arguments[0], out = [];
function chips(row) { return Array.from(document.querySelectorAll('.agentx-picker .agentx-chip[data-row="' + row + '"]')); }
function go(t) {
  [["hw", t.hw], ["ckpt", t.ckpt], ["dep", t.dep], ["point", t.point], ["tier", t.tier], ["router", t.router]]
    .forEach(function (kv) {
      var c = chips(kv[0]).filter(function (c) { return c.value === String(kv[1]); })[0];
      if (c && c.getAttribute("aria-pressed") !== "true") c.click();
    });
}
function column() {
  var deps = chips("dep"), lefts = deps.map(function (c) { return Math.round(c.getBoundingClientRect().left); });
  var ordered = deps.every(function (c, i) { return i === 0 || +c.value > +deps[i - 1].value; });
  var stacked = deps.every(function (c, i) {
    return i === 0 || c.getBoundingClientRect().top >= deps[i - 1].getBoundingClientRect().bottom - 0.5;
  });
  return lefts.every(function (l) { return l === lefts[0]; }) && ordered && stacked;
}
starts.forEach(function (t) {
  chips("hw").map(function (c) { return c.value; }).forEach(function (hw) {
    if (hw === String(t.hw)) return;
    go(t);
    var c = chips("hw").filter(function (c) { return c.value === hw; })[0];
    c.click();
    var w = document.querySelector(".agentx-picker .agentx-data-window");
    out.push({ from: t.anchor, hw: hw, status: w.getAttribute("data-status"), anchor: w.getAttribute("data-anchor"),
      column: column() });
  });
});
return out;
"##;

/// Every hardware switch from a launch of each deployment of the model
/// pages of `sets` (one start per deployment: its last set, a derived one
/// where the deployment has any). Returns (switches landing on a measured
/// launch, switches); a switch must land on one, as every deployment has
/// one; the deployment chips stand in one column, in data order.
pub(crate) fn hardware_switches(
    d: &Driver,
    base: &str,
    sets: &HashMap<String, Expected>,
) -> (usize, usize) {
    let mut models: Vec<String> = sets.values().map(|e| model_page_of(e.page())).collect();
    models.sort();
    models.dedup();
    let (mut measured, mut total) = (0, 0);
    for model in models {
        d.goto(&format!("{base}{model}"));
        let targets = d.exec(TARGETS, json!([]));
        let mut last_of: HashMap<u64, (String, Value)> = HashMap::new();
        let mut anchors: Vec<&String> = targets.as_object().unwrap().keys().collect();
        anchors.sort();
        for a in anchors {
            let t = &targets[a.as_str()];
            let dep = t["dep"].as_u64().unwrap();
            let mut t = t.clone();
            t["anchor"] = json!(a);
            last_of.insert(dep, (a.clone(), t));
        }
        let mut starts: Vec<_> = last_of.into_values().collect();
        starts.sort_by(|a, b| a.0.cmp(&b.0));
        let starts: Vec<Value> = starts.into_iter().map(|(_, t)| t).collect();
        for r in d.exec(HW_SWITCHES, json!([starts])).as_array().unwrap() {
            total += 1;
            assert_eq!(
                r["column"], true,
                "{model}: deployment chips not in one column: {r}"
            );
            if r["status"] != "derived" {
                measured += 1;
            }
        }
        let errors = d.console_errors();
        assert!(errors.is_empty(), "{model}: console errors: {errors:?}");
    }
    (measured, total)
}
