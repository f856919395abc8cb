//! One output rule for every output (issue 25): `build -d`, `[build]
//! build-dir`, `watch -d`, `markdown -d`, `export --offline` and `export
//! --single-file` each refuse an output that is, holds or lies inside what
//! the book reads, `.git`, or something this tool did not write; also when
//! the output path is a symlink to it, or a directory on its way is. Every
//! refusal must name the output and what it collides with, and leave every
//! file of the book (and beside it) byte for byte as it was.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use std::time::Duration;

use crate::containment::{run_bounded, run_killed_after};
use crate::support;

/// (output relative to the book root, a piece of the refusal when the
/// output is that path, when it is a symlink `ln-…` to it (after "it is a
/// symlink to …, and that "), and when it lies below a symlink `pl-…` to it
/// (`None`: not a directory the book reads, so a new directory below it is
/// fine).
const DIRECTORIES: &[(&str, &str, &str, Option<&str>)] = &[
    (".", "it is the book root", "is the book root", None),
    ("..", "it holds the book root", "holds the book root", None),
    (
        "src",
        "it is the source directory src/",
        "is the source directory src/",
        Some("it is inside the source directory src/"),
    ),
    (
        "data",
        "it is the data directory data/",
        "is the data directory data/",
        Some("it is inside the data directory data/"),
    ),
    (
        "flags",
        "it holds the flag registry flags/r.json",
        "holds the flag registry flags/r.json",
        None,
    ),
    (
        "templates",
        "it is templates/",
        "is templates/",
        Some("it is inside templates/"),
    ),
    (
        "agentx-theme",
        "it is agentx-theme/",
        "is agentx-theme/",
        Some("it is inside agentx-theme/"),
    ),
    (
        "theme",
        "it is theme/",
        "is theme/",
        Some("it is inside theme/"),
    ),
    ("book.toml", "it is book.toml", "is book.toml", None),
    (
        "src/SUMMARY.md",
        "it is src/SUMMARY.md",
        "is src/SUMMARY.md",
        None,
    ),
    (
        ".git",
        "/.git, a git repository's own files",
        "/.git, a git repository's own files",
        Some(".git, a git repository's own files"),
    ),
    (
        ".git/objects",
        "it is inside ",
        "is inside ",
        Some(".git, a git repository's own files"),
    ),
    (
        "foreign",
        "it is an existing directory that mdbook-agentx did not write",
        // A symlink to it: the link is not this tool's.
        "which mdbook-agentx did not make",
        None,
    ),
];

/// (file relative to the book root, a piece of the refusal) for
/// `export --single-file`.
const FILES: &[(&str, &str)] = &[
    ("book.toml", "it is book.toml"),
    ("src/SUMMARY.md", "it is src/SUMMARY.md"),
    ("src/new.html", "it is inside the source directory src/"),
    ("data/mini.json", "it is inside the data directory data/"),
    ("flags/r.json", "it is the flag registry flags/r.json"),
    ("templates/page.html", "it is inside templates/"),
    (".git/HEAD", ".git, a git repository's own files"),
    (
        "foreign.html",
        "an existing file that mdbook-agentx did not write",
    ),
    ("ln-book.toml", "and that is book.toml"),
    ("ln-data/mini.json", "it is inside the data directory data/"),
    ("pl-data/x.html", "it is inside the data directory data/"),
    ("pl-src/x.html", "it is inside the source directory src/"),
    ("pl-.git/x.html", ".git, a git repository's own files"),
];

/// The mini book with a registry, templates, both themes, a `.git`, a
/// foreign directory and file, and the symlinks `ln-<name>` → `<name>` and
/// `pl-<name>` → `<name>` for every directory of [`DIRECTORIES`].
fn book() -> support::Scratch {
    let book = support::mini_book("outputs");
    let toml = book.join("book.toml");
    let text = support::read(&toml)
        + "\n[preprocessor.agentx.registries]\n\"example/x:1\" = \"flags/r.json\"\n";
    std::fs::write(&toml, text).unwrap();
    for d in [
        "flags",
        "templates",
        "agentx-theme",
        "theme",
        ".git/objects",
        "foreign",
    ] {
        std::fs::create_dir_all(book.join(d)).unwrap();
    }
    support::copy_dir(&support::repo().join("templates"), &book.join("templates"));
    for (f, text) in [
        ("flags/r.json", "{}"),
        ("agentx-theme/extra.css", "/* theme */"),
        ("theme/index.hbs", "{{ content }}"),
        (".git/HEAD", "ref: refs/heads/main\n"),
        (".git/objects/ab", "object"),
        ("foreign/notes.txt", "not a site"),
        ("foreign.html", "<html>someone else's page</html>\n"),
    ] {
        std::fs::write(book.join(f), text).unwrap();
    }
    for (name, _, _, _) in DIRECTORIES {
        let link = name.replace('/', "-");
        symlink(name, book.join(format!("ln-{link}"))).unwrap();
        symlink(name, book.join(format!("pl-{link}"))).unwrap();
    }
    book
}

/// Every entry under `dir`, symlinks not followed: (path, file bytes or
/// link target; nothing for a directory).
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| {
            let e = e.unwrap();
            let t = e.file_type();
            let bytes = if t.is_symlink() {
                std::fs::read_link(e.path())
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else if t.is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            (e.path().to_path_buf(), bytes)
        })
        .collect();
    v.sort();
    v
}

