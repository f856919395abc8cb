//! Pages laid out with the templates: chapters, the 404 page, the page of
//! all chapters, and the redirect of `index.html`.

use anyhow::{Context, Result};

use super::page_html::{Heading, HeadingKind, RenderedMarkdown};
use super::sidebar::{ALL_CHAPTERS, SidebarItem, SidebarKind, sidebar_for};
use crate::site::highlight::escape_html;
use crate::site::search::SEARCH_INDEX;
use crate::site::theme::Theme;
use crate::site::{BuildOptions, PageSource, Site, href, html_path};

impl Site {
    pub(in crate::site) fn stylesheets(&self) -> Vec<String> {
        let mut v = vec![
            "theme/book.css".to_string(),
            "theme/highlight.css".to_string(),
            "theme/agentx.css".to_string(),
        ];
        v.extend(
            self.dir
                .html
                .additional_css
                .iter()
                // Installed AgentX assets: the builder's own copies are above.
                .filter(|p| !crate::preprocessor::assets::is_agentx_asset(p))
                .map(|p| href(p)),
        );
        v
    }

    pub(in crate::site) fn scripts(&self) -> Vec<String> {
        // The search index is not here: book.js injects it on first use.
        let mut v = vec!["theme/book.js".to_string(), "theme/agentx.js".to_string()];
        v.extend(
            self.dir
                .html
                .additional_js
                .iter()
                // Installed AgentX assets: the builder's own copies are above.
                .filter(|p| !crate::preprocessor::assets::is_agentx_asset(p))
                .map(|p| href(p)),
        );
        v
    }

    pub(in crate::site) fn render_page(
        &self,
        i: usize,
        body: &RenderedMarkdown,
        theme: &Theme,
        opts: &BuildOptions,
    ) -> Result<String> {
        let page = &self.pages[i];
        let depth = page.path.components().count().saturating_sub(1);
        let root = "../".repeat(depth);
        let current = href(&html_path(&page.path));
        let row = self.sidebar_index.row_of(&current);
        let sidebar = sidebar_for(&self.sidebar, &self.sidebar_index, row);
        let link = |p: &PageSource| serde_json::json!({"title": p.title, "href": href(&html_path(&p.path))});
        let toc: Vec<&Heading> = body
            .headings
            .iter()
            .filter(|h| (2..=3).contains(&h.level) && h.kind == HeadingKind::Plain)
            .collect();
        let title = body
            .headings
            .iter()
            .find(|h| h.level == 1)
            .map(|h| h.text.clone())
            .unwrap_or_else(|| page.title.clone());
        // Only the landing page shows the overview: made for it alone, as it
        // grows with the book (made for every page, it made a large build
        // quadratic).
        let overview = (i == self.landing_page())
            .then(|| self.overview_for(&root))
            .flatten();
        let content = match overview {
            Some(overview) => after_title(&body.html, &overview),
            None => body.html.clone(),
        };
        let mut ctx = self.base_context(&root);
        ctx.insert(
            "page",
            &serde_json::json!({
                "title": title,
                "content": content,
                "path": current,
                "number": page.number,
            }),
        );
        self.insert_sidebar(&mut ctx, theme, &sidebar, &root);
        ctx.insert("toc", &toc);
        ctx.insert("prev", &i.checked_sub(1).map(|j| link(&self.pages[j])));
        ctx.insert("next", &self.pages.get(i + 1).map(link));
        ctx.insert("inline_js", &opts.extra_script);
        theme
            .render("page.html", &ctx)
            .with_context(|| format!("rendering {}", page.path.display()))
    }

    /// A page's sidebar rows into `ctx` (templates may read them), and,
    /// with the built-in `sidebar.html`, that template's output written
    /// directly ([`super::sidebar::sidebar_html`]).
    fn insert_sidebar(
        &self,
        ctx: &mut tera::Context,
        theme: &Theme,
        rows: &[SidebarItem],
        root: &str,
    ) {
        ctx.insert("sidebar", rows);
        if theme.builtin_sidebar() {
            let show_numbers = !self.dir.html.no_section_label;
            ctx.insert(
                "sidebar_html",
                &super::sidebar::sidebar_html(rows, root, show_numbers),
            );
        }
    }

    pub(in crate::site) fn base_context(&self, root: &str) -> tera::Context {
        let mut ctx = tera::Context::new();
        ctx.insert(
            "book",
            &serde_json::json!({
                "title": self.dir.title(),
                "description": self.dir.config.book.description,
                "language": self.dir.config.book.language.clone().unwrap_or_else(|| "en".into()),
                "authors": self.dir.config.book.authors,
            }),
        );
        ctx.insert("root", root);
        ctx.insert("favicon", &format!("{root}theme/favicon.svg"));
        ctx.insert("home", "index.html");
        ctx.insert("show_numbers", &!self.dir.html.no_section_label);
        ctx.insert("stylesheets", &self.stylesheets());
        ctx.insert("scripts", &self.scripts());
        ctx.insert("inline_css", &Option::<String>::None);
        ctx.insert("inline_js", &Option::<String>::None);
        ctx.insert("search_index", SEARCH_INDEX);
        ctx.insert("search_inline", &Option::<String>::None);
        ctx.insert("toc", &Vec::<Heading>::new());
        ctx.insert("prev", &Option::<()>::None);
        ctx.insert("next", &Option::<()>::None);
        ctx
    }

