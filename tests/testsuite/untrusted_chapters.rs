//! Chapter text and data from a pull request: a broken directive fails
//! with a message everywhere a chapter is expanded (never a panic), and
//! whatever the chapter and data say, every file a build writes is under
//! its output directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use mdbook_agentx::{BuildOptions, Change, Engine, OnError, expand_chapter};
use proptest::prelude::*;
use serde_json::Value;

use crate::support;

/// An unterminated directive on a line that ends in `\r\n`, in spaces, or
/// in a tab and `\r\n`: each once panicked the directive finder.
const UNTERMINATED: &[&str] = &[
    "# A\n\n<<agentx page=\"a\"\r\n\r\nmore\r\n",
    "# A\n\n<<agentx page=\"a\"   \n\nmore\n",
    "# A\n\n<<agentx page=\"a\"\t\r\n",
];

#[test]
fn unterminated_directive_fails_in_expansion() {
    let lib = mdbook_agentx::Library::load(&support::fixture(""), Path::new("data")).unwrap();
    for chapter in UNTERMINATED {
        let err = expand_chapter(chapter, Path::new("a.md"), "src/a.md", &lib, OnError::Fail)
            .expect_err(chapter);
        let msg = format!("{err:#}");
        assert!(msg.starts_with("src/a.md:3:1: missing `>>`"), "{msg}");
        let warned =
            expand_chapter(chapter, Path::new("a.md"), "src/a.md", &lib, OnError::Warn).unwrap();
        assert_eq!(warned.warnings.len(), 1, "{chapter:?}");
        assert!(warned.content.contains("more") == chapter.contains("more"));
    }
}

#[test]
fn unterminated_directive_fails_the_build_with_exit_1() {
    for chapter in UNTERMINATED {
        let book = support::mini_book("crlf-build");
        std::fs::write(book.join("src/mini.md"), chapter).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
            .arg("build")
            .arg(&*book)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{chapter:?}: {stderr}");
        assert!(stderr.contains("mini.md:3:1: missing `>>`"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn unterminated_directive_fails_the_mdbook_protocol() {
    let book = support::fixture("books/mini");
    let json_str = |s: &str| {
        let q = serde_json::to_string(s).unwrap();
        q[1..q.len() - 1].to_string()
    };
    let plain = support::read(&book.join("src/plain.md"));
    for chapter in UNTERMINATED {
        let input = support::read(&support::fixture("protocol/input.json"))
            .replace("__ROOT__", &json_str(&book.to_string_lossy()))
            .replace("__MINI__", &json_str(chapter))
            .replace("__PLAIN__", &json_str(&plain));
        let (code, stdout, stderr) = support::run_with_stdin(&[], &input);
        assert_eq!(code, 1, "{chapter:?}: {stderr}");
        assert!(stdout.is_empty(), "stdout must carry only the book");
        assert!(stderr.contains("mini.md:3:1: missing `>>`"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn unterminated_directive_fails_a_rebuild_and_the_engine_recovers() {
    let book = support::mini_book("crlf-engine");
    let dest = book.join("out");
    let opts = BuildOptions {
        dest: Some(dest.clone()),
        ..BuildOptions::default()
    };
    let mut engine = Engine::open(&book, false).unwrap();
    engine.rebuild(&[Change::Config], &opts).unwrap();
    let good = support::read(&book.join("src/mini.md"));
    for chapter in UNTERMINATED {
        std::fs::write(book.join("src/mini.md"), chapter).unwrap();
        let Err(err) = engine.rebuild(&[Change::Content], &opts) else {
            panic!("{chapter:?}: the rebuild succeeded");
        };
        assert!(format!("{err:#}").contains("missing `>>`"), "{err:#}");
        std::fs::write(book.join("src/mini.md"), &good).unwrap();
        engine.rebuild(&[Change::Content], &opts).unwrap();
    }
}

/// Pieces of chapters: directives whole, broken and nested, escapes,
/// containers, code, CRLF, trailing spaces, multibyte text.
fn chapter_piece() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "<<agentx page=\"Mini-Test\">>",
        "<<agentx page=\"Mini-Test\" hardware=\"gb300\" level=\"5\">>",
        "<<agentx data=\"data/mini.json\">>",
        "<<agentx page=\"a\"",
        "<<agentx page=\"",
        "<<agentx <<agentx page=\"Mini-Test\">> >>",
        "\\<<agentx page=\"Mini-Test\">>",
        "\r\n",
        "\n",
        "\n\n",
        "\r",
        "   ",
        "> ",
        "- ",
        "```\n",
        "`",
        "<!--",
        "Ünïcödé ✓ 🚀",
        "[x](../../../../etc/passwd.md)",
        "# Heading {#id}\n",
    ])
}

/// A string for a data field: markup, paths, line breaks, multibyte.
fn field_value() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(vec![
            "../../../../tmp/x",
            "/etc/passwd",
            "a/b",
            "",
            ".",
            "<script>alert(1)</script>",
            "x\r\ny",
            "é#✓",
        ])
        .prop_map(str::to_string),
        "[ -~\\r\\néü🚀]{0,12}",
    ]
}

/// Size and content of every file under `dir`.
/// Symlinks (the published `out` is one) count by their target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            let bytes = match e.file_type().is_symlink() {
                true => std::fs::read_link(e.path())
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes(),
                false => std::fs::read(e.path()).unwrap(),
            };
            (e.path().strip_prefix(dir).unwrap().to_path_buf(), bytes)
        })
        .collect()
}

