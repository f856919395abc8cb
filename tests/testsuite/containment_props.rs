//! Containment as a property: whatever paths a book's `SUMMARY.md` entries
//! and `data=` attributes hold (relative, `..`, absolute, through a
//! symlink that leaves the book, percent-encoded, multibyte), a build
//! writes nothing outside its output directory, and nothing from outside
//! the book reaches the output. The table in `containment.rs` checks the
//! message of each known attack; this looks for the ones nobody listed.
//! (Part of issue 12; panics on chapter text and data files are the
//! no-panic property's.)

#![cfg(unix)]

use std::cell::Cell;
use std::path::{Path, PathBuf};

use mdbook_agentx::{BuildOptions, build};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::support;

/// In every file outside the book, so a read of one that got published shows.
const SECRET: &str = "OUTSIDE-SECRET-7f3a";

/// Where a path starts: in the chapter's folder, above it, at an absolute
/// path (inside the scratch directory, so a write there would be seen),
/// through the symlink `link` (in the book root) to the folder outside.
fn prefix(root: &str) -> impl Strategy<Value = String> + use<> {
    prop_oneof![
        Just(String::new()),
        Just("./".to_string()),
        Just("../".to_string()),
        Just("../../".to_string()),
        Just("../../../".to_string()),
        Just("link/".to_string()),
        Just("../link/".to_string()),
        Just("src/../../".to_string()),
        Just(format!("{root}/")),
        Just(format!("{root}/book/src/")),
        Just("/".to_string()),
    ]
}

/// A middle part: nothing, or a few path components, odd ones included.
fn middle() -> impl Strategy<Value = String> {
    let component = prop_oneof![
        Just(".."),
        Just("."),
        Just(""),
        Just("src"),
        Just("data"),
        Just("outside"),
        Just("%2e%2e"),
        Just("..\\.."),
        Just("é"),
        Just("a b"),
    ];
    let parts = prop_oneof![Just(Vec::new()), prop::collection::vec(component, 1..3)];
    parts.prop_map(|parts| {
        parts
            .into_iter()
            .map(|p| format!("{p}/"))
            .collect::<String>()
    })
}

/// What a path ends in: files that exist inside and outside the book, a
/// directory, a device, names that do not exist.
fn tail() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("plain.md".to_string()),
        Just("mini.md".to_string()),
        Just("evil.md".to_string()),
        Just("outside/evil.md".to_string()),
        Just("evil.json".to_string()),
        Just("outside/evil.json".to_string()),
        Just("data/mini.json".to_string()),
        Just("mini.json".to_string()),
        Just("outside".to_string()),
        Just("etc/passwd".to_string()),
        Just("dev/null".to_string()),
        "[a-z]{1,4}(\\.md|\\.json)?",
    ]
}

/// A path: composed from the parts above, or (one time in two) a whole
/// path known to reach outside, or to be fine, so those come up often.
fn path(root: &str) -> impl Strategy<Value = String> + use<> {
    let known = prop::sample::select(vec![
        "../outside/evil.json".to_string(),
        "link/evil.json".to_string(),
        format!("{root}/outside/evil.json"),
        "../link/evil.md".to_string(),
        "../../outside/evil.md".to_string(),
        format!("{root}/outside/evil.md"),
        "data/mini.json".to_string(),
        "mini.md".to_string(),
        "plain.md".to_string(),
    ]);
    let composed = (prefix(root), middle(), tail()).prop_map(|(p, m, t)| format!("{p}{m}{t}"));
    prop_oneof![composed, known]
}

