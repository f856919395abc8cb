//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

#[path = "../common/files.rs"]
mod files;
#[path = "../common/scaled.rs"]
mod scaled;

pub(crate) use files::copy_dir;

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

/// Whether mdBook 0.5 is on `PATH`; when it is not, a message says the test
/// was skipped, unless `AGENTX_REQUIRE_MDBOOK` or `CI` is set: then the test
/// fails.
pub(crate) fn mdbook_available() -> bool {
    match std::process::Command::new("mdbook")
        .arg("--version")
        .output()
    {
        Ok(o) if String::from_utf8_lossy(&o.stdout).starts_with("mdbook v0.5.") => true,
        _ => {
            if std::env::var_os("AGENTX_REQUIRE_MDBOOK").is_some()
                || std::env::var_os("CI").is_some_and(|v| v == "true")
            {
                panic!(
                    "mdBook 0.5 is required here (AGENTX_REQUIRE_MDBOOK or CI is set) but \
                     `mdbook` 0.5 is not on PATH (cargo install mdbook --version '^0.5' --locked)"
                );
            }
            eprintln!(
                "SKIPPED: mdBook 0.5 is not on PATH (cargo install mdbook --version '^0.5' --locked)"
            );
            false
        }
    }
}

/// Runs real `mdbook build -d DEST` in `book` with this crate's binary as
/// the AgentX preprocessor, and fails the test with mdBook's stderr when the
/// build fails. (`DEST` relative to `book` or absolute.)
pub(crate) fn mdbook_build(book: &Path, dest: &Path) {
    let out = std::process::Command::new("mdbook")
        .arg("build")
        .arg("-d")
        .arg(dest)
        .current_dir(book)
        .env(
            "MDBOOK_PREPROCESSOR__AGENTX__COMMAND",
            env!("CARGO_BIN_EXE_mdbook-agentx"),
        )
        .output()
        .expect("run mdbook");
    assert!(
        out.status.success(),
        "mdbook build in {} failed:\n{}",
        book.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A writable copy of the sample book (the repository's `book.toml`, its
/// sources, data and installed AgentX assets), without registries.
pub(crate) fn sample_book_copy(name: &str) -> Scratch {
    let book = temp(name);
    files::copy_sample_book(&repo(), &book);
    book
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
    // Below the root, which may be the publish symlink.
    let mut out: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .min_depth(1)
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

/// Counts read straight from data files' JSON, not through the decoder, so
/// tests compare the program with the data rather than with itself.
///
/// The rules: a lane is a distinct `configKey`; a deployment is a cell; a
/// point is an entry of a cell's `points`; and decoding makes one command
/// set per (point, router of the cell, tier in the cell's `kv.available`),
/// so a cell gives points × routers × available tiers command sets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RawCounts {
    pub(crate) lanes: usize,
    pub(crate) deployments: usize,
    pub(crate) points: usize,
    pub(crate) command_sets: usize,
}

/// The counts of one data file (JSON, or the JS module form).
pub(crate) fn raw_counts(path: &Path) -> RawCounts {
    let text = read(path);
    // The JS module form wraps one object literal: take it from `{` to `}`.
    let json = &text[text.find('{').unwrap()..=text.rfind('}').unwrap()];
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let cells = v["cells"].as_array().unwrap();
    let len = |v: &serde_json::Value| v.as_array().map_or(0, Vec::len);
    let keys: std::collections::HashSet<&str> = cells
        .iter()
        .map(|c| c["configKey"].as_str().unwrap())
        .collect();
    RawCounts {
        lanes: keys.len(),
        deployments: cells.len(),
        points: cells.iter().map(|c| len(&c["points"])).sum(),
        command_sets: cells
            .iter()
            .map(|c| {
                let routers = c["routers"].as_object().unwrap().len();
                len(&c["points"]) * routers * len(&c["kv"]["available"])
            })
            .sum(),
    }
}

/// The counts of the sample book's data (every file of `agentx/`),
/// summed.
pub(crate) fn sample_counts() -> RawCounts {
    let mut total = RawCounts::default();
    for e in std::fs::read_dir(repo().join("agentx")).unwrap() {
        let c = raw_counts(&e.unwrap().path());
        total.lanes += c.lanes;
        total.deployments += c.deployments;
        total.points += c.points;
        total.command_sets += c.command_sets;
    }
    total
}

/// HTML pages of the built sample book: one per chapter of `SUMMARY.md`
/// (each `](….md)` link), one per deployment chapter the directives add (a
/// deployment is a cell, and each model page shows all of its cells), and
/// `index.html`, a copy of the first chapter.
pub(crate) fn sample_pages() -> usize {
    let summary = read(&repo().join("content/SUMMARY.md"));
    summary.matches(".md)").count() + sample_counts().deployments + 1
}

/// A book of `n` model chapters, each the mini fixture's data under its own
/// page name (`Mini-Test (k)`, chapter `scaled/mini-test-k.md`), after an
/// introduction: with `n` over 100 its sidebars are shortened and the build
/// writes the page of all chapters (as the unit test's helper of the same name).
pub(crate) fn scaled_mini_book(name: &str, n: usize) -> Scratch {
    let book = mini_book(name);
    scaled::scale_mini_book(&book, n);
    book
}

/// Runs the binary with `args` and `stdin`: (exit code, stdout, stderr).
pub(crate) fn run_with_stdin(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Every string in a JSON value, by JSON pointer.
pub(crate) fn string_pointers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(_) => out.push(at),
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                string_pointers(x, format!("{at}/{i}"), out);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                let k = k.replace('~', "~0").replace('/', "~1");
                string_pointers(x, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

/// Runs `cmd` and fails the test with its stderr unless it succeeds.
pub(crate) fn succeed(cmd: &mut std::process::Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
