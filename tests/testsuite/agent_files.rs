//! What the sample book publishes for agents, built standalone and by real
//! `mdbook build` after `install --agent-files`: `llms.txt` lists every model
//! page and deployment page and every link in it resolves to a file of the
//! site; every Markdown twin's Copy all blocks are what `decode` prints;
//! `launches.json` has one entry per command set whose `copy_all` is what
//! `decode` prints. The expected pages and texts are worked out here from
//! the data files and the chapters' directives, not from the site.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use mdbook_agentx::{BuildOptions, build, decode_file};
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

use crate::support;

/// One command set of the sample data, as `decode` gives it.
struct Set {
    model: String,
    file: PathBuf,
    cell: String,
    conc: u32,
    tier: &'static str,
    router: &'static str,
    copy_all: String,
}

/// Every command set of the sample book's data, by anchor (anchors are
/// unique across the sample's models, which is checked).
fn sample_sets() -> BTreeMap<String, Set> {
    let mut sets = BTreeMap::new();
    for e in std::fs::read_dir(support::repo().join("agentx")).unwrap() {
        let file = e.unwrap().path();
        let page = decode_file(&file).unwrap().page;
        for s in page.command_sets() {
            let set = Set {
                model: page.model.clone(),
                file: file.clone(),
                cell: s.cell_id.clone(),
                conc: s.concs[0],
                tier: s.tier.id(),
                router: s.router.id(),
                copy_all: s.copy_all_text(),
            };
            assert!(
                sets.insert(s.anchor.clone(), set).is_none(),
                "{} twice",
                s.anchor
            );
        }
    }
    assert_eq!(sets.len(), support::sample_counts().command_sets);
    sets
}

/// `slug` as the guide defines it (`content/guide/directive.md`): lower-cased, each run of characters
/// other than `[a-z0-9]` one `-`, none at the ends.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The pages `llms.txt` must link per model: the chapter holding its
/// directive, then `models/<chapter stem>/<slug(cell)>.md` per cell.
fn expected_links() -> BTreeMap<String, BTreeSet<String>> {
    let mut chapter_of = BTreeMap::new();
    for e in std::fs::read_dir(support::repo().join("content/models")).unwrap() {
        let path = e.unwrap().path();
        let text = support::read(&path);
        let page = text.split("<<agentx page=\"").nth(1).unwrap();
        let model = page.split('"').next().unwrap().to_string();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        chapter_of.insert(model, stem);
    }
    let mut want: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for set in sample_sets().values() {
        let stem = &chapter_of[&set.model];
        let links = want.entry(set.model.clone()).or_default();
        links.insert(format!("models/{stem}.md"));
        links.insert(format!("models/{stem}/{}.md", slug(&set.cell)));
    }
    want
}

/// The links of `llms.txt` by its `##` sections.
fn sections(llms: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let (mut heading, mut in_h2) = (String::new(), false);
    for e in Parser::new(llms) {
        match e {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                ..
            }) => (in_h2, heading) = (true, String::new()),
            Event::End(TagEnd::Heading(_)) => in_h2 = false,
            Event::Text(t) if in_h2 => heading.push_str(&t),
            Event::Start(Tag::Link { dest_url, .. }) => {
                out.entry(heading.clone())
                    .or_default()
                    .insert(dest_url.to_string());
            }
            _ => {}
        }
    }
    out
}

/// Every `(set id, Copy all text)` of a twin: the `bash` block after the
/// **Copy all** label in each set's wrapper.
fn copy_alls(twin: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for part in twin
        .split("<div class=\"agentx-set\" data-anchor=\"")
        .skip(1)
    {
        let id = part.split('"').next().unwrap().to_string();
        let after = part
            .split("**Copy all** (the whole set as one script):\n\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{id} has no Copy all"));
        // The fence is the first line; the block ends at the same fence.
        let (fence, rest) = after.split_once('\n').unwrap();
        let fence = fence.trim_end_matches("bash");
        let body = rest.split(&format!("\n{fence}\n")).next().unwrap();
        out.push((id, format!("{body}\n")));
    }
    out
}

