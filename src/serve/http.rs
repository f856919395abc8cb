//! The HTTP side: GET/HEAD from the in-memory site on std's `TcpListener`.
//! Request paths that could leave the site get 404; a request line or
//! headers over their limits get 414 or 431; a head that has not arrived by
//! its deadline is dropped; a Host header the server was not started for
//! gets 421 (DNS rebinding); other methods get 405 with `Allow`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::reload::{EVENTS_PATH, event_stream};
use super::{Shared, reload};

/// The site path a request names, or `None` for anything that could leave the
/// site (`..`, encoded or not, backslashes, NUL) — answered with 404.
pub(crate) fn site_path(target: &str) -> Option<String> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    if !decoded.starts_with('/') || decoded.contains('\\') || decoded.contains('\0') {
        return None;
    }
    let mut parts = Vec::new();
    for seg in decoded.split('/') {
        match seg {
            "" | "." => {}
            ".." => return None,
            s => parts.push(s),
        }
    }
    let mut p = parts.join("/");
    if p.is_empty() || decoded.ends_with('/') {
        if !p.is_empty() {
            p.push('/');
        }
        p.push_str("index.html");
    }
    Some(p)
}

fn percent_decode(s: &str) -> Option<String> {
    // A malformed escape (`%zz`, a `%` at the end) is refused, not passed on.
    let b = s.as_bytes();
    let well_formed = (0..b.len()).filter(|&i| b[i] == b'%').all(|i| {
        b.get(i + 1..i + 3)
            .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
    });
    if !well_formed {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(s).decode_utf8().ok()?;
    Some(decoded.into_owned())
}

pub(crate) fn content_type(path: &str) -> String {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    // Text is UTF-8 throughout the site: say so, as browsers otherwise guess.
    let text = mime.type_() == mime_guess::mime::TEXT || mime.subtype() == "javascript";
    if text {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    }
}

/// Limits on one request: the request line (414 above it), the header
/// block (431), and the time the whole head may take to arrive (a slow
/// client is dropped then, instead of holding a worker for ever).
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub line: usize,
    pub head: usize,
    pub headers: usize,
    pub deadline: Duration,
}

/// Why 8 KiB and 32 KiB: the site's paths are short, and browsers send a
/// few hundred bytes of headers; common servers use similar limits (nginx:
/// 8 KiB per header line). Why 10 s: a head of a few KiB arrives in
/// milliseconds, even over a slow network.
pub(super) const LIMITS: Limits = Limits {
    line: 8 * 1024,
    head: 32 * 1024,
    headers: 100,
    deadline: Duration::from_secs(10),
};

/// Writing an answer may stall this long before the client is dropped.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// At most this many live-reload event streams at once (each holds a
/// worker), so they cannot take the whole pool.
pub(super) const MAX_EVENT_STREAMS: usize = super::pool::MAX_WORKERS / 4;

/// The parts of a request this server reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Head {
    pub method: String,
    pub target: String,
    pub host: Option<String>,
}

/// Why a request head was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// 414: the request line is longer than [`Limits::line`].
    LineTooLong,
    /// 431: a header line, all of them, or their number is over the limit.
    HeadersTooLarge,
    /// 400: not an HTTP request line.
    Malformed,
    /// Closed, or not complete by the deadline: dropped without an answer.
    Gone,
}

/// Reads a request head within `limits`.
pub(super) fn read_head(stream: &TcpStream, limits: &Limits) -> Result<Head, Refused> {
    let deadline = Instant::now() + limits.deadline;
    let mut reader = BufReader::with_capacity(4096, stream);
    let line = read_line(&mut reader, stream, limits.line, deadline).map_err(|e| {
        if e == Refused::HeadersTooLarge {
            Refused::LineTooLong
        } else {
            e
        }
    })?;
    let line = String::from_utf8(line).map_err(|_| Refused::Malformed)?;
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(Refused::Malformed);
    };
    if !version.starts_with("HTTP/") || parts.next().is_some() {
        return Err(Refused::Malformed);
    }
    let (mut host, mut total, mut count) = (None, 0, 0);
    loop {
        let h = read_line(&mut reader, stream, limits.line.min(limits.head), deadline)?;
        if h.is_empty() {
            break;
        }
        total += h.len();
        count += 1;
        if total > limits.head || count > limits.headers {
            return Err(Refused::HeadersTooLarge);
        }
        let h = String::from_utf8_lossy(&h);
        if let Some((name, value)) = h.split_once(':')
            && name.trim().eq_ignore_ascii_case("host")
        {
            host = Some(value.trim().to_string());
        }
    }
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        host,
    })
}

