//! What a page would load from another site, found as a browser finds it:
//! the page is parsed by the WHATWG algorithm (html5ever), so case,
//! entities (`https&colon;//`), unquoted attributes, `<image>` (an `<img>`
//! to a browser) and raw-text elements read as a browser reads them; URLs
//! are read as a browser reads them (surrounding spaces and control
//! characters dropped, tabs and line breaks removed, `\` as `/`); CSS is
//! read after its comments are dropped and its escapes decoded.
//!
//! Data text cannot add an element (it is escaped on the way in), so what
//! this finds comes from the book's own chapters, templates and theme.

use crate::util::html::{Element, elements};

/// Something a page would load from another site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RemoteAsset {
    /// The element that loads it (`script`, `link`, …, or `style` for CSS).
    pub tag: String,
    pub url: String,
}

/// `rel` values of a `<link>` that load nothing.
const NON_LOADING_RELS: [&str; 13] = [
    "alternate",
    "author",
    "bookmark",
    "canonical",
    "external",
    "help",
    "license",
    "me",
    "next",
    "nofollow",
    "noopener",
    "noreferrer",
    "prev",
];

/// The attributes of an element that name something it loads.
fn loading_attributes(e: &Element) -> &'static [&'static str] {
    if e.svg {
        return match e.name.as_str() {
            "image" | "use" | "feimage" | "script" => &["href", "xlink:href"],
            _ => &[],
        };
    }
    match e.name.as_str() {
        "script" | "iframe" | "frame" | "embed" | "audio" | "track" => &["src"],
        "img" | "source" => &["src", "srcset"],
        "video" => &["src", "poster"],
        "object" => &["data"],
        "input"
            if e.attr("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("image")) =>
        {
            &["src"]
        }
        "link" => {
            let rel = e.attr("rel").unwrap_or("").to_ascii_lowercase();
            let loads = rel
                .split_ascii_whitespace()
                .any(|r| !NON_LOADING_RELS.contains(&r));
            if loads || rel.trim().is_empty() {
                &["href", "imagesrcset"]
            } else {
                &[]
            }
        }
        "body" | "table" | "td" | "th" => &["background"],
        _ => &[],
    }
}

/// Remote asset references in an HTML text. Plain `<a href>` hyperlinks to
/// other sites are fine offline and are not reported.
pub(crate) fn remote_assets(html: &str) -> Vec<RemoteAsset> {
    let mut out = Vec::new();
    for e in elements(html) {
        for attr in loading_attributes(&e) {
            let Some(value) = e.attr(attr) else { continue };
            let urls: Vec<&str> = if attr.ends_with("srcset") {
                // `url 2x, url 640w`: the URL is the first word of each candidate.
                value
                    .split(',')
                    .filter_map(|c| c.split_ascii_whitespace().next())
                    .collect()
            } else {
                vec![value]
            };
            for url in urls.into_iter().filter(|u| is_remote(u)) {
                out.push(RemoteAsset {
                    tag: e.name.clone(),
                    url: url.to_string(),
                });
            }
        }
        let mut css = remote_css_urls(e.attr("style").unwrap_or(""));
        if e.name == "style" {
            css.extend(remote_css_urls(&e.text));
        }
        for url in css {
            out.push(RemoteAsset {
                tag: "style".into(),
                url,
            });
        }
    }
    out
}

/// Whether a browser would fetch `url` from the network: a scheme-relative
/// URL (`//host`, or with `\`), or an absolute one whose scheme is not local
/// (`data:`, `blob:`, `about:`, `javascript:`, `file:`).
pub(crate) fn is_remote(url: &str) -> bool {
    let url: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .map(|c| if c == '\\' { '/' } else { c })
        .collect();
    if url.starts_with("//") {
        return true;
    }
    let Some(colon) = url.find(':') else {
        return false;
    };
    let scheme = &url[..colon];
    let is_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    is_scheme
        && !["data", "blob", "about", "javascript", "file"]
            .iter()
            .any(|local| scheme.eq_ignore_ascii_case(local))
}

/// Remote URLs a stylesheet would load: every `url(…)` and every quoted
/// string (`@import "…"`, `image-set("…")`, `src: "…"`), read after comments
/// are dropped and CSS escapes decoded. A quoted string that only looks like
/// a URL (`content: "https://…"`) is reported too: better a false alarm than
/// a fetch.
pub(crate) fn remote_css_urls(css: &str) -> Vec<String> {
    let css = css_unescaped(&without_comments(css));
    let lower = css.to_ascii_lowercase();
    let mut urls = Vec::new();
    for (i, _) in lower.match_indices("url(") {
        let arg = css[i + 4..].trim_start();
        let arg = arg.trim_start_matches(['"', '\'']);
        let end = arg.find(['"', '\'', ')']).unwrap_or(arg.len());
        urls.push(arg[..end].trim().to_string());
    }
    for quote in ['"', '\''] {
        let mut parts = css.split(quote).skip(1);
        while let Some(inside) = parts.next() {
            urls.push(inside.to_string());
            parts.next();
        }
    }
    let mut seen = std::collections::HashSet::new();
    urls.retain(|u| is_remote(u) && seen.insert(u.clone()));
    urls
}

fn without_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start + 2..]
            .find("*/")
            .map_or("", |end| &rest[start + 2 + end + 2..]);
        out.push(' ');
    }
    out.push_str(rest);
    out
}

