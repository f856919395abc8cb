//! Tests of the builder's internals over the sample book and fixture books:
//! the streamed build against the in-memory render, shortened sidebars of
//! large books, the single file's anchors, HTML fragments.

use std::path::{Path, PathBuf};

use super::export::single_file;
use super::pages::links::{self, attribute_values};
use super::pages::page_html::{LinkMode, render};
use super::remote::remote_assets;
use super::*;
use crate::site::pages::sidebar::{ALL_CHAPTERS, SIDEBAR_FULL_LIMIT, TOP_LEVEL_WINDOW};
use crate::test_support::{self as support, files_under};

/// The whole error chain of a build that must fail.
fn build_error(book: &Path, out: &Path) -> String {
    format!("{:#}", build_into(book, out).unwrap_err())
}

fn build_into(book: &Path, out: &Path) -> anyhow::Result<BuildReport> {
    build(
        book,
        &BuildOptions {
            dest: Some(out.to_path_buf()),
            allow_dest_outside: true,
            ..Default::default()
        },
    )
}

#[test]
fn single_file_keeps_anchors_unique_and_links_inside() {
    let html = single_file(&support::repo()).unwrap().html;
    assert!(remote_assets(&html).is_empty());
    assert!(!html.contains("<link rel=\"stylesheet\""));
    assert!(html.contains("<style>"));
    let files = vec![SiteFile {
        path: PathBuf::from("book.html"),
        bytes: std::sync::Arc::new(html.clone().into_bytes()),
    }];
    let links::LinkCheck { stats, problems } = links::check(&files, &[]);
    assert!(
        problems.is_empty(),
        "{:?}",
        &problems[..problems.len().min(5)]
    );
    assert!(stats.anchors > 600, "{stats:?}");
    // Each model page's section anchor survives, prefixed by its chapter.
    assert!(html.contains("id=\"ch-models-muse-spark-open--agentic-long-context-deployment\""));
    let hrefs = attribute_values(&html, "href");
    assert!(
        hrefs
            .iter()
            .all(|h| !h.ends_with(".md") && !h.contains(".html")),
        "all links are in-page"
    );
}

/// Snapshot of rendered HTML fragments: a command set of the fixture, as the
/// builder renders it (heading with Copy link, status, notes, env, blocks).
#[test]
fn html_fragment_snapshots() {
    let lib = crate::preprocessor::Library::load(&support::fixture(""), Path::new("data")).unwrap();
    let page = lib.page("Mini-Test").unwrap();
    let set = page
        .command_sets()
        .find(|s| s.anchor == "mini-fp8-gb300-dynamo-agentic-disagg-0-c128-mooncake-dynamo")
        .unwrap();
    let md = crate::render::command_set_markdown(set, "Mini-Test · GB300 · Disagg", "");
    let options = crate::util::cmark::MarkdownConfig::default();
    let r = render(&md, Path::new("m/x.md"), &LinkMode::Pages, options);
    insta::assert_snapshot!("html_command_set", r.html);
    let out = crate::preprocessor::expand_chapter(
        "# M\n\n<<agentx page=\"Mini-Test\" hardware=\"gb300\">>\n",
        Path::new("m.md"),
        "m.md",
        &lib,
        crate::book::OnError::Fail,
    )
    .unwrap();
    let r = render(&out.content, Path::new("m.md"), &LinkMode::Pages, options);
    insta::assert_snapshot!("html_section", r.html);
}

/// `build` streams pages and the manifest to disk; `serve`, `export` and
/// `check` render in memory. Both must give the same site, byte for byte.
fn assert_streamed_build_matches_memory(book: &Path, name: &str) -> Vec<SiteFile> {
    let out = support::temp(name);
    let report = build_into(book, &out).unwrap();
    let on_disk = files_under(&out);
    let site = Site::load(book).unwrap();
    let in_memory = site.render_files(&BuildOptions::default()).unwrap();
    let paths = |v: &[SiteFile]| v.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&on_disk), paths(&in_memory));
    for (disk, memory) in on_disk.iter().zip(&in_memory) {
        let (path, a, b) = (&disk.path, &disk.bytes, &memory.bytes);
        assert!(
            a == b,
            "{} differs between build and render",
            path.display()
        );
    }
    assert_eq!(report.files, on_disk.len());
    assert_eq!(
        report.bytes,
        on_disk.iter().map(|f| f.bytes.len() as u64).sum::<u64>()
    );
    assert_eq!(
        (report.pages, report.command_sets),
        (site.pages.len(), site.command_sets)
    );
    let _ = std::fs::remove_dir_all(&out);
    on_disk
}

#[test]
fn streamed_build_of_the_sample_book_matches_the_in_memory_render() {
    let files = assert_streamed_build_matches_memory(&support::repo(), "stream-sample");
    // A small book lists every chapter in every sidebar: no page of all chapters.
    assert!(!files.iter().any(|f| f.path == Path::new(ALL_CHAPTERS)));
}

