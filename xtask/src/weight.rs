//! Page weight of a built site: for each type of page (home, chapter, model
//! page, generated deployment page, 404, all chapters, print, sidebar), the
//! bytes a page loads when it opens — its HTML, the stylesheets it links,
//! the scripts it links or holds inline, the data it holds inline (the
//! selector's JSON) and its icons — for the median and the largest page of
//! the type, with the largest gzip-compressed. And whether any page loads
//! the search index at open (it must not: `book.js` loads it when search is
//! used).
//!
//! The HTML is scanned for `<link>`, `<script>` and `<img>` tags, which is
//! enough for the pages the builder and mdBook write; fonts and images that
//! stylesheets name are not followed.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The types of page, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Home,
    Chapter,
    Model,
    Deployment,
    AllChapters,
    Print,
    Sidebar,
    NotFound,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Home => "Home (`index.html` and the chapter it shows)",
            Kind::Chapter => "Plain chapter",
            Kind::Model => "Model page (a directive)",
            Kind::Deployment => "Deployment page (generated)",
            Kind::AllChapters => "All chapters (`all-chapters.html`)",
            Kind::Print => "Print, every chapter (`print.html`)",
            Kind::Sidebar => "Sidebar without JS (`toc.html`)",
            Kind::NotFound => "404",
        }
    }
}

/// What a resource a page loads counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Css,
    Js,
    Icon,
}

/// The bytes one page loads at open.
#[derive(Debug, Clone, Default)]
struct Page {
    path: PathBuf,
    /// The HTML file without the text of its inline scripts.
    html: u64,
    css: u64,
    /// Linked scripts and inline scripts.
    js: u64,
    /// Inline JSON (`<script type="application/json">`).
    data: u64,
    icons: u64,
    /// Site files loaded at open (HTML first).
    files: Vec<PathBuf>,
    /// Whether one of them is the search index.
    loads_search_index: bool,
}

impl Page {
    fn total(&self) -> u64 {
        self.html + self.css + self.js + self.data + self.icons
    }
}

/// `name="value"` attributes of a tag's text (from after the tag name to `>`).
fn attributes(tag: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut rest = tag;
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].split_whitespace().last().unwrap_or("");
        let after = rest[eq + 1..].trim_start();
        let (value, tail) = match after.chars().next() {
            Some(q @ ('"' | '\'')) => match after[1..].find(q) {
                Some(end) => (&after[1..1 + end], &after[end + 2..]),
                None => (&after[1..], ""),
            },
            _ => {
                let end = after.find([' ', '>']).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        out.insert(name.to_ascii_lowercase(), value.to_string());
        rest = tail;
    }
    out
}

