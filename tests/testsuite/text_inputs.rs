//! Book and recipe text that once slipped through: a byte order mark that
//! hid a chapter's title or failed a registry, a NUL that dropped chapters
//! from `SUMMARY.md` with exit 0, reached a page raw, or ended a recipe.

use std::process::{Command, Output};

use crate::support;

fn build(book: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .arg("build")
        .arg(book)
        .output()
        .unwrap()
}

/// The fixture snapshot copied into a scratch directory with `edit` applied
/// to the disaggregated recipe's text, synced with the fixture's lanes
/// (registries resolved from this repository) and previous data.
pub(crate) fn sync_edited_recipe(
    name: &str,
    edit: impl FnOnce(String) -> String,
) -> (support::Scratch, Output) {
    let dir = support::temp(name);
    let snapshot = dir.join("snapshot");
    support::copy_dir(&crate::sync::fixture("snapshot"), &snapshot);
    let recipe = snapshot.join(
        "a1b2c3d4/inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/demo/sglang/b200-fp8/disagg.yaml",
    );
    let text = edit(support::read(&recipe));
    std::fs::write(&recipe, text).unwrap();
    let lanes = support::read(&crate::sync::fixture("demo-lanes.toml")).replace(
        "../../../flags/",
        &format!("{}/flags/", support::repo().display()),
    );
    std::fs::write(dir.join("lanes.toml"), lanes).unwrap();
    let o = crate::sync::sync(
        &dir.join("lanes.toml"),
        &snapshot,
        Some(&crate::sync::fixture("previous")),
        &dir.join("out"),
    );
    (dir, o)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_byte_order_mark_does_not_hide_the_title() {
    let book = support::mini_book("bom-title");
    std::fs::write(
        book.join("src/plain.md"),
        "\u{feff}# Plain Title\n\nText.\n",
    )
    .unwrap();
    let o = build(&book);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = support::read(&book.join("book/plain.html"));
    let h1 = page.split("<h1").nth(1).expect("an h1");
    assert!(
        h1[..h1.find("</h1>").unwrap()].contains("Plain Title"),
        "{page}"
    );
    assert!(!page.contains('\u{feff}'));
}

#[test]
fn a_nul_in_summary_is_refused_with_its_place() {
    let book = support::mini_book("nul-summary");
    let summary = "# Summary\n\n- [Mini](mini.md)\n-\0 [Plain](plain.md)\n";
    std::fs::write(book.join("src/SUMMARY.md"), summary).unwrap();
    let o = build(&book);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("src/SUMMARY.md:4:2: a NUL character"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_nul_in_a_chapter_is_never_written() {
    let book = support::mini_book("nul-chapter");
    let chapter = "# Plain\n\nA\0B `c\0d`\n\n```\ne\0f\n```\n";
    std::fs::write(book.join("src/plain.md"), chapter).unwrap();
    let o = build(&book);
    assert!(o.status.success(), "{}", stderr(&o));
    for (path, bytes) in support::files_under(&book.join("book")) {
        assert!(!bytes.contains(&0), "{} holds a NUL", path.display());
    }
    let page = support::read(&book.join("book/plain.html"));
    assert_eq!(page.matches('\u{fffd}').count(), 3, "{page}");
}

/// A registry saved with a byte order mark reads as without one.
#[test]
fn a_registry_with_a_byte_order_mark_is_read() {
    let book = support::temp("bom-registry");
    support::copy_dir(&support::fixture("books/bad-flags"), &book);
    let without = mdbook_agentx::check(&book).unwrap().text(true);
    for entry in std::fs::read_dir(book.join("flags")).unwrap() {
        let path = entry.unwrap().path();
        let text = support::read(&path);
        std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
    }
    let with = mdbook_agentx::check(&book).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(with.text(true), without);
}

/// A NUL in a recipe: refused with its line and column (PyYAML refuses it;
/// the YAML parser alone ended the document there without an error).
#[test]
fn a_nul_in_a_recipe_is_refused_with_its_place() {
    let (_dir, o) = sync_edited_recipe("nul-yaml", |text| {
        text.replacen("      nodes: 1\n", "      nodes: 1\0\n", 1)
    });
    let err = crate::sync::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "disagg.yaml@a1b2c3d4: line 29, column 15: character U+0000 is not allowed in YAML"
        ),
        "{err}"
    );
}

/// An image name with backticks, in `sync`'s report (Markdown for a pull
/// request): each code span holds the whole name, and nothing of it
/// becomes HTML.
#[test]
fn sync_report_keeps_an_image_name_in_its_code_span() {
    use pulldown_cmark::{Event, Parser};
    let image = "lmsysorg/sglang:v0.5.23-cu129`<img src=x onerror=alert(1)>`x";
    let (_dir, o) = sync_edited_recipe("backtick-image", |text| {
        text.replacen(
            "container: lmsysorg/sglang:v0.5.23-cu129",
            &format!("container: \"{image}\""),
            1,
        )
    });
    assert!(o.status.success(), "{}", crate::sync::stderr(&o));
    let report = String::from_utf8_lossy(&o.stdout);
    let mut spans = 0;
    for event in Parser::new(&report) {
        match event {
            Event::Code(c) if c.starts_with("lmsysorg/sglang:v0.5.23-cu129`") => {
                assert_eq!(&*c, image);
                spans += 1;
            }
            Event::Html(h) | Event::InlineHtml(h) => panic!("HTML {h:?} in:\n{report}"),
            _ => {}
        }
    }
    assert!(
        spans >= 2,
        "the image is named in {spans} code spans:\n{report}"
    );
}