    pub(in crate::site) fn not_found(&self, theme: &Theme, opts: &BuildOptions) -> Result<String> {
        // Served for any missing path, so links are absolute from the site root.
        let mut ctx = self.base_context("/");
        ctx.insert("page", &serde_json::json!({
            "title": "Page not found",
            "content": "<h1 id=\"page-not-found\">Page not found</h1>\n<p>This page does not exist. Use the chapter list or the search box.</p>\n",
            "path": "404.html",
            "number": null,
        }));
        let sidebar = sidebar_for(&self.sidebar, &self.sidebar_index, None);
        self.insert_sidebar(&mut ctx, theme, &sidebar, "/");
        ctx.insert("inline_js", &opts.extra_script);
        theme
            .render("page.html", &ctx)
            .context("rendering 404.html")
    }

    /// The page listing every chapter, for books whose sidebars are shortened.
    pub(in crate::site) fn all_chapters(
        &self,
        theme: &Theme,
        opts: &BuildOptions,
    ) -> Result<String> {
        let mut content = String::from(
            "<h1 id=\"all-chapters\">All chapters</h1>\n<ol class=\"chapters all-chapters\">\n",
        );
        let show_numbers = !self.dir.html.no_section_label;
        for r in &self.sidebar {
            let number = match (&r.number, show_numbers) {
                (Some(n), true) => format!("<span class=\"number\">{}</span> ", escape_html(n)),
                _ => String::new(),
            };
            let title = escape_html(&r.title);
            content.push_str(&match r.kind {
                SidebarKind::Part => format!("<li class=\"part-title\">{title}</li>\n"),
                SidebarKind::Separator => {
                    "<li class=\"separator\" aria-hidden=\"true\"></li>\n".into()
                }
                SidebarKind::Draft => format!(
                    "<li class=\"chapter-item depth-{} draft\">{number}{title}</li>\n",
                    r.depth
                ),
                SidebarKind::Chapter | SidebarKind::More => format!(
                    "<li class=\"chapter-item depth-{}\"><a href=\"{}\">{number}{title}</a></li>\n",
                    r.depth,
                    escape_html(&r.href)
                ),
            });
        }
        content.push_str("</ol>\n");
        let mut ctx = self.base_context("");
        ctx.insert(
            "page",
            &serde_json::json!({
                "title": "All chapters",
                "content": content,
                "path": ALL_CHAPTERS,
                "number": null,
            }),
        );
        let sidebar = sidebar_for(&self.sidebar, &self.sidebar_index, None);
        self.insert_sidebar(&mut ctx, theme, &sidebar, "");
        ctx.insert("inline_js", &opts.extra_script);
        theme
            .render("page.html", &ctx)
            .with_context(|| format!("rendering {ALL_CHAPTERS}"))
    }
}

impl Site {
    /// The page that opens the book: `index.md`, or else the first chapter.
    pub(in crate::site) fn landing_page(&self) -> usize {
        self.landing
    }

    /// The overview of the book's models, linking from a page at `root`.
    fn overview_for(&self, root: &str) -> Option<String> {
        self.overview_html(&|chapter, anchor| {
            format!("{root}{}#{anchor}", href(&html_path(chapter)))
        })
    }

    /// The overview of the book's models; `link` gives the URL of a
    /// chapter's section.
    pub(in crate::site) fn overview_html(
        &self,
        link: &dyn Fn(&std::path::Path, &str) -> String,
    ) -> Option<String> {
        super::overview::overview_html(&self.catalog.overview, link)
    }
}

/// `html` with `insert` after its first `<h1>` (or at its start when it has none).
pub(in crate::site) fn after_title(html: &str, insert: &str) -> String {
    let at = html
        .find("<h1")
        .and_then(|h| html[h..].find("</h1>").map(|e| h + e + "</h1>".len()))
        .map(|e| e + html[e..].len() - html[e..].trim_start_matches('\n').len())
        .unwrap_or(0);
    format!("{}{insert}{}", &html[..at], &html[at..])
}

pub(in crate::site) fn redirect_html(target: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0; url={target}\"><title>Redirect</title></head><body><a href=\"{target}\">Continue</a></body></html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overview_goes_after_the_title() {
        let o = "<section>O</section>\n";
        assert_eq!(
            after_title("<h1 id=\"t\">Tïtle</h1>\n\n<p>x</p>\n", o),
            "<h1 id=\"t\">Tïtle</h1>\n\n<section>O</section>\n<p>x</p>\n"
        );
        assert_eq!(
            after_title("<p>no title</p>\n", o),
            format!("{o}<p>no title</p>\n")
        );
        assert_eq!(after_title("", o), o);
    }
}
