//! The mdBook side: `<<agentx …>>` directives found in chapters and expanded
//! into sections and deployment chapters, from a library of data files;
//! [`AgentxPreprocessor`] implements mdBook's `Preprocessor` trait and
//! [`run_protocol`] speaks its stdin/stdout protocol.
//!
//! May use: `book` (the book's config and paths), `data`, `decode`,
//! `render`, `manifest`, `util`.

pub(crate) mod assets;
mod book;
mod cache;
mod chapter;
mod directive;
mod library;
mod parse;
mod protocol;
mod setup;
mod summary;

use anyhow::Result;
use mdbook_preprocessor::book::Book;
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};

use crate::book::BookDir;

pub(crate) use self::book::*;
pub(crate) use self::cache::ExpansionCache;
pub use self::chapter::*;
pub use self::library::*;
pub use self::protocol::*;
pub(crate) use self::summary::*;

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
        let dir = BookDir::from_mdbook(&ctx.root, &ctx.config)?;
        if ctx.renderer == "html" {
            for w in setup::setup_warnings(&setup::BookSetup::of(&dir)) {
                eprintln!("warning: mdbook-agentx: {w}");
            }
        }
        let settings = BookSettings {
            book: &dir,
            residency: Residency::OnDemand,
        };
        let warnings = expand_book(&mut book, &settings, &Default::default(), None, &mut |_| {
            Ok(())
        })?;
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
