//! Fixtures for the unit tests: the repository's sample book and fixture
//! books, and writable copies of them in temporary directories.

use std::path::{Path, PathBuf};

/// The repository root (the sample book's root).
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file or directory under `tests/fixtures`.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures").join(rel)
}

pub(crate) fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// Copies a directory tree.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
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
pub(crate) fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("agentx-unit-{name}-{}", std::process::id()));
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
