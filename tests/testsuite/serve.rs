//! `serve` end to end: the binary on an ephemeral loopback port, a live-reload
//! event stream, edits to the book on disk, and hostile request paths.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crate::support;

struct Server {
    child: Child,
    port: u16,
    /// Removed when the server is dropped (after the child has stopped).
    book: support::Scratch,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(name: &str, extra: &[&str]) -> Server {
    let book = support::mini_book(&format!("serve-{name}"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .arg("serve")
        .arg(&book)
        .args(["--port", "0"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("[serve] {line}");
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let port = loop {
        let line = rx
            .recv_timeout(deadline - Instant::now())
            .expect("serve prints its address");
        if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
            break rest
                .trim_end_matches(|c: char| !c.is_ascii_digit())
                .split('/')
                .next()
                .unwrap()
                .parse()
                .unwrap();
        }
    };
    Server { child, port, book }
}

fn get(port: u16, path: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let ctype = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Type: "))
        .unwrap_or("")
        .to_string();
    (status, ctype, body.to_string())
}

/// Server-sent events as (name, data), read on a thread.
fn events(port: u16) -> Receiver<(String, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET /__agentx/events HTTP/1.1\r\nHost: localhost\r\n\r\n"
    )
    .unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut name = String::new();
        let mut data = String::new();
        for line in BufReader::new(s).lines().map_while(Result::ok) {
            if let Some(n) = line.strip_prefix("event: ") {
                name = n.to_string();
            } else if let Some(d) = line.strip_prefix("data: ") {
                data.push_str(d);
            } else if line.is_empty()
                && !name.is_empty()
                && tx
                    .send((std::mem::take(&mut name), std::mem::take(&mut data)))
                    .is_err()
            {
                return;
            }
        }
    });
    let (name, _) = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("hello event");
    assert_eq!(name, "hello");
    rx
}

fn next_event(rx: &Receiver<(String, String)>, within: Duration) -> (String, String) {
    rx.recv_timeout(within)
        .expect("an event within the time limit")
}

const SUB: &str = "/mini/mini-fp8-h200-sglang-agentic-mtp-0.html";

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from} in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// The build-error event of a bad `kv` in `mini.json`: it names the file and
/// the JSON path, and the overlay's fields lead with the root cause, then
/// what it broke (the directive at its position).
fn error_leads_with_its_cause(msg: &str) {
    assert!(
        msg.contains("mini.json: cells[0].points[0].kv: unknown variant `disk`"),
        "{msg}"
    );
    assert!(msg.contains("src/mini.md:5:1"), "{msg}");
    let event: serde_json::Value = serde_json::from_str(msg).unwrap();
    let cause = event["cause"].as_str().unwrap();
    assert!(
        cause.contains("mini.json: cells[0].points[0].kv: unknown variant `disk`"),
        "{event}"
    );
    let consequence = event["consequence"].as_str().unwrap();
    assert!(
        consequence.starts_with("src/mini.md:5:1: unknown page `Mini-Test`"),
        "{event}"
    );
}

fn exercise(server: &Server) {
    let port = server.port;
    let data = server.book.join("data/mini.json");
    let (status, ctype, page) = get(port, SUB);
    assert_eq!((status, ctype.as_str()), (200, "text/html; charset=utf-8"));
    assert!(
        page.contains("--max-running-requests</span> 4"),
        "initial value"
    );
    assert!(page.contains("EventSource"), "live-reload client present");
    let rx = events(port);

    // 1. Edit a data file: reload within 2 s, and the page holds the new command.
    let t = Instant::now();
    edit(
        &data,
        "[\"--max-running-requests\", \"4\"]",
        "[\"--max-running-requests\", \"5\"]",
    );
    let (name, _) = next_event(&rx, Duration::from_secs(2));
    assert_eq!(name, "reload");
    eprintln!("edit → reload event in {} ms", t.elapsed().as_millis());
    assert!(get(port, SUB).2.contains("--max-running-requests</span> 5"));

    // 2. Break it: an error event naming the file and JSON path; the old page stays.
    edit(
        &data,
        "\"kv\": \"none\", \"job\"",
        "\"kv\": \"disk\", \"job\"",
    );
    let (name, msg) = next_event(&rx, Duration::from_secs(2));
    assert_eq!(name, "build-error");
    error_leads_with_its_cause(&msg);
    assert!(
        get(port, SUB).2.contains("--max-running-requests</span> 5"),
        "last good site served"
    );

    // 3. Fix it: reload.
    edit(
        &data,
        "\"kv\": \"disk\", \"job\"",
        "\"kv\": \"none\", \"job\"",
    );
    assert_eq!(next_event(&rx, Duration::from_secs(2)).0, "reload");

    // 4. Save by rename (vim, JetBrains): write a sibling, rename it over.
    let text = std::fs::read_to_string(&data).unwrap().replacen(
        "[\"--max-running-requests\", \"5\"]",
        "[\"--max-running-requests\", \"6\"]",
        1,
    );
    let tmp = server.book.join("data/.mini.json.swp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &data).unwrap();
    assert_eq!(next_event(&rx, Duration::from_secs(2)).0, "reload");
    assert!(get(port, SUB).2.contains("--max-running-requests</span> 6"));

    // 5. Delete, then recreate.
    let saved = std::fs::read(&data).unwrap();
    std::fs::remove_file(&data).unwrap();
    let (name, msg) = next_event(&rx, Duration::from_secs(2));
    assert_eq!(name, "build-error");
    assert!(msg.contains("unknown page `Mini-Test`"), "{msg}");
    std::fs::write(&data, saved).unwrap();
    assert_eq!(next_event(&rx, Duration::from_secs(2)).0, "reload");

    // 6. A chapter edit and a theme file are picked up too.
    edit(
        &server.book.join("src/plain.md"),
        "No directive here",
        "Edited chapter",
    );
    assert_eq!(next_event(&rx, Duration::from_secs(2)).0, "reload");
    assert!(get(port, "/plain.html").2.contains("Edited chapter"));
}

#[test]
fn serve_rebuilds_and_reloads_native() {
    let server = start("native", &[]);
    exercise(&server);
}

#[test]
fn serve_rebuilds_and_reloads_polling() {
    let server = start("poll", &["--poll"]);
    exercise(&server);
}

#[test]
fn serve_never_leaves_the_site() {
    let server = start("paths", &[]);
    // A file outside the served site, next to the book.
    std::fs::write(server.book.join("secret.txt"), "secret").unwrap();
    for path in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E%2Fsecret.txt",
        "/mini/..%2f..%2fsecret.txt",
        "/book.toml",
        "//etc/passwd",
        "/..\\secret.txt",
        "/%00",
    ] {
        let (status, _, body) = get(server.port, path);
        assert_eq!(status, 404, "{path}");
        assert!(!body.contains("secret"), "{path}");
    }
    assert_eq!(get(server.port, "/").0, 200);
    assert_eq!(
        get(server.port, "/theme/book.css").1,
        "text/css; charset=utf-8"
    );
    assert_eq!(get(server.port, "/no-such-page.html").0, 404);
    let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(s, "DELETE / HTTP/1.1\r\n\r\n").unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).unwrap();
    assert!(buf.starts_with("HTTP/1.1 405"), "{buf}");
}
