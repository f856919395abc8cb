//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures").join(rel)
}

/// `../shared/<rel>` beside the checkout, or `None` (with a message saying the
/// test was skipped) when the reference folder is not there. With
/// `AGENTX_REQUIRE_SHARED=1` (CI sets it) a missing folder fails the test.
pub(crate) fn shared(rel: &str) -> Option<PathBuf> {
    let p = repo().join("../shared").join(rel);
    if p.exists() {
        Some(p)
    } else if std::env::var_os("AGENTX_REQUIRE_SHARED").is_some_and(|v| v == "1") {
        panic!(
            "{} is missing, and AGENTX_REQUIRE_SHARED=1 says the third-party reference \
             folder ../shared must be beside this checkout",
            p.display()
        );
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
