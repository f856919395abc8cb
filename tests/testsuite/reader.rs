//! The reader's side of a command set outside the browser: the text Copy
//! all gives (= what `decode` prints) pastes into bash, and the Env Vars
//! block lists what to fill in.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use mdbook_agentx::{CommandSet, Library, decode_file};

use crate::support;

/// `bash -n` (parse only, nothing runs) on `text`; the error, if any.
pub(crate) fn bash_parse_error(text: &str) -> Option<String> {
    let mut child = Command::new("bash")
        .arg("-n")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
}

fn check_sets<'a>(what: &str, sets: impl Iterator<Item = &'a CommandSet>) -> usize {
    let mut n = 0;
    for s in sets {
        let text = s.copy_all_text();
        if let Some(e) = bash_parse_error(&text) {
            panic!("{what}: {}: bash -n fails: {e}\n{text}", s.anchor);
        }
        for line in text.lines().filter(|l| l.starts_with("export ")) {
            let (_, value) = line.split_once('=').unwrap();
            assert!(
                value.starts_with("\"<") && value.ends_with(">\""),
                "{what}: {}: {line}",
                s.anchor
            );
        }
        n += 1;
    }
    n
}

/// Every command set's Copy all text parses as bash: the sample book, the
/// fixture, and the real data files in ../shared when present.
#[test]
fn copy_all_text_is_valid_bash() {
    let lib = Library::load(&support::repo(), Path::new("agentx")).unwrap();
    let mut n = 0;
    for (_, page) in lib.pages() {
        n += check_sets(&page.model, page.command_sets());
    }
    assert_eq!(n, support::sample_counts().command_sets);
    let mini = decode_file(&support::fixture("data/mini.json")).unwrap();
    let mut real = 0;
    for name in [
        "agentx-deepseek-v4_1.json",
        "agentx-qwen3.8-flash-next.json",
        "agentx-glm-5.2.excerpt.json",
    ] {
        if let Some(p) = support::shared(&format!("reference/sglang-cookbook/{name}")) {
            let page = decode_file(&p).unwrap().page;
            real += check_sets(name, page.command_sets());
        }
    }
    let fixture = check_sets("mini.json", mini.page.command_sets());
    eprintln!(
        "bash -n passes on the Copy all text of {n} sample sets, {fixture} fixture sets, {real} real sets"
    );
}

/// Every page's `<title>` is its own, and a deployment chapter's names its
/// model (as do its heading and the previous/next labels around it).
#[test]
fn titles_are_unique_and_name_the_model() {
    let out = support::temp("titles-export");
    mdbook_agentx::export_offline(&support::repo(), &out).unwrap();
    let lib = Library::load(&support::repo(), Path::new("agentx")).unwrap();
    let models: Vec<String> = lib.pages().map(|(_, p)| p.model.clone()).collect();
    let mut seen: std::collections::HashMap<String, String> = Default::default();
    let mut deployment_pages = 0;
    for (rel, bytes) in support::files_under(&out) {
        let rel = rel.to_string_lossy().replace('\\', "/");
        // index.html is the first chapter again, as mdBook writes it.
        if !rel.ends_with(".html") || rel == "index.html" {
            continue;
        }
        let html = String::from_utf8_lossy(&bytes);
        let title = html
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or_else(|| panic!("{rel}: no <title>"))
            .to_string();
        if let Some(other) = seen.insert(title.clone(), rel.clone()) {
            panic!("{rel} and {other} share the title {title}");
        }
        // models/<model>/<deployment>.html
        if rel.matches('/').count() == 2 && rel.starts_with("models/") {
            deployment_pages += 1;
            let model = models
                .iter()
                .find(|m| title.starts_with(&format!("{m} · ")))
                .unwrap_or_else(|| panic!("{rel}: title {title} does not name the model"));
            for rel_link in ["prev", "next"] {
                if let Some(label) = html
                    .split(&format!("rel=\"{rel_link}\""))
                    .nth(1)
                    .and_then(|s| s.split("</a>").next())
                    // A neighbour outside models/ (`../../authoring.html`) is no model's.
                    && !label.contains("href=\"../../")
                {
                    assert!(
                        models.iter().any(|m| label.contains(m.as_str())),
                        "{rel}: the {rel_link} label does not name a model: {label}"
                    );
                }
            }
            assert!(html.contains(&format!(">{model} · ")), "{rel}: heading");
        }
    }
    assert_eq!(deployment_pages, 28);
    eprintln!(
        "{} pages, each with its own <title>; {deployment_pages} deployment chapters titled with their model",
        seen.len()
    );
}

/// Code-like data text (a flag in a deployment's detail, quotes, dots)
/// reads as written everywhere a page shows it: `<title>`, h1, set
/// headings, tables, the sidebar, the standalone build and real mdBook
/// (whose smart punctuation, on by default, made `--max-running-requests`
/// read `–max-running-requests`).
#[test]
fn code_like_text_is_not_made_typographic() {
    let book = support::mini_book("smart-punctuation");
    let data = book.join("data/mini.json");
    let text = std::fs::read_to_string(&data).unwrap();
    let detail = "MTP 3-1-4 · --max-running-requests 48 · \\\"q\\\" it's...";
    let edited = text.replacen(
        "\"detail\": \"MTP 3-1-4\"",
        &format!("\"detail\": \"{detail}\""),
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&data, edited).unwrap();
    let flag = "--max-running-requests 48";
    let mut sites = vec![("standalone", book.join("site"))];
    mdbook_agentx::build(
        &book,
        &mdbook_agentx::BuildOptions {
            dest: Some(book.join("site")),
            ..Default::default()
        },
    )
    .unwrap();
    if support::mdbook_available() {
        support::mdbook_build(&book, Path::new("mdbook-site"));
        sites.push(("mdbook", book.join("mdbook-site")));
    }
    for (what, site) in sites {
        let mut titles = 0;
        for (rel, bytes) in support::files_under(&site) {
            let rel = rel.to_string_lossy();
            if !(rel.ends_with(".html") || rel.ends_with(".js")) || rel.contains("agentx") {
                continue;
            }
            let html = String::from_utf8_lossy(&bytes);
            for typographic in ["–max", "—max", "“q", "q”", "it’s", "it's…", "it&#39;s…"]
            {
                assert!(!html.contains(typographic), "{what} {rel}: {typographic}");
            }
            if html.contains(&format!(
                "<title>Mini-Test · H200 · Agg TP4 · MTP 3-1-4 · {flag}"
            )) {
                titles += 1;
                // The page's heading (mdBook's menu title is an h1 too).
                let h1 = html
                    .split("<h1 id=")
                    .nth(1)
                    .and_then(|h| h.split("</h1>").next());
                assert!(
                    h1.is_some_and(|h| h.contains(flag)),
                    "{what} {rel}: h1 {h1:?}"
                );
            }
        }
        assert_eq!(titles, 1, "{what}: the deployment page's title");
    }
}
