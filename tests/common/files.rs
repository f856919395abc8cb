//! Copying books for tests, shared by the unit tests (`src/test_support.rs`)
//! and the integration tests (`tests/testsuite/support.rs`): two crates, so
//! each includes this file with `#[path]` rather than keeping a copy.

use std::path::Path;

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

/// Copies the sample book of the repository at `repo` (its `book.toml`,
/// sources, data and installed AgentX assets, not its registries) to `book`.
pub(crate) fn copy_sample_book(repo: &Path, book: &Path) {
    std::fs::create_dir_all(book).unwrap();
    for file in ["book.toml", "agentx.css", "agentx.js"] {
        std::fs::copy(repo.join(file), book.join(file)).unwrap();
    }
    for dir in ["content", "agentx"] {
        copy_dir(&repo.join(dir), &book.join(dir));
    }
}
