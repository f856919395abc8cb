//! The sidebar: rows of the chapter list, and the rows each page shows (all
//! of them in a small book; the current branch and a window of top-level
//! chapters in a large one).

use std::hash::Hash;

use mdbook_preprocessor::book::BookItem;
use serde::Serialize;

use super::*;

/// What a sidebar row is; templates see the lower-case name (`chapter`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SidebarKind {
    /// A chapter with a page.
    Chapter,
    /// A chapter listed without a file (mdBook's draft chapters).
    Draft,
    /// A part title (`# Models` in `SUMMARY.md`).
    Part,
    Separator,
    /// A link to the page listing every chapter, in a shortened sidebar.
    More,
}

/// A sidebar row.
#[derive(Debug, Clone, Serialize, Hash)]
pub(crate) struct SidebarItem {
    pub kind: SidebarKind,
    pub title: String,
    pub href: String,
    pub number: Option<String>,
    pub depth: usize,
    pub active: bool,
    /// Index of the enclosing chapter's row.
    #[serde(skip)]
    pub parent: Option<usize>,
}

/// Above this many rows, each page's sidebar lists the top-level chapters and
/// only the branch of the current page. Why: every page carries its sidebar,
/// so listing all rows everywhere grows with pages × rows; a book 100× the
/// sample (3,400 pages) spent most of its build and memory there.
pub(crate) const SIDEBAR_FULL_LIMIT: usize = 300;

/// In such a book, at most this many top-level rows, around the current
/// page's, plus links to the page listing every chapter. Why: a book of 600
/// model chapters still grew with pages × top-level rows (a 100× book wrote
/// 896 MiB, 247 MiB of it sidebars).
pub(crate) const TOP_LEVEL_WINDOW: usize = 40;

/// The page listing every chapter, written when sidebars are shortened.
pub(crate) const ALL_CHAPTERS: &str = "all-chapters.html";

/// Whether pages show a shortened sidebar (and the book gets [`ALL_CHAPTERS`]).
pub(super) fn sidebar_is_shortened(rows: &[SidebarItem]) -> bool {
    rows.len() > SIDEBAR_FULL_LIMIT
}

/// The sidebar rows shown on the page at row `current`.
pub(super) fn sidebar_for(rows: &[SidebarItem], current: Option<usize>) -> Vec<SidebarItem> {
    if !sidebar_is_shortened(rows) {
        return rows
            .iter()
            .enumerate()
            .map(|(i, r)| SidebarItem {
                active: Some(i) == current,
                ..r.clone()
            })
            .collect();
    }
    let mut branch = Vec::new();
    let mut at = current;
    while let Some(i) = at {
        branch.push(i);
        at = rows[i].parent;
    }
    // The window of top-level rows: centred on the current page's top-level
    // ancestor, shifted to stay inside the list.
    let top: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].depth == 0).collect();
    let (lo, hi) = if top.len() <= TOP_LEVEL_WINDOW {
        (0, top.len())
    } else {
        let centre = branch
            .last()
            .and_then(|a| top.iter().position(|t| t == a))
            .unwrap_or(0);
        let lo = centre
            .saturating_sub(TOP_LEVEL_WINDOW / 2)
            .min(top.len() - TOP_LEVEL_WINDOW);
        (lo, lo + TOP_LEVEL_WINDOW)
    };
    let first = if lo == 0 { 0 } else { top[lo] };
    let end = top.get(hi).copied().unwrap_or(rows.len());
    let more = |n: usize| SidebarItem {
        kind: SidebarKind::More,
        title: format!("All chapters ({n} more)"),
        href: ALL_CHAPTERS.to_string(),
        number: None,
        depth: 0,
        active: false,
        parent: None,
    };
    let shown_rows = (first..end)
        .filter(|&i| rows[i].depth == 0 || rows[i].parent.is_some_and(|p| branch.contains(&p)));
    let mut shown: Vec<SidebarItem> = shown_rows
        .map(|i| SidebarItem {
            active: Some(i) == current,
            ..rows[i].clone()
        })
        .collect();
    // Every hidden chapter, at any depth, is counted once: before the window
    // or after its start. Part titles and separators are hidden too, not counted.
    let is_chapter = |r: &SidebarItem| matches!(r.kind, SidebarKind::Chapter | SidebarKind::Draft);
    let before = rows[..first].iter().filter(|r| is_chapter(r)).count();
    let after = rows[first..].iter().filter(|r| is_chapter(r)).count()
        - shown.iter().filter(|r| is_chapter(r)).count();
    if before > 0 {
        shown.insert(0, more(before));
    }
    if after > 0 {
        shown.push(more(after));
    }
    shown
}

