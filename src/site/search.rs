//! The search index: page titles, headings and command-set ids, embedded as a
//! script so it works from `file://`.

use anyhow::Result;
use serde::Serialize;

use super::markdown::Heading;

/// The file of the index in a built site.
pub(crate) const SEARCH_INDEX: &str = "search-index.js";

/// What a search result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum SearchKind {
    Page,
    Heading,
    /// A command set's heading.
    Set,
}

/// One entry of the index; short keys keep the embedded script small.
#[derive(Debug, Serialize)]
pub(super) struct SearchEntry {
    /// Text shown.
    t: String,
    /// Extra text matched (ids).
    s: String,
    /// URL relative to the page the index serves.
    u: String,
    k: SearchKind,
}

/// The entries of one page: its title, then its headings below level 1.
/// `url` is the page's URL and `anchors` what a heading's `#id` is appended
/// to (the page URL for a site; empty in the single file, where ids are
/// unique across the book).
pub(super) fn search_entries(
    title: &str,
    url: &str,
    anchors: &str,
    headings: &[Heading],
) -> Vec<SearchEntry> {
    let mut v = vec![SearchEntry {
        t: title.to_string(),
        s: String::new(),
        u: url.to_string(),
        k: SearchKind::Page,
    }];
    for h in headings.iter().filter(|h| h.level > 1) {
        v.push(SearchEntry {
            t: if h.is_set {
                format!("{} — {title}", h.text)
            } else {
                h.text.clone()
            },
            s: h.id.clone(),
            u: format!("{anchors}#{}", h.id),
            k: if h.is_set {
                SearchKind::Set
            } else {
                SearchKind::Heading
            },
        });
    }
    v
}

/// The index as a script that sets `window.AGENTX_SEARCH_INDEX` (a script,
/// not JSON to fetch, so it loads from `file://`).
pub(super) fn search_index_script(entries: &[SearchEntry]) -> Result<String> {
    Ok(format!(
        "window.AGENTX_SEARCH_INDEX = {};\n",
        serde_json::to_string(entries)?
    ))
}
