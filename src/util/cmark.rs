//! The Markdown parser as mdBook builds it (`mdbook-markdown`'s
//! `new_cmark_parser`), with the switches of `[output.html]`, shared by the
//! directive finder and the HTML renderer so both see the block boundaries
//! mdBook renders.

use pulldown_cmark::Parser;
use serde::Deserialize;

/// `[output.html]`'s Markdown switches, named as in mdBook and, as there, all
/// on unless `book.toml` turns one off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub(crate) struct MarkdownConfig {
    /// Curly quotes, `…`, en and em dashes.
    pub smart_punctuation: bool,
    pub definition_lists: bool,
    /// GitHub-style `> [!NOTE]` alerts.
    pub admonitions: bool,
}

impl Default for MarkdownConfig {
    fn default() -> Self {
        MarkdownConfig {
            smart_punctuation: true,
            definition_lists: true,
            admonitions: true,
        }
    }
}

impl MarkdownConfig {
    /// No typographic replacement: for this tool's own Markdown read as
    /// text (quotes and dashes of flags stay as written).
    pub(crate) fn plain() -> Self {
        MarkdownConfig {
            smart_punctuation: false,
            ..MarkdownConfig::default()
        }
    }

    /// A parser of `text` with these switches and mdBook's fixed extensions
    /// (tables, footnotes, strikethrough, task lists, heading attributes).
    pub(crate) fn parser<'t>(&self, text: &'t str) -> Parser<'t> {
        let mut options = mdbook_markdown::MarkdownOptions::default();
        options.smart_punctuation = self.smart_punctuation;
        options.definition_lists = self.definition_lists;
        options.admonitions = self.admonitions;
        mdbook_markdown::new_cmark_parser(text, &options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(config: MarkdownConfig, md: &str) -> String {
        let mut s = String::new();
        pulldown_cmark::html::push_html(&mut s, config.parser(md));
        s
    }

    #[test]
    fn switches_follow_book_toml() {
        let all = MarkdownConfig::default();
        assert_eq!(html(all, "\"a\" -- b"), "<p>“a” – b</p>\n");
        let plain = MarkdownConfig {
            smart_punctuation: false,
            ..all
        };
        assert_eq!(html(plain, "\"a\" -- b"), "<p>\"a\" -- b</p>\n");
        let alert = "> [!NOTE]\n> x\n";
        assert!(html(all, alert).contains("markdown-alert-note"));
        let no_alerts = MarkdownConfig {
            admonitions: false,
            ..all
        };
        assert!(!html(no_alerts, alert).contains("markdown-alert"));
        let term = "Term\n: definition\n";
        assert!(html(all, term).contains("<dl>"));
        let no_lists = MarkdownConfig {
            definition_lists: false,
            ..all
        };
        assert!(!html(no_lists, term).contains("<dl>"));
        // mdBook's fixed extensions are always on.
        assert!(html(plain, "| a |\n|---|\n| b |\n").contains("<table>"));
    }
}
