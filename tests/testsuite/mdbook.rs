//! With real mdBook 0.5: `install` on a fresh `mdbook init` book and on the
//! sample book (idempotent, comments kept), what `mdbook build` says about a
//! book's set-up, data kept out of the published site, and `mdbook serve`
//! rebuilding when a data file changes.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::support;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
}

fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `mdbook <args>` in `book`, with this binary as the preprocessor.
fn mdbook(book: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("mdbook");
    c.args(args).current_dir(book).env(
        "MDBOOK_PREPROCESSOR__AGENTX__COMMAND",
        env!("CARGO_BIN_EXE_mdbook-agentx"),
    );
    c
}

/// Every file of `dir` (relative path → bytes), to compare before and after.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    support::files_under(dir)
}

/// A fresh `mdbook init` book, its data in `agentx/` and a chapter using it.
fn init_book() -> support::Scratch {
    let book = support::temp("init-book");
    run_ok(
        Command::new("mdbook")
            .args(["init", "--title", "Fresh", "--ignore", "none"])
            .arg(&*book),
    );
    support::copy_dir(&support::fixture("data"), &book.join("agentx"));
    std::fs::write(
        book.join("src/chapter_1.md"),
        "# Chapter 1\n\n<<agentx page=\"Mini-Test\">>\n",
    )
    .unwrap();
    book
}

#[test]
fn install_on_a_fresh_mdbook_init_book() {
    if !support::mdbook_available() {
        return;
    }
    let book = init_book();
    let before = support::read(&book.join("book.toml"));
    let first = run_ok(bin().arg("install").arg(&*book));
    assert!(
        stderr(&first).contains("added [preprocessor.agentx]"),
        "{}",
        stderr(&first)
    );
    let toml = support::read(&book.join("book.toml"));
    // mdbook init's lines first, unchanged; then the entries, by hand.
    assert!(toml.starts_with(&before), "{toml}");
    assert_eq!(
        &toml[before.len()..],
        "\n[preprocessor.agentx]\n\n[output.html]\nadditional-css = [\"agentx.css\"]\nadditional-js = [\"agentx.js\"]\n\n\
         [output.html.search.chapter]\nchapter_1 = { enable = false }\n\n\
         [output.html.print]\nenable = false\n\n\
         [output.html.fold]\nenable = true\n\n\
         [build]\nextra-watch-dirs = [\"agentx\"]\n"
    );
    let files = snapshot(&book);
    let second = run_ok(bin().arg("install").arg(&*book));
    assert!(
        stderr(&second).contains("nothing changed"),
        "{}",
        stderr(&second)
    );
    assert_eq!(snapshot(&book), files, "a second install changes no file");

    let out = run_ok(&mut mdbook(&book, &["build"]));
    assert!(
        !stderr(&out).contains("warning: mdbook-agentx"),
        "set up: no warning\n{}",
        stderr(&out)
    );
    let site = book.join("book");
    // mdBook accepted the search key (it fails a build on a key that
    // matches no chapter: `- [Chapter 1](./chapter_1.md)` is `chapter_1`).
    assert!(!site.join("print.html").exists(), "the print page is off");
    let chapter = support::read(&site.join("chapter_1.html"));
    assert!(chapter.contains("Agentic Long-Context Deployment"));
    // mdBook names the asset by its hash (agentx-<hash>.css) and links it.
    let css = support::files_under(&site)
        .into_iter()
        .map(|(p, _)| p.to_string_lossy().into_owned())
        .find(|p| p.starts_with("agentx-") && p.ends_with(".css"))
        .expect("the asset is in the site");
    assert!(chapter.contains(&css), "{css} is linked");
    assert_no_data_published(&site);
}

/// No data file (and no `agentx/` directory) in a built site.
fn assert_no_data_published(site: &Path) {
    for (p, _) in support::files_under(site) {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        assert!(
            !matches!(ext, "json" | "jsx") && !p.starts_with("agentx"),
            "{} is published",
            p.display()
        );
    }
}

