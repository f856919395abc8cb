//! The model page picker's "Find a launch" field in a real browser, on the
//! exported sample book (every model page): what a query matches is
//! counted against the page's own data (whole words: `c1` is not `c12`; the
//! last word while typed is a prefix; `sglang` alone is the SGLang router;
//! `N gpus`, `M nodes`), at most 8 matches are listed with their count;
//! the keys (↓/↑, Home/End, Enter, Escape, Shift+Tab) and a click outside;
//! choosing a match selects it (the window, the URL, one history entry,
//! Back, the announcement); the GPU budget limits the matches; odd and
//! multibyte input shows a message and throws nothing; a deployment page
//! has no field. Axe finds nothing serious with the matches shown at 1400
//! and 390 px, light and dark (the real pages' model pages are checked the
//! same way in `browser_real.rs`), and nothing scrolls sideways at 390 px.

use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver};
use crate::browser_budget::type_into;
use crate::browser_chrome::{axe_source, axe_violations, view};
use crate::browser_find::{ENTER, FIELD, FIRST_MATCH};
use crate::browser_mdbook::wait_until;
use crate::browser_search::keys;
use crate::support;

/// The field's state: its status line, the matches listed (anchor, and
/// their text), whether the list is shown, and what has the focus.
const STATE: &str = r##"
var p = document.querySelector(".agentx-picker"), list = p.querySelector(".agentx-find-list");
var a = document.activeElement;
return { status: p.querySelector(".agentx-find-status").textContent, open: !list.hidden,
  matches: Array.from(list.querySelectorAll("button")).map(function (b) {
    return [b.getAttribute("data-anchor"), b.querySelector(".agentx-find-set").textContent];
  }),
  focus: a === p.querySelector(".agentx-find-input") ? "field" :
    a && a.classList.contains("agentx-find-match") ? "match " + Array.from(list.querySelectorAll("button")).indexOf(a) : "other",
  value: p.querySelector(".agentx-find-input").value,
  anchor: (p.querySelector(".agentx-data-window") || { getAttribute: function () { return null; } }).getAttribute("data-anchor"),
  wide: document.documentElement.scrollWidth > innerWidth };
"##;

/// The page's sets that a query should match, counted from its data:
/// `arguments[0]` names the rule, `arguments[1]` its value.
const EXPECTED: &str = r##"
var data = JSON.parse(document.querySelector("script.agentx-model-data").textContent), rule = arguments[0], v = arguments[1];
var n = 0;
data.deps.forEach(function (d) {
  d.sets.forEach(function (s) {
    var points = d.points[s[0]][0].split(" / ");
    if (rule === "point" ? points.indexOf(v) >= 0 :
        rule === "hw" ? data.hw[d.hw].toLowerCase().indexOf(v) === 0 :
        rule === "router" ? s[2] === v :
        rule === "gpus" ? d.gpus === v :
        rule === "nodes" ? d.nodes === v || d.label.indexOf("(" + v + " node") >= 0 : false) n++;
  });
});
var first = data.deps[0];
return { n: n, hw: data.hw[first.hw], gpus: first.gpus,
  nodes: Math.max.apply(null, data.deps.map(function (d) { return d.nodes; })),
  points: data.deps.map(function (d) { return d.points.map(function (p) { return p[0]; }); }) };
"##;

fn state(d: &Driver) -> Value {
    d.exec(STATE, json!([]))
}

/// Types `q` into the field as a reader (the field emptied first).
fn find(d: &Driver, q: &str) -> Value {
    type_into(d, FIELD, q);
    state(d)
}

/// The count the status line gives (0 for "No launch matches").
fn count(status: &Value) -> u64 {
    let s = status.as_str().unwrap();
    s.split(' ').next().unwrap().parse().unwrap_or(0)
}

