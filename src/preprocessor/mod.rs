//! The mdBook side: `<<agentx …>>` directives found in chapters and expanded
//! into sections and deployment chapters, from a library of data files;
//! [`AgentxPreprocessor`] implements mdBook's `Preprocessor` trait and
//! [`run_protocol`] speaks its stdin/stdout protocol.
//!
//! May use: `data`, `decode`, `render`, `manifest`, `util`.

pub(crate) mod assets;
mod book;
mod cache;
mod chapter;
mod config;
mod directive;
mod library;
mod parse;
mod protocol;
mod setup;
mod summary;

use anyhow::{Context, Result};
use mdbook_preprocessor::book::Book;
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};

pub(crate) use self::book::*;
pub(crate) use self::cache::ExpansionCache;
pub use self::chapter::*;
pub use self::config::*;
pub use self::library::*;
pub use self::protocol::*;
pub(crate) use self::summary::*;

/// Whether a chapter's text holds a directive (not an escaped one): its
/// deployment chapters are then generated into the directory named after
/// it (`models/x.md` → `models/x/`).
pub(crate) fn has_directive(chapter: &str) -> bool {
    directive::find(chapter, crate::util::markdown::MarkdownConfig::default())
        .iter()
        .any(|o| matches!(o.found, directive::Found::Directive(_)))
}

/// Renderers whose output is built from Markdown and so can show the section.
pub fn supports(renderer: &str) -> bool {
    matches!(renderer, "html" | "markdown")
}

/// The mdBook preprocessor: expands every `<<agentx …>>` directive of a book
/// and adds the deployment chapters. Configured by `[preprocessor.agentx]`;
/// data files are decoded when a directive uses them.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentxPreprocessor;

impl Preprocessor for AgentxPreprocessor {
    fn name(&self) -> &str {
        "agentx"
    }

    fn run(&self, ctx: &PreprocessorContext, mut book: Book) -> Result<Book> {
        let agentx = config_from_mdbook(&ctx.config)?;
        if ctx.renderer == "html" {
            for w in setup_warnings_of(ctx, &agentx)? {
                eprintln!("warning: mdbook-agentx: {w}");
            }
        }
        let settings = BookSettings {
            root: &ctx.root,
            src_dir: &ctx.config.book.src,
            agentx: &agentx,
            markdown: markdown_from_mdbook(&ctx.config)?,
            residency: Residency::OnDemand,
        };
        let warnings = expand_book(&mut book, &settings, &mut None, None, &mut |_| Ok(()))?;
        if !warnings.is_empty() {
            eprintln!(
                "mdbook-agentx: {} directive(s) left unexpanded (on-error = \"warn\")",
                warnings.len()
            );
        }
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> Result<bool> {
        Ok(supports(renderer))
    }
}

/// The set-up problems of the book mdBook is building (see [`setup`]).
fn setup_warnings_of(
    ctx: &PreprocessorContext,
    agentx: &AgentxConfig,
) -> Result<Vec<setup::SetupWarning>> {
    let html: mdbook_preprocessor::config::HtmlConfig = ctx
        .config
        .get("output.html")
        .context("invalid [output.html] in book.toml")?
        .unwrap_or_default();
    Ok(setup::setup_warnings(&setup::BookSetup {
        bounds: &agentx.bounds(&ctx.root)?,
        root: &ctx.root,
        src: &ctx.config.book.src,
        data_dir: &agentx.data_dir,
        extra_watch_dirs: &ctx.config.build.extra_watch_dirs,
        additional_css: &html.additional_css,
        additional_js: &html.additional_js,
    }))
}
