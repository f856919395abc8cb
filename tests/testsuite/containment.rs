//! Containment: a book from a pull request cannot make a build read or
//! write outside the book. Each case below commits one attack into a copy
//! of the mini book; the build (or `check`) must fail with a message that
//! names the file and the fix, publish nothing, and write nothing outside
//! the book. `serve` refuses the same books.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support;

/// What a case does to the book at `book` (its parent holds the files
/// "outside": `outside.css`, `outside.json`, `outside-data/`).
type Attack = fn(&Path);

fn edit(path: &Path, from: &str, to: &str) {
    let text = support::read(path);
    assert!(text.contains(from), "{from} in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

fn add_to_toml(book: &Path, section: &str, line: &str) {
    let toml = book.join("book.toml");
    let text = support::read(&toml);
    let text = if text.contains(section) {
        text.replacen(section, &format!("{section}\n{line}"), 1)
    } else {
        format!("{text}\n{section}\n{line}\n")
    };
    std::fs::write(toml, text).unwrap();
}

/// A FIFO at `path`, made by `mkfifo(1)`: no system call from the tests.
fn fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

fn directive(book: &Path, attrs: &str) {
    std::fs::write(
        book.join("src/plain.md"),
        format!("# Plain\n\n<<agentx {attrs}>>\n"),
    )
    .unwrap();
}

/// (name, attack, command, a piece of the message). Each message names the
/// file and says what to do.
const CASES: &[(&str, Attack, &str, &str)] = &[
    (
        "symlink to /etc/passwd",
        |b| symlink("/etc/passwd", b.join("src/passwd.txt")).unwrap(),
        "build",
        "src/passwd.txt is a symlink to /etc/passwd, outside the book",
    ),
    (
        "symlink to /proc/self/environ",
        |b| symlink("/proc/self/environ", b.join("src/env.txt")).unwrap(),
        "build",
        "src/env.txt is a symlink to /proc/",
    ),
    (
        "symlink to /dev/zero",
        |b| symlink("/dev/zero", b.join("src/zero.bin")).unwrap(),
        "build",
        "src/zero.bin is a symlink to /dev/zero, outside the book",
    ),
    (
        "a FIFO",
        |b| fifo(&b.join("src/pipe.png")),
        "build",
        "src/pipe.png is a FIFO, not a regular file",
    ),
    (
        "symlink to a directory outside",
        |b| symlink("/etc", b.join("src/etc")).unwrap(),
        "build",
        "src/etc is a symlink to /etc, outside the book",
    ),
    (
        "absolute SUMMARY entry",
        |b| edit(&b.join("src/SUMMARY.md"), "(plain.md)", "(/etc/passwd)"),
        "build",
        "SUMMARY.md:4: chapter `Plain` points to /etc/passwd, an absolute path outside the source directory",
    ),
    (
        // Regression (issue 25): refused as "not inside the source
        // directory", which it is; the reason is that it is absolute.
        "absolute SUMMARY entry inside the source directory",
        |b| {
            let abs = b.join("src/plain.md").display().to_string();
            edit(&b.join("src/SUMMARY.md"), "(plain.md)", &format!("({abs})"));
        },
        "build",
        "/src/plain.md, an absolute path: chapter paths are relative to the source directory ./src, without `..` or a leading `/`; write it as `plain.md`",
    ),
    (
        "SUMMARY entry climbing out",
        |b| {
            edit(
                &b.join("src/SUMMARY.md"),
                "(plain.md)",
                "(../../outside.md)",
            )
        },
        "build",
        "chapter `Plain` points to ../../outside.md, which climbs out of the source directory",
    ),
    (
        "additional-css climbing out",
        |b| add_to_toml(b, "[output.html]", "additional-css = [\"../outside.css\"]"),
        "build",
        "[output.html] additional-css \"../outside.css\": the path must be relative to the book root, without `..`",
    ),
    (
        "additional-css through a committed symlink",
        |b| {
            symlink("../outside.css", b.join("extra.css")).unwrap();
            add_to_toml(b, "[output.html]", "additional-css = [\"extra.css\"]");
        },
        "build",
        "extra.css is a symlink to",
    ),
    (
        "additional-js through a symlinked directory",
        |b| {
            symlink("..", b.join("assets")).unwrap();
            add_to_toml(
                b,
                "[output.html]",
                "additional-js = [\"assets/outside.css\"]",
            );
        },
        "build",
        "outside.css, outside the book",
    ),
    (
        "data= absolute",
        |b| directive(b, "data=\"/etc/passwd\""),
        "build",
        "/etc/passwd resolves to /etc/passwd, outside the book",
    ),
    (
        "data= climbing out",
        |b| directive(b, "data=\"../outside.json\""),
        "build",
        "outside.json, outside the book",
    ),
    (
        // Refused by path, not looked up: the message is the one an
        // existing file outside gets (issue 25: it said "cannot read").
        "data= absolute, missing",
        |b| directive(b, "data=\"/nonexistent-agentx/x.json\""),
        "build",
        "/nonexistent-agentx/x.json resolves to /nonexistent-agentx/x.json, outside the book",
    ),
    (
        "data= climbing out to a missing file",
        |b| directive(b, "data=\"../missing-outside.json\""),
        "build",
        "missing-outside.json, outside the book",
    ),
    (
        "data= /dev/zero",
        |b| directive(b, "data=\"/dev/zero\""),
        "build",
        "resolves to /dev/zero, outside the book",
    ),
    (
        "data-dir = \"/\"",
        |b| {
            edit(
                &b.join("book.toml"),
                "data-dir = \"data\"",
                "data-dir = \"/\"",
            )
        },
        "build",
        "data-dir = \"/\" under [preprocessor.agentx]",
    ),
    (
        "data-dir climbing out",
        |b| {
            edit(
                &b.join("book.toml"),
                "data-dir = \"data\"",
                "data-dir = \"../outside-data\"",
            )
        },
        "build",
        "outside-data resolves to",
    ),
    (
        "data file symlinked to /dev/zero",
        |b| symlink("/dev/zero", b.join("data/zero.json")).unwrap(),
        "build",
        "data/zero.json is a symlink to /dev/zero, outside the book",
    ),
    (
        "template symlinked to /etc/passwd",
        |b| {
            std::fs::create_dir_all(b.join("templates")).unwrap();
            symlink("/etc/passwd", b.join("templates/page.html")).unwrap();
        },
        "build",
        "templates/page.html is a symlink to /etc/passwd, outside the book",
    ),
    (
        "theme asset that is a FIFO",
        |b| {
            std::fs::create_dir_all(b.join("agentx-theme")).unwrap();
            fifo(&b.join("agentx-theme/book.css"));
        },
        "build",
        "agentx-theme/book.css is a FIFO, not a regular file",
    ),
    (
        "source directory outside",
        |b| {
            edit(
                &b.join("book.toml"),
                "src = \"src\"",
                "src = \"../outside-data\"",
            )
        },
        "build",
        "outside-data/SUMMARY.md resolves to",
    ),
    (
        "build-dir outside",
        |b| add_to_toml(b, "[build]", "build-dir = \"../out\""),
        "build",
        "([build] build-dir) is outside the book",
    ),
    (
        "registry /dev/zero",
        |b| {
            add_to_toml(
                b,
                "[preprocessor.agentx.registries]",
                "\"example/x:1\" = \"/dev/zero\"",
            );
        },
        "check",
        "resolves to /dev/zero, outside the book",
    ),
    (
        "registry climbing out",
        |b| {
            add_to_toml(
                b,
                "[preprocessor.agentx.registries]",
                "default = { \"sglang.launch_server\" = \"../outside.json\" }",
            );
        },
        "check",
        "outside.json, outside the book",
    ),
];

/// Every entry below `dir` (not following symlinks), skipping `skip`.
fn listing(dir: &Path, skip: &Path) -> Vec<(PathBuf, u64)> {
    let mut v: Vec<(PathBuf, u64)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.path() != skip)
        .map(|e| {
            let e = e.unwrap();
            let len = e.metadata().map(|m| m.len()).unwrap_or(0);
            (e.path().to_path_buf(), len)
        })
        .collect();
    v.sort();
    v
}

/// Runs the binary with `args`, killed (and the test failed) after 60 s:
/// a FIFO must not hang a build.
pub(crate) fn run_bounded(args: &[&str], dir: &Path) -> (i32, String) {
    let (code, err) = run_killed_after(args, dir, Duration::from_secs(60));
    let code = code.unwrap_or_else(|| panic!("{args:?} still running after 60 s"));
    (code, err)
}

/// Runs the binary with `args` in `dir`: its exit code (-1 for a signal;
/// `None` when it was still running after `limit` and was killed) and stderr.
pub(crate) fn run_killed_after(
    args: &[&str],
    dir: &Path,
    limit: Duration,
) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status.code().unwrap_or(-1));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (code, err)
}