/// Every sample model page: the counts of rule-made queries against the
/// page's data, and what the matches list.
fn counts_match_the_data(d: &Driver, page: &str) {
    let facts = d.exec(EXPECTED, json!(["", ""]));
    let hw = facts["hw"].as_str().unwrap().to_lowercase();
    // (query, rule, value)
    let mut cases: Vec<(String, &str, Value)> = vec![
        ("c1 ".into(), "point", json!("c1")),
        (format!("{hw} "), "hw", json!(hw)),
        (hw[..3].to_string(), "hw", json!(hw[..3])),
        ("sglang".into(), "router", json!("sglang")),
        ("dynamo".into(), "router", json!("dynamo")),
        (
            format!("{} gpus", facts["gpus"]),
            "gpus",
            facts["gpus"].clone(),
        ),
        (
            format!("{} nodes", facts["nodes"]),
            "nodes",
            facts["nodes"].clone(),
        ),
    ];
    // A concurrency that is the start of another (`c1` of `c12`).
    let all_points: Vec<String> = (facts["points"].as_array().unwrap().iter())
        .flat_map(|d| d.as_array().unwrap().iter())
        .flat_map(|p| p.as_str().unwrap().split(" / ").map(str::to_string))
        .collect();
    if let Some(p) = (all_points.iter()).find(|p| {
        all_points
            .iter()
            .any(|q| q != *p && q.starts_with(p.as_str()))
    }) {
        cases.push((p.clone(), "point", json!(p)));
    }
    for (q, rule, v) in cases {
        let want = d.exec(EXPECTED, json!([rule, v]))["n"].as_u64().unwrap();
        let got = find(d, &q);
        assert_eq!(count(&got["status"]), want, "{page}: {q:?}: {got}");
        let listed = got["matches"].as_array().unwrap();
        assert_eq!(listed.len() as u64, want.min(8), "{page}: {q:?}: {got}");
        assert_eq!(got["open"], json!(want > 0), "{page}: {q:?}");
        if want > 8 {
            assert!(
                got["status"]
                    .as_str()
                    .unwrap()
                    .contains("the best 8 are shown"),
                "{got}"
            );
        }
        for m in listed {
            let set = m[1].as_str().unwrap();
            if rule == "point" {
                let point = set.split(" · ").next().unwrap();
                assert!(
                    point.split(" / ").any(|p| Some(p) == v.as_str()),
                    "{page}: {q:?}: {set}"
                );
            }
            if rule == "router" && v == "sglang" {
                assert!(
                    !set.contains("Dynamo"),
                    "{page}: sglang is the SGLang router: {set}"
                );
            }
        }
    }
    let none = find(d, "zzzz-no-such-launch");
    assert!(
        none["status"]
            .as_str()
            .unwrap()
            .starts_with("No launch matches “zzzz-no-such-launch”"),
        "{none}"
    );
    assert_eq!(none["open"], false);
}