/// The site file `href` names from the page at `page` (relative to the site
/// root), or None for other sites and `data:` URLs.
fn site_file(page: &Path, href: &str) -> Option<PathBuf> {
    let href = href.split(['?', '#']).next()?;
    if href.is_empty() || href.contains(':') || href.starts_with("//") {
        return None;
    }
    let joined = match href.strip_prefix('/') {
        Some(abs) => PathBuf::from(abs),
        None => page.parent().unwrap_or(Path::new("")).join(href),
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    Some(out)
}

/// Scans one page: its size split into HTML, inline JS and inline data, and
/// the site files it links (dedup'd).
fn scan(site: &Path, rel: &Path) -> Result<Page> {
    let text = std::fs::read_to_string(site.join(rel))
        .with_context(|| format!("reading {}", rel.display()))?;
    let mut page = Page {
        path: rel.to_path_buf(),
        files: vec![rel.to_path_buf()],
        ..Page::default()
    };
    let mut linked: Vec<(PathBuf, Class)> = Vec::new();
    let mut at = 0;
    while let Some(lt) = text[at..].find('<').map(|i| at + i) {
        let Some(gt) = text[lt..].find('>').map(|i| lt + i) else {
            break;
        };
        let tag = &text[lt + 1..gt];
        at = gt + 1;
        let name = tag
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let attrs = attributes(tag.get(name.len()..).unwrap_or(""));
        let mut link = |href: Option<&String>, class| {
            if let Some(f) = href.and_then(|h| site_file(rel, h)) {
                linked.push((f, class));
            }
        };
        match name.as_str() {
            "link" => {
                let rel_attr = attrs.get("rel").map(|r| r.to_ascii_lowercase());
                let rel_attr = rel_attr.as_deref().unwrap_or("");
                if rel_attr.contains("stylesheet") {
                    link(attrs.get("href"), Class::Css);
                } else if rel_attr.contains("icon") {
                    link(attrs.get("href"), Class::Icon);
                } else if rel_attr.contains("preload") || rel_attr.contains("prefetch") {
                    link(attrs.get("href"), Class::Js);
                }
            }
            "img" => link(attrs.get("src"), Class::Icon),
            "script" => {
                let end = text[at..].find("</script>").map_or(text.len(), |i| at + i);
                if attrs.contains_key("src") {
                    link(attrs.get("src"), Class::Js);
                } else if attrs
                    .get("type")
                    .is_some_and(|t| !t.contains("javascript") && t != "module")
                {
                    page.data += (end - at) as u64;
                } else {
                    page.js += (end - at) as u64;
                }
                at = end;
            }
            _ => {}
        }
    }
    page.html = text.len() as u64 - page.js - page.data;
    for (f, class) in linked {
        if page.files.contains(&f) {
            continue;
        }
        let bytes = std::fs::metadata(site.join(&f)).map_or(0, |m| m.len());
        let name = f.to_string_lossy();
        page.loads_search_index |= name.contains("search-index") || name.contains("searchindex");
        match class {
            Class::Css => page.css += bytes,
            Class::Js => page.js += bytes,
            Class::Icon => page.icons += bytes,
        }
        page.files.push(f);
    }
    Ok(page)
}

/// The type of each HTML page of the site (paths relative to it).
fn classify(site: &Path, pages: &[PathBuf]) -> Vec<Kind> {
    let home = std::fs::read(site.join("index.html")).ok();
    // A chapter `x.html` beside a folder `x/` of pages is a model page whose
    // directive generated those deployment pages.
    let is_model = |p: &Path| {
        pages.iter().any(|q| q == p)
            && pages.iter().any(|q| {
                q.parent() == Some(&p.with_extension("")) && q.extension() == p.extension()
            })
    };
    let mut kinds = Vec::new();
    for p in pages {
        let top = p.parent() == Some(Path::new(""));
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        let kind = match (top, name.as_ref()) {
            (true, "index.html") => Kind::Home,
            (true, "404.html") => Kind::NotFound,
            (true, "print.html") => Kind::Print,
            (true, "toc.html") => Kind::Sidebar,
            (true, "all-chapters.html") => Kind::AllChapters,
            _ if is_model(p) => Kind::Model,
            _ if p
                .parent()
                .is_some_and(|d| is_model(Path::new(&format!("{}.html", d.display())))) =>
            {
                Kind::Deployment
            }
            _ if home.is_some() && std::fs::read(site.join(p)).ok() == home => Kind::Home,
            _ => Kind::Chapter,
        };
        kinds.push(kind);
    }
    kinds
}

/// gzip level 9 (flate2) of a site file; cached, as pages share stylesheets and scripts.
fn gzip_len(site: &Path, f: &Path, cache: &mut HashMap<PathBuf, u64>) -> Result<u64> {
    if let Some(n) = cache.get(f) {
        return Ok(*n);
    }
    let bytes = std::fs::read(site.join(f)).with_context(|| f.display().to_string())?;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&bytes)?;
    let n = z.finish()?.len() as u64;
    cache.insert(f.to_path_buf(), n);
    Ok(n)
}

fn kib(n: u64) -> String {
    format!("{:.1}", n as f64 / 1024.0)
}

/// What the page-weight tables count, said once before them.
pub(crate) const EXPLANATION: &str = "Bytes a page loads when it opens, for the median and the \
    largest page (by that total) of each type: HTML (without inline scripts), CSS (`<link \
    rel=\"stylesheet\">`), JS (`<script src>` and inline scripts), data (inline JSON: the \
    selector's), icons. Stylesheets and scripts are shared by pages (cached after the first). \
    Fonts and images named by stylesheets are not followed. gzip: each file compressed alone at \
    level 9 by flate2 (`Compression::best()`), summed.\n";

/// The page-weight table for the site built into `site`.
pub(crate) fn report(site: &Path, title: &str) -> Result<String> {
    let mut pages: Vec<PathBuf> = walkdir::WalkDir::new(site)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "html"))
        .filter_map(|e| e.path().strip_prefix(site).ok().map(Path::to_path_buf))
        .collect();
    pages.sort();
    let kinds = classify(site, &pages);
    let mut by_kind: BTreeMap<Kind, Vec<Page>> = BTreeMap::new();
    for (p, k) in pages.iter().zip(kinds) {
        by_kind.entry(k).or_default().push(scan(site, p)?);
    }
    let mut md = format!(
        "\n#### {title}\n\n\
         | Page type (pages) | Page | HTML KiB | CSS KiB | JS KiB | Data KiB | Icons KiB | At open KiB | HTML gzip KiB | At open gzip KiB |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let mut gz = HashMap::new();
    for (kind, mut list) in by_kind.iter().map(|(k, v)| (*k, v.clone())) {
        list.sort_by_key(|p| (p.total(), p.path.clone()));
        let median = &list[(list.len() - 1) / 2];
        let largest = &list[list.len() - 1];
        let mut rows = vec![("median", median)];
        if largest.total() != median.total() {
            rows.push(("largest", largest));
        } else {
            rows[0].0 = if list.len() == 1 {
                "only"
            } else {
                "median, largest"
            };
        }
        for (i, (which, p)) in rows.into_iter().enumerate() {
            let label = match i {
                0 => format!("{} ({})", kind.label(), list.len()),
                _ => String::new(),
            };
            let html_gz = gzip_len(site, &p.path, &mut gz)?;
            let mut total_gz = 0;
            for f in &p.files {
                total_gz += gzip_len(site, f, &mut gz)?;
            }
            md.push_str(&format!(
                "| {label} | {which}: `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                p.path.display(),
                kib(p.html),
                kib(p.css),
                kib(p.js),
                kib(p.data),
                kib(p.icons),
                kib(p.total()),
                kib(html_gz),
                kib(total_gz)
            ));
        }
    }
    md.push_str(&search_index_line(site, &by_kind));
    Ok(md)
}

