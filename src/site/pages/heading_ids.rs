//! Unique heading ids within one page, numbered as mdBook 0.5 numbers them
//! (`mdbook-html`'s `unique_id`): the first `x` stays `x`, each later one
//! takes the smallest free `x-1`, `x-2`, …, skipping ids already given, a
//! literal `x-1` heading's included.
//!
//! mdBook finds that suffix by trying 1, 2, 3, … for every heading, so a
//! page of n equal headings costs n²/2 lookups (50,000 headings took 182 s).
//! Here each base id remembers the suffix to try next. That gives the same
//! ids: ids are only ever added, so every suffix below the remembered one
//! is still taken, and the smallest free suffix from 1 is the smallest free
//! one from there. Each lookup that fails passes an id given earlier, and
//! an id `b-n` fails only the base `b`, once; so a page costs at most two
//! lookups per heading.

use std::collections::{HashMap, HashSet};

/// The ids given so far on one page.
#[derive(Debug, Default)]
pub(crate) struct UniqueIds {
    used: HashSet<String>,
    /// Per base id that was taken when asked for: the next suffix to try.
    next: HashMap<String, u32>,
}

#[cfg(test)]
thread_local! {
    /// Set lookups made on this thread: what the tests of the bound count.
    static LOOKUPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one set lookup (in tests; nothing otherwise).
fn looked_up() {
    #[cfg(test)]
    LOOKUPS.with(|n| n.set(n.get() + 1));
}

/// Set lookups made on this thread so far.
#[cfg(test)]
pub(crate) fn lookups() -> usize {
    LOOKUPS.with(|n| n.get())
}

impl UniqueIds {
    /// A page's id for a heading whose id would be `base` (`section` when
    /// `base` is empty), unique among the ids given so far.
    pub(crate) fn unique(&mut self, base: &str) -> String {
        let base = if base.is_empty() { "section" } else { base };
        looked_up();
        if self.used.insert(base.to_string()) {
            return base.to_string();
        }
        let n = self.next.entry(base.to_string()).or_insert(1);
        loop {
            let candidate = format!("{base}-{n}");
            *n += 1;
            looked_up();
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mdBook's own algorithm, as a reference: suffixes tried from 1.
    fn mdbook_unique(base: &str, used: &mut HashSet<String>) -> String {
        let base = if base.is_empty() { "section" } else { base };
        if used.insert(base.to_string()) {
            return base.to_string();
        }
        (1..)
            .map(|n| format!("{base}-{n}"))
            .find(|c| used.insert(c.clone()))
            .expect("a free suffix")
    }

    #[test]
    fn numbered_as_mdbook_numbers() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["x", "x", "x"], &["x", "x-1", "x-2"]),
            // A literal `x-1` heading takes its id; the next `x` skips it.
            (&["x", "x-1", "x", "x"], &["x", "x-1", "x-2", "x-3"]),
            // `x-1` given to the second `x` first: the literal one moves on.
            (&["x", "x", "x-1", "x"], &["x", "x-1", "x-1-1", "x-2"]),
            (
                &["x-2", "x", "x", "x", "x"],
                &["x-2", "x", "x-1", "x-3", "x-4"],
            ),
            (&["", "", "section"], &["section", "section-1", "section-2"]),
            (&["über", "über"], &["über", "über-1"]),
        ];
        for (bases, want) in cases {
            let mut ids = UniqueIds::default();
            let got: Vec<String> = bases.iter().map(|b| ids.unique(b)).collect();
            assert_eq!(&got, want, "{bases:?}");
        }
    }

    #[test]
    fn same_ids_as_probing_from_one() {
        // Bases that collide with each other's numbered forms, in an order
        // mixing them; every id must equal mdBook's.
        let words = ["a", "a-1", "a-2", "a-1-1", "b", "a-10", "b-1", "a"];
        let mut ids = UniqueIds::default();
        let mut used = HashSet::new();
        for i in 0..2_000usize {
            let base = words[(i * 7 + i / 3) % words.len()];
            assert_eq!(
                ids.unique(base),
                mdbook_unique(base, &mut used),
                "heading {i}"
            );
        }
    }

    #[test]
    fn repeated_headings_cost_linear_lookups() {
        // Probing from 1, n equal headings make n²/2 lookups (50,000 of
        // them took 182 s); with the per-base counter, at most two each.
        let n = 5_000;
        let mut ids = UniqueIds::default();
        let before = lookups();
        for _ in 0..n {
            ids.unique("step");
        }
        assert_eq!(ids.unique("step"), format!("step-{n}"));
        let made = lookups() - before;
        assert!(made <= 2 * (n + 1), "{made} lookups");
    }

    #[test]
    fn a_chapter_of_many_directives_costs_linear_lookups() {
        // Every section repeats its headings (`Deployments`, …): 10,000
        // directives in one chapter took 11 s and 50,000 took 440 s, nearly
        // all of it in trying suffixes from 1.
        use crate::book::OnError;
        use crate::preprocessor::{Library, expand_chapter};
        use crate::site::pages::page_html::{LinkMode, render};
        use std::path::Path;
        let fixtures = crate::test_support::fixture("");
        let lib = Library::load(&fixtures, Path::new("data")).unwrap();
        let chapter = format!(
            "# M\n\n{}",
            "<<agentx page=\"Mini-Test\">>\n\n".repeat(1_000)
        );
        let path = Path::new("m.md");
        let out = expand_chapter(&chapter, path, "m.md", &lib, OnError::Fail).unwrap();
        let before = lookups();
        let options = crate::util::cmark::MarkdownConfig::default();
        let page = render(&out.content, path, &LinkMode::Pages, options);
        let made = lookups() - before;
        assert!(page.headings.len() > 2_000, "{}", page.headings.len());
        assert!(made <= 2 * page.headings.len(), "{made} lookups");
    }
}