/// A mini book with the files "outside" beside it.
fn book_with_outside(name: &str) -> support::Scratch {
    let book = support::mini_book(name);
    let outside = book.parent().unwrap();
    std::fs::write(outside.join("outside.css"), "body { color: red }").unwrap();
    let mini = support::read(&book.join("data/mini.json"));
    let other = mini.replacen("\"Mini-Test\"", "\"Outside\"", 1);
    std::fs::write(outside.join("outside.json"), &other).unwrap();
    std::fs::create_dir_all(outside.join("outside-data")).unwrap();
    std::fs::write(outside.join("outside-data/o.json"), &other).unwrap();
    std::fs::write(outside.join("outside-data/SUMMARY.md"), "- [O](o.md)\n").unwrap();
    book
}

#[test]
fn attacks_on_containment_are_refused() {
    for (name, attack, command, piece) in CASES {
        let book = book_with_outside("attack");
        let parent = book.parent().unwrap().to_path_buf();
        attack(&book);
        let before = listing(&parent, &book);
        let (code, err) = run_bounded(&[command, "."], &book);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(err.contains(piece), "{name}: want {piece:?} in\n{err}");
        // Nothing published, nothing written beside the book.
        assert!(!book.join("book").exists(), "{name}: a site was published");
        let left: Vec<_> = std::fs::read_dir(&*book)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".book"))
            .collect();
        assert!(left.is_empty(), "{name}: left {left:?}");
        assert_eq!(listing(&parent, &book), before, "{name}: wrote outside");
    }
}