/// Chapters in reading order and the sidebar rows; chapter texts are moved, not copied.
pub(super) fn flatten(
    items: Vec<BookItem>,
    depth: usize,
    pages: &mut Vec<PageSource>,
    sidebar: &mut Vec<SidebarItem>,
) {
    flatten_under(items, depth, None, pages, sidebar)
}

fn flatten_under(
    items: Vec<BookItem>,
    depth: usize,
    parent: Option<usize>,
    pages: &mut Vec<PageSource>,
    sidebar: &mut Vec<SidebarItem>,
) {
    for item in items {
        match item {
            BookItem::Separator => sidebar.push(SidebarItem {
                kind: SidebarKind::Separator,
                title: String::new(),
                href: String::new(),
                number: None,
                depth,
                active: false,
                parent,
            }),
            BookItem::PartTitle(t) => sidebar.push(SidebarItem {
                kind: SidebarKind::Part,
                title: t,
                href: String::new(),
                number: None,
                depth,
                active: false,
                parent,
            }),
            BookItem::Chapter(mut ch) => {
                let number = ch.number.as_ref().map(|n| n.to_string());
                match &ch.path {
                    Some(path) => {
                        sidebar.push(SidebarItem {
                            kind: SidebarKind::Chapter,
                            title: ch.name.clone(),
                            href: href(&html_path(path)),
                            number: number.clone(),
                            depth,
                            active: false,
                            parent,
                        });
                        pages.push(PageSource {
                            path: path.clone(),
                            title: ch.name.clone(),
                            number,
                            markdown: std::mem::take(&mut ch.content),
                        });
                    }
                    None => sidebar.push(SidebarItem {
                        kind: SidebarKind::Draft,
                        title: ch.name.clone(),
                        href: String::new(),
                        number,
                        depth,
                        active: false,
                        parent,
                    }),
                }
                let row = sidebar.len() - 1;
                flatten_under(
                    std::mem::take(&mut ch.sub_items),
                    depth + 1,
                    Some(row),
                    pages,
                    sidebar,
                );
            }
        }
    }
}

#[cfg(test)]
mod sidebar_tests {
    use super::*;

    fn row(depth: usize, parent: Option<usize>, href: &str) -> SidebarItem {
        SidebarItem {
            kind: SidebarKind::Chapter,
            title: href.into(),
            href: href.into(),
            number: None,
            depth,
            active: false,
            parent,
        }
    }

    #[test]
    fn large_sidebars_show_only_the_current_branch() {
        // Two top-level chapters, each with many children.
        let mut rows = vec![row(0, None, "a.html")];
        for i in 0..200 {
            rows.push(row(1, Some(0), &format!("a/{i}.html")));
        }
        let b = rows.len();
        rows.push(row(0, None, "b.html"));
        for i in 0..200 {
            rows.push(row(1, Some(b), &format!("b/{i}.html")));
        }
        let shown = sidebar_for(&rows, Some(b + 5));
        let hrefs: Vec<&str> = shown.iter().map(|r| r.href.as_str()).collect();
        // Both top-level rows, b's children, and a link for a's 200 children.
        assert_eq!(hrefs.len(), 2 + 200 + 1);
        assert_eq!(shown.last().unwrap().title, "All chapters (200 more)");
        assert!(hrefs.contains(&"a.html") && hrefs.contains(&"b/199.html"));
        assert!(!hrefs.contains(&"a/0.html"));
        assert!(shown.iter().any(|r| r.active && r.href == "b/4.html"));
        // Small books list every row.
        assert_eq!(sidebar_for(&rows[..50], Some(3)).len(), 50);
    }