/// Whether `path` is the output directory `out`, below it, or one of its
/// generations or staging directories beside it (`.out-<random>`,
/// `.out.staging-<random>`: how the site is published atomically).
fn in_output(path: &Path, out: &Path) -> bool {
    let beside = path
        .strip_prefix(out.parent().unwrap())
        .ok()
        .and_then(|rel| {
            let first = rel.components().next()?.as_os_str().to_str()?;
            Some(first.starts_with(".out-") || first.starts_with(".out.staging-"))
        });
    path.starts_with(out) || beside == Some(true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any chapter and any data strings: the build returns (Ok or an
    /// error, never a panic), and every file it wrote or changed is under
    /// the output directory.
    #[test]
    fn builds_write_only_under_the_output_dir(
        pieces in proptest::collection::vec(chapter_piece(), 0..24),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), field_value()), 0..6),
    ) {
        let scratch = support::temp("property");
        let book = scratch.join("deep/er/book");
        std::fs::create_dir_all(&book).unwrap();
        support::copy_dir(&support::fixture("books/mini"), &book);
        let mut data: Value = serde_json::from_str(
            &support::read(&support::fixture("data/mini.json"))).unwrap();
        let mut pointers = Vec::new();
        support::string_pointers(&data, String::new(), &mut pointers);
        for (index, value) in &edits {
            let p = index.get(&pointers);
            *data.pointer_mut(p).unwrap() = Value::String(value.clone());
        }
        std::fs::create_dir_all(book.join("data")).unwrap();
        std::fs::write(book.join("data/mini.json"), data.to_string()).unwrap();
        std::fs::write(
            book.join("book.toml"),
            "[book]\ntitle = \"P\"\nsrc = \"src\"\n\n[preprocessor.agentx]\ndata-dir = \"data\"\non-error = \"warn\"\n",
        ).unwrap();
        std::fs::write(book.join("src/mini.md"), pieces.concat()).unwrap();
        let out = book.join("out");
        let before = snapshot(&scratch);
        let opts = BuildOptions { dest: Some(out.clone()), ..BuildOptions::default() };
        // Hostile data mostly fails to load; `on-error = "warn"` keeps the
        // chapter building with the problem shown, so the site is written.
        let built = mdbook_agentx::build(&book, &opts);
        prop_assert!(built.is_err() || out.join("index.html").is_file());
        for (path, bytes) in snapshot(&scratch) {
            if before.get(&path) != Some(&bytes) {
                let abs = scratch.join(&path);
                prop_assert!(in_output(&abs, &out), "written outside the output dir: {}", abs.display());
            }
        }
    }
}
