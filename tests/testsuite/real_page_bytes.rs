//! What a reader's browser loads for one page of the real cookbook pages
//! (issue 26: "the largest page ≤ 25 KB gzip before the reader asks for
//! more"): the book of the four real pages (`browser_real`'s, 1,280 command
//! sets) built by the standalone builder and by real mdBook, every page's
//! HTML gzipped (`gzip -9`) at most 25,000 B, with every set still in the
//! static HTML. The theme files (cached after the first page) and the
//! model's launch data (loaded on the reader's first other choice: a
//! script beside the page, or under mdBook the book's data pages, each a
//! page of its own and held to the same bound) are not the page.

use std::path::Path;

use crate::browser_real::{REAL_SETS, real_book};
use crate::browser_selector::{expected_in, gzip_len};
use crate::support;

/// The most a page's HTML may weigh, gzipped.
const PAGE_GZIP_BUDGET: usize = 25_000;

#[test]
fn every_page_of_the_real_pages_is_at_most_25000_bytes_gzipped() {
    let Some(book) = real_book("real-pages-bytes") else {
        eprintln!("SKIPPED: ../shared/reference/sglang-cookbook-pages is missing");
        return;
    };
    mdbook_agentx::build(&book, &mdbook_agentx::BuildOptions::default()).unwrap();
    let site = book.join("book");
    // Every set keeps its commands on its page (the no-JS reading).
    assert_eq!(
        expected_in(&book, Path::new("data"), &site).len(),
        REAL_SETS
    );
    assert_within_budget(&site, "standalone");
    if support::mdbook_available() {
        let out = book.join("mdbook-out");
        support::mdbook_build(&book, &out);
        assert_eq!(expected_in(&book, Path::new("data"), &out).len(), REAL_SETS);
        // The model pages' whole data is in data pages (at least one per
        // model page), and a model page carries only its light part.
        let data_pages = support::files_under(&out)
            .into_iter()
            .filter(|(p, _)| p.to_string_lossy().contains("/agentx_launch_data"))
            .count();
        assert!(data_pages >= 4, "{data_pages} data pages");
        assert_within_budget(&out, "mdBook");
    }
}

/// Every HTML page of `site` is at most [`PAGE_GZIP_BUDGET`] gzipped.
fn assert_within_budget(site: &Path, what: &str) {
    let mut pages: Vec<(usize, usize, String)> = support::files_under(site)
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html"))
        .map(|(p, b)| (gzip_len(&b), b.len(), p.to_string_lossy().into_owned()))
        .collect();
    pages.sort_by(|a, b| b.cmp(a));
    assert!(pages.len() > 70, "{what}: {} pages", pages.len());
    eprintln!(
        "real pages, {what}: {} HTML pages; the largest gzipped:",
        pages.len()
    );
    for (gz, raw, page) in &pages[..3] {
        eprintln!("  {page}: {gz} B gzip ({raw} B)");
    }
    let over: Vec<_> = pages
        .iter()
        .filter(|(gz, _, _)| *gz > PAGE_GZIP_BUDGET)
        .collect();
    assert!(
        over.is_empty(),
        "{what}: pages over {PAGE_GZIP_BUDGET} B gzip (gzip, raw, page): {over:?}"
    );
}