    /// `top` top-level chapters (`{t}.html`) with `children` children each (`{t}/{c}.html`).
    fn tree(top: usize, children: usize) -> Vec<SidebarItem> {
        let mut rows = Vec::new();
        for t in 0..top {
            let parent = rows.len();
            rows.push(row(0, None, &format!("{t}.html")));
            for c in 0..children {
                rows.push(row(1, Some(parent), &format!("{t}/{c}.html")));
            }
        }
        rows
    }

    #[test]
    fn many_top_level_chapters_show_a_window_and_links_to_all_chapters() {
        // 100 top-level chapters with 3 children each: 400 rows.
        let rows = tree(100, 3);
        let at = |t: usize, c: usize| rows.iter().position(|r| r.href == format!("{t}/{c}.html"));
        let hrefs = |shown: &[SidebarItem]| -> Vec<String> {
            shown.iter().map(|r| r.href.clone()).collect()
        };
        // In the middle: 20 top-level rows before the current one's, 19 after;
        // 30 model chapters and their 90 children before the window.
        let shown = sidebar_for(&rows, at(50, 1));
        let h = hrefs(&shown);
        assert_eq!(shown.len(), 1 + TOP_LEVEL_WINDOW + 3 + 1);
        assert_eq!(
            (shown[0].kind, shown[0].title.as_str()),
            (SidebarKind::More, "All chapters (120 more)")
        );
        assert_eq!(h[0], ALL_CHAPTERS);
        assert_eq!(h[1], "30.html");
        assert_eq!(h[h.len() - 2], "69.html");
        assert_eq!(shown.last().unwrap().title, "All chapters (237 more)");
        assert!(h.contains(&"50/2.html".to_string()) && !h.contains(&"49/0.html".to_string()));
        assert!(shown.iter().any(|r| r.active && r.href == "50/1.html"));
        // At the start and the end the window stays full.
        let first = sidebar_for(&rows, at(0, 0));
        assert_eq!(first[0].href, "0.html");
        assert_eq!(first.last().unwrap().title, "All chapters (357 more)");
        assert_eq!(first.len(), TOP_LEVEL_WINDOW + 3 + 1);
        let last = sidebar_for(&rows, at(99, 2));
        assert_eq!(last[0].title, "All chapters (240 more)");
        assert_eq!(last[1].href, "60.html");
        assert_eq!(last[last.len() - 2].href, "99/2.html");
        assert_eq!(last.last().unwrap().title, "All chapters (117 more)");
        // Pages with no row (404) show the window at the start.
        assert_eq!(hrefs(&sidebar_for(&rows, None))[..2], ["0.html", "1.html"]);
        // Hidden part titles are not counted as chapters.
        let mut with_part = vec![SidebarItem {
            kind: SidebarKind::Part,
            ..row(0, None, "")
        }];
        with_part.extend(rows.iter().map(|r| SidebarItem {
            parent: r.parent.map(|p| p + 1),
            ..r.clone()
        }));
        let shown = sidebar_for(&with_part, at(50, 1).map(|i| i + 1));
        assert_eq!(shown[0].title, "All chapters (120 more)");
        assert_eq!(shown[1].href, "30.html");
        // Few top-level chapters with many children: all top-level rows show,
        // and the other chapters' children are reached through the link.
        let wide = tree(30, 20);
        let shown = sidebar_for(&wide, Some(5 * 21 + 1));
        assert_eq!(shown.len(), 30 + 20 + 1);
        assert_eq!(shown.last().unwrap().title, "All chapters (580 more)");
    }
}
