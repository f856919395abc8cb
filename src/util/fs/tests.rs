use std::os::unix::fs::symlink;

use super::*;

/// A book in a temporary directory with one of every kind of entry a pull
/// request could commit, and a file beside it (outside the book).
struct Fixture {
    _dir: tempfile::TempDir,
    book: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book");
    std::fs::create_dir_all(book.join("sub/deeper")).unwrap();
    std::fs::write(dir.path().join("outside.json"), "{}").unwrap();
    std::fs::write(book.join("a.json"), "{\"a\": 1}").unwrap();
    std::fs::write(book.join("sub/b.json"), "{}").unwrap();
    std::fs::write(book.join("big.json"), vec![b' '; (1 << 20) + 1]).unwrap();
    std::fs::write(book.join("latin1.txt"), b"caf\xe9").unwrap();
    symlink("a.json", book.join("link-in")).unwrap();
    symlink("sub", book.join("dir-in")).unwrap();
    symlink("/etc/passwd", book.join("link-passwd")).unwrap();
    symlink("/proc/self/environ", book.join("link-environ")).unwrap();
    symlink("/dev/zero", book.join("link-zero")).unwrap();
    symlink("../outside.json", book.join("link-out")).unwrap();
    symlink("missing.json", book.join("dangling")).unwrap();
    symlink("/nonexistent-agentx/x.json", book.join("link-out-missing")).unwrap();
    symlink("sub/../../outside.json", book.join("link-dotdot-out")).unwrap();
    make_fifo(&book.join("fifo"));
    Fixture { _dir: dir, book }
}

/// A FIFO at `path`, made by `mkfifo(1)`: no system call from the tests.
fn make_fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// (path under the book, or absolute; allow-outside; `Ok` with the file's
/// length, or a piece of the message).
const READS: &[(&str, bool, Result<usize, &str>)] = &[
    ("a.json", false, Ok(8)),
    ("link-in", false, Ok(8)),
    ("sub/../a.json", false, Ok(8)),
    ("dir-in/b.json", false, Ok(2)),
    (
        "link-passwd",
        false,
        Err("link-passwd is a symlink to /etc/passwd, outside the book"),
    ),
    ("link-environ", false, Err("environ, outside the book")),
    (
        "link-zero",
        false,
        Err("link-zero is a symlink to /dev/zero, outside the book"),
    ),
    ("link-out", false, Err("outside.json, outside the book")),
    (
        "../outside.json",
        false,
        Err("outside.json, outside the book"),
    ),
    (
        "/etc/passwd",
        false,
        Err("/etc/passwd resolves to /etc/passwd, outside the book"),
    ),
    (
        "/dev/zero",
        false,
        Err("resolves to /dev/zero, outside the book"),
    ),
    ("fifo", false, Err("fifo is a FIFO, not a regular file")),
    ("fifo", true, Err("fifo is a FIFO, not a regular file")),
    ("sub", false, Err("sub is a directory, not a regular file")),
    (
        "big.json",
        false,
        Err("big.json is larger than the limit of 1 MiB"),
    ),
    // Outside the book, whether the file is there or not: refused by path,
    // never looked at (issue 25: a missing one said "cannot read").
    (
        "/nonexistent-agentx/x.json",
        false,
        Err("/nonexistent-agentx/x.json resolves to /nonexistent-agentx/x.json, outside the book"),
    ),
    (
        "../missing-outside.json",
        false,
        Err("missing-outside.json resolves to"),
    ),
    (
        "link-out-missing",
        false,
        Err("link-out-missing is a symlink to /nonexistent-agentx/x.json, outside the book"),
    ),
    (
        "link-dotdot-out",
        false,
        Err("outside.json, outside the book"),
    ),
    ("dir-in/../a.json", false, Ok(8)),
    ("missing.json", false, Err("cannot read")),
    ("dangling", false, Err("cannot read")),
    // allow-outside lifts containment only: devices stay refused, size capped.
    ("link-passwd", true, Ok(usize::MAX)),
    (
        "link-zero",
        true,
        Err("link-zero resolves to /dev/zero, under /dev: files of the system's"),
    ),
    (
        "/dev/zero",
        true,
        Err("under /dev: files of the system's pseudo-file systems are not read"),
    ),
    // They stat as regular files; /proc/self/environ holds the CI secrets.
    (
        "/proc/self/environ",
        true,
        Err("under /proc: files of the system's pseudo-file systems are not read"),
    ),
    (
        "/sys/kernel/mm/transparent_hugepage/enabled",
        true,
        Err("under /sys: files of the system's pseudo-file systems"),
    ),
];