#[test]
fn the_same_book_builds_once_the_attack_is_allowed_or_removed() {
    // A symlink inside the book is fine.
    let book = book_with_outside("inside-link");
    symlink("plain.md", book.join("src/alias.md")).unwrap();
    std::fs::write(book.join("src/image.png"), "png").unwrap();
    symlink("image.png", book.join("src/image-link.png")).unwrap();
    let (code, err) = run_bounded(&["build", "."], &book);
    assert_eq!(code, 0, "{err}");
    assert_eq!(support::read(&book.join("book/image-link.png")), "png");
    // `allow-outside = true` is the explicit way out: the data file beside
    // the book is read, a device still is not.
    let book = book_with_outside("allowed");
    directive(&book, "data=\"../outside.json\"");
    add_to_toml(&book, "[preprocessor.agentx]", "allow-outside = true");
    let (code, err) = run_bounded(&["build", ".", "--allow-outside"], &book);
    assert_eq!(code, 0, "{err}");
    directive(&book, "data=\"/dev/zero\"");
    let (code, err) = run_bounded(&["build", ".", "--allow-outside"], &book);
    assert_eq!(code, 1);
    assert!(
        err.contains("resolves to /dev/zero, under /dev: files of the system's pseudo-file"),
        "{err}"
    );
    // An output directory outside with the flag that allows it.
    let book = book_with_outside("dest");
    let (code, err) = run_bounded(&["build", ".", "-d", "../site"], &book);
    assert_eq!(code, 1);
    assert!(err.contains("(-d) is outside the book"), "{err}");
    assert!(err.contains("pass --allow-dest-outside"), "{err}");
    let (code, err) = run_bounded(
        &["build", ".", "-d", "../site", "--allow-dest-outside"],
        &book,
    );
    assert_eq!(code, 0, "{err}");
    assert!(book.join("../site/index.html").is_file());
    // A data file over `max-file-mib`.
    let book = book_with_outside("cap");
    let big = format!(
        "{}{}",
        support::read(&book.join("data/mini.json")),
        " ".repeat(2 << 20)
    );
    std::fs::write(book.join("data/mini.json"), big).unwrap();
    add_to_toml(&book, "[preprocessor.agentx]", "max-file-mib = 1");
    let (code, err) = run_bounded(&["build", "."], &book);
    assert_eq!(code, 1);
    assert!(
        err.contains("data/mini.json is larger than the limit of 1 MiB"),
        "{err}"
    );
    assert!(err.contains("raise `max-file-mib`"), "{err}");
}

