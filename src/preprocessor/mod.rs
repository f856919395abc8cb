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
mod data_pages;
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
use crate::util::notice::{Level, Notice, Notices};

pub(crate) use self::book::{BookSettings, expand_book};
pub(crate) use self::cache::ExpansionCache;
pub use self::chapter::{DeploymentChapter, Expanded, expand_chapter};
pub use self::library::Library;
pub(crate) use self::library::Residency;
pub use self::protocol::run_protocol;
pub(crate) use self::summary::{DeploymentSummary, SetSummary};

/// Whether a chapter's text holds a directive (not an escaped one): its
/// deployment chapters are then generated into the directory named after
/// it (`models/x.md` → `models/x/`).
pub(crate) fn has_directive(chapter: &str) -> bool {
    directive::find(chapter, crate::util::cmark::MarkdownConfig::default())
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

impl AgentxPreprocessor {
    /// [`Preprocessor::run`], returning what it has to say with the book:
    /// the book's set-up problems (for the HTML renderer), the data files'
    /// and the directives' warnings, and how many directives were left
    /// unexpanded.
    pub fn run_reporting(
        &self,
        ctx: &PreprocessorContext,
        mut book: Book,
    ) -> Result<(Book, Vec<Notice>)> {
        let dir = BookDir::from_mdbook(&ctx.root, &ctx.config)?;
        let notices = Notices::default();
        if ctx.renderer == "html" {
            for w in setup::setup_warnings(&setup::BookSetup::of(&dir)) {
                notices.push(Notice::warning(format!("mdbook-agentx: {w}")));
            }
        }
        let settings = BookSettings {
            book: &dir,
            residency: Residency::OnDemand,
            notices: &notices,
        };
        let unexpanded = expand_book(&mut book, &settings, &Default::default(), None, &mut |_| {
            Ok(())
        })?;
        if ctx.renderer == "html" {
            data_pages::move_model_data_to_pages(&mut book);
        }
        if unexpanded > 0 {
            notices.push(Notice::info(format!(
                "mdbook-agentx: {unexpanded} directive(s) left unexpanded (on-error = \"warn\")"
            )));
        }
        Ok((book, notices.take()))
    }
}

impl Preprocessor for AgentxPreprocessor {
    fn name(&self) -> &str {
        "agentx"
    }

    /// Run in-process by mdBook (as a library), the notices go where mdBook
    /// sends its own messages: its `tracing` log.
    fn run(&self, ctx: &PreprocessorContext, book: Book) -> Result<Book> {
        let (book, notices) = self.run_reporting(ctx, book)?;
        for notice in notices {
            match notice.level {
                Level::Warning => tracing::warn!("{}", notice.message),
                Level::Note | Level::Info => tracing::info!("{}", notice.message),
            }
        }
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> Result<bool> {
        Ok(supports(renderer))
    }
}
