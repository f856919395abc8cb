//! `serve` end to end: the binary on an ephemeral loopback port, a live-reload
//! event stream, edits to the book on disk, and hostile request paths.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
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

/// Step 1 of [`exercise`]: an edited data file reloads within 2 s, and the
/// page holds the new command.
fn data_edit_reloads(port: u16, data: &Path, rx: &Receiver<(String, String)>) {
    // 1. Edit a data file: reload within 2 s, and the page holds the new command.
    let t = Instant::now();
    edit(
        data,
        "[\"--max-running-requests\", \"4\"]",
        "[\"--max-running-requests\", \"5\"]",
    );
    let (name, generation) = next_event(rx, Duration::from_secs(2));
    assert_eq!(name, "reload");
    eprintln!("edit → reload event in {} ms", t.elapsed().as_millis());
    assert!(get(port, SUB).2.contains("--max-running-requests</span> 5"));
    // Every page carries the generation it is served in, also a page the
    // rebuild took from the layout cache (the data file does not feed it).
    let script = format!("var generation = {generation};");
    assert!(get(port, SUB).2.contains(&script), "{script}");
    assert!(get(port, "/plain.html").2.contains(&script), "{script}");
}

/// Steps 2 and 3 of [`exercise`]: a bad data file sends an error event
/// naming the file and JSON path while the old page stays; the fix reloads.
fn bad_data_keeps_the_last_site(port: u16, data: &Path, rx: &Receiver<(String, String)>) {
    // 2. Break it: an error event naming the file and JSON path; the old page stays.
    edit(
        data,
        "\"kv\": \"none\", \"job\"",
        "\"kv\": \"disk\", \"job\"",
    );
    let (name, msg) = next_event(rx, Duration::from_secs(2));
    assert_eq!(name, "build-error");
    error_leads_with_its_cause(&msg);
    assert!(
        get(port, SUB).2.contains("--max-running-requests</span> 5"),
        "last good site served"
    );

    // 3. Fix it: reload.
    edit(
        data,
        "\"kv\": \"disk\", \"job\"",
        "\"kv\": \"none\", \"job\"",
    );
    assert_eq!(next_event(rx, Duration::from_secs(2)).0, "reload");
}

/// What `serve` must do with either watcher, six steps in order, each from
/// the state the last one left.
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

    data_edit_reloads(port, &data, &rx);
    bad_data_keeps_the_last_site(port, &data, &rx);

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

