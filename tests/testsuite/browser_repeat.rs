//! A chapter that shows the same launches more than once (issue 25's
//! 10,000 directives): a repeat's picker data names the first section
//! showing them (`{"like": section}`, render/model_data.rs), so the page
//! and the data files beside it carry each distinct picker once. Every
//! picker still starts, each with data of its own, and pickers sharing a
//! data file both load it.

use serde_json::{Value, json};

use crate::browser::{Driver, chromedriver};
use crate::support;

/// The mini book with one chapter of three directives: the model, the
/// model on H200, the model again.
fn repeating_book(name: &str) -> (support::Scratch, support::Scratch) {
    let book = support::mini_book(name);
    std::fs::write(
        book.join("src/mini.md"),
        "# Mini\n\n<<agentx page=\"Mini-Test\">>\n\n<<agentx page=\"Mini-Test\" hardware=\"h200\">>\n\n\
         <<agentx page=\"Mini-Test\">>\n",
    )
    .unwrap();
    let out = support::temp(&format!("{name}-out"));
    mdbook_agentx::build(
        &book,
        &mdbook_agentx::BuildOptions {
            dest: Some(out.to_path_buf()),
            allow_dest_outside: true,
            ..Default::default()
        },
    )
    .unwrap();
    (book, out)
}

#[test]
fn a_repeated_picker_shares_its_data_file_and_light_part() {
    let (_book, out) = repeating_book("repeat-files");
    let mut data_files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("mini.agentx-data"))
        .collect();
    data_files.sort();
    // Two distinct pickers (all hardware, H200 only): two files.
    assert_eq!(data_files, ["mini.agentx-data-2.js", "mini.agentx-data.js"]);
    let page = support::read(&out.join("mini.html"));
    let scripts: Vec<&str> = page
        .split("<script type=\"application/json\" class=\"agentx-model-data\">")
        .skip(1)
        .map(|s| s.split("</script>").next().unwrap())
        .collect();
    assert_eq!(scripts.len(), 3);
    assert!(scripts[0].contains("\"full\":\"mini.agentx-data.js\""));
    assert!(scripts[1].contains("\"full\":\"mini.agentx-data-2.js\""));
    assert_eq!(scripts[2], "{\"like\":\"agentic-long-context-deployment\"}");
    // Each mount names its own section.
    for section in [
        "agentic-long-context-deployment",
        "agentic-long-context-deployment-mini-test",
        "agentic-long-context-deployment-mini-test-2",
    ] {
        assert!(
            page.contains(&format!(
                "<div class=\"agentx-picker\" data-section=\"{section}\" hidden>"
            )),
            "{section}"
        );
    }
}

/// Per picker: its chips, the anchor its window shows, whether it loaded
/// the whole data.
const PICKERS: &str = r##"
return Array.prototype.map.call(document.querySelectorAll(".agentx-picker"), function (p) {
  var w = p.querySelector(".agentx-data-window");
  return { chips: p.querySelectorAll(".agentx-chip").length,
    hw: Array.prototype.map.call(p.querySelectorAll('.agentx-chip[data-row="hw"]'), function (c) { return c.value; }),
    shown: w && w.getAttribute("data-anchor"), full: p.getAttribute("data-full") };
});
"##;

#[test]
fn browser_every_repeated_picker_starts_and_loads_the_shared_data() {
    let Some(driver) = chromedriver() else { return };
    let (_book, out) = repeating_book("repeat-browser");
    let d = Driver::start(&driver, "repeat");
    d.goto(&format!("file://{}/mini.html", out.display()));
    let pickers = d.exec(PICKERS, json!([]));
    let pickers = pickers.as_array().unwrap();
    assert_eq!(pickers.len(), 3, "{pickers:?}");
    for (i, p) in pickers.iter().enumerate() {
        assert!(
            p["chips"].as_u64().unwrap() > 0,
            "picker {i} did not start: {p}"
        );
        assert!(p["shown"].is_string(), "picker {i} shows no window: {p}");
    }
    // The repeat is the first picker again; the H200 one has one hardware.
    assert_eq!(pickers[2]["chips"], pickers[0]["chips"]);
    assert_eq!(pickers[2]["shown"], pickers[0]["shown"]);
    assert_eq!(pickers[1]["hw"].as_array().unwrap().len(), 1);
    // Another choice on the first picker, then on its repeat: both load
    // the shared file, each into data of its own.
    for i in [0, 2] {
        let clicked = d.exec(
            "var c = document.querySelectorAll('.agentx-picker')[arguments[0]] \
               .querySelector('.agentx-chip[data-row=\"point\"][aria-pressed=\"false\"]'); \
             if (c) c.click(); return !!c;",
            json!([i]),
        );
        assert_eq!(clicked, Value::Bool(true), "picker {i}");
        crate::browser_mdbook::wait_until(
            &d,
            &format!(
                "var p = document.querySelectorAll('.agentx-picker')[{i}]; \
                 return p.getAttribute('data-full') === 'loaded' && !!p.querySelector('.agentx-data-window');"
            ),
            "a picker's whole data loads",
        );
    }
    // Both moved to the second point: the same set, and each window's
    // status label resolved (expanding shared data twice lost them).
    let after = d.exec(PICKERS, json!([]));
    assert_eq!(after[0]["shown"], after[2]["shown"], "{after}");
    assert_ne!(after[0]["shown"], pickers[0]["shown"], "{after}");
    let badges = d.exec(
        "return Array.prototype.map.call(document.querySelectorAll('.agentx-picker'), \
           function (p) { var b = p.querySelector('.agentx-data-window .agentx-badge'); \
             return b ? b.textContent.trim() : null; });",
        json!([]),
    );
    let badges = badges.as_array().unwrap();
    assert!(
        badges.iter().all(|b| b
            .as_str()
            .is_some_and(|b| !b.is_empty() && b != "undefined")),
        "a picker's window has no status label: {badges:?}"
    );
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
}