/// A build whose chapters' Markdown all waits in the spill file (as a large
/// book's does) writes the same site as one that keeps it in memory.
#[test]
fn a_build_that_spills_every_chapter_writes_the_same_site() {
    let book = support::repo();
    let build_with = |name: &str, budget: usize| {
        let out = support::temp(name);
        let opts = BuildOptions {
            dest: Some(out.to_path_buf()),
            allow_dest_outside: true,
            ..Default::default()
        };
        build::build_spilling(&book, &opts, &|_, _| Vec::new(), budget).unwrap();
        files_under(&out)
    };
    let kept = build_with("spill-none", usize::MAX);
    let spilled = build_with("spill-all", 0);
    let paths = |v: &[SiteFile]| v.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&kept), paths(&spilled));
    for (a, b) in kept.iter().zip(&spilled) {
        assert!(a.bytes == b.bytes, "{} differs", a.path.display());
    }
}

#[test]
fn large_books_get_short_sidebars_and_a_page_of_all_chapters() {
    // The mini book 120 times over: 120 model chapters with their deployment
    // chapters, more rows than SIDEBAR_FULL_LIMIT and top-level rows than
    // TOP_LEVEL_WINDOW.
    let book = support::scaled_mini_book("large-book", 120);
    let files = assert_streamed_build_matches_memory(&book, "large-out");
    let site = Site::load(&book).unwrap();
    assert!(
        site.sidebar.len() > SIDEBAR_FULL_LIMIT,
        "{}",
        site.sidebar.len()
    );
    let html = |rel: &str| -> String {
        let f = files
            .iter()
            .find(|f| f.path == Path::new(rel))
            .unwrap_or_else(|| panic!("{rel}"));
        String::from_utf8(f.bytes.to_vec()).unwrap()
    };
    // The page of all chapters links every chapter once, in reading order.
    let all = html(ALL_CHAPTERS);
    let listed: Vec<&str> = attribute_values(&all, "href");
    for page in &site.pages {
        let href = page
            .path
            .with_extension("html")
            .to_string_lossy()
            .replace('\\', "/");
        assert!(
            listed.contains(&href.as_str()),
            "{href} missing from {ALL_CHAPTERS}"
        );
    }
    // A deployment page deep in the book: its own branch, a window of model
    // chapters, and links to the page of all chapters on both sides.
    let deep = site
        .pages
        .iter()
        .find(|p| p.path.starts_with("scaled/mini-test-60"))
        .expect("a deployment page of the 60th replica");
    let page = html(&deep.path.with_extension("html").to_string_lossy());
    let sidebar = &page[page.find("<ol class=\"chapters\">").unwrap()..];
    let sidebar = &sidebar[..sidebar.find("</ol>").unwrap()];
    let rows = sidebar.matches("<li").count();
    assert!(
        rows <= TOP_LEVEL_WINDOW + 10,
        "{rows} sidebar rows on {}",
        deep.path.display()
    );
    assert_eq!(
        sidebar
            .matches(&format!("href=\"../../{ALL_CHAPTERS}\""))
            .count(),
        2,
        "{sidebar}"
    );
    assert!(sidebar.contains("aria-current=\"page\""));
    // Every link, including those to the page of all chapters, resolves.
    let problems = links::check(&files, &["404.html"]).problems;
    assert!(
        problems.is_empty(),
        "{:?}",
        &problems[..problems.len().min(5)]
    );
    // A chapter of the same name would be overwritten: the build says so.
    std::fs::write(book.join("src/all-chapters.md"), "# Mine\n").unwrap();
    let summary = support::read(&book.join("src/SUMMARY.md"));
    std::fs::write(
        book.join("src/SUMMARY.md"),
        format!("{summary}- [Mine](all-chapters.md)\n"),
    )
    .unwrap();
    let err = build_error(&book, &support::temp("large-clash"));
    assert!(
        err.contains("chapter all-chapters.md would be replaced by the generated list"),
        "{err}"
    );
}

/// Regression: a file named like the manifest in the source directory
/// replaced the real manifest in the built site; in memory, both were kept.
#[test]
fn source_files_never_replace_generated_files_in_memory_either() {
    let book = support::mini_book("static-clash-memory");
    std::fs::write(book.join("src/launches.json"), "{\"stale\": true}").unwrap();
    let files = assert_streamed_build_matches_memory(&book, "static-clash-memory-out");
    let manifests: Vec<_> = files
        .iter()
        .filter(|f| f.path == Path::new("launches.json"))
        .collect();
    assert_eq!(manifests.len(), 1);
    assert!(String::from_utf8_lossy(&manifests[0].bytes).contains("\"launches\""));
}
