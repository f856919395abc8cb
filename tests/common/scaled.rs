//! The scaled mini book, shared by the unit tests (`src/test_support.rs`)
//! and the integration tests (`tests/testsuite/support.rs`): two crates,
//! so each includes this file with `#[path]` rather than keeping a copy.

use std::path::Path;

/// Turns a copy of the mini fixture book at `book` into a book of `n`
/// model chapters, each the fixture's data under its own page name
/// (`Mini-Test (k)`, chapter `scaled/mini-test-k.md`), after an
/// introduction: a book with many top-level chapters and deployment pages.
pub(crate) fn scale_mini_book(book: &Path, n: usize) {
    let fixture = book.join("data/mini.json");
    let data = std::fs::read_to_string(&fixture)
        .unwrap_or_else(|e| panic!("read {}: {e}", fixture.display()));
    std::fs::remove_file(&fixture).unwrap();
    let src = book.join("src");
    std::fs::create_dir_all(src.join("scaled")).unwrap();
    std::fs::write(src.join("intro.md"), "# Introduction\n").unwrap();
    let mut summary = String::from("# Summary\n\n[Introduction](intro.md)\n\n# Models\n\n");
    for k in 1..=n {
        let mut v: serde_json::Value = serde_json::from_str(&data).unwrap();
        let page = format!("Mini-Test ({k})");
        v["model"] = serde_json::Value::String(page.clone());
        let stem = format!("mini-test-{k}");
        std::fs::write(book.join(format!("data/{stem}.json")), v.to_string()).unwrap();
        std::fs::write(
            src.join(format!("scaled/{stem}.md")),
            format!("# {page}\n\n<<agentx page=\"{page}\">>\n"),
        )
        .unwrap();
        summary.push_str(&format!("- [{page}](scaled/{stem}.md)\n"));
    }
    std::fs::write(src.join("SUMMARY.md"), summary).unwrap();
}
