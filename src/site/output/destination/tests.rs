//! The output rule, path by path: what each output collides with, and which
//! existing directories and files count as this tool's own.

use std::os::unix::fs::symlink;

use super::*;
use crate::test_support::mini_book;

/// (output relative to the book root, kind, `None` when allowed, else a
/// piece of the refusal). The book has a registry in `flags/`, CSS in
/// `extra.css`, a `.git`, a foreign directory `foreign/`, this tool's old
/// site `old-site/` (a real directory with the manifest of an earlier
/// version, `agentx-manifest.json`), a current one `site/` (`launches.json`), an empty `empty/`,
/// a foreign `page.html`, and the symlinks `to-data` (→ `data`),
/// `to-git` (→ `.git`) and `to-elsewhere` (→ `../elsewhere`).
const CASES: &[(&str, OutputKind, Option<&str>)] = &[
    ("book", OutputKind::Directory, None),
    ("new/deeper/site", OutputKind::Directory, None),
    ("empty", OutputKind::Directory, None),
    ("old-site", OutputKind::Directory, None),
    ("site", OutputKind::Directory, None),
    ("md-old", OutputKind::Directory, None),
    (".", OutputKind::Directory, Some("it is the book root")),
    (
        "src",
        OutputKind::Directory,
        Some("it is the source directory src/"),
    ),
    (
        "src/sub",
        OutputKind::Directory,
        Some("it is inside the source directory src/"),
    ),
    (
        "data",
        OutputKind::Directory,
        Some("it is the data directory data/"),
    ),
    (
        "data/x/..",
        OutputKind::Directory,
        Some("it is the data directory data/"),
    ),
    (
        "flags",
        OutputKind::Directory,
        Some("it holds the flag registry flags/r.json"),
    ),
    (
        "flags/r.json",
        OutputKind::Directory,
        Some("it is the flag registry flags/r.json"),
    ),
    ("templates", OutputKind::Directory, Some("it is templates/")),
    (
        "agentx-theme/x",
        OutputKind::Directory,
        Some("it is inside agentx-theme/"),
    ),
    ("theme", OutputKind::Directory, Some("it is theme/")),
    ("book.toml", OutputKind::Directory, Some("it is book.toml")),
    (
        "extra.css",
        OutputKind::Directory,
        Some("it is extra.css (`additional-css`"),
    ),
    (
        ".git",
        OutputKind::Directory,
        Some("/.git, a git repository's own files"),
    ),
    (".git/hooks", OutputKind::Directory, Some("it is inside ")),
    (
        "foreign",
        OutputKind::Directory,
        Some("an existing directory that mdbook-agentx did not write"),
    ),
    ("foreign/sub", OutputKind::Directory, Some("it holds /")),
    (
        "to-data",
        OutputKind::Directory,
        Some("it is a symlink to "),
    ),
    (
        "to-data",
        OutputKind::Directory,
        Some("and that is the data directory data/"),
    ),
    (
        "to-data/out",
        OutputKind::Directory,
        Some("it is inside the data directory data/"),
    ),
    (
        "to-git",
        OutputKind::Directory,
        Some("/.git, a git repository's own files"),
    ),
    (
        "to-elsewhere",
        OutputKind::Directory,
        Some("which mdbook-agentx did not make"),
    ),
    (
        "page.html",
        OutputKind::Directory,
        Some("it is a file, not a directory"),
    ),
    ("book.html", OutputKind::File, None),
    ("own.html", OutputKind::File, None),
    (
        "page.html",
        OutputKind::File,
        Some("an existing file that mdbook-agentx did not write"),
    ),
    ("book.toml", OutputKind::File, Some("it is book.toml")),
    (
        "src/SUMMARY.md",
        OutputKind::File,
        Some("it is src/SUMMARY.md"),
    ),
    (
        "src/new.html",
        OutputKind::File,
        Some("it is inside the source directory src/"),
    ),
    (
        "data/mini.json",
        OutputKind::File,
        Some("it is inside the data directory data/"),
    ),
    (
        "flags/r.json",
        OutputKind::File,
        Some("it is the flag registry flags/r.json"),
    ),
    (".git/x.html", OutputKind::File, Some("it is inside ")),
    (
        "to-data/x.html",
        OutputKind::File,
        Some("it is inside the data directory data/"),
    ),
    (
        "empty",
        OutputKind::File,
        Some("it exists and is not a file"),
    ),
    (
        "own-link.html",
        OutputKind::File,
        Some("it is a symlink (to own.html)"),
    ),
];

