//! The sidebar: rows of the chapter list, and the rows each page shows (all
//! of them in a small book; the current branch and a window of top-level
//! chapters in a large one).

use std::collections::HashMap;
use std::hash::Hash;

use mdbook_preprocessor::book::BookItem;
use serde::Serialize;

use crate::site::{PageSource, href, html_path};

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

/// In such a book, at most this many rows of each level the page's branch
/// passes through (top-level chapters, then the siblings at each level down
/// to the page and its children), around the branch, plus links to the
/// page listing every chapter. Why: a book of 600 model chapters grew with
/// pages × top-level rows (a 100× book wrote 896 MiB, 247 MiB of it
/// sidebars), and a model with 2,000 deployments with pages × siblings;
/// windowing every level keeps each sidebar O(1).
pub(crate) const TOP_LEVEL_WINDOW: usize = 40;

/// The page listing every chapter, written when sidebars are shortened.
pub(crate) const ALL_CHAPTERS: &str = "all-chapters.html";

/// Whether pages show a shortened sidebar (and the book gets [`ALL_CHAPTERS`]).
pub(in crate::site) fn sidebar_is_shortened(rows: &[SidebarItem]) -> bool {
    rows.len() > SIDEBAR_FULL_LIMIT
}

/// What [`sidebar_for`] needs to pick a page's rows without scanning all
/// of them: each page's row, every row's children, and running counts of
/// chapters.
#[derive(Debug, Clone, Default)]
pub(crate) struct SidebarIndex {
    /// The row of each chapter, by its href.
    by_href: HashMap<String, usize>,
    /// Rows without a parent, in order.
    top: Vec<usize>,
    /// Each row's children, in order.
    children: Vec<Vec<usize>>,
    /// How many chapter rows (chapters and drafts) come before each row,
    /// and, last, how many there are.
    chapters_before: Vec<usize>,
}

impl SidebarIndex {
    pub(crate) fn new(rows: &[SidebarItem]) -> SidebarIndex {
        let mut index = SidebarIndex {
            children: vec![Vec::new(); rows.len()],
            chapters_before: Vec::with_capacity(rows.len() + 1),
            ..SidebarIndex::default()
        };
        let mut chapters = 0;
        for (i, r) in rows.iter().enumerate() {
            index.chapters_before.push(chapters);
            chapters += usize::from(is_chapter(r));
            match r.parent {
                Some(p) => index.children[p].push(i),
                None => index.top.push(i),
            }
            if r.kind == SidebarKind::Chapter {
                index.by_href.entry(r.href.clone()).or_insert(i);
            }
        }
        index.chapters_before.push(chapters);
        index
    }

    /// The row of the chapter whose page is `href`.
    pub(crate) fn row_of(&self, href: &str) -> Option<usize> {
        self.by_href.get(href).copied()
    }
}

fn is_chapter(r: &SidebarItem) -> bool {
    matches!(r.kind, SidebarKind::Chapter | SidebarKind::Draft)
}

/// At most [`TOP_LEVEL_WINDOW`] of `siblings`, centred on `centre` (or from
/// the start), shifted to stay inside the list.
fn window(siblings: &[usize], centre: Option<usize>) -> &[usize] {
    if siblings.len() <= TOP_LEVEL_WINDOW {
        return siblings;
    }
    let at = centre
        .and_then(|c| siblings.iter().position(|&s| s == c))
        .unwrap_or(0);
    let lo = at
        .saturating_sub(TOP_LEVEL_WINDOW / 2)
        .min(siblings.len() - TOP_LEVEL_WINDOW);
    &siblings[lo..lo + TOP_LEVEL_WINDOW]
}

/// The sidebar rows shown on the page at row `current`: every row in a
/// small book; in a large one the windows along the page's branch, in
/// book order, with links to all chapters for what is hidden before and
/// after. The work is bounded by the branch's depth, not the book's size.
pub(in crate::site) fn sidebar_for(
    rows: &[SidebarItem],
    index: &SidebarIndex,
    current: Option<usize>,
) -> Vec<SidebarItem> {
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
    // The branch from the top-level ancestor down to the page.
    let mut branch = Vec::new();
    let mut at = current;
    while let Some(i) = at {
        branch.push(i);
        at = rows[i].parent;
    }
    branch.reverse();
    let mut shown: Vec<usize> = window(&index.top, branch.first().copied()).to_vec();
    for (depth, &row) in branch.iter().enumerate() {
        shown.extend(window(&index.children[row], branch.get(depth + 1).copied()));
    }
    shown.sort_unstable();
    let more = |n: usize| SidebarItem {
        kind: SidebarKind::More,
        title: format!("All chapters ({n} more)"),
        href: ALL_CHAPTERS.to_string(),
        number: None,
        depth: 0,
        active: false,
        parent: None,
    };
    // Every hidden chapter, at any depth, is counted once: before the first
    // shown row or after it. Part titles and separators are not counted.
    let first = shown.first().copied().unwrap_or(0);
    let before = index.chapters_before[first];
    let visible = shown.iter().filter(|&&i| is_chapter(&rows[i])).count();
    let after = index.chapters_before[rows.len()] - before - visible;
    let mut out: Vec<SidebarItem> = Vec::with_capacity(shown.len() + 2);
    if before > 0 {
        out.push(more(before));
    }
    out.extend(shown.iter().map(|&i| SidebarItem {
        active: Some(i) == current,
        ..rows[i].clone()
    }));
    if after > 0 {
        out.push(more(after));
    }
    out
}