/// `serve` builds with the same rules: the refused file is never served.
#[test]
fn serve_refuses_them_too() {
    let book = book_with_outside("serve-attack");
    symlink("/etc/passwd", book.join("src/passwd.txt")).unwrap();
    edit(&book.join("src/SUMMARY.md"), "(plain.md)", "(/etc/passwd)");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(["serve", ".", "--port", "0"])
        .current_dir(&book)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let lines = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.0.send(line);
        }
    });
    let (mut port, mut refused) = (None, false);
    let deadline = Instant::now() + Duration::from_secs(30);
    while port.is_none() || !refused {
        let line = lines
            .1
            .recv_timeout(deadline - Instant::now())
            .expect("serve reports");
        refused |= line.contains("points to /etc/passwd, an absolute path outside the source");
        if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
            port = rest.split('/').next().and_then(|p| p.parse::<u16>().ok());
        }
    }
    let port = port.unwrap();
    for path in [
        "/passwd.txt",
        "/etc/passwd",
        "/etc/passwd.html",
        "/plain.html",
    ] {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        use std::io::{Read, Write};
        write!(s, "GET {path} HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n").unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        assert!(text.starts_with("HTTP/1.1 404"), "{path}: {text}");
        assert!(!text.contains("root:"), "{path}");
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Issue 25, second round: a pull request's book.toml set `allow-outside =
/// true` and named `env.css`, a symlink to /proc/self/environ, in
/// `additional-css`; `build -d out` published the CI environment in
/// out/env.css. The setting alone no longer switches the guard off in a
/// standalone command (refused, naming it and the flag, nothing written),
/// and with the flag /proc is still not read.
#[test]
fn book_toml_cannot_switch_off_the_outside_guard() {
    let book = book_with_outside("environ");
    symlink("/proc/self/environ", book.join("env.css")).unwrap();
    add_to_toml(&book, "[output.html]", "additional-css = [\"env.css\"]");
    add_to_toml(&book, "[preprocessor.agentx]", "allow-outside = true");
    for command in [
        &["build", ".", "-d", "out"][..],
        &["check", "."],
        &["markdown", ".", "-d", "md"],
    ] {
        let (code, err) = run_bounded(command, &book);
        assert_eq!(code, 1, "{command:?}: {err}");
        assert!(
            err.contains("`allow-outside = true` under [preprocessor.agentx]"),
            "{err}"
        );
        assert!(err.contains("Pass --allow-outside"), "{err}");
    }
    assert!(!book.join("out").exists() && !book.join("md").exists());
    let (code, err) = run_bounded(&["build", ".", "-d", "out", "--allow-outside"], &book);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("resolves to /proc/"), "{err}");
    assert!(err.contains("pseudo-file systems are not read"), "{err}");
    assert!(!book.join("out/env.css").exists());
}
