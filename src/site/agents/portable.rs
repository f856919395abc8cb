//! `markdown`: the book expanded into portable Markdown for other site
//! generators (Mintlify, MkDocs, Docusaurus…): every chapter as written,
//! with its directives expanded, plus the deployment chapters and a
//! `SUMMARY.md`, in the source directory's layout so relative links resolve.
//!
//! Plain CommonMark/GFM has no `{#id .class}` heading attributes, so every
//! heading gets its anchor as raw HTML, `<a id="…"></a>` at the start of its
//! text: the id mdBook gives it (an explicit `{#id}`, else mdBook's slug of
//! the text, made unique in the page), so links written for mdBook resolve
//! everywhere. Written into a staging directory and swapped in whole, with
//! a marker file (`.agentx-markdown`) that tells a later run the directory
//! is its own.

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Result;
use mdbook_preprocessor::book::BookItem;
use pulldown_cmark::{Event, Tag, TagEnd};

use crate::book::BookDir;
use crate::preprocessor::{BookSettings, Residency, expand_book};
use crate::site::output::destination::MARKDOWN_MARKER;
use crate::site::pages::heading_ids::UniqueIds;
use crate::site::pages::page_html::normalize_id;
use crate::site::{SiteFile, write_atomically};
use crate::util::cmark::MarkdownConfig;
use crate::util::notice::{Notice, Notices};

/// What [`export_markdown`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkdownReport {
    /// Warnings, in the order they arose.
    pub notices: Vec<Notice>,
    /// The output directory.
    pub out_dir: PathBuf,
    /// Chapters written (deployment chapters included), besides `SUMMARY.md`.
    pub chapters: usize,
    /// Other files of the source directory copied (images…).
    pub files: usize,
}

/// Writes the expanded book at `root` into `out` (see the module
/// documentation). `out` must be inside the book unless `allow_outside`.
pub fn export_markdown(root: &Path, out: &Path, allow_outside: bool) -> Result<MarkdownReport> {
    let dir = BookDir::open(root)?;
    // build's rule: inside the book unless allowed, never over the book or its sources.
    let out = &crate::site::build::output_dir(&dir, Some(out), allow_outside)?;
    let mut book = dir.load_book()?;
    let markdown = dir.html.markdown;
    let notices = Notices::default();
    let settings = BookSettings {
        book: &dir,
        residency: Residency::OnDemand,
        notices: &notices,
    };
    expand_book(&mut book, &settings, &Default::default(), None, &mut |_| {
        Ok(())
    })?;
    let mut files = Vec::new();
    let mut summary = String::from("# Summary\n\n");
    chapters_of(&book.items, 0, markdown, &mut summary, &mut files);
    let chapters = files.len();
    let mut copied = 0;
    let src = dir.src_dir();
    let data_dir = dir.data_dir();
    for p in dir.bounds.files_below(&src, |p| p.starts_with(&data_dir))? {
        let rel = p.strip_prefix(&src).expect("below src").to_path_buf();
        if rel.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let bytes = dir.bounds.read(&p)?;
        files.push(SiteFile::new(rel, bytes));
        copied += 1;
    }
    files.push(SiteFile::new(
        PathBuf::from("SUMMARY.md"),
        summary.into_bytes(),
    ));
    // How a later export knows the directory for its own ([`crate::site::output::destination`]).
    files.push(SiteFile::new(
        PathBuf::from(MARKDOWN_MARKER),
        b"Portable Markdown written by `mdbook-agentx markdown`; replaced whole by the next run.\n"
            .to_vec(),
    ));
    write_atomically(out, &files, &notices)?;
    Ok(MarkdownReport {
        notices: notices.take(),
        out_dir: out.to_path_buf(),
        chapters,
        files: copied,
    })
}

/// Adds each chapter of `items` to `files` (portable) and to `summary`.
fn chapters_of(
    items: &[BookItem],
    depth: usize,
    markdown: MarkdownConfig,
    summary: &mut String,
    files: &mut Vec<SiteFile>,
) {
    for item in items {
        match item {
            BookItem::Chapter(ch) => {
                let target = ch
                    .path
                    .as_ref()
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                let indent = "  ".repeat(depth);
                let link = if target.is_empty() {
                    format!("[{}]()", crate::util::escape::text(&ch.name))
                } else {
                    format!("[{}](<{target}>)", crate::util::escape::text(&ch.name))
                };
                if ch.number.is_some() || depth > 0 {
                    let _ = writeln!(summary, "{indent}- {link}");
                } else {
                    // A prefix or suffix chapter: its own paragraph.
                    let _ = writeln!(summary, "{link}\n");
                }
                if let Some(path) = &ch.path {
                    files.push(SiteFile::new(
                        path.clone(),
                        portable_chapter(&ch.content, markdown).into_bytes(),
                    ));
                }
                chapters_of(&ch.sub_items, depth + 1, markdown, summary, files);
            }
            BookItem::Separator => summary.push_str("\n---\n\n"),
            BookItem::PartTitle(t) => {
                let _ = writeln!(summary, "\n# {t}\n");
            }
        }
    }
}

