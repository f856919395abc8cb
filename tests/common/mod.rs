//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures").join(rel)
}

/// `../shared/<rel>` beside the checkout, or `None` (with a message saying the
/// test was skipped) when the reference folder is not there.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = repo().join("../shared").join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "SKIPPED: {} is missing (the third-party reference folder ../shared is not beside \
             this checkout); this test only runs where it is present, as in CI",
            p.display()
        );
        None
    }
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// Copies a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// A fresh scratch directory under the system temp dir.
pub fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("agentx-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

/// A writable copy of the mini fixture book with its data under `data/`.
pub fn mini_book(name: &str) -> PathBuf {
    let book = temp(name);
    copy_dir(&fixture("books/mini"), &book);
    copy_dir(&fixture("data"), &book.join("data"));
    std::fs::write(
        book.join("book.toml"),
        "[book]\ntitle = \"Mini\"\nsrc = \"src\"\n\n[preprocessor.agentx]\ndata-dir = \"data\"\n",
    )
    .unwrap();
    book
}

/// A book of `n` model chapters, each the mini fixture's data under its own
/// page name (`Mini-Test (k)`, chapter `scaled/mini-test-k.md`), after an
/// introduction: a book with many top-level chapters and deployment pages.
pub fn scaled_mini_book(name: &str, n: usize) -> PathBuf {
    let book = mini_book(name);
    let data = read(&book.join("data/mini.json"));
    std::fs::remove_file(book.join("data/mini.json")).unwrap();
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
    book
}
