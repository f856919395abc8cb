//! `markdown -d OUT`: the sample book as portable Markdown. Every internal
//! link (chapters, SUMMARY.md, images) resolves to a written file and, with a
//! fragment, to an `<a id>` anchor in it; every command set's anchor is there;
//! no `{#id}` heading attribute is left; output contained and never half
//! written.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mdbook_agentx::Library;
use pulldown_cmark::{Event, Options, Parser, Tag};

use crate::support;

fn markdown(book: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .arg("markdown")
        .arg(book)
        .args(args)
        .output()
        .unwrap()
}

/// Plain GFM, as another site generator parses it: no heading attributes.
fn gfm() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
}

/// The `<a id="…">` anchors of a file (ids as written: the sample's are plain).
fn anchors_in(text: &str) -> HashSet<String> {
    text.split("<a id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

/// Every link and image destination of a Markdown file.
fn links_in(text: &str) -> Vec<String> {
    Parser::new_ext(text, gfm())
        .filter_map(|e| match e {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

fn is_external(url: &str) -> bool {
    url.contains("://") || url.starts_with("mailto:")
}

/// Checks every internal link of every Markdown file under `out`; returns
/// how many links with a fragment and without were checked.
fn check_links(out: &Path) -> (usize, usize) {
    let files: HashMap<PathBuf, String> = support::files_under(out)
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "md"))
        .map(|(p, b)| (p, String::from_utf8(b).unwrap()))
        .collect();
    let (mut with_fragment, mut plain) = (0, 0);
    for (file, text) in &files {
        for url in links_in(text) {
            if is_external(&url) {
                continue;
            }
            let (path, fragment) = url.split_once('#').unwrap_or((&url, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                let joined = file.parent().unwrap().join(path);
                normalize(&joined)
            };
            assert!(
                out.join(&target).is_file(),
                "{}: link {url} → {} is not in the output",
                file.display(),
                target.display()
            );
            if fragment.is_empty() {
                plain += 1;
                continue;
            }
            let anchors = anchors_in(&files[&target]);
            assert!(
                anchors.contains(fragment),
                "{}: link {url}: no <a id=\"{fragment}\"> in {}",
                file.display(),
                target.display()
            );
            with_fragment += 1;
        }
    }
    (with_fragment, plain)
}

/// `a/b/../c` → `a/c`.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[test]
fn sample_book_as_portable_markdown() {
    let book = support::sample_book_copy("portable");
    let out = book.join("portable");
    let r = markdown(&book, &["-d", out.to_str().unwrap()]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let summary = support::read(&out.join("SUMMARY.md"));
    let parsed = mdbook_summary::parse_summary(&summary).expect("SUMMARY.md parses as mdBook's");
    assert!(!parsed.numbered_chapters.is_empty());
    // One file per chapter of the source SUMMARY and per deployment.
    let written = support::files_under(&out)
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "md") && p != Path::new("SUMMARY.md"))
        .count();
    assert_eq!(
        written,
        support::sample_pages() - 1,
        "chapters (no index copy)"
    );
    let all: String = support::files_under(&out)
        .into_iter()
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect();
    assert!(
        !all.contains(" .agentx-set}"),
        "a heading attribute is left"
    );
    for (p, b) in support::files_under(&out.join("models")) {
        let text = String::from_utf8(b).unwrap();
        assert!(
            !text.contains("<<agentx"),
            "{}: a directive is left",
            p.display()
        );
    }
    let anchors = anchors_in(&all);
    let lib = Library::load(&support::repo(), Path::new("agentx")).unwrap();
    let mut sets = 0;
    for (_, page) in lib.pages() {
        for set in page.command_sets() {
            assert!(
                anchors.contains(&set.anchor),
                "no anchor for {}",
                set.anchor
            );
            sets += 1;
        }
    }
    assert_eq!(sets, support::sample_counts().command_sets);
    let (with_fragment, plain) = check_links(&out);
    eprintln!(
        "portable markdown: {written} chapters, {sets} command-set anchors, {with_fragment} \
         links with a fragment and {plain} without, all resolved"
    );
    assert!(
        with_fragment > 100 && plain > 50,
        "{with_fragment} / {plain}"
    );
}

#[test]
fn output_contained_and_never_half_written() {
    let book = support::sample_book_copy("portable-safe");
    let outside = support::temp("portable-outside");
    let r = markdown(&book, &["-d", outside.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        err.contains("is outside the book") && err.contains("--allow-dest-outside"),
        "{err}"
    );
    assert!(!outside.exists(), "nothing written");
    let r = markdown(
        &book,
        &["-d", outside.to_str().unwrap(), "--allow-dest-outside"],
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    for (over, what) in [
        (book.join("content"), "it is the source directory content/"),
        (book.to_path_buf(), "it is the book root"),
        (
            book.join("content/models"),
            "it is inside the source directory content/",
        ),
    ] {
        let r = markdown(&book, &["-d", over.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(
            err.contains(what) && err.contains("could destroy it"),
            "{}: {err}",
            over.display()
        );
    }
    // A failing expansion leaves the previous output as it was.
    let out = book.join("md");
    assert!(
        markdown(&book, &["-d", out.to_str().unwrap()])
            .status
            .success()
    );
    let before = support::files_under(&out);
    let chapter = book.join("content/models/glm-5.2.md");
    let text = support::read(&chapter);
    std::fs::write(
        &chapter,
        text.replace("page=\"GLM-5.2\"", "page=\"No-Such-Page\""),
    )
    .unwrap();
    let r = markdown(&book, &["-d", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("No-Such-Page"), "{err}");
    assert_eq!(support::files_under(&out), before);
}

/// The link check itself: a missing anchor and a missing file are caught.
#[test]
fn the_link_check_fails_on_broken_links() {
    for (what, b_md) in [
        ("missing anchor", Some("# <a id=\"y\"></a>B\n")),
        ("missing file", None),
    ] {
        let out = support::temp(what.replace(' ', "-").as_str());
        std::fs::create_dir_all(&*out).unwrap();
        std::fs::write(out.join("a.md"), "[to b](b.md#x)\n").unwrap();
        if let Some(text) = b_md {
            std::fs::write(out.join("b.md"), text).unwrap();
        }
        let caught = std::panic::catch_unwind(|| check_links(&out)).is_err();
        assert!(caught, "{what} not caught");
    }
}