/// Chapters in reading order and the sidebar rows; chapter texts are moved, not copied.
pub(in crate::site) fn flatten(
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

/// What the built-in `sidebar.html` template makes of `rows`, written
/// directly. Why: tera ran that template's loop for every page, the largest
/// part of laying a page out; a book that overrides the template still gets
/// it rendered by tera ([`crate::site::theme::Theme::builtin_sidebar`]). A test
/// renders both ways and compares them.
pub(in crate::site) fn sidebar_html(
    rows: &[SidebarItem],
    root: &str,
    show_numbers: bool,
) -> String {
    use crate::site::highlight::escape_html;
    let mut out = String::with_capacity(32 + rows.len() * 128);
    out.push_str("<ol class=\"chapters\">\n");
    let root = escape_html(root);
    let number = |out: &mut String, item: &SidebarItem| {
        // tera's truth: an absent or empty number shows nothing.
        if let Some(n) = item
            .number
            .as_deref()
            .filter(|n| show_numbers && !n.is_empty())
        {
            out.push_str("<span class=\"number\">");
            html_into(out, n);
            out.push_str("</span> ");
        }
    };
    for item in rows {
        match item.kind {
            SidebarKind::Part => {
                out.push_str("<li class=\"part-title\">");
                html_into(&mut out, &item.title);
                out.push_str("</li>\n");
            }
            SidebarKind::Separator => {
                out.push_str("<li class=\"separator\" aria-hidden=\"true\"></li>\n");
            }
            SidebarKind::More => {
                out.push_str("<li class=\"chapter-item depth-0 more\"><a href=\"");
                out.push_str(&root);
                html_into(&mut out, &item.href);
                out.push_str("\">");
                html_into(&mut out, &item.title);
                out.push_str("</a></li>\n");
            }
            SidebarKind::Draft => {
                out.push_str(&format!(
                    "<li class=\"chapter-item depth-{} draft\">",
                    item.depth
                ));
                number(&mut out, item);
                html_into(&mut out, &item.title);
                out.push_str("</li>\n");
            }
            SidebarKind::Chapter => {
                out.push_str(&format!("<li class=\"chapter-item depth-{}", item.depth));
                out.push_str(if item.active {
                    " active\"><a href=\""
                } else {
                    "\"><a href=\""
                });
                out.push_str(&root);
                html_into(&mut out, &item.href);
                out.push_str(if item.active {
                    "\" aria-current=\"page\">"
                } else {
                    "\">"
                });
                number(&mut out, item);
                html_into(&mut out, &item.title);
                out.push_str("</a></li>\n");
            }
        }
    }
    out.push_str("</ol>\n");
    out
}

fn html_into(out: &mut String, s: &str) {
    crate::util::escape::html_into(out, s);
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

    /// The rows shown on the page at `current`.
    fn sidebar_at(rows: &[SidebarItem], current: Option<usize>) -> Vec<SidebarItem> {
        sidebar_for(rows, &SidebarIndex::new(rows), current)
    }

    #[test]
    fn large_sidebars_show_windows_along_the_current_branch() {
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
        let shown = sidebar_at(&rows, Some(b + 5));
        let hrefs: Vec<&str> = shown.iter().map(|r| r.href.as_str()).collect();
        // Both top-level rows, the first 40 of b's children (b/4 is near the
        // start), and a link for a's 200 children and b's other 160.
        assert_eq!(hrefs.len(), 2 + TOP_LEVEL_WINDOW + 1);
        assert_eq!(shown.last().unwrap().title, "All chapters (360 more)");
        assert!(hrefs.contains(&"a.html") && hrefs.contains(&"b/39.html"));
        assert!(!hrefs.contains(&"a/0.html") && !hrefs.contains(&"b/40.html"));
        assert!(shown.iter().any(|r| r.active && r.href == "b/4.html"));
        // In the middle of the siblings: 20 before the page, 19 after.
        let shown = sidebar_at(&rows, Some(b + 1 + 100));
        let hrefs: Vec<&str> = shown.iter().map(|r| r.href.as_str()).collect();
        assert_eq!(hrefs[..3], ["a.html", "b.html", "b/80.html"]);
        assert_eq!(hrefs[hrefs.len() - 2], "b/119.html");
        // Small books list every row.
        assert_eq!(sidebar_at(&rows[..50], Some(3)).len(), 50);
    }

    /// A model chapter with 2,000 deployment chapters among 60 model
    /// chapters: every page's sidebar is bounded, and every chapter is
    /// either shown or counted by a link, exactly once.
    #[test]
    fn sidebars_stay_bounded_with_thousands_of_siblings() {
        let mut rows = vec![row(0, None, "intro.html")];
        let models = rows.len();
        rows.push(row(0, None, "models.html"));
        for m in 0..60 {
            let model = rows.len();
            rows.push(row(1, Some(models), &format!("m{m}.html")));
            let n = if m == 7 { 2_000 } else { 3 };
            for d in 0..n {
                rows.push(row(2, Some(model), &format!("m{m}/{d}.html")));
            }
        }
        let index = SidebarIndex::new(&rows);
        let total = rows.iter().filter(|r| is_chapter(r)).count();
        for current in (0..rows.len()).step_by(7).map(Some).chain([None]) {
            let shown = sidebar_for(&rows, &index, current);
            // The top window, and one window per level of the branch.
            assert!(
                shown.len() <= 2 + 4 * TOP_LEVEL_WINDOW,
                "{current:?}: {}",
                shown.len()
            );
            let counted: usize = shown
                .iter()
                .map(|r| match r.kind {
                    SidebarKind::More => r.title[14..].split(' ').next().unwrap().parse().unwrap(),
                    _ => usize::from(is_chapter(r)),
                })
                .sum();
            assert_eq!(counted, total, "{current:?}");
            if let Some(c) = current {
                assert!(shown.iter().any(|r| r.active && r.href == rows[c].href));
            }
        }
        assert_eq!(
            index.row_of("m7/1999.html"),
            rows.iter().position(|r| r.href == "m7/1999.html")
        );
        assert_eq!(index.row_of("nope.html"), None);
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
        let shown = sidebar_at(&rows, at(50, 1));
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
        let first = sidebar_at(&rows, at(0, 0));
        assert_eq!(first[0].href, "0.html");
        assert_eq!(first.last().unwrap().title, "All chapters (357 more)");
        assert_eq!(first.len(), TOP_LEVEL_WINDOW + 3 + 1);
        let last = sidebar_at(&rows, at(99, 2));
        assert_eq!(last[0].title, "All chapters (240 more)");
        assert_eq!(last[1].href, "60.html");
        assert_eq!(last[last.len() - 2].href, "99/2.html");
        assert_eq!(last.last().unwrap().title, "All chapters (117 more)");
        // Pages with no row (404) show the window at the start.
        assert_eq!(hrefs(&sidebar_at(&rows, None))[..2], ["0.html", "1.html"]);
        // Hidden part titles are not counted as chapters.
        let mut with_part = vec![SidebarItem {
            kind: SidebarKind::Part,
            ..row(0, None, "")
        }];
        with_part.extend(rows.iter().map(|r| SidebarItem {
            parent: r.parent.map(|p| p + 1),
            ..r.clone()
        }));
        let shown = sidebar_at(&with_part, at(50, 1).map(|i| i + 1));
        assert_eq!(shown[0].title, "All chapters (120 more)");
        assert_eq!(shown[1].href, "30.html");
        // Few top-level chapters with many children: all top-level rows show,
        // and the other chapters' children are reached through the link.
        let wide = tree(30, 20);
        let shown = sidebar_at(&wide, Some(5 * 21 + 1));
        assert_eq!(shown.len(), 30 + 20 + 1);
        assert_eq!(shown.last().unwrap().title, "All chapters (580 more)");
    }

    /// The rows written directly are what the built-in template makes of
    /// them, for every kind of row, active or not, numbered or not, with
    /// text that needs escaping.
    #[test]
    fn sidebar_html_equals_the_built_in_template() {
        let mut rows = vec![
            SidebarItem {
                kind: SidebarKind::Part,
                title: "Models & <GPUs>".into(),
                href: String::new(),
                number: None,
                depth: 0,
                active: false,
                parent: None,
            },
            SidebarItem {
                kind: SidebarKind::Separator,
                ..row(0, None, "")
            },
            SidebarItem {
                kind: SidebarKind::More,
                title: "All \"chapters\"".into(),
                ..row(0, None, "all-chapters.html")
            },
        ];
        for (n, number) in [None, Some(""), Some("1.2.")].into_iter().enumerate() {
            for kind in [SidebarKind::Draft, SidebarKind::Chapter] {
                for active in [false, true] {
                    rows.push(SidebarItem {
                        kind,
                        title: format!("T'{n} <b>"),
                        href: format!("m/{n}.html?a=1&b=2"),
                        number: number.map(String::from),
                        depth: n,
                        active,
                        parent: None,
                    });
                }
            }
        }
        let theme = crate::site::theme::Theme::builtin_for_tests();
        for root in ["", "../../", "/"] {
            for show_numbers in [false, true] {
                let mut ctx = tera::Context::new();
                ctx.insert("sidebar", &rows);
                ctx.insert("root", root);
                ctx.insert("show_numbers", &show_numbers);
                let by_tera = theme.render("sidebar.html", &ctx).unwrap();
                assert_eq!(sidebar_html(&rows, root, show_numbers), by_tera);
                ctx.insert("sidebar_html", &sidebar_html(&rows, root, show_numbers));
                assert_eq!(theme.render("sidebar.html", &ctx).unwrap(), by_tera);
            }
        }
    }
}