#[test]
fn reads_stay_in_the_book_and_take_only_regular_files_under_the_cap() {
    let fx = fixture();
    for (rel, allow, want) in READS {
        let bounds = Bounds::new(&fx.book, *allow, 1).unwrap();
        let got = bounds.read(&fx.book.join(rel));
        match (want, got) {
            (Ok(usize::MAX), Ok(_)) => {}
            (Ok(n), Ok(bytes)) => assert_eq!(bytes.len(), *n, "{rel}"),
            (Err(piece), Err(e)) => {
                let msg = format!("{e:#}");
                assert!(msg.contains(piece), "{rel}: {msg}");
            }
            (want, got) => panic!("{rel} (allow-outside {allow}): want {want:?}, got {got:?}"),
        }
    }
    let bounds = Bounds::strict(&fx.book).unwrap();
    let err = bounds
        .read_to_string(&fx.book.join("latin1.txt"))
        .unwrap_err();
    assert!(
        format!("{err}").contains("latin1.txt: not UTF-8 text (invalid byte at offset 3)"),
        "{err}"
    );
    // A file outside the book that exists and one that does not get the
    // same message: a book cannot probe the machine with `data=`.
    let shape = |name: &str| {
        let err = bounds.read(&fx.book.join(name)).unwrap_err();
        format!("{err:#}").replace(name.trim_start_matches("../"), "NAME")
    };
    assert_eq!(shape("../outside.json"), shape("../elsewhere.json"));
    assert_eq!(shape("/etc/passwd"), shape("/etc/no-such-file-agentx"));
    // The message says what to do.
    let err = bounds.read(&fx.book.join("link-passwd")).unwrap_err();
    assert!(
        format!("{err}").contains("set `allow-outside = true`"),
        "{err}"
    );
    // Files named on the command line: no book, same file rules.
    let err = read_regular(Path::new("/dev/zero"), 1 << 20).unwrap_err();
    assert!(format!("{err}").contains("character device"), "{err}");
    assert_eq!(read_regular(&fx.book.join("a.json"), 8).unwrap().len(), 8);
    let err = read_regular(&fx.book.join("a.json"), 7).unwrap_err();
    assert!(format!("{err}").contains("larger than the limit"), "{err}");
}

#[test]
fn walks_refuse_links_out_of_the_book_loops_and_endless_trees() {
    let fx = fixture();
    let bounds = Bounds::strict(&fx.book).unwrap();
    // The links out are refused before anything under them is listed.
    let err = bounds.files_below(&fx.book, |_| false).unwrap_err();
    assert!(format!("{err}").contains("outside the book"), "{err}");
    // Pruned away, the rest walks (through links inside the book).
    let files = bounds
        .files_below(&fx.book, |p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("link-"))
        })
        .unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.strip_prefix(&fx.book).unwrap().display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "a.json",
            "big.json",
            "dangling",
            "dir-in/b.json",
            "fifo",
            "latin1.txt",
            "sub/b.json"
        ]
    );
    // A link to the root of the file system is refused, not walked.
    std::fs::remove_dir_all(fx.book.join("sub/deeper")).unwrap();
    symlink("/", fx.book.join("sub/deeper")).unwrap();
    let err = bounds
        .files_below(&fx.book.join("sub"), |_| false)
        .unwrap_err();
    assert!(
        format!("{err}").contains("deeper is a symlink to /, outside the book"),
        "{err}"
    );
    // The directory itself outside: refused, whatever it holds.
    let err = bounds.files_below(Path::new("/"), |_| false).unwrap_err();
    assert!(format!("{err}").contains("outside the book"), "{err}");
    // A tree larger than the walk's limit.
    let small = Bounds {
        max_entries: 3,
        ..Bounds::strict(&fx.book).unwrap()
    };
    let links = |p: &Path| p.to_string_lossy().contains("link-");
    let err = small.files_below(&fx.book, links).unwrap_err();
    assert!(
        format!("{err}").contains("holds more than 3 entries"),
        "{err}"
    );
    // Entries of one directory are checked the same way.
    let err = bounds.entries_of(&fx.book).unwrap_err();
    assert!(format!("{err}").contains("outside the book"), "{err}");
    assert_eq!(
        bounds.entries_of(&fx.book.join("nope")).unwrap(),
        [] as [PathBuf; 0]
    );
}

/// Regression: a symlink to an enclosing directory sent the walk round and
/// round; now it ends with an error naming the loop.
#[test]
fn a_symlink_loop_is_an_error_not_an_endless_walk() {
    let dir = crate::test_support::temp("walk-loop");
    std::fs::create_dir_all(dir.join("a/b")).unwrap();
    std::fs::write(dir.join("a/b/x.json"), "{}").unwrap();
    std::fs::write(dir.join("top.md"), "").unwrap();
    assert_eq!(
        files_below(&dir, |_| false).unwrap(),
        [dir.join("a/b/x.json"), dir.join("top.md")]
    );
    symlink("../..", dir.join("a/b/up")).unwrap();
    let err = files_below(&dir, |_| false).unwrap_err().to_string();
    assert!(err.contains("loop"), "{err}");
    // Pruned directories are not entered, loop or not.
    let pruned = files_below(&dir, |p| p.ends_with("a")).unwrap();
    assert_eq!(pruned, [dir.join("top.md")]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plain_relative_paths_and_output_dirs() {
    for (p, want) in [
        ("a/b.css", true),
        ("./a.css", true),
        ("", false),
        ("../a.css", false),
        ("a/../../b", false),
        ("/etc/passwd", false),
    ] {
        assert_eq!(is_plain_relative(Path::new(p)), want, "{p}");
    }
    let fx = fixture();
    let real = std::fs::canonicalize(&fx.book).unwrap();
    // The output's own name is kept even when it is a symlink out.
    assert_eq!(
        resolve_output_dir(&fx.book.join("link-zero")).unwrap(),
        real.join("link-zero")
    );
    assert_eq!(
        resolve_output_dir(&fx.book.join("dir-in/new/x/../out")).unwrap(),
        real.join("sub/new/out")
    );
    let bounds = Bounds::strict(&fx.book).unwrap();
    assert!(bounds.admits(&fx.book.join("not/yet/here")));
    assert!(!bounds.admits(&fx.book.join("../elsewhere")));
    assert!(!bounds.admits(&fx.book.join("link-passwd")));
}