/// The mini book with everything [`CASES`] names.
fn book() -> crate::test_support::Scratch {
    let book = mini_book("destination");
    let toml = book.join("book.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str("\n[preprocessor.agentx.registries]\ndefault = { \"sglang.launch_server\" = \"flags/r.json\" }\n");
    text.push_str("\n[output.html]\nadditional-css = [\"extra.css\"]\n");
    std::fs::write(&toml, text).unwrap();
    for d in [
        "flags",
        ".git",
        "foreign/sub/.git",
        "old-site",
        "site",
        "md-old",
        "empty",
    ] {
        std::fs::create_dir_all(book.join(d)).unwrap();
    }
    for (f, text) in [
        ("flags/r.json", "{}".to_string()),
        ("extra.css", String::new()),
        (".git/HEAD", "ref: refs/heads/main\n".into()),
        ("foreign/notes.txt", "mine".into()),
        ("old-site/agentx-manifest.json", "[]".into()),
        ("old-site/index.html", "old".into()),
        ("site/launches.json", "{}".into()),
        ("md-old/.agentx-markdown", String::new()),
        ("page.html", "<html>someone's page</html>\n".into()),
        ("own.html", format!("<html></html>\n{SINGLE_FILE_MARKER}\n")),
    ] {
        std::fs::write(book.join(f), text).unwrap();
    }
    symlink("data", book.join("to-data")).unwrap();
    symlink(".git", book.join("to-git")).unwrap();
    std::fs::create_dir(book.join("../elsewhere")).unwrap();
    symlink("../elsewhere", book.join("to-elsewhere")).unwrap();
    symlink("own.html", book.join("own-link.html")).unwrap();
    book
}

#[test]
fn outputs_that_collide_with_the_book_are_refused() {
    let book = book();
    let dir = BookDir::open(&book).unwrap();
    for (rel, kind, want) in CASES {
        let got = check_output(&dir, &book.join(rel), *kind, "-d", false);
        match (want, got) {
            (None, Ok(())) => {}
            (None, Err(e)) => panic!("{rel} ({kind:?}): refused: {e}"),
            (Some(piece), Ok(())) => panic!("{rel} ({kind:?}): allowed, want {piece:?}"),
            (Some(piece), Err(e)) => {
                let e = e.to_string();
                assert!(
                    e.contains(piece),
                    "{rel} ({kind:?}): want {piece:?} in\n{e}"
                );
                assert!(
                    e.contains("refusing output"),
                    "{rel}: names the output: {e}"
                );
            }
        }
    }
}

#[test]
fn the_publish_symlink_is_this_tools_own() {
    let book = book();
    let dir = BookDir::open(&book).unwrap();
    let check = || check_output(&dir, &book.join("book"), OutputKind::Directory, "-d", false);
    std::fs::create_dir(book.join(".book-abcdefABCDEF")).unwrap();
    symlink(".book-abcdefABCDEF", book.join("book")).unwrap();
    check().unwrap();
    // A generation name that is itself a symlink (into the sources) is not one.
    std::fs::remove_dir(book.join(".book-abcdefABCDEF")).unwrap();
    symlink("src", book.join(".book-abcdefABCDEF")).unwrap();
    let err = check().unwrap_err().to_string();
    assert!(err.contains("the source directory src/"), "{err}");
    // Nor a name that is not a generation of this output.
    std::fs::remove_file(book.join("book")).unwrap();
    symlink(".site-abcdefABCDEF", book.join("book")).unwrap();
    assert!(check().is_err());
}

#[test]
fn outside_the_book_only_when_allowed() {
    let book = book();
    let dir = BookDir::open(&book).unwrap();
    let out = book.parent().unwrap().join("site");
    let err = check_output(&dir, &out, OutputKind::Directory, "-d", false).unwrap_err();
    assert!(err.to_string().contains("is outside the book"), "{err}");
    check_output(&dir, &out, OutputKind::Directory, "-d", true).unwrap();
    // Allowed outside, never around the book.
    let err = check_output(
        &dir,
        book.parent().unwrap(),
        OutputKind::Directory,
        "-d",
        true,
    )
    .unwrap_err();
    assert!(err.to_string().contains("it holds the book root"), "{err}");
}