/// One line without its line ending; `HeadersTooLarge` when it is longer
/// than `max`, `Gone` at the end of input or the deadline.
fn read_line(
    reader: &mut BufReader<&TcpStream>,
    stream: &TcpStream,
    max: usize,
    deadline: Instant,
) -> Result<Vec<u8>, Refused> {
    let mut line = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Err(Refused::Gone);
        }
        let buf = match reader.fill_buf() {
            Ok([]) | Err(_) => return Err(Refused::Gone),
            Ok(buf) => buf,
        };
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if line.len() + take > max + 2 {
            return Err(Refused::HeadersTooLarge);
        }
        line.extend_from_slice(&buf[..take]);
        reader.consume(take);
        if done {
            while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                line.pop();
            }
            return Ok(line);
        }
    }
}

/// The Host names a request may carry: a page served from a name the user
/// did not choose is a DNS-rebinding attack reading the preview.
#[derive(Debug, Clone)]
pub(crate) struct AllowedHosts {
    port: u16,
    /// Lower-case names and IP literals (`[::1]` with brackets).
    names: Vec<String>,
    /// Bound to every address: any IP literal names this machine.
    any_ip: bool,
}

impl AllowedHosts {
    /// `localhost`, `127.0.0.1` and `[::1]`, the bound address, and `extra`.
    pub(crate) fn new(bound: SocketAddr, extra: &[String]) -> AllowedHosts {
        let mut names: Vec<String> = ["localhost", "127.0.0.1", "[::1]"].map(String::from).into();
        let ip = bound.ip();
        if !ip.is_unspecified() {
            names.push(match ip {
                IpAddr::V4(v4) => v4.to_string(),
                IpAddr::V6(v6) => format!("[{v6}]"),
            });
        }
        names.extend(extra.iter().map(|h| h.to_ascii_lowercase()));
        AllowedHosts {
            port: bound.port(),
            names,
            any_ip: ip.is_unspecified(),
        }
    }

    /// Whether a request's Host header (`name`, `name:port`) is allowed.
    pub(crate) fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = match host.rsplit_once(':') {
            // `[::1]` alone has colons inside its brackets, and no port.
            Some((n, p)) if !p.contains(']') => (n, Some(p)),
            _ => (host.as_str(), None),
        };
        if port.is_some_and(|p| p.parse() != Ok(self.port)) {
            return false;
        }
        let literal = name.trim_start_matches('[').trim_end_matches(']');
        self.names.iter().any(|n| n == name) || (self.any_ip && literal.parse::<IpAddr>().is_ok())
    }
}

pub(super) fn handle(stream: TcpStream, shared: &Shared) -> Result<()> {
    let head = match read_head(&stream, &LIMITS) {
        Ok(head) => head,
        Err(Refused::Gone) => return Ok(()),
        Err(why) => {
            let (status, text) = match why {
                Refused::LineTooLong => ("414 URI Too Long", "request line too long\n"),
                Refused::HeadersTooLarge => (
                    "431 Request Header Fields Too Large",
                    "request headers too large\n",
                ),
                _ => ("400 Bad Request", "not an HTTP request\n"),
            };
            return refuse(stream, status, text, &[]);
        }
    };
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    if let Some((status, text, headers)) = not_admitted(&head, shared) {
        return refuse(stream, status, text, headers);
    }
    if head.target == EVENTS_PATH {
        let Some(_slot) = StreamSlot::take(shared) else {
            let text = "too many live-reload streams\n";
            return refuse(stream, "503 Service Unavailable", text, &[]);
        };
        return event_stream(stream, shared);
    }
    serve_file(stream, shared, &head)
}

/// A refusal: status line, text, extra headers.
type Refusal = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// Why a complete request head is refused:
/// a Host the server was not started for, none, or a method other than
/// GET and HEAD.
fn not_admitted(head: &Head, shared: &Shared) -> Option<Refusal> {
    match head.host.as_deref() {
        Some(h) if shared.hosts.allows(h) => {}
        Some(_) => {
            let text = "this preview server answers only to the names it was started \
                        for (see --allow-host)\n";
            return Some(("421 Misdirected Request", text, &[]));
        }
        None => return Some(("400 Bad Request", "a Host header is required\n", &[])),
    }
    if head.method != "GET" && head.method != "HEAD" {
        const ALLOW: &[(&str, &str)] = &[("Allow", "GET, HEAD")];
        return Some(("405 Method Not Allowed", "method not allowed\n", ALLOW));
    }
    None
}