/// The same chapter under real mdBook (the light part inline, the whole
/// data in the book's data pages) and in the single-file export (every
/// chapter in one page, the data inline): each repeat resolves to its own
/// chapter's earlier section, every picker starts, and a launch beyond
/// what the page carries loads (under mdBook from the data pages, read in
/// frames from `file://`) and copies what `decode` prints.
#[test]
fn browser_repeated_pickers_start_under_mdbook_and_in_the_single_file() {
    let Some(driver) = chromedriver() else { return };
    let (book, _out) = repeating_book("repeat-hosts");
    let mut urls = Vec::new();
    if support::mdbook_available() {
        mdbook_agentx::install(&book, &Default::default()).unwrap();
        let site = support::temp("repeat-hosts-mdbook");
        support::mdbook_build(&book, &site);
        let page = support::read(&site.join("mini.html"));
        assert_eq!(
            page.matches("{\"like\":\"agentic-long-context-deployment\"}")
                .count(),
            1,
            "mdBook's page carries the repeat as a reference"
        );
        let parts: Vec<String> = std::fs::read_dir(site.join("mini"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("agentx_launch_data"))
            .collect();
        assert_eq!(parts.len(), 2, "a data page per distinct picker: {parts:?}");
        assert!(page.contains("\"parts\":[\"mini/agentx_launch_data.md\"]"));
        assert!(page.contains("\"parts\":[\"mini/agentx_launch_data_2.md\"]"));
        urls.push((format!("file://{}/mini.html", site.display()), site));
    }
    let single = support::temp("repeat-hosts-single");
    std::fs::create_dir_all(&single).unwrap();
    let file = single.join("book.html");
    mdbook_agentx::write_single_file(&book, &file).unwrap();
    urls.push((format!("file://{}", file.display()), single));
    let d = Driver::start(&driver, "repeat-hosts");
    for (url, _keep) in &urls {
        d.goto(url);
        let pickers = d.exec(PICKERS, json!([]));
        let pickers = pickers.as_array().unwrap();
        assert!(pickers.len() >= 3, "{url}: {pickers:?}");
        for (i, p) in pickers.iter().enumerate() {
            assert!(
                p["chips"].as_u64().unwrap() > 0,
                "{url}: picker {i} did not start: {p}"
            );
        }
        // Every picker to its second point: beyond what the page carries
        // under mdBook.
        let first: Vec<&Value> = pickers.iter().map(|p| &p["shown"]).collect();
        let copied = crate::browser_axe::exec_async(
            &d,
            "var done = arguments[arguments.length - 1], out = [], t = Date.now();
             var first = arguments[0];
             var pickers = Array.prototype.slice.call(document.querySelectorAll('.agentx-picker'));
             pickers.forEach(function (p) {
               var c = p.querySelector('.agentx-chip[data-row=\"point\"][aria-pressed=\"false\"]');
               if (c) c.click();
             });
             (function wait() {
               var ready = pickers.every(function (p) {
                 var w = p.querySelector('.agentx-data-window');
                 return w && w.getAttribute('data-anchor') !== first[pickers.indexOf(p)]; });
               if (!ready && Date.now() - t < 10000) return setTimeout(wait, 50);
               pickers.forEach(function (p) {
                 var w = p.querySelector('.agentx-data-window');
                 window.__agentxLastCopy = null;
                 var b = w && w.querySelector('button.agentx-copy-all');
                 if (b) b.click();
                 out.push({ anchor: w && w.getAttribute('data-anchor'), copy: window.__agentxLastCopy,
                   full: p.getAttribute('data-full') });
               });
               done(out);
             })();",
            json!([first]),
        );
        for (i, c) in copied.as_array().unwrap().iter().enumerate() {
            let anchor = c["anchor"]
                .as_str()
                .unwrap_or_else(|| panic!("{url}: picker {i}: {c}"));
            assert_ne!(
                Some(anchor),
                pickers[i]["shown"].as_str(),
                "{url}: picker {i} moved: {c}"
            );
            assert_eq!(
                c["copy"].as_str(),
                Some(decoded_copy_all(&book, anchor).as_str()),
                "{url}: picker {i}: {anchor}"
            );
        }
        let errors = d.console_errors();
        assert!(errors.is_empty(), "{url}: console errors: {errors:?}");
    }
}

/// What `decode` prints for the mini fixture's set `anchor`.
fn decoded_copy_all(book: &std::path::Path, anchor: &str) -> String {
    let page = mdbook_agentx::decode_file(&book.join("data/mini.json"))
        .unwrap()
        .page;
    (page.deployments.iter())
        .flat_map(|d| &d.command_sets)
        .find(|s| s.anchor == anchor)
        .unwrap_or_else(|| panic!("no set {anchor}"))
        .copy_all_text()
}