/// `md` with every heading's anchor as `<a id="…"></a>` and its `{…}`
/// attribute block removed; everything else byte for byte.
pub(crate) fn portable_chapter(md: &str, markdown: MarkdownConfig) -> String {
    let events: Vec<(Event<'_>, Range<usize>)> = markdown.parser(md).into_offset_iter().collect();
    apply_edits(md, heading_edits(md, &events))
}

/// The edits [`portable_chapter`] makes, in text order, from `md`'s events.
pub(in crate::site) fn heading_edits(
    md: &str,
    events: &[(Event<'_>, Range<usize>)],
) -> Vec<(Range<usize>, String)> {
    let mut ids = UniqueIds::default();
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let (
            Event::Start(Tag::Heading {
                id, classes, attrs, ..
            }),
            range,
        ) = &events[i]
        else {
            i += 1;
            continue;
        };
        let end = events[i..]
            .iter()
            .position(|(e, _)| matches!(e, Event::End(TagEnd::Heading(_))))
            .map_or(events.len(), |p| i + p);
        let inner = &events[i + 1..end];
        let text = plain_text(inner);
        let base = id
            .as_deref()
            .map_or_else(|| normalize_id(&text), str::to_string);
        let anchor = ids.unique(&base);
        let at = inner.first().map_or(range.start, |(_, r)| r.start);
        let html = crate::util::escape::html(&anchor);
        edits.push((at..at, format!("<a id=\"{html}\"></a>")));
        let has_attributes = id.is_some() || !classes.is_empty() || !attrs.is_empty();
        if let (true, Some((_, last))) = (has_attributes, inner.last()) {
            edits.extend(attribute_block(md, last.end, range.end).map(|r| (r, String::new())));
        }
        i = end + 1;
    }
    edits
}

/// `md` with `edits` (ranges of `md`, in text order, not overlapping) made.
///
/// Built front to back in one pass: replacing ranges in place moved the
/// rest of the text once per edit, quadratic in a chapter with thousands
/// of directives (issue 25: 10,000 directives took 106 s).
pub(in crate::site) fn apply_edits(md: &str, edits: Vec<(Range<usize>, String)>) -> String {
    let added: usize = edits.iter().map(|(_, text)| text.len()).sum();
    let mut out = String::with_capacity(md.len() + added);
    let mut copied = 0;
    for (r, text) in edits {
        if r.start > copied {
            out.push_str(&md[copied..r.start]);
        }
        out.push_str(&text);
        copied = copied.max(r.end);
    }
    out.push_str(&md[copied..]);
    out
}

/// The ` {…}` at the end of a heading's line, from the end of its text
/// (`from`) to the end of the heading (`to`), with the spaces before it.
fn attribute_block(md: &str, from: usize, to: usize) -> Option<Range<usize>> {
    let line = &md[from..to];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let trimmed = line.trim_end();
    if !trimmed.ends_with('}') {
        return None;
    }
    let open = trimmed.rfind('{')?;
    let start = from + line[..open].trim_end().len();
    Some(start..from + trimmed.len())
}

fn plain_text(events: &[(Event<'_>, Range<usize>)]) -> String {
    let mut s = String::new();
    for (e, _) in events {
        match e {
            Event::Text(t) | Event::Code(t) => s.push_str(t),
            Event::SoftBreak | Event::HardBreak => s.push(' '),
            _ => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_html_anchors() {
        let cases: [(&str, &str, &str); 8] = [
            (
                "explicit id and class",
                "### c4 · SGLang {#set-1 .agentx-set}\n\ntext\n",
                "### <a id=\"set-1\"></a>c4 · SGLang\n\ntext\n",
            ),
            (
                "mdBook's slug",
                "## Hello, World! 2\n",
                "## <a id=\"hello-world-2\"></a>Hello, World! 2\n",
            ),
            (
                "multibyte text and id",
                "# Ünïcode — ok {#ü-1}\n",
                "# <a id=\"ü-1\"></a>Ünïcode — ok\n",
            ),
            (
                "duplicates numbered",
                "## A\n\n## A\n",
                "## <a id=\"a\"></a>A\n\n## <a id=\"a-1\"></a>A\n",
            ),
            (
                "inline code in the text",
                "## The `x` flag {#x}\n",
                "## <a id=\"x\"></a>The `x` flag\n",
            ),
            (
                "setext",
                "Title {#t}\n=====\n",
                "<a id=\"t\"></a>Title\n=====\n",
            ),
            (
                "code block untouched",
                "```\n# not {#h}\n```\n",
                "```\n# not {#h}\n```\n",
            ),
            (
                "braces that are text, not attributes",
                "## a {b} c\n",
                "## <a id=\"a-b-c\"></a>a {b} c\n",
            ),
        ];
        for (what, input, want) in cases {
            assert_eq!(
                portable_chapter(input, MarkdownConfig::default()),
                want,
                "{what}"
            );
        }
    }

    #[test]
    fn an_id_is_escaped_in_html() {
        let out = portable_chapter("# T {#a\"b}\n", MarkdownConfig::default());
        assert_eq!(out, "# <a id=\"a&quot;b\"></a>T\n");
    }

    #[test]
    fn edits_are_made_in_one_pass() {
        // (text, edits, expected), worked out by hand; "é" and "ü" are two
        // bytes each, so ranges land on multibyte boundaries.
        type Case = (
            &'static str,
            Vec<(Range<usize>, &'static str)>,
            &'static str,
        );
        let cases: [Case; 6] = [
            ("abc", vec![], "abc"),
            ("abc", vec![(0..0, "<"), (3..3, ">")], "<abc>"),
            ("éxü", vec![(2..3, "y")], "éyü"),
            ("éxü", vec![(0..2, ""), (3..5, "u")], "xu"),
            // An insertion, then a removal, at one place: the text stays.
            ("ab{c}", vec![(2..2, "<a>"), (2..5, "")], "ab<a>"),
            (
                "a\nb\nc",
                vec![(1..1, "1"), (2..4, ""), (5..5, "2")],
                "a1\nc2",
            ),
        ];
        for (md, edits, want) in cases {
            let edits = edits.into_iter().map(|(r, t)| (r, t.to_string())).collect();
            assert_eq!(apply_edits(md, edits), want, "{md:?}");
        }
    }
}
