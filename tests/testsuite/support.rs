//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures").join(rel)
}

/// `../shared/<rel>` beside the checkout, or `None` (with a message saying the
/// test was skipped) when the reference folder is not there.
pub(crate) fn shared(rel: &str) -> Option<PathBuf> {
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

pub(crate) fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// Copies a directory tree.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A fresh scratch directory under the system temp dir.
pub(crate) fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("agentx-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

/// A writable copy of the mini fixture book with its data under `data/`.
pub(crate) fn mini_book(name: &str) -> PathBuf {
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

/// Every file under `dir`, by path relative to it.
pub(crate) fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect();
    out.sort();
    out
}
