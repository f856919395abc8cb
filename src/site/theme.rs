//! Templates (tera) and theme assets: compiled-in defaults, each replaced by a
//! file of the same name in the book's `templates/` or `agentx-theme/`
//! directory. Not `theme/`: that is mdBook's theme override folder, and a
//! builder asset there (`book.js`, `book.css`) would replace mdBook's own
//! when the same book is built with `mdbook build`.

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, Result, anyhow};
use tera::Tera;

use super::highlight;
use crate::book::BookDir;
use crate::util::fs::Bounds;

mod functions;

/// Default templates; a book overrides one by shipping `templates/<name>`.
pub(crate) const TEMPLATES: [(&str, &str); 3] = [
    ("page.html", include_str!("../../templates/page.html")),
    ("sidebar.html", SIDEBAR_TEMPLATE),
    ("toc.html", include_str!("../../templates/toc.html")),
];

const SIDEBAR_TEMPLATE: &str = include_str!("../../templates/sidebar.html");

/// Default assets, written under `theme/` in the output; a book overrides one
/// by shipping `agentx-theme/<name>`.
pub(crate) const ASSETS: [(&str, &[u8]); 5] = [
    // The AgentX assets (selector, command window, badges): independent of
    // the builder's chrome, so mdBook books ship them too (`install`).
    (
        "agentx.css",
        include_bytes!("../../assets/agentx/agentx.css"),
    ),
    (
        "agentx.js",
        crate::preprocessor::assets::AGENTX_JS.as_bytes(),
    ),
    ("book.css", include_bytes!("../../assets/builder/book.css")),
    ("book.js", include_bytes!("../../assets/builder/book.js")),
    (
        "favicon.svg",
        include_bytes!("../../assets/builder/favicon.svg"),
    ),
];

/// Name of the generated highlighting stylesheet (also overridable).
pub(crate) const HIGHLIGHT_CSS: &str = "highlight.css";

fn highlight_css() -> &'static str {
    static CSS: OnceLock<String> = OnceLock::new();
    CSS.get_or_init(highlight::theme_css)
}

pub(crate) struct Theme {
    tera: Tera,
    assets: Vec<(String, Vec<u8>)>,
    builtin_sidebar: bool,
}

/// The built-in `sidebar.html` as registered: when a page's context has
/// `sidebar_html` (the template's output, written by
/// [`super::pages::sidebar::sidebar_html`]), that, otherwise the template itself.
fn builtin_sidebar_template(text: &str) -> String {
    format!(
        "{{% if sidebar_html is defined %}}{{{{ sidebar_html | safe }}}}{{% else %}}{text}{{% endif %}}"
    )
}

impl Theme {
    /// Defaults, overridden by the book's `templates/` and `agentx-theme/` files
    /// (read inside the book's bounds: a template or asset that is a symlink
    /// out of the book, a FIFO or a device fails the load).
    pub(crate) fn load(book: &BookDir) -> Result<Theme> {
        Theme::load_from(&book.templates_dir(), &book.theme_dir(), &book.bounds)
    }

    /// [`Theme::load`] from these directories.
    fn load_from(templates_dir: &Path, theme_dir: &Path, bounds: &Bounds) -> Result<Theme> {
        let mut tera = Tera::default();
        // tera's default escaper also escapes `/`, which spells every link
        // `models&#x2F;x.html`; escape only what HTML needs.
        tera.set_escape_fn(escape_for_tera);
        // Book templates come with the pull request; CI secrets are in the
        // environment (see `functions`).
        functions::refuse_machine_functions(&mut tera);
        let mut templates: Vec<(String, String, String)> = Vec::new();
        for (name, default) in TEMPLATES {
            templates.push((
                name.to_string(),
                default.to_string(),
                format!("built-in {name}"),
            ));
        }
        for p in bounds.entries_of(templates_dir)? {
            if p.extension().is_some_and(|e| e == "html") {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                let text = bounds.read_to_string(&p)?;
                templates.retain(|(n, _, _)| *n != name);
                templates.push((name, text, p.display().to_string()));
            }
        }
        // By text: a book may ship a copy of the built-in template (this
        // repository's sample book does).
        let builtin_sidebar = templates
            .iter()
            .any(|(n, text, _)| n == "sidebar.html" && *text == SIDEBAR_TEMPLATE);
        for (name, text, origin) in &templates {
            let text = if name == "sidebar.html" && builtin_sidebar {
                builtin_sidebar_template(text)
            } else {
                text.clone()
            };
            tera.add_raw_template(name, &text)
                .with_context(|| format!("template {origin}"))?;
            functions::check(&tera.templates[name.as_str()], &text, origin)
                .map_err(|e| anyhow!("template {e}"))?;
        }
        let mut assets: Vec<(String, Vec<u8>)> = ASSETS
            .iter()
            .map(|(n, b)| (n.to_string(), b.to_vec()))
            .collect();
        assets.push((
            HIGHLIGHT_CSS.to_string(),
            highlight_css().as_bytes().to_vec(),
        ));
        for p in bounds.entries_of(theme_dir)? {
            // Subdirectories are not assets; anything else must be a regular file.
            if !p.is_dir() {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                let bytes = bounds.read(&p)?;
                assets.retain(|(n, _)| *n != name);
                assets.push((name, bytes));
            }
        }
        assets.sort();
        Ok(Theme {
            tera,
            assets,
            builtin_sidebar,
        })
    }

    /// Whether `sidebar.html` is the built-in one, so a page may pass its
    /// output as `sidebar_html` instead of having tera run it.
    pub(crate) fn builtin_sidebar(&self) -> bool {
        self.builtin_sidebar
    }

    /// The built-in templates and assets alone.
    #[cfg(test)]
    pub(crate) fn builtin_for_tests() -> Theme {
        let dir = tempfile::tempdir().expect("temporary directory");
        let bounds = Bounds::strict(dir.path()).expect("bounds");
        let none = dir.path().join("none");
        Theme::load_from(&none, &none, &bounds).expect("built-in theme loads")
    }

    pub(crate) fn render(&self, name: &str, ctx: &tera::Context) -> Result<String> {
        self.tera
            .render(name, ctx)
            .with_context(|| format!("template {name}"))
    }

    pub(crate) fn assets(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.assets.iter().map(|(n, b)| (n.as_str(), b.as_slice()))
    }

    pub(crate) fn asset(&self, name: &str) -> Option<&[u8]> {
        self.assets
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }
}

fn escape_for_tera(s: &str) -> String {
    highlight::escape_html(s)
}
