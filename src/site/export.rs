//! `export`: an offline copy of the site (every asset local, relative links
//! only), or the whole book in one self-contained HTML file. What counts as
//! a remote asset is [`super::remote`]'s: read as a browser reads the page.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::output::destination::{OutputKind, SINGLE_FILE_MARKER, check_output};
use super::output::sink::write_file_atomically;
use super::pages::page_html::{self, LinkMode};
use super::pages::sidebar::SidebarKind;
use super::remote::{remote_assets, remote_css_urls};
use super::search::{SearchPage, search_index_inline};
use super::theme::{HIGHLIGHT_CSS, Theme};
use super::{BuildOptions, SidebarItem, Site};
use crate::util::escape;
use crate::util::notice::Notice;
use crate::util::text::slug;

/// The remote assets one HTML page or stylesheet would load.
pub(crate) fn offline_problems_in(path: &Path, bytes: &[u8]) -> Vec<String> {
    let mut problems = Vec::new();
    let is_text = path.extension().is_some_and(|e| e == "html" || e == "css");
    if !is_text {
        return problems;
    }
    let text = String::from_utf8_lossy(bytes);
    if path.extension().is_some_and(|e| e == "css") {
        for url in remote_css_urls(&text) {
            problems.push(format!("{}: stylesheet loads {url}", path.display()));
        }
        return problems;
    }
    for a in remote_assets(&text) {
        problems.push(format!("{}: <{}> loads {}", path.display(), a.tag, a.url));
    }
    problems
}

/// Builds the site into `out` and verifies that it needs no network: every
/// page and stylesheet is checked as it is written, and a site that would
/// load a remote asset is never swapped in.
pub fn export_offline(root: &Path, out: &Path) -> Result<super::BuildReport> {
    // OUT may be anywhere, but never over the book's inputs or a directory
    // this tool did not make (the build checks again, naming it `-d`).
    let dir = crate::book::BookDir::open(root)?;
    check_output(&dir, out, OutputKind::Directory, "--offline", true)?;
    let opts = BuildOptions {
        dest: Some(out.to_path_buf()),
        // OUT is required on the command line, never read from book.toml.
        allow_dest_outside: true,
        ..BuildOptions::default()
    };
    let (report, mut problems) = super::build_inspected(root, &opts, &offline_problems_in)?;
    if !problems.is_empty() {
        problems.sort();
        bail!(
            "the site would load {} remote asset(s); remove them from the templates or theme:\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
    Ok(report)
}

/// Writes [`single_file`] to `out` (any path, but not over the book's
/// inputs nor over a file this tool did not write), ending with a marker
/// comment that tells a later export the file is its own; returns the
/// bytes written and the build's warnings. The file
/// is written under a temporary name beside `out` and renamed over it, so a
/// failed write leaves the old file and no partial one.
pub fn write_single_file(root: &Path, out: &Path) -> Result<(u64, Vec<Notice>)> {
    let dir = crate::book::BookDir::open(root)?;
    check_output(&dir, out, OutputKind::File, "--single-file", true)?;
    let SingleFile { mut html, notices } = single_file(root)?;
    if !html.ends_with('\n') {
        html.push('\n');
    }
    html.push_str(SINGLE_FILE_MARKER);
    html.push('\n');
    write_file_atomically(out, html.as_bytes())?;
    Ok((html.len() as u64, notices))
}

/// Id prefix of a chapter in the single file.
fn chapter_prefix(path: &Path) -> String {
    format!("ch-{}", slug(&path.with_extension("").to_string_lossy()))
}

/// The book as one HTML file, and what building it had to say.
#[derive(Debug, Clone)]
pub struct SingleFile {
    /// The page.
    pub html: String,
    /// Warnings, in the order they arose.
    pub notices: Vec<Notice>,
}

/// The whole book as one HTML file: assets inlined, chapters as sections,
/// every id prefixed by its chapter so anchors stay unique and links work.
pub fn single_file(root: &Path) -> Result<SingleFile> {
    let site = Site::load(root)?;
    let theme = Theme::load(&site.dir)?;
    let prefixes: HashMap<PathBuf, String> = site
        .pages
        .iter()
        .map(|p| (p.path.clone(), chapter_prefix(&p.path)))
        .collect();
    let (content, index) = sections(&site, &prefixes)?;
    let sidebar: Vec<SidebarItem> = site
        .sidebar
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if s.kind == SidebarKind::Chapter {
                let md = PathBuf::from(&s.href).with_extension("md");
                s.href = format!("#{}", prefixes.get(&md).cloned().unwrap_or_default());
            }
            s
        })
        .collect();
    let mut ctx = site.base_context("");
    ctx.insert("home", &format!("#{}", prefixes[&site.pages[0].path]));
    ctx.insert("stylesheets", &Vec::<String>::new());
    ctx.insert("scripts", &Vec::<String>::new());
    ctx.insert("search_index", &Option::<String>::None);
    inline_assets(&mut ctx, &theme, &site, &index)?;
    ctx.insert("sidebar", &sidebar);
    ctx.insert(
        "page",
        &serde_json::json!({"title": site.dir.title(), "content": content, "path": "", "number": null}),
    );
    let html = theme
        .render("page.html", &ctx)
        .context("rendering the single file")?;
    let problems = offline_problems_in(Path::new("book.html"), html.as_bytes());
    if !problems.is_empty() {
        bail!(
            "the single file would load remote assets:\n  {}",
            problems.join("\n  ")
        );
    }
    Ok(SingleFile {
        html,
        notices: site.notices.take(),
    })
}