/// What `decode` prints for one set.
fn decode(set: &Set) -> String {
    let out = support::succeed(
        Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
            .arg("decode")
            .arg(&set.file)
            .args(["--cell", &set.cell, "--conc", &set.conc.to_string()])
            .args(["--kv", set.tier, "--router", set.router]),
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The checks of the module documentation over a built site at `site`.
fn check_agent_files(site: &Path) {
    let sets = sample_sets();
    // `decode` itself, for the first set of each model; the library's
    // Copy all (what `decode` prints) for every set below.
    let mut models = BTreeSet::new();
    for set in sets.values().filter(|s| models.insert(s.model.clone())) {
        assert_eq!(decode(set), set.copy_all, "{}", set.cell);
    }
    check_llms_txt(site);
    check_twins(site, &sets);
    check_launches(site, &sets);
}

/// `llms.txt`: the title, a section per model linking its pages, every
/// link a file of the site.
fn check_llms_txt(site: &Path) {
    let llms = support::read(&site.join("llms.txt"));
    let title = support::read(&support::repo().join("book.toml"));
    let title = title
        .split("title = \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(llms.starts_with(&format!("# {title}\n\n> ")), "{llms}");
    let found = sections(&llms);
    for (model, links) in expected_links() {
        assert_eq!(found.get(&model), Some(&links), "section of {model}");
    }
    for link in found.values().flatten() {
        let file = percent_encoding::percent_decode_str(link)
            .decode_utf8()
            .unwrap();
        assert!(
            site.join(&*file).is_file(),
            "{link} is not a file of the site"
        );
    }
}

/// Every twin: each set's Copy all is decode's; every set is in one.
fn check_twins(site: &Path, sets: &BTreeMap<String, Set>) {
    let mut seen = BTreeSet::new();
    let twins = support::files_under(site)
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "md"));
    for (path, bytes) in twins {
        assert!(
            site.join(&path).with_extension("html").is_file(),
            "{}",
            path.display()
        );
        for (id, text) in copy_alls(&String::from_utf8(bytes).unwrap()) {
            assert_eq!(text, sets[&id].copy_all, "{} in {}", id, path.display());
            seen.insert(id);
        }
    }
    assert_eq!(
        seen.len(),
        sets.len(),
        "every set has its Copy all in a twin"
    );
}

/// `launches.json`: one entry per set, its Copy all decode's, its
/// permalink a page holding the set's id.
fn check_launches(site: &Path, sets: &BTreeMap<String, Set>) {
    let launches: serde_json::Value =
        serde_json::from_str(&support::read(&site.join("launches.json"))).unwrap();
    assert_eq!(launches["version"], 1);
    let entries = launches["launches"].as_array().unwrap();
    assert_eq!(entries.len(), 576);
    assert_eq!(entries.len(), sets.len());
    for e in entries {
        let id = e["id"].as_str().unwrap();
        let set = &sets[id];
        assert_eq!(e["copy_all"].as_str(), Some(set.copy_all.as_str()), "{id}");
        assert_eq!(e["model"].as_str(), Some(set.model.as_str()));
        assert_eq!(
            (e["tier"].as_str(), e["router"].as_str()),
            (Some(set.tier), Some(set.router))
        );
        let (page, anchor) = e["permalink"].as_str().unwrap().split_once('#').unwrap();
        assert_eq!(anchor, id);
        let html = support::read(&site.join(page));
        assert!(html.contains(&format!("id=\"{id}\"")), "{page} lacks #{id}");
        for key in ["hardware", "checkpoint", "deployment", "image"] {
            assert!(!e[key].as_str().unwrap().is_empty(), "{id}: {key}");
        }
        assert!(
            e["gpus"].as_u64().unwrap() > 0 && e["nodes"].as_u64().unwrap() > 0,
            "{id}"
        );
    }
}

#[test]
fn standalone_build_publishes_llms_txt_twins_and_launches() {
    let out = support::temp("agents-site");
    let opts = BuildOptions {
        dest: Some(out.to_path_buf()),
        allow_dest_outside: true,
        ..BuildOptions::default()
    };
    build(&support::repo(), &opts).unwrap();
    check_agent_files(&out);
    // llms-full.txt: every page's twin, in reading order.
    let full = support::read(&out.join("llms-full.txt"));
    let sources: Vec<&str> = full
        .lines()
        .filter_map(|l| l.strip_prefix("Source: "))
        .collect();
    assert_eq!(
        sources.len(),
        support::sample_pages() - 1,
        "one per chapter"
    );
    for s in &sources {
        let twin = support::read(&out.join(s));
        assert!(full.contains(&format!("Source: {s}\n\n{twin}")), "{s}");
    }
}

#[test]
fn mdbook_build_after_install_publishes_the_same() {
    if !support::mdbook_available() {
        return;
    }
    let book = support::sample_book_copy("agents-mdbook");
    let bin = env!("CARGO_BIN_EXE_mdbook-agentx");
    // This binary as the preprocessor; `install` gives the renderer the same.
    let toml = support::read(&book.join("book.toml"));
    let toml = toml.replace(
        "command = \"cargo run --quiet --release --\"",
        &format!("command = {bin:?}"),
    );
    std::fs::write(book.join("book.toml"), toml).unwrap();
    support::succeed(
        Command::new(bin)
            .args(["install", "--agent-files"])
            .arg(&*book),
    );
    let toml = support::read(&book.join("book.toml"));
    assert!(
        toml.contains(&format!(
            "[output.html-agentx]\ncommand = \"{bin} agent-files\"\n"
        )),
        "{toml}"
    );
    let built = Command::new("mdbook")
        .arg("build")
        .current_dir(&*book)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{err}");
    assert!(err.contains("mdbook-agentx: wrote llms.txt"), "{err}");
    check_agent_files(&book.join("book/html"));
    // The same files as a standalone build of the same book.
    let out = support::temp("agents-standalone");
    let opts = BuildOptions {
        dest: Some(out.to_path_buf()),
        allow_dest_outside: true,
        ..BuildOptions::default()
    };
    build(&book, &opts).unwrap();
    for name in ["llms.txt", "llms-full.txt", "launches.json"] {
        let ours = support::read(&out.join(name));
        assert_eq!(
            support::read(&book.join("book/html").join(name)),
            ours,
            "{name}"
        );
    }
}