/// Every entry under `dir` (symlinks not followed) with its size, except
/// the output (`book` and its generations) and the two files the cases
/// rewrite.
fn listing(dir: &Path) -> Vec<(PathBuf, u64)> {
    let skip = |p: &Path| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        (p.parent().is_some_and(|d| d.ends_with("book"))
            && (name == "book" || name.starts_with(".book")))
            || p.ends_with("book/src/SUMMARY.md")
            || p.ends_with("book/src/plain.md")
    };
    let mut v: Vec<(PathBuf, u64)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| !skip(e.path()))
        .map(|e| {
            let e = e.unwrap();
            let len = e.metadata().map(|m| m.len()).unwrap_or(0);
            (e.path().to_path_buf(), len)
        })
        .collect();
    v.sort();
    v
}

/// The mini book at `<scratch>/book`, beside `<scratch>/outside/` holding a
/// chapter and a data file (for the book's own page name) that carry
/// [`SECRET`], and `link` → that folder in the book root (committed, but
/// not in a folder the build copies).
fn book_beside_outside() -> support::Scratch {
    let book = support::mini_book("book");
    let outside = book.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("evil.md"), format!("# Evil\n\n{SECRET}\n")).unwrap();
    let mut data: serde_json::Value =
        serde_json::from_str(&support::read(&book.join("data/mini.json"))).unwrap();
    for cell in data["cells"].as_array_mut().unwrap() {
        cell["label"] = SECRET.into();
    }
    std::fs::write(outside.join("evil.json"), data.to_string()).unwrap();
    std::os::unix::fs::symlink("../outside", book.join("link")).unwrap();
    book
}

/// Removes the site of the last case (`book` and its generations), so
/// what a case finds published is its own build's.
fn remove_output(book: &Path) {
    for e in std::fs::read_dir(book).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "book" && e.file_type().unwrap().is_symlink() {
            std::fs::remove_file(e.path()).unwrap();
        } else if name == "book" || name.starts_with(".book") {
            std::fs::remove_dir_all(e.path()).unwrap();
        }
    }
}

#[test]
fn no_summary_entry_or_data_path_writes_or_publishes_outside() {
    let book = book_beside_outside();
    let root = book.parent().unwrap().to_path_buf();
    let before = listing(&root);
    let (built, refused) = (Cell::new(0), Cell::new(0));
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    });
    let root_text = root.to_str().unwrap();
    let entries = prop::collection::vec(path(root_text), 0..3);
    // No `data=` now and then, so books that build come up too.
    let data = prop_oneof![1 => Just(None), 2 => path(root_text).prop_map(Some)];
    let cases = (entries, data);
    let result = runner.run(&cases, |(entries, data)| {
        remove_output(&book);
        let mut summary = String::from("# Summary\n\n- [Plain](plain.md)\n");
        for (i, p) in entries.iter().enumerate() {
            // In `<…>`, so spaces stay part of the path.
            summary.push_str(&format!("- [Chapter {i}](<{p}>)\n"));
        }
        std::fs::write(book.join("src/SUMMARY.md"), &summary).unwrap();
        std::fs::write(
            book.join("src/plain.md"),
            match &data {
                Some(data) => format!("# Plain\n\n<<agentx page=\"Mini-Test\" data=\"{data}\">>\n"),
                None => "# Plain\n\n<<agentx page=\"Mini-Test\">>\n".to_string(),
            },
        )
        .unwrap();
        match build(&book, &BuildOptions::default()) {
            Ok(_) => built.set(built.get() + 1),
            Err(e) => {
                if std::env::var_os("AGENTX_SHOW_REFUSALS").is_some() {
                    eprintln!("{e:#}");
                }
                refused.set(refused.get() + 1)
            }
        }
        prop_assert_eq!(&listing(&root), &before, "written outside the output");
        let out = book.join("book");
        let published = if out.exists() {
            support::files_under(&out)
        } else {
            Vec::new()
        };
        for (rel, bytes) in published {
            let text = String::from_utf8_lossy(&bytes);
            prop_assert!(!text.contains(SECRET), "book/{} published", rel.display());
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // Not vacuous: some books built (and were checked), some were refused.
    eprintln!("{} built, {} refused", built.get(), refused.get());
    assert!(built.get() > 0 && refused.get() > 0);
}