/// The keys, a click outside, and choosing a match by Enter and by click.
fn keys_and_choosing(d: &Driver, page: &str) {
    let s = find(d, "c1 ");
    let firsts: Vec<Value> = s["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m[0].clone())
        .collect();
    assert!(firsts.len() >= 2, "{page}: {s}");
    let step = |k: &str, want: &str| {
        keys(d, k);
        let s = state(d);
        assert_eq!(s["focus"], want, "{page}: after {k:?}: {s}");
        s
    };
    step("\u{E015}", "match 0"); // ↓
    step("\u{E015}", "match 1");
    step("\u{E013}", "match 0"); // ↑
    step("\u{E010}", &format!("match {}", firsts.len() - 1)); // End
    step("\u{E011}", "match 0"); // Home
    step("\u{E013}", "field");
    step("\u{E015}", "match 0");
    // Escape (on a match, then in the field once typing opened the list
    // again): the list closes, the field has the focus, the text stays.
    for (typed, value) in [("", "c1 "), ("n", "c1 n")] {
        if !typed.is_empty() {
            keys(d, typed);
        }
        assert_eq!(state(d)["open"], true, "{page}: {value:?}");
        let s = step("\u{E00C}", "field");
        assert_eq!(
            (s["open"].clone(), s["value"].clone()),
            (json!(false), json!(value)),
            "{s}"
        );
    }
    // Shift+Tab leaves the field: the list closes.
    keys(d, "\u{E003}");
    assert_eq!(state(d)["open"], true);
    d.cmd(
        "POST",
        "/actions",
        Some(json!({"actions": [{"type": "key", "id": "kb", "actions": [
            {"type": "keyDown", "value": "\u{E008}"}, {"type": "keyDown", "value": "\u{E004}"},
            {"type": "keyUp", "value": "\u{E004}"}, {"type": "keyUp", "value": "\u{E008}"}]}]})),
    );
    assert_eq!(state(d)["open"], false, "{page}: Shift+Tab");
    // A click outside closes it.
    let s = find(d, "c1 ");
    assert_eq!(s["open"], true);
    crate::browser_search_path::click(d, "h1");
    assert_eq!(state(d)["open"], false, "{page}: a click outside");

    // A click on a match chooses it.
    let s = find(d, "c1 ");
    let second = s["matches"][1][0].clone();
    crate::browser_search_path::click(d, ".agentx-picker .agentx-find-list li:nth-child(2) button");
    wait_until(d, &shown(&second), "the clicked match shown");
    // Enter in the field chooses the first: the window, the URL, one
    // history entry, the focus kept, the choice announced; Back returns.
    let length = d.exec("return history.length;", json!([]));
    let s = find(d, "c1 ");
    let first = s["matches"][0][0].clone();
    assert_ne!(first, second, "{page}: the first match is another launch");
    keys(d, ENTER);
    wait_until(d, &shown(&first), "the chosen launch shown");
    let s = state(d);
    assert_eq!(
        (s["open"].clone(), s["focus"].clone()),
        (json!(false), json!("field")),
        "{s}"
    );
    assert_eq!(d.exec("return location.hash.slice(1);", json!([])), first);
    let grew = d.exec("return history.length - arguments[0];", json!([length]));
    assert_eq!(grew, 1, "{page}: one history entry");
    wait_until(
        d,
        "var r = document.getElementById('agentx-announce'); return !!r && r.textContent.indexOf('Chosen: ') === 0;",
        "the choice announced",
    );
    d.cmd("POST", "/back", Some(json!({})));
    wait_until(d, &shown(&second), "Back shows the launch before");
}

/// A script: whether the picker's window shows `anchor`.
fn shown(anchor: &Value) -> String {
    format!(
        "var w = document.querySelector('.agentx-picker .agentx-data-window'); \
         return !!w && w.getAttribute('data-anchor') === {anchor};"
    )
}

/// Odd and multibyte input: a message, nothing thrown, no markup made.
fn odd_input(d: &Driver, page: &str) {
    for q in [
        "日本語",
        "ÜBER c1 ✓",
        "🚀 c1",
        "((",
        "\\",
        ".*+?[](){}|^$",
        "<img src=x onerror=alert(1)>",
        "c1 / c4 · —",
        "-",
    ] {
        let s = find(d, q);
        assert!(
            !s["status"].as_str().unwrap().is_empty(),
            "{page}: {q:?}: {s}"
        );
    }
    // A very long query, set at once.
    d.exec(
        "var i = document.querySelector(arguments[0]); i.value = 'c1 '.repeat(400) + 'x'.repeat(2000); \
         i.dispatchEvent(new Event('input')); return true;",
        json!([FIELD]),
    );
    let made = d.exec(
        "return document.querySelectorAll('.agentx-picker img, .agentx-find-status *').length;",
        json!([]),
    );
    assert_eq!(made, 0, "{page}: markup from the query");
    let errors = d.console_errors();
    assert!(errors.is_empty(), "{page}: console errors: {errors:?}");
}

/// With a GPU budget, only launches that fit are listed; the status counts
/// the others; choosing one keeps the budget.
fn within_the_budget(d: &Driver, page: &str) {
    let smallest = d.exec(
        "var data = JSON.parse(document.querySelector('script.agentx-model-data').textContent); \
         return Math.min.apply(null, data.deps.map(function (d) { return d.gpus; }));",
        json!([]),
    );
    type_into(
        d,
        ".agentx-picker .agentx-budget-gpus",
        &smallest.to_string(),
    );
    let s = find(d, "c1 ");
    let fits = d.exec(
        "var data = JSON.parse(document.querySelector('script.agentx-model-data').textContent), out = {}; \
         var most = arguments[0]; \
         data.deps.forEach(function (d) { d.sets.forEach(function (s) { \
           var a = s[3] === 0 ? [d.anchor, d.points[s[0]][0].replace(/ \\/ c/g, '-'), s[1], s[2]].join('-') : s[3]; \
           out[a] = d.gpus <= most; }); }); return out;",
        json!([smallest]),
    );
    for m in s["matches"].as_array().unwrap() {
        assert_eq!(
            fits[m[0].as_str().unwrap()],
            true,
            "{page}: {m} is over the budget"
        );
    }
    let status = s["status"].as_str().unwrap();
    if status.contains("beyond your GPU budget") {
        assert!(status.contains("more beyond your GPU budget)."), "{status}");
    }
    if !s["matches"].as_array().unwrap().is_empty() {
        keys(d, ENTER);
        let budget = d.exec(
            "return document.querySelector('.agentx-picker .agentx-budget-gpus').value;",
            json!([]),
        );
        assert_eq!(
            budget,
            json!(smallest.to_string()),
            "{page}: the budget kept"
        );
    }
    d.exec(
        "document.querySelector('.agentx-picker .agentx-budget-clear').click(); return true;",
        json!([]),
    );
}

#[test]
fn browser_find_field_on_every_sample_model_page() {
    let Some(driver) = chromedriver() else { return };
    let out = support::temp("find-export");
    mdbook_agentx::export_offline(&support::repo(), &out).unwrap();
    let base = format!("file://{}/", out.display());
    let d = Driver::start(&driver, "find");
    view(&d, 1400, 900, false);
    let mut pages: Vec<String> = std::fs::read_dir(out.join("models"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".html"))
        .map(|f| format!("models/{f}"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 5, "{pages:?}");
    d.console_errors();
    for page in &pages {
        d.goto("about:blank");
        d.goto(&format!("{base}{page}"));
        let label = d.exec(
            "var i = document.querySelector(arguments[0]); return i && i.labels[0].textContent;",
            json!([FIELD]),
        );
        assert_eq!(label, "Find a launch", "{page}");
        crate::browser_search_path::click(&d, FIELD);
        counts_match_the_data(&d, page);
        keys_and_choosing(&d, page);
        odd_input(&d, page);
        within_the_budget(&d, page);
        let errors = d.console_errors();
        assert!(errors.is_empty(), "{page}: console errors: {errors:?}");
    }
    // A deployment page (one deployment) has no field.
    let dep = std::fs::read_dir(out.join("models/glm-5.2"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    d.goto(&format!(
        "{base}models/glm-5.2/{}",
        dep.file_name().to_string_lossy()
    ));
    let field = d.exec(
        "return !!document.querySelector('.agentx-find-input');",
        json!([]),
    );
    assert_eq!(field, false, "a deployment page has no field");
    axe_and_width(&d, &base, &pages[0]);
}

/// Axe and the page's width with the matches shown, at 1400 and 390 px,
/// light and dark.
fn axe_and_width(d: &Driver, base: &str, page: &str) {
    let axe = axe_source();
    for (w, h) in [(1400, 900), (390, 844)] {
        for dark in [false, true] {
            view(d, w, h, dark);
            d.goto("about:blank");
            d.goto(&format!("{base}{page}"));
            crate::browser_search_path::click(d, FIELD);
            keys(d, "c1");
            let s = state(d);
            assert_eq!(s["open"], true, "{page} {w} px");
            assert_eq!(s["wide"], false, "{page} {w} px: the page scrolls sideways");
            let first = crate::browser_search_path::in_view(d, FIRST_MATCH, false);
            assert_eq!(
                first["inView"], true,
                "{page} {w} px: the first match: {first}"
            );
            if let Some(axe) = &axe {
                let v = axe_violations(d, axe);
                assert!(v.is_empty(), "{page} at {w} px, dark {dark}: axe: {v:#?}");
            }
        }
    }
    view(d, 1400, 900, false);
}
