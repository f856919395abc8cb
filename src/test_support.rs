//! Fixtures for the unit tests: the repository's sample book and fixture
//! books, and writable copies of them in temporary directories.

use std::path::{Path, PathBuf};

#[path = "../tests/common/files.rs"]
mod files;
#[path = "../tests/common/scaled.rs"]
mod scaled;

use files::copy_dir;

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

/// A path that does not exist yet, `<temp dir>/<name>`, in a fresh directory
/// that is removed with everything in it when the `Scratch` is dropped.
pub(crate) fn temp(name: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix("agentx-test-")
        .tempdir()
        .unwrap();
    let path = dir.path().join(name);
    Scratch { _dir: dir, path }
}

/// A scratch path (see [`temp`]); derefs to the path.
pub(crate) struct Scratch {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

/// A writable copy of the mini fixture book with its data under `data/`.
pub(crate) fn mini_book(name: &str) -> Scratch {
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
pub(crate) fn scaled_mini_book(name: &str, n: usize) -> Scratch {
    let book = mini_book(name);
    scaled::scale_mini_book(&book, n);
    book
}

/// Every file under `dir`, by path relative to it.
pub(crate) fn files_under(dir: &Path) -> Vec<crate::site::SiteFile> {
    crate::util::fs::files_below(dir, |_| false)
        .unwrap()
        .into_iter()
        .map(|p| crate::site::SiteFile {
            path: p.strip_prefix(dir).unwrap().to_path_buf(),
            bytes: std::sync::Arc::new(std::fs::read(&p).unwrap()),
        })
        .collect()
}

/// A writable copy of the sample book (see [`files::copy_sample_book`]).
pub(crate) fn sample_book_copy(name: &str) -> Scratch {
    let book = temp(name);
    files::copy_sample_book(&repo(), &book);
    book
}
