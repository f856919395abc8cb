//! The standalone builder over the sample book and fixture books: links and
//! anchors, offline export, single file, atomic writes, HTML fragments.

use std::path::Path;

use mdbook_agentx::{BuildOptions, BuildReport, build};

use crate::support::files_under;

use crate::support;

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

/// The whole error chain of a build that must fail.
fn build_error(book: &Path, out: &Path) -> String {
    format!("{:#}", build_into(book, out).unwrap_err())
}

#[test]
fn sample_book_links_and_anchors_resolve() {
    // `check` renders the site in memory and resolves every internal link and anchor.
    let report = mdbook_agentx::check(&support::repo()).unwrap();
    let links = &report.links;
    assert!(
        links.problems.is_empty(),
        "{} problems, first: {:?}",
        links.problems.len(),
        &links.problems[..links.problems.len().min(5)]
    );
    eprintln!(
        "checked {} pages, {} internal links, {} anchors",
        links.pages, links.links, links.anchors
    );
    assert_eq!(
        links.pages,
        support::sample_pages(),
        "chapters + index.html"
    );
    assert!(links.links > 2000, "{links:?}");
    // The offline export fails on any remote asset; it writes the same site.
    let out = support::temp("links-export");
    let report = mdbook_agentx::export_offline(&support::repo(), &out).unwrap();
    let sets = support::sample_counts().command_sets;
    assert_eq!(report.command_sets, sets);
    let files = files_under(&out);
    // Every command set's heading is in the page (agentx.js adds its Copy
    // link button), and its blocks have Copy buttons.
    let all: String = files
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    assert_eq!(all.matches("class=\"agentx-set\">").count(), sets);
    assert!(all.matches("class=\"copy-code\"").count() > sets * 2);
    // The search index names every command set once, with its page's URL.
    let index = support::read(&out.join("search-index.js"));
    let json = index
        .strip_prefix("window.AGENTX_SEARCH_INDEX = ")
        .and_then(|s| s.strip_suffix(";\n"))
        .expect("the index is one script assignment");
    let index: serde_json::Value = serde_json::from_str(json).unwrap();
    let indexed: std::collections::HashSet<String> = index["s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let page = &index["p"][s[0].as_u64().unwrap() as usize];
            format!("{}{}", page[2].as_str().unwrap(), s[1].as_str().unwrap())
        })
        .collect();
    assert_eq!(indexed.len(), sets);
    for link in all.split("data-anchor=\"").skip(1) {
        let anchor = &link[..link.find('"').unwrap()];
        assert!(
            indexed.iter().any(|u| u.ends_with(&format!("#{anchor}"))),
            "{anchor} is not in the search index"
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn build_writes_atomically_and_keeps_the_old_site_on_failure() {
    let book = support::mini_book("atomic-book");
    let out = support::temp("atomic-out");
    // Staging and the old site live in `.<name>.…` directories beside the
    // output; none is left after a build, a rebuild or a failed build.
    let leftovers = || -> Vec<String> {
        let prefix = format!(".{}.", out.file_name().unwrap().to_string_lossy());
        std::fs::read_dir(out.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&prefix))
            .collect()
    };
    assert_eq!(build_into(&book, &out).unwrap().pages, 4);
    assert_eq!(
        build_into(&book, &out).unwrap().pages,
        4,
        "over an old site"
    );
    assert_eq!(leftovers(), Vec::<String>::new());
    // The site gets the mode of any new directory, not a private one.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let fresh = support::temp("atomic-mode");
        std::fs::create_dir(&fresh).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&out), mode(&fresh));
        std::fs::remove_dir(&fresh).unwrap();
    }
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
    assert_eq!(leftovers(), Vec::<String>::new(), "after a failed build");
    // A missing chapter file is named with its SUMMARY line.
    std::fs::remove_file(book.join("src/plain.md")).unwrap();
    let err = build_error(&book, &out);
    assert!(
        err.contains("SUMMARY.md:4: chapter `Plain` points to"),
        "{err}"
    );
    // The output directory may not be the book itself.
    let err = build_error(&book, &book);
    assert!(err.contains("it is the book root"), "{err}");
    std::fs::remove_dir_all(&book).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn user_templates_and_assets_override_defaults() {
    let book = support::mini_book("override-book");
    std::fs::create_dir_all(book.join("templates")).unwrap();
    std::fs::create_dir_all(book.join("agentx-theme")).unwrap();
    std::fs::write(
        book.join("templates/toc.html"),
        "<aside class=\"my-toc\">{{ toc | length }} headings</aside>",
    )
    .unwrap();
    std::fs::write(book.join("agentx-theme/book.css"), "body { color: red }").unwrap();
    std::fs::write(book.join("agentx-theme/extra.svg"), "<svg/>").unwrap();
    let out = support::temp("override-out");
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

/// Regression (issue 15): `theme/` is mdBook's override folder; the builder
/// never takes its files (an mdBook `book.js` there is not the builder's).
#[test]
fn mdbook_theme_folder_is_not_read_by_the_builder() {
    let book = support::mini_book("mdbook-theme-book");
    std::fs::create_dir_all(book.join("theme")).unwrap();
    std::fs::write(book.join("theme/book.js"), "/* mdBook's own book.js */").unwrap();
    std::fs::write(book.join("theme/index.hbs"), "{{ content }}").unwrap();
    let out = support::temp("mdbook-theme-out");
    build_into(&book, &out).unwrap();
    let js = std::fs::read_to_string(out.join("theme/book.js")).unwrap();
    assert!(
        !js.contains("mdBook's own"),
        "the builder's book.js is kept"
    );
    assert!(!out.join("theme/index.hbs").exists());
}

#[test]
fn offline_export_refuses_remote_assets_and_leaves_nothing_behind() {
    let book = support::mini_book("export-remote");
    let out = support::temp("export-remote-out");
    let report = mdbook_agentx::export_offline(&book, &out).unwrap();
    assert_eq!(report.pages, 4);
    assert!(report.files > 4 && report.bytes > 0);
    let before = files_under(&out);
    // A stylesheet that fetches a font: the export fails and keeps the old site.
    std::fs::create_dir_all(book.join("agentx-theme")).unwrap();
    std::fs::write(
        book.join("agentx-theme/book.css"),
        "@import url(\"https://fonts.example.com/css?family=Inter\");\nbody { margin: 0 }\n",
    )
    .unwrap();
    let err = format!(
        "{:#}",
        mdbook_agentx::export_offline(&book, &out).unwrap_err()
    );
    assert!(
        err.contains("would load 1 remote asset(s)")
            && err.contains(
                "theme/book.css: stylesheet loads https://fonts.example.com/css?family=Inter"
            ),
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
    let book = support::mini_book("data-directive");
    let data = book.join("data/mini.json");
    let text = support::read(&data).replacen(
        "\"reason\": \"persistence mode\"",
        "\"reason\": \"see <<agentx page=\\\"Mini-Test\\\">>\"",
        1,
    );
    assert!(text.contains("see <<agentx"), "fixture changed");
    std::fs::write(&data, text).unwrap();
    let out = support::temp("data-directive-out");
    let report = build_into(&book, &out).unwrap();
    assert_eq!(report.pages, 4);
    let files = files_under(&out);
    let shown = files
        .iter()
        .filter(|(_, b)| String::from_utf8_lossy(b).contains("see &lt;"))
        .count();
    assert!(shown > 0, "the reason is still shown");
    let pages = files
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html"));
    for (path, bytes) in pages {
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
    let book = support::mini_book("static-clash");
    std::fs::write(book.join("src/launches.json"), "{\"stale\": true}").unwrap();
    std::fs::write(book.join("src/picture.svg"), "<svg/>").unwrap();
    let out = support::temp("static-clash-out");
    let report = build_into(&book, &out).unwrap();
    let manifest = support::read(&out.join("launches.json"));
    assert!(manifest.contains("\"launches\""), "{manifest}");
    assert_eq!(support::read(&out.join("picture.svg")), "<svg/>");
    assert_eq!(
        report.files,
        files_under(&out).len(),
        "each file counted once"
    );
}

/// `[output.html]`'s Markdown switches are mdBook's: on by default, and
/// `smart-punctuation = false` keeps straight quotes, as `mdbook build` does.
#[test]
fn markdown_switches_of_book_toml_are_honoured() {
    let book = support::mini_book("markdown-switches");
    std::fs::write(
        book.join("src/plain.md"),
        "# Plain\n\nSay \"hi\" -- twice.\n",
    )
    .unwrap();
    let out = support::temp("markdown-switches-out");
    build_into(&book, &out).unwrap();
    assert!(support::read(&out.join("plain.html")).contains("Say “hi” – twice."));
    let toml = support::read(&book.join("book.toml"));
    std::fs::write(
        book.join("book.toml"),
        format!("{toml}\n[output.html]\nsmart-punctuation = false\n"),
    )
    .unwrap();
    build_into(&book, &out).unwrap();
    assert!(support::read(&out.join("plain.html")).contains("Say \"hi\" -- twice."));
    std::fs::remove_dir_all(&book).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}
