//! Internal link and anchor checking over a built site (in memory or on disk):
//! every internal `href` must name an existing page, every `#fragment` an id
//! on that page, and ids must be unique per page.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::util::fs::normalize;

/// One problem, located by page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkProblem {
    pub page: PathBuf,
    pub message: String,
}

impl std::fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.page.display(), self.message)
    }
}

/// Counts of what was checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LinkStats {
    pub pages: usize,
    pub links: usize,
    pub anchors: usize,
}

/// Values of an attribute (`id`, `href`) in HTML text, in order.
pub(crate) fn attribute_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let needle = format!(" {attr}=\"");
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = html[i..].find(&needle) {
        let start = i + p + needle.len();
        let Some(len) = html[start..].find('"') else {
            break;
        };
        out.push(&html[start..start + len]);
        i = start + len;
    }
    out
}

/// Decodes the character references an attribute value may hold.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let Some(end) = tail.find(';').filter(|e| *e <= 10) else {
            out.push('&');
            rest = &tail[1..];
            continue;
        };
        let name = &tail[1..end];
        let ch = match name {
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "lt" => Some('<'),
            "gt" => Some('>'),
            n if n.starts_with("#x") || n.starts_with("#X") => u32::from_str_radix(&n[2..], 16)
                .ok()
                .and_then(char::from_u32),
            n if n.starts_with('#') => n[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &tail[end + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_internal(href: &str) -> bool {
    !(href.contains("://")
        || href.starts_with("//")
        || href.starts_with("mailto:")
        || href.starts_with("javascript:")
        || href.starts_with("data:")
        || href.is_empty())
}

/// Checks every HTML page in `files` (paths relative to the site root).
/// `skip` lists pages whose links are not checked (e.g. `404.html`, whose
/// links are absolute from the server root).
pub(crate) fn check(files: &[(PathBuf, Vec<u8>)], skip: &[&str]) -> (LinkStats, Vec<LinkProblem>) {
    let all: HashSet<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    let mut ids: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut problems = Vec::new();
    let mut stats = LinkStats::default();
    let pages: Vec<(&PathBuf, String)> = files
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html"))
        .map(|(p, b)| (p, String::from_utf8_lossy(b).into_owned()))
        .collect();
    for (path, html) in &pages {
        let mut seen = HashSet::new();
        for id in attribute_values(html, "id") {
            let id = unescape(id);
            if !seen.insert(id.clone()) {
                problems.push(LinkProblem {
                    page: (*path).clone(),
                    message: format!("id `{id}` is used more than once"),
                });
            }
        }
        stats.anchors += seen.len();
        ids.insert((*path).clone(), seen);
    }
    for (path, html) in &pages {
        if skip.iter().any(|s| Path::new(s) == path.as_path()) {
            continue;
        }
        stats.pages += 1;
        let dir = path.parent().unwrap_or(Path::new(""));
        for href in attribute_values(html, "href") {
            let href = unescape(href);
            if !is_internal(&href) {
                continue;
            }
            stats.links += 1;
            let (target, frag) = match href.split_once('#') {
                Some((t, f)) => (t, Some(f)),
                None => (href.as_str(), None),
            };
            let target_path = if target.is_empty() {
                (*path).clone()
            } else if target.starts_with('/') {
                PathBuf::from(target.trim_start_matches('/'))
            } else {
                normalize(&dir.join(target))
            };
            let target_path = if target.ends_with('/')
                || (!all.contains(&target_path) && all.contains(&target_path.join("index.html")))
            {
                target_path.join("index.html")
            } else {
                target_path
            };
            if !all.contains(&target_path) {
                problems.push(LinkProblem {
                    page: (*path).clone(),
                    message: format!("link `{href}`: no file {}", target_path.display()),
                });
                continue;
            }
            if let Some(f) = frag.filter(|f| !f.is_empty()) {
                let f = percent_decode(f);
                let known = ids.get(&target_path).is_some_and(|s| s.contains(&f));
                if !known {
                    problems.push(LinkProblem {
                        page: (*path).clone(),
                        message: format!("link `{href}`: no id `{f}` in {}", target_path.display()),
                    });
                }
            }
        }
    }
    (stats, problems)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(p: &str, s: &str) -> (PathBuf, Vec<u8>) {
        (PathBuf::from(p), s.as_bytes().to_vec())
    }

    #[test]
    fn character_references() {
        assert_eq!(unescape("a&#x2F;b&amp;c&#39;&lt;&zz;&"), "a/b&c'<&zz;&");
    }

    #[test]
    fn finds_broken_links_and_duplicate_ids() {
        let files = vec![
            file(
                "index.html",
                r##"<a href="a/b.html#x">1</a><a href="a/b.html#nope">2</a><a href="c.html">3</a><a href="https://e.com/x">4</a><p id="top"></p><a href="#top">5</a>"##,
            ),
            file(
                "a/b.html",
                r##"<h2 id="x"></h2><h2 id="x"></h2><a href="../index.html#top">6</a><a href="../theme/book.css">7</a>"##,
            ),
            file("theme/book.css", ""),
        ];
        let (stats, problems) = check(&files, &[]);
        let msgs: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            msgs,
            [
                "a/b.html: id `x` is used more than once",
                "index.html: link `a/b.html#nope`: no id `nope` in a/b.html",
                "index.html: link `c.html`: no file c.html",
            ]
        );
        assert_eq!(stats.pages, 2);
        assert_eq!(stats.links, 6);
    }
}
