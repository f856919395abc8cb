//! Download per process in a real browser, on the exported sample book:
//! on every model page's picker window (every set, chosen with the chips)
//! and on every deployment page's window (every set, chosen with its
//! chips), every Download button of the shown set is clicked; the
//! downloaded text equals the same block's Copy byte for byte and the
//! block as decoded (in order: Env Vars, each process's command and its
//! config files, the loose files); a command is named `<n>-<long
//! title>.sh` (`env-vars.sh`), a config file by its own name; every
//! downloaded script passes `bash -n`. One download is also saved for real
//! (a trusted click, Chromium writing the file) and its bytes compared.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use mdbook_agentx::{CommandSet, Library};
use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver, expected_blocks};
use crate::browser_axe::cdp;
use crate::browser_chrome::view;
use crate::browser_picker::{TARGETS, model_page_of};
use crate::support;

/// Per block of an element (`root`): its Copy's text, and the name and
/// text its Download saves. The Copy of a block is the picker's own
/// (`p.agentx-block-actions`) or the page's (the builder's `copy-code` of
/// the block after the Download).
const BLOCKS: &str = r##"
function blocks(root) {
  return Array.from(root.querySelectorAll("button.agentx-download")).map(function (save) {
    var p = save.parentNode, copy = p.querySelector("button.agentx-copy-block");
    if (!copy) copy = p.nextElementSibling && p.nextElementSibling.querySelector("button.copy-code");
    window.__agentxLastCopy = null;
    window.__agentxLastDownload = null;
    if (copy) copy.click();
    save.click();
    var dl = window.__agentxLastDownload || {};
    return { copy: window.__agentxLastCopy, name: dl.name, text: dl.text, label: save.getAttribute("aria-label") };
  });
}
"##;

