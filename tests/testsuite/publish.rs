//! Publishing: a reader polling the output never finds `index.html`
//! missing, across 100 builds, starting from a real output directory (the
//! layout older versions wrote) that the first build turns into the
//! symlink layout.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mdbook_agentx::{BuildOptions, build};

use crate::support;

/// What the reader saw: reads of `index.html`, misses (missing or empty),
/// and the generations `book` pointed to between its reads.
#[derive(Default)]
struct Seen {
    reads: usize,
    misses: usize,
    generations: HashSet<String>,
}

/// Reads `book/index.html` in a loop until `stop`, noting where `book` points.
fn poll(book: &Path, stop: &AtomicBool) -> Seen {
    let (index, link) = (book.join("book/index.html"), book.join("book"));
    let mut seen = Seen::default();
    while !stop.load(Ordering::Relaxed) {
        match std::fs::read(&index) {
            Ok(bytes) if !bytes.is_empty() => seen.reads += 1,
            _ => seen.misses += 1,
        }
        if let Ok(target) = std::fs::read_link(&link) {
            seen.generations.insert(target.display().to_string());
        }
    }
    seen
}

/// Names in the book root that belong to the output, generation names
/// replaced by `.book-<random>`.
fn output_entries(book: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(book)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n == "book" || n.starts_with(".book"))
        .map(|n| {
            let random = n.strip_prefix(".book-").unwrap_or("");
            if random.len() == 12 && random.bytes().all(|b| b.is_ascii_alphanumeric()) {
                ".book-<random>".into()
            } else {
                n
            }
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn a_reader_never_misses_index_html_across_100_builds() {
    let book = support::mini_book("publish-100");
    // The layout before this version: a real directory, filled by hand here
    // (with the manifest every version writes, which tells the output rule
    // that this tool made it).
    std::fs::create_dir_all(book.join("book")).unwrap();
    std::fs::write(book.join("book/index.html"), "old layout").unwrap();
    std::fs::write(book.join("book/agentx-manifest.json"), "[]").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (stop, book) = (stop.clone(), book.to_path_buf());
        std::thread::spawn(move || poll(&book, &stop))
    };
    let plain = book.join("src/plain.md");
    for i in 0..100 {
        // Every build changes a page, so every build publishes a new site.
        std::fs::write(&plain, format!("# Plain\n\nBuild {i}.\n")).unwrap();
        build(&book, &BuildOptions::default()).unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let seen = reader.join().unwrap();
    eprintln!(
        "{} reads of index.html during 100 builds, {} misses, {} generations seen",
        seen.reads,
        seen.misses,
        seen.generations.len()
    );
    assert_eq!(
        seen.misses, 0,
        "{} of {} reads missed",
        seen.misses, seen.reads
    );
    // Not vacuous: the reader read all along, across many swaps.
    assert!(seen.reads >= 1000, "only {} reads", seen.reads);
    assert!(
        seen.generations.len() >= 20,
        "the reader saw only {} generations: it did not read across the swaps",
        seen.generations.len()
    );
    assert!(support::read(&book.join("book/plain.html")).contains("Build 99."));
    // `book` is now a symlink to the last generation; generations replaced
    // in the last 2 s stay for readers still in them; no staging directory
    // or temporary link is left.
    let link = std::fs::symlink_metadata(book.join("book")).unwrap();
    assert!(link.file_type().is_symlink());
    assert_eq!(output_entries(&book), [".book-<random>", "book"]);
}

const EXE: &str = env!("CARGO_BIN_EXE_mdbook-agentx");

/// Every HTML page of the site at `out` holds the same book title, and
/// that title: a site published whole by one build, not a mix of two.
fn titles_of(out: &Path) -> HashSet<String> {
    support::files_under(out)
        .into_iter()
        .filter(|(rel, _)| rel.extension().is_some_and(|e| e == "html"))
        .map(|(rel, bytes)| {
            let text = String::from_utf8(bytes).unwrap();
            ["Mini A", "Mini B"]
                .into_iter()
                .find(|t| text.contains(&format!(">{t}<")))
                .unwrap_or_else(|| panic!("{} has neither title", rel.display()))
                .to_string()
        })
        .collect()
}

#[test]
fn two_builds_at_once_into_one_directory_publish_one_whole_site() {
    let root = support::temp("publish-two");
    let out = root.join("site");
    let books: Vec<_> = ["A", "B"]
        .iter()
        .map(|t| {
            let book = root.join(t);
            support::copy_dir(&support::mini_book(&format!("publish-two-{t}")), &book);
            let toml = support::read(&book.join("book.toml"));
            std::fs::write(
                book.join("book.toml"),
                toml.replace("title = \"Mini\"", &format!("title = \"Mini {t}\"")),
            )
            .unwrap();
            book
        })
        .collect();
    for round in 0..5 {
        let children: Vec<_> = books
            .iter()
            .map(|book| {
                std::process::Command::new(EXE)
                    .arg("build")
                    .arg(book)
                    .arg("-d")
                    .arg(&out)
                    .arg("--allow-dest-outside")
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let done = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&done.stderr);
            assert!(done.status.success(), "round {round}: {err}");
        }
        assert_eq!(titles_of(&out).len(), 1, "round {round}: a mixed site");
    }
    // Nothing else is left beside the output: no staging directory, no
    // temporary link; generations only while in their grace period.
    let left: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !["A", "B", "site"].contains(&n.as_str()) && !n.starts_with(".site-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Runs `script` (sh, with `$0` = the book, `$1` = the binary) in a private
/// mount namespace; None when this system cannot make one (not root, or no
/// `unshare`).
fn in_mount_namespace(book: &Path, script: &str) -> Option<std::process::Output> {
    let probe = std::process::Command::new("unshare")
        .args(["--mount", "--propagation", "private", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let out = std::process::Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", script])
        .arg(book)
        .arg(EXE)
        .output()
        .unwrap();
    Some(out)
}

#[test]
fn an_output_directory_that_is_a_mount_point_is_synced_in_place() {
    let book = support::mini_book("publish-mount");
    std::fs::create_dir_all(book.join("book")).unwrap();
    std::fs::write(book.join("book/index.html"), "old").unwrap();
    std::fs::write(book.join("book/stale.html"), "stale").unwrap();
    std::fs::write(book.join("book/agentx-manifest.json"), "[]").unwrap();
    let script = r#"set -e
        mount --bind "$0/book" "$0/book"
        "$1" build "$0"
        mountpoint -q "$0/book" && test ! -L "$0/book"
        printf '# Plain\n\nSecond build.\n' > "$0/src/plain.md"
        "$1" build "$0"
        mountpoint -q "$0/book" && test ! -L "$0/book"
        echo still-a-mount-point"#;
    let Some(run) = in_mount_namespace(&book, script) else {
        eprintln!("skipped: cannot create a mount namespace here (needs root and unshare)");
        return;
    };
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert!(run.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("still-a-mount-point"), "{stdout}");
    assert!(
        stderr.contains("cannot be replaced by a symlink (a mount point?)"),
        "{stderr}"
    );
    // The bind mount is gone with its namespace; its files stay in the
    // directory: the second build's site, the stale page removed.
    let site = book.join("book");
    assert!(
        !std::fs::symlink_metadata(&site)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(support::read(&site.join("plain.html")).contains("Second build."));
    assert!(support::read(&site.join("index.html")).contains("<html"));
    assert!(!site.join("stale.html").exists());
    assert_eq!(output_entries(&book), ["book"], "no generation left");
}

/// Regression (issue 25): with a mount point as the output directory (the
/// sync-in-place fallback), a full disk published half a site and left a
/// partial temporary file that kept the disk full. Now every new file is
/// written before any is renamed into place: the failed build leaves the
/// old site byte for byte and no temporary file, says so, and the next
/// build that fits publishes. The output is a 2 MiB tmpfs; the site takes
/// about 510 KiB (the model page's launch data beside it since issue 26),
/// the second build adds a 1.8 MB file.
#[test]
fn a_full_mount_point_keeps_the_old_site_and_no_partial_file() {
    let book = support::mini_book("publish-full");
    std::fs::create_dir_all(book.join("book")).unwrap();
    let script = r#"set -e
        mount -t tmpfs -o size=2m tmpfs "$0/book" || { echo cannot-mount; exit 0; }
        "$1" build "$0"
        cd "$0/book"
        find . -type f | sort | xargs md5sum > "$0/before.sums"
        printf '# Plain\n\nSecond build.\n' > "$0/src/plain.md"
        head -c 1800000 /dev/zero > "$0/src/big.bin"
        if "$1" build "$0" 2> "$0/second.err"; then echo second-build-fitted; exit 1; fi
        find . -type f | sort | xargs md5sum > "$0/after.sums"
        rm "$0/src/big.bin"
        "$1" build "$0"
        grep -q 'Second build.' plain.html
        echo third-build-published"#;
    let run = in_mount_namespace(&book, script);
    let Some(run) = run.filter(|r| !String::from_utf8_lossy(&r.stdout).contains("cannot-mount"))
    else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root, unshare and mount)");
        return;
    };
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert!(run.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("third-build-published"),
        "{stdout}\n{stderr}"
    );
    let second = support::read(&book.join("second.err"));
    assert!(second.contains("(the disk is full)"), "{second}");
    assert!(second.contains("was left as it was"), "{second}");
    let (before, after) = (
        support::read(&book.join("before.sums")),
        support::read(&book.join("after.sums")),
    );
    assert!(before.contains("./index.html"), "{before}");
    assert_eq!(after, before, "the old site, whole, and no temporary file");
}
