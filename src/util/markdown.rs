//! The Markdown parser options mdBook uses, shared by the directive finder
//! and the HTML renderer so both see the same block boundaries.

use pulldown_cmark::Options;

/// The parser options mdBook 0.5 uses (`mdbook-markdown`'s `new_cmark_parser`
/// with its defaults), so block boundaries match what mdBook renders.
pub(crate) fn markdown_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_GFM
}