/// Chooses each target on the model page with the chips, then reports the
/// window's set and its blocks.
const MODEL_WINDOWS: &str = r##"
var targets = arguments[0], out = [];
function press(row, value) {
  var c = document.querySelector('.agentx-picker .agentx-chip[data-row="' + row + '"][value="' +
    String(value).replace(/"/g, '\\"') + '"]');
  if (c && c.getAttribute("aria-pressed") !== "true") c.click();
}
targets.forEach(function (t) {
  [["hw", t.hw], ["ckpt", t.ckpt], ["dep", t.dep], ["point", t.point], ["tier", t.tier], ["router", t.router]]
    .forEach(function (kv) { press(kv[0], kv[1]); });
  var w = document.querySelector(".agentx-picker .agentx-data-window");
  out.push({ shown: w.getAttribute("data-anchor"), blocks: blocks(w) });
});
return out;
"##;

/// Chooses each target on a deployment page with its chips, then reports
/// the shown set and its blocks.
const PAGE_WINDOWS: &str = r##"
var targets = arguments[0], out = [];
function press(row, value) {
  var c = document.querySelector('.agentx-chip[data-row="' + row + '"][value="' + value + '"]');
  if (c && c.getAttribute("aria-pressed") !== "true") c.click();
}
targets.forEach(function (t) {
  press("point", String(t.point)); press("tier", t.tier); press("router", t.router);
  var w = document.querySelector("div.agentx-set.agentx-shown");
  out.push({ shown: w.getAttribute("data-anchor"), blocks: blocks(w) });
});
return out;
"##;

/// `1 · Prefill worker` → `1-prefill-worker`, as agentx.js names a script.
fn slug(title: &str) -> String {
    let lower = title.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.join("-")
}

/// The file names a set's downloads should have, in block order.
fn expected_names(set: &CommandSet) -> Vec<String> {
    let mut v = Vec::new();
    if !set.placeholders.is_empty() {
        v.push("env-vars.sh".to_string());
    }
    for (i, p) in set.processes.iter().enumerate() {
        v.push(format!(
            "{}.sh",
            slug(&format!("{} {}", i + 1, p.long_title))
        ));
        v.extend(p.files.iter().map(|f| f.name.clone()));
    }
    v.extend(set.loose_files.iter().map(|f| f.name.clone()));
    v
}

/// Checks one window's downloads against its Copy buttons and the decoded
/// set; collects the scripts (`.sh`) to run `bash -n` on. Returns the
/// downloads checked.
fn check_window(
    got: &Value,
    want: &HashMap<String, &CommandSet>,
    at: &str,
    scripts: &mut BTreeSet<String>,
) -> usize {
    let anchor = got["shown"].as_str().unwrap();
    let set = want[anchor];
    let blocks = got["blocks"].as_array().unwrap();
    let texts: Vec<&str> = blocks.iter().map(|b| b["text"].as_str().unwrap()).collect();
    let names: Vec<&str> = blocks.iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        expected_blocks(set),
        "{at}#{anchor}: downloads against decode"
    );
    assert_eq!(names, expected_names(set), "{at}#{anchor}: file names");
    for b in blocks {
        assert_eq!(
            b["copy"], b["text"],
            "{at}#{anchor}: {} differs from its block's Copy",
            b["name"]
        );
        assert_eq!(
            b["label"],
            json!(format!("Download {}", b["name"].as_str().unwrap()))
        );
        if b["name"].as_str().unwrap().ends_with(".sh") {
            scripts.insert(b["text"].as_str().unwrap().to_string());
        }
    }
    blocks.len()
}

/// `bash -n` on each script: it parses as it is.
fn bash_parses(scripts: &BTreeSet<String>) {
    for s in scripts {
        if let Some(e) = crate::reader::bash_parse_error(s) {
            panic!("bash -n refused a downloaded script: {e}\n{s}");
        }
    }
}

#[test]
fn browser_download_equals_copy_and_runs() {
    let Some(driver) = chromedriver() else { return };
    let out = support::temp("download-export");
    mdbook_agentx::export_offline(&support::repo(), &out).unwrap();
    let lib = Library::load(&support::repo(), Path::new("agentx")).unwrap();
    let sets: HashMap<String, &CommandSet> = lib
        .pages()
        .flat_map(|(_, p)| p.command_sets())
        .map(|s| (s.anchor.clone(), s))
        .collect();
    let pages = crate::browser_selector::expected(&out);
    let base = format!("file://{}/", out.display());
    let d = Driver::start(&driver, "download");
    view(&d, 1400, 900, false);
    // The clicks below download nothing to disk (the recorded text is
    // compared); one real download follows.
    cdp(
        &d,
        "Browser.setDownloadBehavior",
        json!({"behavior": "deny"}),
    );
    d.console_errors();
    let mut scripts = BTreeSet::new();
    let (mut on_models, mut on_pages) = (0, 0);
    let mut by_page: HashMap<String, Vec<&String>> = HashMap::new();
    for (a, e) in &pages {
        by_page.entry(e.page().to_string()).or_default().push(a);
    }
    let mut models: Vec<String> = by_page.keys().map(|p| model_page_of(p)).collect();
    models.sort();
    models.dedup();
    for model in &models {
        d.goto(&format!("{base}{model}"));
        crate::browser_budget::load_whole_data(&d);
        let targets = d.exec(TARGETS, json!([]));
        let mut list: Vec<Value> = targets
            .as_object()
            .unwrap()
            .iter()
            .map(|(a, t)| {
                let mut t = t.clone();
                t["anchor"] = json!(a);
                t
            })
            .collect();
        list.sort_by_key(|t| t["anchor"].as_str().unwrap().to_string());
        let got = d.exec(&format!("{BLOCKS}{MODEL_WINDOWS}"), json!([list]));
        for (g, t) in got.as_array().unwrap().iter().zip(&list) {
            assert_eq!(g["shown"], t["anchor"], "{model}: chosen");
            on_models += check_window(g, &sets, model, &mut scripts);
        }
    }
    let mut page_list: Vec<_> = by_page.into_iter().collect();
    page_list.sort();
    for (page, mut anchors) in page_list {
        anchors.sort();
        d.goto(&format!("{base}{page}"));
        let targets: Vec<Value> = anchors
            .iter()
            .map(|a| {
                let s = sets[a.as_str()];
                json!({"anchor": a, "point": s.point, "tier": s.tier.id(), "router": s.router.id()})
            })
            .collect();
        let got = d.exec(&format!("{BLOCKS}{PAGE_WINDOWS}"), json!([targets]));
        for (g, t) in got.as_array().unwrap().iter().zip(&targets) {
            assert_eq!(g["shown"], t["anchor"], "{page}: chosen");
            on_pages += check_window(g, &sets, &page, &mut scripts);
        }
    }
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    bash_parses(&scripts);
    eprintln!(
        "downloads: {on_models} on model pages, {on_pages} on deployment pages, each == its Copy and \
         decode; {} distinct scripts pass bash -n",
        scripts.len()
    );
    real_download(&d, &base, &models[0], &sets);
}

/// A reader's click on the model page's first Download button saves the
/// file: Chromium writes it, with the name and bytes recorded.
fn real_download(d: &Driver, base: &str, model: &str, sets: &HashMap<String, &CommandSet>) {
    let dir = support::temp("download-files");
    cdp(
        d,
        "Browser.setDownloadBehavior",
        json!({"behavior": "allow", "downloadPath": dir.to_string_lossy()}),
    );
    d.goto(&format!("{base}{model}"));
    let id = crate::browser_axe::element_id(d, ".agentx-data-window button.agentx-download");
    d.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
    let rec = d.exec("return window.__agentxLastDownload;", json!([]));
    let name = rec["name"].as_str().unwrap();
    let file = dir.join(name);
    let t = Instant::now();
    while !file.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{name} was not saved in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let anchor = d.exec(
        "return document.querySelector('.agentx-data-window').getAttribute('data-anchor');",
        json!([]),
    );
    let first = &expected_blocks(sets[anchor.as_str().unwrap()])[0];
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        *first,
        "{name}: the saved bytes"
    );
    assert_eq!(rec["text"], json!(first));
    eprintln!("saved {name} ({} bytes) == its block", first.len());
}
