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