/// Answers GET or HEAD with a file of the site, or its 404 page.
fn serve_file(mut stream: TcpStream, shared: &Shared, head: &Head) -> Result<()> {
    let head_only = head.method == "HEAD";
    let site = shared.site.read().expect("site lock");
    let found = site_path(&head.target).and_then(|p| {
        site.files
            .get(&p)
            .map(|b| (p.clone(), Arc::clone(b)))
            .or_else(|| {
                // `/models` → `/models/index.html`, as static servers do.
                let idx = format!("{p}/index.html");
                site.files.get(&idx).map(|b| (idx, Arc::clone(b)))
            })
    });
    match found {
        Some((p, body)) => {
            let generation = site.generation;
            drop(site);
            let filled = reload::with_generation(&p, &body, generation);
            let body = filled.as_deref().unwrap_or(&body);
            respond(
                &mut stream,
                "200 OK",
                &content_type(&p),
                body,
                head_only,
                &[],
            )
        }
        None => {
            let body = site
                .files
                .get("404.html")
                .cloned()
                .unwrap_or_else(|| Arc::new(b"not found\n".to_vec()));
            let generation = site.generation;
            drop(site);
            let filled = reload::with_generation("404.html", &body, generation);
            let body = filled.as_deref().unwrap_or(&body);
            let ctype = "text/html; charset=utf-8";
            respond(&mut stream, "404 Not Found", ctype, body, head_only, &[])
        }
    }
}

/// A place among the [`MAX_EVENT_STREAMS`] live-reload streams, given back on drop.
struct StreamSlot<'a>(&'a AtomicUsize);

impl<'a> StreamSlot<'a> {
    fn take(shared: &'a Shared) -> Option<StreamSlot<'a>> {
        let n = &shared.event_streams;
        n.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |k| {
            (k < MAX_EVENT_STREAMS).then_some(k + 1)
        })
        .ok()
        .map(|_| StreamSlot(n))
    }
}

impl Drop for StreamSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Answers an error and closes: the write side first, then what the client
/// still sends is read and dropped for a moment (at most 256 KiB), so the
/// close does not reset the connection before the client reads the answer.
fn refuse(mut stream: TcpStream, status: &str, text: &str, extra: &[(&str, &str)]) -> Result<()> {
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    respond(
        &mut stream,
        status,
        "text/plain; charset=utf-8",
        text.as_bytes(),
        false,
        extra,
    )?;
    stream.shutdown(Shutdown::Write)?;
    stream.set_read_timeout(Some(Duration::from_secs(1)))?;
    let _ = std::io::copy(&mut (&stream).take(256 * 1024), &mut std::io::sink());
    Ok(())
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    ctype: &str,
    body: &[u8],
    head: bool,
    extra: &[(&str, &str)],
) -> Result<()> {
    let mut header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in extra {
        header.push_str(&format!("{name}: {value}\r\n"));
    }
    header.push_str("\r\n");
    stream.write_all(header.as_bytes())?;
    if !head {
        stream.write_all(body)?;
    }
    stream.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_paths() {
        let cases: &[(&str, Option<&str>)] = &[
            ("/", Some("index.html")),
            ("/intro.html", Some("intro.html")),
            ("/models/", Some("models/index.html")),
            ("/models/x.html?y=1#z", Some("models/x.html")),
            ("/a%20b.html", Some("a b.html")),
            ("/../Cargo.toml", None),
            ("/%2e%2e/Cargo.toml", None),
            ("/%2E%2E%2FCargo.toml", None),
            ("/models/..%2f..%2fetc/passwd", None),
            ("/a\\..\\b", None),
            ("/%00", None),
            ("/%zz", None),
            ("relative", None),
            ("//etc/passwd", Some("etc/passwd")),
        ];
        for (target, want) in cases {
            assert_eq!(site_path(target).as_deref(), *want, "{target}");
        }
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("a/b.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("theme/book.css"), "text/css; charset=utf-8");
        assert_eq!(
            content_type("search-index.js"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("x.bin"), "application/octet-stream");
        assert_eq!(content_type("theme/favicon.svg"), "image/svg+xml");
        assert_eq!(content_type("launches.json"), "application/json");
        assert_eq!(content_type("IMG.PNG"), "image/png");
    }
}
