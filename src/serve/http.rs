//! The HTTP side: GET/HEAD from the in-memory site on std's `TcpListener`;
//! request paths that could leave the site get 404.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use super::*;

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

pub(super) fn handle(stream: TcpStream, shared: &Shared) -> Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    // Skip the headers; nothing in them changes the answer.
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
    }
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"method not allowed\n",
            method == "HEAD",
        );
    }
    if target == EVENTS_PATH {
        return event_stream(stream, shared);
    }
    let head = method == "HEAD";
    let site = shared.site.read().expect("site lock");
    let found = site_path(target).and_then(|p| {
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
            drop(site);
            respond(&mut stream, "200 OK", &content_type(&p), &body, head)
        }
        None => {
            let body = site
                .files
                .get("404.html")
                .cloned()
                .unwrap_or_else(|| Arc::new(b"not found\n".to_vec()));
            drop(site);
            respond(
                &mut stream,
                "404 Not Found",
                "text/html; charset=utf-8",
                &body,
                head,
            )
        }
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    ctype: &str,
    body: &[u8],
    head: bool,
) -> Result<()> {
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
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
        assert_eq!(content_type("agentx-manifest.json"), "application/json");
        assert_eq!(content_type("IMG.PNG"), "image/png");
    }
}