/// Runs `args` in `book`: what went wrong, if anything. It must fail with
/// `piece` and name the output, changing nothing in or beside the book.
fn refusal_problem(book: &Path, args: &[&str], output: &str, piece: &str) -> Option<String> {
    let around = book.parent().unwrap();
    let before = tree(around);
    let (code, err) = run_killed_after(args, book, Duration::from_secs(20));
    // Killed: a `watch` that took the output and kept running.
    let code = code.unwrap_or(-1);
    let after = tree(around);
    if after != before {
        let changed: Vec<_> = after
            .iter()
            .filter(|e| !before.contains(e))
            .chain(before.iter().filter(|e| !after.contains(e)))
            .map(|(p, _)| p.strip_prefix(around).unwrap_or(p).display().to_string())
            .collect();
        return Some(format!("{args:?} changed {changed:?}"));
    }
    let named = err.contains("refusing output") && err.contains(output);
    (code != 1 || !err.contains(piece) || !named)
        .then(|| format!("{args:?}: exit {code}, want {piece:?} naming {output} in: {err}"))
}

/// The directory commands, each with `OUT` standing for the output; the
/// outside-the-book rule is lifted, so the collision rule alone refuses.
const COMMANDS: &[&[&str]] = &[
    &["build", ".", "--allow-dest-outside", "-d", "OUT"],
    &["watch", ".", "--allow-dest-outside", "-d", "OUT"],
    &["markdown", ".", "--allow-dest-outside", "-d", "OUT"],
    &["export", ".", "--offline", "OUT"],
];

#[test]
fn no_output_replaces_what_the_book_reads() {
    let book = book();
    let (mut runs, mut problems) = (0, Vec::new());
    let mut check = |args: &[&str], output: &str, piece: &str| {
        runs += 1;
        problems.extend(refusal_problem(&book, args, output, piece));
    };
    for (name, plain, via_link, below_link) in DIRECTORIES {
        let link = name.replace('/', "-");
        let mut outputs = vec![(name.to_string(), plain.to_string())];
        outputs.push((format!("ln-{link}"), "it is a symlink to ".to_string()));
        outputs.push((format!("ln-{link}"), via_link.to_string()));
        if let Some(piece) = below_link {
            outputs.push((format!("pl-{link}/out"), piece.to_string()));
        }
        for (out, piece) in &outputs {
            for command in COMMANDS {
                let args: Vec<&str> = command
                    .iter()
                    .map(|a| if *a == "OUT" { out.as_str() } else { a })
                    .collect();
                check(&args, out, piece);
            }
            // The same path as `[build] build-dir` in a pull request's book.toml.
            let toml = book.join("book.toml");
            let original = support::read(&toml);
            std::fs::write(&toml, format!("[build]\nbuild-dir = \"{out}\"\n{original}")).unwrap();
            check(
                &["build", ".", "--allow-dest-outside"],
                "[build] build-dir",
                piece,
            );
            std::fs::write(&toml, original).unwrap();
        }
    }
    for (file, piece) in FILES {
        check(&["export", ".", "--single-file", file], file, piece);
    }
    assert!(
        problems.is_empty(),
        "{} of {runs} outputs not refused as they should be:\n{}",
        problems.len(),
        problems.join("\n")
    );
    eprintln!("{runs} outputs refused, the book unchanged after each");
}

/// What the rule allows: a new output, an empty directory, and this tool's
/// own outputs again (the publish symlink, a site an older version wrote as
/// a real directory, portable Markdown, the single file).
#[test]
fn own_outputs_are_replaced() {
    let book = book();
    let ok = |args: &[&str]| {
        let (code, err) = run_bounded(args, &book);
        assert_eq!(code, 0, "{args:?}: {err}");
    };
    std::fs::create_dir(book.join("empty")).unwrap();
    ok(&["build", ".", "-d", "empty"]);
    ok(&["build", ".", "-d", "empty"]);
    ok(&["build", "."]);
    ok(&["build", "."]);
    ok(&["markdown", ".", "-d", "md"]);
    ok(&["markdown", ".", "-d", "md"]);
    ok(&["export", ".", "--offline", "offline"]);
    ok(&["export", ".", "--offline", "offline"]);
    ok(&["export", ".", "--single-file", "book.html"]);
    ok(&["export", ".", "--single-file", "book.html"]);
    // The layout older versions wrote: a real directory with the manifest.
    std::fs::create_dir(book.join("old")).unwrap();
    std::fs::write(book.join("old/agentx-manifest.json"), "[]").unwrap();
    std::fs::write(book.join("old/index.html"), "old").unwrap();
    ok(&["build", ".", "-d", "old"]);
    assert!(support::read(&book.join("old/index.html")).contains("<html"));
    // Portable Markdown moved into a real directory is still recognised.
    let md = std::fs::canonicalize(book.join("md")).unwrap();
    std::fs::remove_file(book.join("md")).unwrap();
    std::fs::rename(&md, book.join("md")).unwrap();
    ok(&["markdown", ".", "-d", "md"]);
}
