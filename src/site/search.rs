//! The search index: page titles, headings and command-set ids, embedded as a
//! script so it works from `file://`.

use serde::Serialize;

use super::markdown::Heading;
use super::*;

/// What the build writes besides pages.
pub(crate) const SEARCH_INDEX: &str = "search-index.js";
#[derive(Serialize)]
pub(super) struct SearchEntry {
    /// Text shown.
    t: String,
    /// Extra text matched (ids).
    s: String,
    /// URL relative to the site root.
    u: String,
    /// `page`, `heading` or `set`.
    k: &'static str,
}

pub(super) fn search_entries(page: &PageSource, headings: &[Heading]) -> Vec<SearchEntry> {
    let url = href(&html_path(&page.path));
    let mut v = vec![SearchEntry {
        t: page.title.clone(),
        s: String::new(),
        u: url.clone(),
        k: "page",
    }];
    for h in headings.iter().filter(|h| h.level > 1) {
        v.push(SearchEntry {
            t: if h.is_set {
                format!("{} — {}", h.text, page.title)
            } else {
                h.text.clone()
            },
            s: h.id.clone(),
            u: format!("{url}#{}", h.id),
            k: if h.is_set { "set" } else { "heading" },
        });
    }
    v
}