/// CSS escapes decoded: `\` + 1–6 hex digits (+ one space) is that code
/// point, `\` + newline is nothing, `\` + any other character is that character.
fn css_unescaped(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut chars = css.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let mut hex = String::new();
        while hex.len() < 6 && chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
            hex.push(chars.next().unwrap_or('0'));
        }
        if hex.is_empty() {
            match chars.next() {
                Some('\n') | None => {}
                Some(other) => out.push(other),
            }
        } else {
            if chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                chars.next();
            }
            let cp = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
            out.push(
                char::from_u32(cp)
                    .filter(|c| *c != '\0')
                    .unwrap_or('\u{FFFD}'),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each spelling a browser would fetch is found; local and hyperlink
    /// references are not.
    #[test]
    fn finds_what_a_browser_would_fetch() {
        let table: &[(&str, &[&str])] = &[
            (
                r#"<link rel="stylesheet" href="https://cdn.example/x.css">"#,
                &["https://cdn.example/x.css"],
            ),
            (
                r#"<LINK REL=ICON HREF=//cdn.example/i.png>"#,
                &["//cdn.example/i.png"],
            ),
            (
                r#"<script src='//cdn.example/a.js'></script>"#,
                &["//cdn.example/a.js"],
            ),
            (r#"<img src=" https://e/i.png ">"#, &[" https://e/i.png "]),
            ("<img src=\"ht\ttps://e/i.png\">", &["ht\ttps://e/i.png"]),
            (r#"<img src="https&colon;//e/i.png">"#, &["https://e/i.png"]),
            (r#"<img src="&#104;ttps://e/i.png">"#, &["https://e/i.png"]),
            (r#"<img src="\\e\i.png">"#, &["\\\\e\\i.png"]),
            (r#"<image src="https://e/i.png">"#, &["https://e/i.png"]),
            (
                r#"<img srcset="a.png 1x, https://e/b.png 2x">"#,
                &["https://e/b.png"],
            ),
            (
                r#"<object data="https://e/x.swf"></object>"#,
                &["https://e/x.swf"],
            ),
            (r#"<embed src="https://e/x">"#, &["https://e/x"]),
            (
                r#"<input type="IMAGE" src="https://e/b.png">"#,
                &["https://e/b.png"],
            ),
            (
                r#"<svg><image href="https://e/s.png"/></svg>"#,
                &["https://e/s.png"],
            ),
            (
                r#"<svg><image xlink:href="https://e/s.png"/></svg>"#,
                &["https://e/s.png"],
            ),
            (
                r#"<video poster="https://e/p.png"></video>"#,
                &["https://e/p.png"],
            ),
            (
                r#"<div style="background: URL( 'https://e/bg.png' )">"#,
                &["https://e/bg.png"],
            ),
            (
                r#"<div style="background: u\72l(https://e/bg.png)">"#,
                &["https://e/bg.png"],
            ),
            (
                "<style>@import 'https://e/a.css';</style>",
                &["https://e/a.css"],
            ),
            (
                "<style>a{b:image-set(\"https://e/x.png\" 1x)}</style>",
                &["https://e/x.png"],
            ),
            ("<style>/* url(https://e/c) */ a{}</style>", &[]),
            ("<table background=https://e/t.png>", &["https://e/t.png"]),
            (r#"<a href="https://github.com/x">fine</a>"#, &[]),
            (r#"<link rel="canonical" href="https://e/x">"#, &[]),
            (
                r#"<script src="theme/book.js"></script><img src="data:image/png,x">"#,
                &[],
            ),
            ("<textarea><img src=https://e/x></textarea>", &[]),
            ("<!-- <img src=https://e/x> -->", &[]),
        ];
        for (html, want) in table {
            let urls: Vec<String> = remote_assets(html).into_iter().map(|a| a.url).collect();
            assert_eq!(urls, *want, "{html}");
        }
    }
}