/// Waits up to 10 s for the page at `path` to contain `text`.
fn wait_for_page(port: u16, path: &str, text: &str, step: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !get(port, path).2.contains(text) {
        assert!(
            Instant::now() < deadline,
            "{step}: {path} never showed {text:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Regression (issue 25): after the source directory was moved away and
/// back, or deleted and copied anew, edits were no longer seen (the watch
/// of a directory moved away is dropped and never added back), and a data
/// directory copied anew was not read again.
fn rewatches_replaced_directories(server: &Server) {
    let (port, book) = (server.port, &server.book);
    let plain = book.join("src/plain.md");
    std::fs::rename(book.join("src"), book.join("src.away")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    std::fs::rename(book.join("src.away"), book.join("src")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    edit(&plain, "No directive here", "Edited after a move");
    wait_for_page(
        port,
        "/plain.html",
        "Edited after a move",
        "moved away and back",
    );
    let copy = support::temp("serve-src-copy");
    support::copy_dir(&book.join("src"), &copy);
    std::fs::remove_dir_all(book.join("src")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    support::copy_dir(&copy, &book.join("src"));
    std::thread::sleep(Duration::from_millis(500));
    edit(&plain, "Edited after a move", "Edited after a copy");
    wait_for_page(port, "/plain.html", "Edited after a copy", "copied anew");
    // The data directory copied anew, with a changed file in it.
    let data = support::temp("serve-data-copy");
    support::copy_dir(&book.join("data"), &data);
    edit(
        &data.join("mini.json"),
        "[\"--max-running-requests\", \"4\"]",
        "[\"--max-running-requests\", \"7\"]",
    );
    std::fs::remove_dir_all(book.join("data")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    support::copy_dir(&data, &book.join("data"));
    wait_for_page(
        port,
        SUB,
        "--max-running-requests</span> 7",
        "data copied anew",
    );
    edit(
        &book.join("data/mini.json"),
        "[\"--max-running-requests\", \"7\"]",
        "[\"--max-running-requests\", \"8\"]",
    );
    wait_for_page(
        port,
        SUB,
        "--max-running-requests</span> 8",
        "edit after the copy",
    );
}

#[test]
fn serve_rewatches_replaced_directories_native() {
    rewatches_replaced_directories(&start("rewatch", &[]));
}

#[test]
fn serve_rewatches_replaced_directories_polling() {
    rewatches_replaced_directories(&start("rewatch-poll", &["--poll"]));
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
    let port = server.port;
    let buf = exchange(
        port,
        &format!("DELETE / HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n"),
    );
    assert!(buf.starts_with("HTTP/1.1 405"), "{buf}");
    assert!(buf.contains("\r\nAllow: GET, HEAD\r\n"), "{buf}");
}

/// Sends `request` and reads the whole answer (the writer runs on its own
/// thread, so an answer that comes before the request is all sent is read).
fn exchange(port: u16, request: &str) -> String {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut w = s.try_clone().unwrap();
    let request = request.to_string();
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(request.as_bytes());
    });
    let mut buf = Vec::new();
    let _ = (&s).read_to_end(&mut buf);
    let _ = writer.join();
    String::from_utf8_lossy(&buf).into_owned()
}

/// A normal request is answered within 1 s (the bound: a
/// functional limit, far above the few milliseconds an answer takes).
fn answers_normally(port: u16) {
    let t = Instant::now();
    let (status, _, body) = get(port, "/");
    assert_eq!(status, 200);
    assert!(body.contains("<html"), "{body}");
    assert!(
        t.elapsed() < Duration::from_secs(1),
        "a normal request took {:?}",
        t.elapsed()
    );
}

#[test]
fn serve_refuses_oversized_heads_and_other_hosts() {
    let server = start("limits", &["--allow-host", "docs.test"]);
    let port = server.port;
    // A request line of 64 KiB: 414, and the server goes on.
    let long = format!(
        "GET /{} HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "a".repeat(64 << 10)
    );
    let buf = exchange(port, &long);
    assert!(buf.starts_with("HTTP/1.1 414 URI Too Long"), "{buf}");
    answers_normally(port);
    // One header of 16 KiB, or many small ones: 431.
    let big = format!(
        "GET / HTTP/1.1\r\nHost: localhost\r\nX: {}\r\n\r\n",
        "b".repeat(16 << 10)
    );
    let buf = exchange(port, &big);
    assert!(
        buf.starts_with("HTTP/1.1 431 Request Header Fields Too Large"),
        "{buf}"
    );
    let many = format!(
        "GET / HTTP/1.1\r\nHost: localhost\r\n{}\r\n",
        "X-A: 1\r\n".repeat(200)
    );
    assert!(exchange(port, &many).starts_with("HTTP/1.1 431"));
    answers_normally(port);
    // Another name (DNS rebinding): 421; the names it was started for: 200.
    for (host, want) in [
        ("evil.example", "HTTP/1.1 421 Misdirected Request"),
        (&format!("evil.example:{port}"), "HTTP/1.1 421"),
        (&format!("localhost:{}", port + 1), "HTTP/1.1 421"),
        (&format!("localhost:{port}"), "HTTP/1.1 200"),
        (&format!("127.0.0.1:{port}"), "HTTP/1.1 200"),
        (&format!("[::1]:{port}"), "HTTP/1.1 200"),
        (&format!("docs.test:{port}"), "HTTP/1.1 200"),
    ] {
        let buf = exchange(port, &format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n"));
        assert!(buf.starts_with(want), "{host}: {buf}");
    }
    let buf = exchange(port, "GET / HTTP/1.1\r\n\r\n");
    assert!(buf.starts_with("HTTP/1.1 400"), "no Host: {buf}");
}

#[test]
fn serve_answers_while_200_clients_trickle_their_requests() {
    let server = start("slow", &[]);
    let port = server.port;
    // 200 clients that send the start of a request, then a byte now and then.
    let mut slow: Vec<TcpStream> = (0..200)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            write!(s, "GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ").unwrap();
            s
        })
        .collect();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) {
        for s in &mut slow {
            let _ = s.write_all(b"z");
        }
        answers_normally(port);
        std::thread::sleep(Duration::from_millis(200));
    }
    // Still trickling, each is dropped at its deadline (10 s for the whole
    // head) instead of holding a worker for ever: the server closes them.
    let mut open: Vec<TcpStream> = slow;
    let mut buf = [0u8; 64];
    while !open.is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{} slow clients still connected after 30 s",
            open.len()
        );
        std::thread::sleep(Duration::from_millis(500));
        answers_normally(port);
        open.retain_mut(|s| {
            let _ = s.write_all(b"z");
            s.set_nonblocking(true).unwrap();
            match s.read(&mut buf) {
                Ok(0) => false,
                Err(e) if e.kind() == ErrorKind::WouldBlock => true,
                Err(_) => false,
                Ok(_) => panic!("a slow client got an answer to half a request"),
            }
        });
    }
    assert!(start.elapsed() < Duration::from_secs(40));
    answers_normally(port);
}