/// Whether any page loads the search index at open.
fn search_index_line(site: &Path, by_kind: &BTreeMap<Kind, Vec<Page>>) -> String {
    let all: Vec<&Page> = by_kind.values().flatten().collect();
    let loading = all.iter().filter(|p| p.loads_search_index).count();
    let index = std::fs::read_dir(site)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("search-index") || n.starts_with("searchindex"));
    let Some(index) = index else {
        return "\nNo search index in the site.\n".into();
    };
    let size = std::fs::metadata(site.join(&index)).map_or(0, |m| m.len());
    format!(
        "\nSearch index `{index}` ({} KiB): loaded at open by **{loading} of {} pages** (linked by \
         `<script src>` or `<link>`; otherwise a script loads it when search is used).\n",
        kib(size),
        all.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_quoted_and_bare() {
        let a = attributes(" rel=\"stylesheet\" href='../theme/book.css' media=print>");
        assert_eq!(a["rel"], "stylesheet");
        assert_eq!(a["href"], "../theme/book.css");
        assert_eq!(a["media"], "print");
        assert!(attributes(" defer").is_empty());
    }

    /// A small site: the kinds by path (a model `m-4.1` whose name has a dot,
    /// beside a chapter `m-4`), and one page's bytes counted by hand.
    #[test]
    fn classifies_and_weighs_a_site() {
        let site = std::env::temp_dir().join(format!("xtask-weight-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&site);
        let page = "<html><head><link rel=\"stylesheet\" href=\"../../t/a.css\">\
                    <link rel=icon href=\"/t/i.svg\"><script>var x=1;</script></head>\
                    <body data-search-index=\"../../search-index.js\">\
                    <script type=\"application/json\">{\"a\":1}</script>\
                    <script src=\"../../t/b.js\"></script>\
                    <script src=\"https://cdn.example/c.js\"></script></body></html>";
        let files = [
            ("index.html", "home"),
            ("intro.html", "home"),
            ("404.html", "missing"),
            ("a.html", "chapter"),
            ("s.html", "<script src=\"search-index.js\"></script>"),
            ("models/m-4.html", "chapter"),
            ("models/m-4.1.html", "model"),
            ("models/m-4.1/c.html", page),
            ("t/a.css", "0123456789"),
            ("t/b.js", "01234"),
            ("t/i.svg", "012"),
            ("search-index.js", "index"),
        ];
        for (path, text) in files {
            let p = site.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let pages: Vec<PathBuf> = files
            .iter()
            .filter(|(p, _)| p.ends_with(".html"))
            .map(|(p, _)| PathBuf::from(p))
            .collect();
        use Kind::*;
        assert_eq!(
            classify(&site, &pages),
            [
                Home, Home, NotFound, Chapter, Chapter, Chapter, Model, Deployment
            ]
        );
        let p = scan(&site, Path::new("models/m-4.1/c.html")).unwrap();
        let (js, data) = ("var x=1;".len() as u64, "{\"a\":1}".len() as u64);
        assert_eq!(p.html, page.len() as u64 - js - data);
        assert_eq!((p.css, p.js, p.data, p.icons), (10, js + 5, data, 3));
        assert!(!p.loads_search_index);
        assert!(scan(&site, Path::new("s.html")).unwrap().loads_search_index);
        assert!(
            report(&site, "t")
                .unwrap()
                .contains("loaded at open by **1 of 8 pages**")
        );
        let _ = std::fs::remove_dir_all(&site);
    }

    #[test]
    fn hrefs_resolve_against_the_page() {
        let page = Path::new("models/glm/cell.html");
        let f = |h| site_file(page, h).map(|p| p.display().to_string());
        assert_eq!(f("../../theme/book.css").as_deref(), Some("theme/book.css"));
        assert_eq!(
            f("/search-index.js?v=2").as_deref(),
            Some("search-index.js")
        );
        assert_eq!(f("x.js#top").as_deref(), Some("models/glm/x.js"));
        assert_eq!(f("https://example.com/a.js"), None);
        assert_eq!(f("//cdn.example/a.js"), None);
        assert_eq!(f("data:image/svg+xml,<svg/>"), None);
    }
}
