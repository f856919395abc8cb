//! Internal link and anchor checking over a built site (in memory, or
//! streamed as it is rendered): every internal `href` must name an existing
//! page, every `#fragment` an id on that page, and ids must be unique per page.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::site::FileSink;
#[cfg(test)]
use crate::site::SiteFile;
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
#[cfg(test)]
pub(crate) fn check(files: &[SiteFile], skip: &[&str]) -> LinkCheck {
    let collector = LinkCollector::new(skip);
    for f in files {
        collector.add(&f.path, &f.bytes);
    }
    collector.finish()
}

/// What a link check found.
#[derive(Debug, Clone, Default)]
pub(crate) struct LinkCheck {
    pub stats: LinkStats,
    pub problems: Vec<LinkProblem>,
}

/// A link check over files as they stream past (a [`FileSink`], fed from
/// several threads): it keeps every file's path, each page's ids and the
/// links that point to another file, never a page's HTML, so its memory
/// grows with the site's anchors and links, not its bytes. Links within a
/// page are checked at once; the others when every file has been seen.
pub(crate) struct LinkCollector {
    /// Pages whose links are not checked.
    skip: Vec<PathBuf>,
    seen: Mutex<Collected>,
}

/// What [`LinkCollector`] has kept so far.
#[derive(Default)]
struct Collected {
    files: HashSet<PathBuf>,
    pages: Vec<PageRecord>,
    /// Directories of linking pages, numbered.
    dirs: HashMap<PathBuf, u32>,
    /// Links to another file, numbered by (directory of the linking page,
    /// href): pages of one directory share most of them (sidebars), and
    /// where such a link leads depends on nothing else.
    links: HashMap<(u32, Box<str>), u32>,
}

/// One HTML page, as the link check keeps it.
struct PageRecord {
    path: PathBuf,
    /// Its distinct ids.
    ids: HashSet<Box<str>>,
    /// Ids used more than once, in order.
    repeated: Vec<String>,
    /// Internal links (none for a skipped page), and those kept to report.
    internal: usize,
    links: Vec<PageLink>,
}

/// A link of a page, in page order: a broken link within the page, or a
/// link to another file, resolved at the end.
enum PageLink {
    Broken(String),
    Elsewhere(u32),
}

impl LinkCollector {
    pub(crate) fn new(skip: &[&str]) -> LinkCollector {
        LinkCollector {
            skip: skip.iter().map(PathBuf::from).collect(),
            seen: Mutex::new(Collected::default()),
        }
    }

    /// Takes in one file of the site; an HTML page is read for ids and links.
    pub(crate) fn add(&self, path: &Path, bytes: &[u8]) {
        if path.extension().is_none_or(|e| e != "html") {
            self.seen
                .lock()
                .expect("links lock")
                .files
                .insert(path.to_path_buf());
            return;
        }
        let html = String::from_utf8_lossy(bytes);
        let mut page = PageRecord {
            path: path.to_path_buf(),
            ids: HashSet::new(),
            repeated: Vec::new(),
            internal: 0,
            links: Vec::new(),
        };
        for id in attribute_values(&html, "id") {
            let id = unescape(id);
            if page.ids.contains(id.as_str()) {
                page.repeated.push(id);
            } else {
                page.ids.insert(id.into_boxed_str());
            }
        }
        // Links within the page are checked now (its ids are all known);
        // the others are numbered under the lock.
        let mut elsewhere = Vec::new();
        if !self.skip.iter().any(|s| s == path) {
            for href in attribute_values(&html, "href") {
                let href = unescape(href);
                if !is_internal(&href) {
                    continue;
                }
                page.internal += 1;
                match href.strip_prefix('#') {
                    Some(frag) => {
                        if let Some(message) = missing_id(&page.ids, path, &href, frag) {
                            page.links.push(PageLink::Broken(message));
                        }
                    }
                    None => {
                        elsewhere.push(page.links.len());
                        page.links.push(PageLink::Broken(href));
                    }
                }
            }
        }
        let dir = path.parent().unwrap_or(Path::new(""));
        let mut seen = self.seen.lock().expect("links lock");
        let seen = &mut *seen;
        seen.files.insert(path.to_path_buf());
        let next = seen.dirs.len() as u32;
        let dir = *seen.dirs.entry(dir.to_path_buf()).or_insert(next);
        for at in elsewhere {
            let PageLink::Broken(href) =
                std::mem::replace(&mut page.links[at], PageLink::Elsewhere(0))
            else {
                unreachable!("set above")
            };
            let next = seen.links.len() as u32;
            let n = *seen
                .links
                .entry((dir, href.into_boxed_str()))
                .or_insert(next);
            page.links[at] = PageLink::Elsewhere(n);
        }
        seen.pages.push(page);
    }