/// The stamped file an older mdbook-agentx would have installed.
fn older_install(body: &str) -> String {
    let hash: String = Sha256::digest(body.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("/* mdbook-agentx 0.0.1 sha256:{hash} — written by `mdbook-agentx install` */\n{body}")
}

#[test]
fn mdbook_build_says_how_to_set_up_and_update() {
    if !support::mdbook_available() {
        return;
    }
    let book = init_book();
    let toml = support::read(&book.join("book.toml"));
    std::fs::write(
        book.join("book.toml"),
        format!("{toml}\n[preprocessor.agentx]\n"),
    )
    .unwrap();
    let out = run_ok(&mut mdbook(&book, &["build"]));
    let err = stderr(&out);
    for want in [
        "warning: mdbook-agentx: agentx.css is not in the book",
        "`mdbook serve` does not rebuild when a data file in agentx changes",
        "run `mdbook-agentx install`",
    ] {
        assert!(err.contains(want), "{want}\n{err}");
    }
    run_ok(bin().arg("install").arg(&*book));
    std::fs::write(
        book.join("agentx.css"),
        older_install("h3 { color: blue; }\n"),
    )
    .unwrap();
    let err = stderr(&run_ok(&mut mdbook(&book, &["build"])));
    assert!(
        err.contains("agentx.css was installed by mdbook-agentx 0.0.1 and differs from this one's")
            && err.contains("run `mdbook-agentx install` in the book's directory to update it"),
        "{err}"
    );
    let updated = run_ok(bin().arg("install").arg(&*book));
    assert!(stderr(&updated).contains("wrote"), "{}", stderr(&updated));
    let err = stderr(&run_ok(&mut mdbook(&book, &["build"])));
    assert!(!err.contains("warning: mdbook-agentx"), "{err}");
}

#[test]
fn install_on_the_sample_book_changes_nothing() {
    let book = support::sample_book_copy("sample-install");
    let files = snapshot(&book);
    let out = run_ok(bin().arg("install").arg(&*book));
    assert!(
        stderr(&out).contains("nothing changed"),
        "the committed sample book is set up with the current assets (else run \
         `cargo run -- install`): {}",
        stderr(&out)
    );
    assert_eq!(snapshot(&book), files);
    // The user's comments are still there.
    let toml = support::read(&book.join("book.toml"));
    assert!(toml.contains("# Flag registries for `mdbook-agentx check`"));
}

#[test]
fn mdbook_build_of_the_sample_book_publishes_no_data() {
    if !support::mdbook_available() {
        return;
    }
    let book = support::sample_book_copy("sample-no-data");
    let out = run_ok(&mut mdbook(&book, &["build"]));
    assert!(
        !stderr(&out).contains("warning: mdbook-agentx"),
        "{}",
        stderr(&out)
    );
    assert_no_data_published(&book.join("book"));
}

/// `mdbook serve` of a book, stopped on drop.
struct MdbookServe {
    child: Child,
    port: u16,
}

impl Drop for MdbookServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Regression (issue 25): a chapter listed in `SUMMARY.md` by a path that
/// climbs out with `..` got its directive expanded, and mdBook wrote the
/// generated deployment pages beside it, outside `book/`. (mdBook 0.5.4
/// stops on an absolute path itself; the protocol test covers that.)
#[test]
fn mdbook_build_refuses_a_chapter_outside_the_source_directory() {
    if !support::mdbook_available() {
        return;
    }
    let book = init_book();
    run_ok(bin().arg("install").arg(&*book));
    let outside = book.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("evil.md"),
        "# Evil\n\n<<agentx page=\"Mini-Test\">>\n",
    )
    .unwrap();
    for path in ["../../outside/evil.md", "../../outside/../outside/evil.md"] {
        let summary = "# Summary\n\n- [Chapter 1](./chapter_1.md)\n";
        std::fs::write(
            book.join("src/SUMMARY.md"),
            format!("{summary}- [Evil]({path})\n"),
        )
        .unwrap();
        let out = mdbook(&book, &["build"]).output().unwrap();
        let err = stderr(&out);
        assert!(!out.status.success(), "{path}: {err}");
        assert!(
            err.contains(&format!(
                "chapter `Evil` has the path {path}, which leaves the source"
            )),
            "{path}: {err}"
        );
        let written: Vec<_> = std::fs::read_dir(&outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            written,
            ["evil.md"],
            "{path}: nothing written beside the chapter"
        );
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The body of `GET path`, or `None` while the server is not answering.
fn get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    text.starts_with("HTTP/1.1 200").then_some(text)
}

/// Polls `GET path` until `pred` holds of the body; returns how long it took.
fn wait_for(port: u16, path: &str, pred: impl Fn(&str) -> bool, what: &str) -> Duration {
    let t = Instant::now();
    loop {
        if get(port, path).is_some_and(|b| pred(&b)) {
            return t.elapsed();
        }
        assert!(t.elapsed() < Duration::from_secs(120), "{what}: timed out");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn mdbook_serve_rebuilds_when_a_data_file_changes() {
    if !support::mdbook_available() {
        return;
    }
    let book = support::sample_book_copy("sample-serve");
    let port = free_port();
    let child = mdbook(
        &book,
        &["serve", "-n", "127.0.0.1", "-p", &port.to_string()],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let server = MdbookServe { child, port };
    let page = "/models/muse-spark-open/musespark-fp4-b200-sglang-agentic-dflash-0.html";
    wait_for(
        server.port,
        page,
        |b| b.contains("Muse-Spark-Open-DFlash2"),
        "first build",
    );
    // The first build is done; the poll watcher has taken its first scan
    // within a second of it.
    std::thread::sleep(Duration::from_secs(2));
    let data = book.join("agentx/muse-spark-open.json");
    let text = support::read(&data);
    let edited = text.replacen(
        "RadixArk/Muse-Spark-Open-DFlash2",
        "RadixArk/Muse-Spark-Open-DFlash3",
        4,
    );
    assert_ne!(text, edited);
    std::fs::write(&data, edited).unwrap();
    let took = wait_for(
        server.port,
        page,
        |b| b.contains("Muse-Spark-Open-DFlash3"),
        "rebuild after the data edit",
    );
    eprintln!(
        "mdbook serve: rebuilt with the data edit {} ms after the write",
        took.as_millis()
    );
}
