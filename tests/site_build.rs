//! The standalone builder over the sample book and fixture books: links and
//! anchors, offline export, single file, atomic writes, HTML fragments.

mod common;

use std::path::{Path, PathBuf};

use mdbook_agentx::site::export::{offline_problems, remote_assets, single_file};
use mdbook_agentx::site::links::{self, attribute_values};
use mdbook_agentx::site::markdown::{LinkMode, render};
use mdbook_agentx::site::{
    ALL_CHAPTERS, BuildOptions, SIDEBAR_FULL_LIMIT, Site, TOP_LEVEL_WINDOW, build,
};

fn build_into(book: &Path, out: &Path) -> anyhow::Result<mdbook_agentx::site::BuildReport> {
    build(
        book,
        &BuildOptions {
            dest: Some(out.to_path_buf()),
            ..Default::default()
        },
    )
}

/// The whole error chain of a build that must fail.
fn build_error(book: &Path, out: &Path) -> String {
    format!("{:#}", build_into(book, out).unwrap_err())
}

#[test]
fn sample_book_links_and_anchors_resolve() {
    let site = Site::load(&common::repo()).unwrap();
    let files = site.render_files(&BuildOptions::default()).unwrap();
    let (stats, problems) = links::check(&files, &["404.html"]);
    assert!(
        problems.is_empty(),
        "{} problems, first: {:?}",
        problems.len(),
        &problems[..problems.len().min(5)]
    );
    eprintln!(
        "checked {} pages, {} internal links, {} anchors",
        stats.pages, stats.links, stats.anchors
    );
    assert_eq!(stats.pages, 37, "36 chapters + index.html");
    assert!(stats.links > 2000, "{stats:?}");
    assert!(offline_problems(&files).is_empty());
    assert_eq!(site.command_sets, 576);
    // Every command set has a Copy link button and its blocks Copy buttons.
    let all: String = files
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    assert_eq!(all.matches("class=\"copy-link\"").count(), 576);
    assert!(all.matches("class=\"copy-code\"").count() > 576 * 2);
    // The search index names every command set.
    let index = files
        .iter()
        .find(|(p, _)| p == Path::new("search-index.js"))
        .unwrap();
    let index = String::from_utf8_lossy(&index.1);
    assert_eq!(index.matches("\"k\":\"set\"").count(), 576);
}