    /// Names a file of the site without its bytes (one that has no links).
    pub(crate) fn name_file(&self, path: &Path) {
        debug_assert!(path.extension().is_none_or(|e| e != "html"));
        self.seen
            .lock()
            .expect("links lock")
            .files
            .insert(path.to_path_buf());
    }

    /// Resolves the links to other files and reports, by page path, repeated
    /// ids first, then broken links in page order.
    pub(crate) fn finish(self) -> LinkCheck {
        let Collected {
            files,
            mut pages,
            dirs,
            links,
        } = self.seen.into_inner().expect("links lock");
        pages.sort_by(|a, b| a.path.cmp(&b.path));
        let mut out = LinkCheck::default();
        for p in &pages {
            for id in &p.repeated {
                out.problems.push(LinkProblem {
                    page: p.path.clone(),
                    message: format!("id `{id}` is used more than once"),
                });
            }
            out.stats.anchors += p.ids.len();
        }
        let site = Targets {
            ids: pages.iter().map(|p| (p.path.as_path(), &p.ids)).collect(),
            all: files,
        };
        let mut dir_of = vec![Path::new(""); dirs.len()];
        for (d, n) in &dirs {
            dir_of[*n as usize] = d.as_path();
        }
        let mut broken = vec![None; links.len()];
        for ((dir, href), n) in &links {
            broken[*n as usize] = site.broken(dir_of[*dir as usize], href);
        }
        for p in pages.iter().filter(|p| !self.skip.contains(&p.path)) {
            out.stats.pages += 1;
            out.stats.links += p.internal;
            for link in &p.links {
                let message = match link {
                    PageLink::Broken(m) => m.clone(),
                    PageLink::Elsewhere(n) => match &broken[*n as usize] {
                        Some(m) => m.clone(),
                        None => continue,
                    },
                };
                out.problems.push(LinkProblem {
                    page: p.path.clone(),
                    message,
                });
            }
        }
        out
    }
}

impl FileSink for LinkCollector {
    fn put(&self, rel: &Path, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.add(rel, &bytes);
        Ok(())
    }
}

/// Why the in-page link `href` (`#frag`) of `page` does not resolve, if it does not.
fn missing_id(ids: &HashSet<Box<str>>, page: &Path, href: &str, frag: &str) -> Option<String> {
    if frag.is_empty() {
        return None;
    }
    let f = percent_decode(frag);
    (!ids.contains(f.as_str())).then(|| format!("link `{href}`: no id `{f}` in {}", page.display()))
}

/// What links can reach: every file, and the ids of every page.
struct Targets<'a> {
    all: HashSet<PathBuf>,
    ids: HashMap<&'a Path, &'a HashSet<Box<str>>>,
}

impl Targets<'_> {
    /// Why an internal link to another file (`href` does not start with
    /// `#`), from a page in `dir`, does not resolve, if it does not.
    fn broken(&self, dir: &Path, href: &str) -> Option<String> {
        let (target, frag) = match href.split_once('#') {
            Some((t, f)) => (t, Some(f)),
            None => (href, None),
        };
        let target_path = if target.starts_with('/') {
            PathBuf::from(target.trim_start_matches('/'))
        } else {
            normalize(&dir.join(target))
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
            .is_some_and(|s| s.contains(f.as_str()));
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
            bytes: std::sync::Arc::new(s.as_bytes().to_vec()),
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
