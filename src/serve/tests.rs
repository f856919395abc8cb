//! The server's defences, in process: request heads over their limits or
//! their deadline, Host headers, and a worker pool whose threads cannot all
//! be started.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::http::{AllowedHosts, Head, Limits, Refused, handle, read_head};
use super::pool::{Pool, accept_loop, spawn_thread};
use super::*;

const SMALL: Limits = Limits {
    line: 64,
    head: 256,
    headers: 4,
    deadline: Duration::from_millis(300),
};

/// What `read_head` makes of `bytes` sent by a client that then waits.
fn head_of(bytes: &[u8]) -> Result<Head, Refused> {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    client.write_all(bytes).unwrap();
    let (server, _) = listener.accept().unwrap();
    let head = read_head(&server, &SMALL);
    drop(client);
    head
}

fn get(host: &str) -> Head {
    Head {
        method: "GET".into(),
        target: "/".into(),
        host: Some(host.into()),
    }
}

#[test]
fn request_heads_within_limits_and_deadline() {
    let long_target = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(64));
    let long_header = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "b".repeat(64));
    let many = format!("GET / HTTP/1.1\r\n{}\r\n", "X: 1\r\n".repeat(5));
    let cases: &[(&[u8], Result<Head, Refused>)] = &[
        (
            b"GET / HTTP/1.1\r\nHost: localhost:3000\r\n\r\n",
            Ok(get("localhost:3000")),
        ),
        (
            b"GET / HTTP/1.1\nhost:  127.0.0.1 \n\n",
            Ok(get("127.0.0.1")),
        ),
        (long_target.as_bytes(), Err(Refused::LineTooLong)),
        (long_header.as_bytes(), Err(Refused::HeadersTooLarge)),
        (many.as_bytes(), Err(Refused::HeadersTooLarge)),
        (b"HELLO\r\n\r\n", Err(Refused::Malformed)),
        (b"GET / FTP\r\n\r\n", Err(Refused::Malformed)),
        (b"\xff\xfe / HTTP/1.1\r\n\r\n", Err(Refused::Malformed)),
        // Never finished: dropped at the deadline, not waited on for ever.
        (b"GET / HTTP/1.1\r\nHost: local", Err(Refused::Gone)),
        (b"", Err(Refused::Gone)),
    ];
    for (bytes, want) in cases {
        let t = Instant::now();
        assert_eq!(&head_of(bytes), want, "{}", String::from_utf8_lossy(bytes));
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "bounded by the deadline"
        );
    }
}

#[test]
fn host_headers() {
    let loopback = AllowedHosts::new("127.0.0.1:3000".parse().unwrap(), &["docs.test".into()]);
    let any = AllowedHosts::new("0.0.0.0:3000".parse().unwrap(), &[]);
    let v6 = AllowedHosts::new("[::1]:80".parse().unwrap(), &[]);
    let cases: &[(&AllowedHosts, &str, bool)] = &[
        (&loopback, "localhost:3000", true),
        (&loopback, "LOCALHOST:3000", true),
        (&loopback, "127.0.0.1:3000", true),
        (&loopback, "[::1]:3000", true),
        (&loopback, "localhost", true),
        (&loopback, "docs.test:3000", true),
        (&loopback, "localhost:3001", false),
        (&loopback, "evil.example:3000", false),
        (&loopback, "localhost.evil.example:3000", false),
        (&loopback, "192.168.1.5:3000", false),
        (&loopback, "", false),
        (&any, "192.168.1.5:3000", true),
        (&any, "[fe80::1]:3000", true),
        (&any, "evil.example:3000", false),
        (&v6, "[::1]", true),
        (&v6, "[::1]:80", true),
        (&v6, "[::2]:80", false),
    ];
    for (hosts, host, want) in cases {
        assert_eq!(hosts.allows(host), *want, "{host}");
    }
}

/// A server on an ephemeral port serving `index.html`, with the worker pool
/// given; returns its port.
fn server(max: usize, spawn: pool::Spawn) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let shared = Arc::new(Shared::new(AllowedHosts::new(addr, &[])));
    shared
        .site
        .write()
        .unwrap()
        .files
        .insert("index.html".into(), Arc::new(b"hello".to_vec()));
    let handler = Arc::new(move |stream| {
        let _ = handle(stream, &shared);
    });
    std::thread::spawn(move || accept_loop(&listener, &Pool::new(max, spawn, handler)));
    addr.port()
}

/// The status of `GET /`, read within a generous bound.
fn status(port: u16) -> u16 {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // A 503 may come before the request is written: the answer still counts.
    let _ = write!(s, "GET / HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n");
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.split_whitespace().nth(1).unwrap().parse().unwrap()
}

static SPAWNS: AtomicUsize = AtomicUsize::new(0);

/// Refuses the first three threads, as a system out of threads would.
fn flaky_spawn(job: Box<dyn FnOnce() + Send>) -> std::io::Result<()> {
    if SPAWNS.fetch_add(1, Ordering::SeqCst) < 3 {
        return Err(std::io::Error::other("simulated: cannot create a thread"));
    }
    spawn_thread(job)
}

#[test]
fn a_thread_that_cannot_start_gets_503_and_the_server_goes_on() {
    let port = server(4, flaky_spawn);
    assert_eq!([status(port), status(port), status(port)], [503; 3]);
    for _ in 0..10 {
        // Answered, and within the 1 s: nothing waits on the failures.
        let t = Instant::now();
        assert_eq!(status(port), 200);
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    }
}

#[test]
fn a_full_pool_answers_503_at_once() {
    let port = server(1, spawn_thread);
    // The only worker waits for this head until its deadline.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(slow, "GET / HTTP/1.1\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    assert_eq!(status(port), 503);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "not queued behind the slow client"
    );
    drop(slow);
    // Once the worker is free again, requests are served.
    let t = Instant::now();
    while status(port) != 200 {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the worker came back"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