#[test]
fn build_writes_atomically_and_keeps_the_old_site_on_failure() {
    let book = common::mini_book("atomic-book");
    let out = common::temp("atomic-out");
    // A leftover of an interrupted build (its process is gone) is cleaned up
    // by the next one; the directory of a build still running is not.
    let staging_of = |pid: u32| {
        out.with_file_name(format!(
            ".{}.tmp-{pid}",
            out.file_name().unwrap().to_string_lossy()
        ))
    };
    let stale = staging_of(u32::MAX);
    std::fs::create_dir_all(stale.join("half")).unwrap();
    let mut running = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let live = staging_of(running.id());
    std::fs::create_dir_all(live.join("half")).unwrap();
    let report = build_into(&book, &out);
    let live_kept = live.exists();
    running.kill().unwrap();
    running.wait().unwrap();
    std::fs::remove_dir_all(&live).unwrap_or_default();
    assert_eq!(report.unwrap().pages, 4);
    assert!(!stale.exists(), "stale temporary directory removed");
    assert!(
        live_kept || !cfg!(target_os = "linux"),
        "another running build's directory kept"
    );
    let before = std::fs::read(out.join("mini.html")).unwrap();
    // Break the data: the build fails, names the file and path, and leaves the site as it was.
    let data = book.join("data/mini.json");
    let text = std::fs::read_to_string(&data).unwrap().replacen(
        "\"kv\": \"none\", \"job\"",
        "\"kv\": \"disk\", \"job\"",
        1,
    );
    std::fs::write(&data, text).unwrap();
    // The build decodes a data file when a directive uses it, so the message
    // names the directive, then the file and the key.
    let err = build_error(&book, &out);
    let directive = err.find("src/mini.md:5:1: ").expect(&err);
    let key = err
        .find("mini.json: cells[0].points[0].kv: unknown variant `disk`")
        .expect(&err);
    assert!(directive < key, "{err}");
    assert_eq!(std::fs::read(out.join("mini.html")).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name().to_string_lossy().contains(&format!(
                ".{}.tmp-",
                out.file_name().unwrap().to_string_lossy()
            ))
        })
        .collect();
    assert!(leftovers.is_empty(), "temporary directory left behind");
    // A missing chapter file is named with its SUMMARY line.
    std::fs::remove_file(book.join("src/plain.md")).unwrap();
    let err = build_error(&book, &out);
    assert!(
        err.contains("SUMMARY.md:4: chapter `Plain` points to"),
        "{err}"
    );
    // The output directory may not be the book itself.
    let err = build_error(&book, &book);
    assert!(err.contains("would overwrite the book"), "{err}");
    std::fs::remove_dir_all(&book).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn user_templates_and_assets_override_defaults() {
    let book = common::mini_book("override-book");
    std::fs::create_dir_all(book.join("templates")).unwrap();
    std::fs::create_dir_all(book.join("theme")).unwrap();
    std::fs::write(
        book.join("templates/toc.html"),
        "<aside class=\"my-toc\">{{ toc | length }} headings</aside>",
    )
    .unwrap();
    std::fs::write(book.join("theme/book.css"), "body { color: red }").unwrap();
    std::fs::write(book.join("theme/extra.svg"), "<svg/>").unwrap();
    let out = common::temp("override-out");
    build_into(&book, &out).unwrap();
    let page = std::fs::read_to_string(out.join("mini.html")).unwrap();
    assert!(
        page.contains("<aside class=\"my-toc\">"),
        "custom toc template used"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("theme/book.css")).unwrap(),
        "body { color: red }"
    );
    assert!(out.join("theme/extra.svg").exists());
    assert!(out.join("theme/book.js").exists(), "defaults still there");
    // A broken template is reported by name.
    std::fs::write(book.join("templates/page.html"), "{% if %}").unwrap();
    let err = build_error(&book, &out);
    assert!(err.contains("templates/page.html"), "{err}");
    std::fs::remove_dir_all(&book).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn single_file_keeps_anchors_unique_and_links_inside() {
    let html = single_file(&common::repo()).unwrap();
    assert!(remote_assets(&html).is_empty());
    assert!(!html.contains("<link rel=\"stylesheet\""));
    assert!(html.contains("<style>"));
    let files = vec![(PathBuf::from("book.html"), html.clone().into_bytes())];
    let (stats, problems) = links::check(&files, &[]);
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
    let lib =
        mdbook_agentx::preprocess::Library::load(&common::fixture(""), Path::new("data")).unwrap();
    let page = lib.page("Mini-Test").unwrap();
    let set = page
        .command_sets()
        .find(|s| s.anchor == "mini-fp8-gb300-dynamo-agentic-disagg-0-c128-mooncake-dynamo")
        .unwrap();
    let md = mdbook_agentx::render::command_set_markdown(set);
    let r = render(&md, Path::new("m/x.md"), &LinkMode::Pages);
    insta::assert_snapshot!("html_command_set", r.html);
    let out = mdbook_agentx::preprocess::expand_chapter(
        "# M\n\n<<agentx page=\"Mini-Test\" hardware=\"gb300\">>\n",
        Path::new("m.md"),
        "m.md",
        &lib,
        mdbook_agentx::preprocess::OnError::Fail,
    )
    .unwrap();
    let r = render(&out.content, Path::new("m.md"), &LinkMode::Pages);
    insta::assert_snapshot!("html_section", r.html);
}