/// Every chapter as a `<section>` (the landing overview after the first
/// one's title), and what the search index needs of each; refused past
/// `max-site-mib`.
fn sections(site: &Site, prefixes: &HashMap<PathBuf, String>) -> Result<(String, Vec<SearchPage>)> {
    let mode = LinkMode::SingleFile {
        prefixes: prefixes.clone(),
    };
    let overview = site.overview_html(&|chapter, anchor| match prefixes.get(chapter) {
        Some(p) => format!("#{p}--{anchor}"),
        None => String::new(),
    });
    let mut content = String::new();
    let mut index = Vec::new();
    for (i, page) in site.pages.iter().enumerate() {
        let prefix = &prefixes[&page.path];
        // A deployment chapter's launches are in its model's picker here:
        // one picker per model instead of every set expanded (the real
        // pages' single file was 45 MB that way).
        let deployment = site.catalog.deployment_of(&page.path);
        let model_prefix = deployment
            .as_ref()
            .and_then(|(_, chapter, _)| prefixes.get(*chapter));
        let (body, headings) = match (&deployment, model_prefix) {
            (Some((model, _, sets)), Some(_)) => {
                let anchor = page.path.file_stem().unwrap_or_default().to_string_lossy();
                let stub = deployment_stub(&page.title, model, &anchor, prefix, sets);
                (stub, Vec::new())
            }
            _ => {
                let options = site.dir.html.markdown;
                let r = page_html::render(&page.markdown, &page.path, &mode, options);
                let body = match (&overview, i == site.landing_page()) {
                    (Some(o), true) => super::pages::layout::after_title(&r.html, o),
                    _ => r.html,
                };
                (body, r.headings)
            }
        };
        content.push_str(&format!(
            "<section class=\"book-chapter\" id=\"{prefix}\">\n{body}</section>\n"
        ));
        let max = site.dir.agentx.max_site_bytes();
        if content.len() as u64 > max {
            let at = format!("the single file, at {}", page.path.display());
            return Err(crate::book::over_max_site(&at, max));
        }
        // Ids carry their chapter's prefix, so headings link as `#id`; a
        // set's link leads to its target in the stub, and its model's
        // picker opens it.
        index.push(SearchPage {
            source: page.path.clone(),
            title: page.title.clone(),
            url: format!("#{prefix}"),
            anchors: "#".into(),
            set_prefix: format!("{prefix}--"),
            headings,
        });
    }
    Ok((content, index))
}

/// A deployment chapter in the single file: its title, a link into its
/// model's picker (agentx.js opens any `#<chapter>--<anchor>` of a set or a
/// deployment it holds, whatever the chapter), and an empty target for
/// each of its sets' links, so that they lead here without JavaScript.
fn deployment_stub(title: &str, model: &str, anchor: &str, prefix: &str, sets: &[&str]) -> String {
    // The heading's id ends in the deployment's anchor, which the picker of
    // its model opens (a link here is a link there).
    let mut html = format!(
        "<h1 id=\"{prefix}--{anchor}\">{}</h1>\n<p class=\"agentx-stub\">In this single file, the \
         launches of this deployment are in the launch picker of {}: <a href=\"#{prefix}--{anchor}\">open \
         them there</a>.",
        escape::html(title),
        escape::html(model),
    );
    for set in sets {
        html.push_str(&format!(
            "<span id=\"{prefix}--{}\"></span>",
            escape::html(set)
        ));
    }
    html.push_str("</p>\n");
    html
}

/// The stylesheets, the scripts, the search index (as inline JSON, parsed
/// on first use) and the icon, inline: the single file must not point at a
/// file beside it.
fn inline_assets(
    ctx: &mut tera::Context,
    theme: &Theme,
    site: &Site,
    index: &[SearchPage],
) -> Result<()> {
    let mut css = String::new();
    for name in ["book.css", HIGHLIGHT_CSS, "agentx.css"] {
        if let Some(b) = theme.asset(name) {
            css.push_str(&String::from_utf8_lossy(b));
            css.push('\n');
        }
    }
    let mut js = String::new();
    for name in ["book.js", "agentx.js"] {
        if let Some(b) = theme.asset(name) {
            js.push_str(&String::from_utf8_lossy(b));
            js.push('\n');
        }
    }
    // `</script>` or `</style>` (any case) inside inlined text would end the
    // element early; the index's JSON already escapes every `<`.
    let js = escape::inline_script(&js);
    let css = escape::inline_style(&css);
    if let Some(svg) = theme.asset("favicon.svg") {
        let svg = String::from_utf8_lossy(svg);
        ctx.insert(
            "favicon",
            &format!(
                "data:image/svg+xml,{}",
                svg.replace('#', "%23").replace('"', "'").replace('\n', "")
            ),
        );
    }
    ctx.insert("inline_css", &css);
    ctx.insert("inline_js", &js);
    ctx.insert("search_inline", &search_index_inline(&site.catalog, index)?);
    Ok(())
}
