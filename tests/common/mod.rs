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