/// Every file under `dir`, by path relative to it.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// `build` streams pages and the manifest to disk; `serve`, `export` and
/// `check` render in memory. Both must give the same site, byte for byte.
fn assert_streamed_build_matches_memory(book: &Path, name: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let out = common::temp(name);
    let report = build_into(book, &out).unwrap();
    let on_disk = files_under(&out);
    let site = Site::load(book).unwrap();
    let in_memory = site.render_files(&BuildOptions::default()).unwrap();
    let paths = |v: &[(PathBuf, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&on_disk), paths(&in_memory));
    for ((path, a), (_, b)) in on_disk.iter().zip(&in_memory) {
        assert!(
            a == b,
            "{} differs between build and render",
            path.display()
        );
    }
    assert_eq!(report.files, on_disk.len());
    assert_eq!(
        report.bytes,
        on_disk.iter().map(|f| f.1.len() as u64).sum::<u64>()
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
    let files = assert_streamed_build_matches_memory(&common::repo(), "stream-sample");
    // A small book lists every chapter in every sidebar: no page of all chapters.
    assert!(!files.iter().any(|f| f.0 == Path::new(ALL_CHAPTERS)));
}

#[test]
fn large_books_get_short_sidebars_and_a_page_of_all_chapters() {
    // The mini book 120 times over: 120 model chapters with their deployment
    // chapters, more rows than SIDEBAR_FULL_LIMIT and top-level rows than
    // TOP_LEVEL_WINDOW.
    let book = common::scaled_mini_book("large-book", 120);
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
            .find(|f| f.0 == Path::new(rel))
            .unwrap_or_else(|| panic!("{rel}"));
        String::from_utf8(f.1.clone()).unwrap()
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
    let (_, problems) = links::check(&files, &["404.html"]);
    assert!(
        problems.is_empty(),
        "{:?}",
        &problems[..problems.len().min(5)]
    );
    // A chapter of the same name would be overwritten: the build says so.
    std::fs::write(book.join("src/all-chapters.md"), "# Mine\n").unwrap();
    let summary = common::read(&book.join("src/SUMMARY.md"));
    std::fs::write(
        book.join("src/SUMMARY.md"),
        format!("{summary}- [Mine](all-chapters.md)\n"),
    )
    .unwrap();
    let err = build_error(&book, &common::temp("large-clash"));
    assert!(
        err.contains("chapter all-chapters.md would be replaced by the generated list"),
        "{err}"
    );
}

#[test]
fn offline_export_refuses_remote_assets_and_leaves_nothing_behind() {
    let book = common::mini_book("export-remote");
    let out = common::temp("export-remote-out");
    let report = mdbook_agentx::site::export::export_offline(&book, &out).unwrap();
    assert_eq!(report.pages, 4);
    assert!(report.files > 4 && report.bytes > 0);
    let before = files_under(&out);
    // A stylesheet that fetches a font: the export fails and keeps the old site.
    std::fs::create_dir_all(book.join("theme")).unwrap();
    std::fs::write(
        book.join("theme/book.css"),
        "@import url(\"https://fonts.example.com/css?family=Inter\");\nbody { margin: 0 }\n",
    )
    .unwrap();
    let err = format!(
        "{:#}",
        mdbook_agentx::site::export::export_offline(&book, &out).unwrap_err()
    );
    assert!(
        err.contains("would load 1 remote asset(s)")
            && err.contains("theme/book.css: remote url() in stylesheet"),
        "{err}"
    );
    assert_eq!(files_under(&out), before);
    let leftovers = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".agentx-export-remote-out")
        })
        .count();
    assert_eq!(leftovers, 0, "no staging directory left");
}

/// Regression: generated deployment chapters were walked again for
/// directives, so text from the data (a setup reason) that looked like a
/// directive failed the build with an error in a chapter that is not on disk
/// (`src/mini/mini-fp8-h200-….md:45:65: a directive must stand on its own
/// line`), or would have been expanded there. Generated Markdown is now final.
#[test]
fn directive_text_from_data_is_not_expanded_in_generated_chapters() {
    let book = common::mini_book("data-directive");
    let data = book.join("data/mini.json");
    let text = common::read(&data).replacen(
        "\"reason\": \"persistence mode\"",
        "\"reason\": \"see <<agentx page=\\\"Mini-Test\\\">>\"",
        1,
    );
    assert!(text.contains("see <<agentx"), "fixture changed");
    std::fs::write(&data, text).unwrap();
    let out = common::temp("data-directive-out");
    let report = build_into(&book, &out).unwrap();
    assert_eq!(report.pages, 4);
    let files = files_under(&out);
    let shown = files
        .iter()
        .filter(|(_, b)| String::from_utf8_lossy(b).contains("see &lt;"))
        .count();
    assert!(shown > 0, "the reason is still shown");
    for (path, bytes) in &files {
        let html = String::from_utf8_lossy(bytes);
        // One section per directive of mini.md, and none in deployment pages.
        let sections = html.matches("id=\"agentic-long-context-deployment").count();
        assert!(
            sections == 0 || path == Path::new("mini.html") || path == Path::new("index.html"),
            "{} holds {sections} sections",
            path.display()
        );
    }
}

/// Regression: a file named like the manifest in the source directory
/// replaced the real manifest in the built site.
#[test]
fn source_files_never_replace_generated_files() {
    let book = common::mini_book("static-clash");
    std::fs::write(book.join("src/agentx-manifest.json"), "{\"stale\": true}").unwrap();
    std::fs::write(book.join("src/picture.svg"), "<svg/>").unwrap();
    let out = common::temp("static-clash-out");
    let report = build_into(&book, &out).unwrap();
    let manifest = common::read(&out.join("agentx-manifest.json"));
    assert!(manifest.contains("\"command_sets\""), "{manifest}");
    assert_eq!(common::read(&out.join("picture.svg")), "<svg/>");
    assert_eq!(
        report.files,
        files_under(&out).len(),
        "each file counted once"
    );
    let files = Site::load(&book)
        .unwrap()
        .render_files(&BuildOptions::default())
        .unwrap();
    let manifests: Vec<_> = files
        .iter()
        .filter(|f| f.0 == Path::new("agentx-manifest.json"))
        .collect();
    assert_eq!(manifests.len(), 1);
    assert!(String::from_utf8_lossy(&manifests[0].1).contains("\"command_sets\""));
}
