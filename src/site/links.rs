//! Internal link and anchor checking over a built site (in memory or on disk):
//! every internal `href` must name an existing page, every `#fragment` an id
//! on that page, and ids must be unique per page.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::SiteFile;
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
pub(crate) fn check(files: &[SiteFile], skip: &[&str]) -> LinkCheck {
    let pages: Vec<Page<'_>> = files
        .iter()
        .filter(|f| f.path.extension().is_some_and(|e| e == "html"))
        .map(|f| Page {
            path: &f.path,
            html: String::from_utf8_lossy(&f.bytes).into_owned(),
        })
        .collect();
    let mut out = LinkCheck::default();
    let ids: HashMap<&Path, HashSet<String>> = pages
        .iter()
        .map(|p| (p.path.as_path(), p.ids(&mut out)))
        .collect();
    let site = Targets {
        all: files.iter().map(|f| f.path.clone()).collect(),
        ids,
    };
    for page in pages
        .iter()
        .filter(|p| !skip.iter().any(|s| Path::new(s) == p.path))
    {
        out.stats.pages += 1;
        for href in attribute_values(&page.html, "href") {
            let href = unescape(href);
            if is_internal(&href) {
                out.stats.links += 1;
                if let Some(message) = site.broken(page.path, &href) {
                    out.problems.push(LinkProblem {
                        page: page.path.clone(),
                        message,
                    });
                }
            }
        }
    }
    out
}

/// What a link check found.
#[derive(Debug, Clone, Default)]
pub(crate) struct LinkCheck {
    pub stats: LinkStats,
    pub problems: Vec<LinkProblem>,
}

/// An HTML page of the site.
struct Page<'a> {
    path: &'a PathBuf,
    html: String,
}

impl Page<'_> {
    /// Its ids; a repeated one is a problem.
    fn ids(&self, out: &mut LinkCheck) -> HashSet<String> {
        let mut seen = HashSet::new();
        for id in attribute_values(&self.html, "id") {
            let id = unescape(id);
            if !seen.insert(id.clone()) {
                out.problems.push(LinkProblem {
                    page: self.path.clone(),
                    message: format!("id `{id}` is used more than once"),
                });
            }
        }
        out.stats.anchors += seen.len();
        seen
    }
}

/// What links can reach: every file, and the ids of every page.
struct Targets<'a> {
    all: HashSet<PathBuf>,
    ids: HashMap<&'a Path, HashSet<String>>,
}

impl Targets<'_> {
    /// Why an internal link from `page` does not resolve, if it does not.
    fn broken(&self, page: &Path, href: &str) -> Option<String> {
        let (target, frag) = match href.split_once('#') {
            Some((t, f)) => (t, Some(f)),
            None => (href, None),
        };
        let target_path = if target.is_empty() {
            page.to_path_buf()
        } else if target.starts_with('/') {
            PathBuf::from(target.trim_start_matches('/'))
        } else {
            normalize(&page.parent().unwrap_or(Path::new("")).join(target))
        };
        let target_path = if target.ends_with('/')
            || (!self.all.contains(&target_path)
                && self.all.contains(&target_path.join("index.html")))
        {
            target_path.join("index.html")
        } else {
            target_path
        };
        if !self.all.contains(&target_path) {
            return Some(format!("link `{href}`: no file {}", target_path.display()));
        }
        let f = percent_decode(frag.filter(|f| !f.is_empty())?);
        let known = self
            .ids
            .get(target_path.as_path())
            .is_some_and(|s| s.contains(&f));
        (!known).then(|| format!("link `{href}`: no id `{f}` in {}", target_path.display()))
    }
}

/// A fragment as the browser matches it against ids: `%XX` decoded,
/// invalid UTF-8 replaced.
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(p: &str, s: &str) -> SiteFile {
        SiteFile {
            path: PathBuf::from(p),
            bytes: s.as_bytes().to_vec(),
        }
    }

    /// Regression: `<a href="#%aé">` panicked (a slice inside `é`).
    #[test]
    fn fragments_decode_without_panicking() {
        assert_eq!(percent_decode("%aé"), "%aé");
        assert_eq!(percent_decode("a%20b%C3%A9%"), "a bé%");
        assert_eq!(percent_decode("%ff"), "\u{fffd}");
        let files = [file("index.html", "<p id=\"x\"></p><a href=\"#%aé\">1</a>")];
        let problems: Vec<String> = check(&files, &[])
            .problems
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(
            problems,
            ["index.html: link `#%aé`: no id `%aé` in index.html"]
        );
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
        let LinkCheck { stats, problems } = check(&files, &[]);
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
