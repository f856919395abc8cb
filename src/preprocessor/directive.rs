//! Finding `<<agentx …>>` directives in a chapter and splicing replacements in.
//!
//! The chapter is parsed with pulldown-cmark (mdBook's options) and only
//! paragraph text is searched, so directives inside fenced or indented code,
//! inline code and HTML blocks are left alone. Replacements are spliced by byte
//! range: everything outside a directive stays byte-identical.

use std::ops::Range;

use pulldown_cmark::{Event, Tag, TagEnd};

use super::parse::{CLOSE, Directive, DirectiveError, OPEN, parse};
use crate::util::markdown::MarkdownConfig;

/// Where a directive sits, for messages (1-based, column in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    pub line: usize,
    pub column: usize,
}

/// What was found at a place in the chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// A directive on its own line, or the error that makes it unusable.
    Directive(Result<Directive, DirectiveError>),
    /// `\<<agentx …>>`: shown literally, without the backslash.
    Escaped,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Occurrence {
    /// Byte range of the directive text (with the backslash, when escaped).
    pub range: Range<usize>,
    pub position: Position,
    /// What precedes the directive on its line, with list markers blanked:
    /// continuation lines of a replacement get it, so output stays inside
    /// list items and block quotes.
    pub indent: String,
    /// Whether text of the same paragraph precedes / follows the directive's line.
    pub text_before: bool,
    pub text_after: bool,
    pub found: Found,
}

impl Occurrence {
    /// The source text of the directive.
    pub(crate) fn source<'a>(&self, chapter: &'a str) -> &'a str {
        &chapter[self.range.clone()]
    }
}

/// Every directive (and escaped directive) in paragraph text, in order.
pub(crate) fn find(chapter: &str, markdown: MarkdownConfig) -> Vec<Occurrence> {
    let runs = inline_runs(chapter, markdown);
    let mut out = Vec::new();
    for para in &runs.paragraphs {
        let mut from = para.start;
        while let Some(rel) = chapter[from..para.end].find(OPEN) {
            let start = from + rel;
            from = start + OPEN.len();
            let next = chapter[from..].chars().next();
            if !matches!(next, Some(c) if c.is_whitespace() || c == '>') {
                continue; // `<<agentxfoo`
            }
            if runs.skip.iter().any(|r| r.contains(&start)) {
                continue;
            }
            let occ = occurrence(chapter, para, start);
            from = from.max(occ.range.end);
            out.push(occ);
        }
    }
    out.sort_by_key(|o| o.range.start);
    out
}

/// Where directives can be: runs of inline content (paragraphs, and the
/// text of tight list items, which have no paragraph), minus inline code and
/// HTML comments. Code blocks and HTML blocks are never in a run.
struct InlineRuns {
    paragraphs: Vec<Range<usize>>,
    skip: Vec<Range<usize>>,
}

fn inline_runs(chapter: &str, markdown: MarkdownConfig) -> InlineRuns {
    let mut runs = InlineRuns {
        paragraphs: Vec::new(),
        skip: Vec::new(),
    };
    let mut run: Option<Range<usize>> = None;
    let mut in_code_block = false;
    for (event, range) in markdown.parser(chapter).into_offset_iter() {
        let inline = match &event {
            Event::Start(Tag::CodeBlock(_)) => {
                in_code_block = true;
                false
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                false
            }
            Event::Text(_) | Event::SoftBreak | Event::HardBreak => !in_code_block,
            Event::Code(_) => {
                runs.skip.push(range.clone());
                true
            }
            Event::InlineHtml(h) => {
                if h.starts_with("<!--") {
                    runs.skip.push(range.clone());
                }
                true
            }
            e => is_inline_markup(e),
        };
        if inline {
            run = Some(match run {
                Some(r) => r.start.min(range.start)..r.end.max(range.end),
                None => range,
            });
        } else if let Some(r) = run.take() {
            runs.paragraphs.push(r);
        }
    }
    runs.paragraphs.extend(run);
    runs
}

/// Markup that stays inside a run of inline content.
fn is_inline_markup(e: &Event<'_>) -> bool {
    matches!(
        e,
        Event::Start(
            Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. } | Tag::Image { .. },
        ) | Event::End(
            TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Link
                | TagEnd::Image,
        ) | Event::FootnoteReference(_)
            | Event::TaskListMarker(_)
    )
}

/// The directive (or escaped directive) at `start` of paragraph `para`.
fn occurrence(chapter: &str, para: &Range<usize>, start: usize) -> Occurrence {
    // An odd number of backslashes escapes the directive (`\\` is a literal backslash).
    let backslashes = chapter[..start]
        .bytes()
        .rev()
        .take_while(|b| *b == b'\\')
        .count();
    let escaped = backslashes % 2 == 1;
    let occ_start = if escaped { start - 1 } else { start };
    let (end, parsed) = directive_at(chapter, start, para.end);
    let line_start = chapter[..occ_start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = chapter[end..].find('\n').map_or(chapter.len(), |i| end + i);
    let before = &chapter[line_start..occ_start];
    let after = chapter[end..line_end].trim_end_matches('\r');
    let own_line_before = if para.start > line_start {
        // The paragraph starts on this line, after a container marker (`- `, `> `).
        chapter[para.start.min(occ_start)..occ_start]
            .trim()
            .is_empty()
    } else {
        before.chars().all(|c| " \t>".contains(c))
    };
    let found = if escaped {
        Found::Escaped
    } else if !own_line_before || (parsed.is_ok() && !after.trim().is_empty()) {
        Found::Directive(Err(DirectiveError::NotOnOwnLine))
    } else {
        Found::Directive(parsed)
    };
    Occurrence {
        range: occ_start..end,
        position: Position {
            line: chapter[..occ_start].matches('\n').count() + 1,
            column: before.chars().count() + 1,
        },
        indent: before
            .chars()
            .map(|c| if c == '>' || c == '\t' { c } else { ' ' })
            .collect(),
        text_before: line_start > para.start,
        text_after: !chapter[line_end.min(para.end)..para.end].trim().is_empty(),
        found,
    }
}

/// The directive starting at `start` (its text ends by `para_end`): where it
/// ends, and what it says. A broken directive covers the rest of its line (up
/// to `>>` when there is one), so `on-error = "warn"` shows all of it.
fn directive_at(
    chapter: &str,
    start: usize,
    para_end: usize,
) -> (usize, Result<Directive, DirectiveError>) {
    let line_end = chapter[start..]
        .find('\n')
        .map_or(chapter.len(), |i| start + i);
    match parse(&chapter[start..para_end]) {
        Ok(p) => (start + p.len, Ok(p.directive)),
        Err(e) => {
            let rest = &chapter[start..line_end];
            let end = rest
                .find(CLOSE)
                .map_or(line_end, |i| start + i + CLOSE.len());
            (end.max(start + OPEN.len()), Err(e.error))
        }
    }
}

/// The text that replaces one occurrence.
#[derive(Debug, Clone)]
pub(crate) struct Replacement {
    pub occurrence: Occurrence,
    pub text: String,
}

/// Replaces occurrences with their texts, from the end so offsets stay valid.
/// `replacement` is Markdown without indentation; it is re-indented to the
/// directive's container and separated from surrounding paragraph text.
pub(crate) fn splice(chapter: &str, replacements: &[Replacement]) -> String {
    let mut out = chapter.to_string();
    let mut sorted: Vec<&Replacement> = replacements.iter().collect();
    sorted.sort_by_key(|r| std::cmp::Reverse(r.occurrence.range.start));
    for Replacement {
        occurrence: occ,
        text,
    } in sorted
    {
        let block = matches!(occ.found, Found::Directive(_));
        let new = if block {
            place_block(occ, text)
        } else {
            text.clone()
        };
        out.replace_range(occ.range.clone(), &new);
    }
    out
}

fn place_block(occ: &Occurrence, text: &str) -> String {
    let blank = occ.indent.trim_end();
    let mut lines = text.trim_end_matches('\n').split('\n');
    let mut s = String::new();
    if occ.text_before {
        // End the paragraph above: this line (holding only the container
        // prefix) becomes the blank line.
        s.push('\n');
        s.push_str(&occ.indent);
    }
    if let Some(first) = lines.next() {
        s.push_str(first);
    }
    for line in lines {
        s.push('\n');
        if line.is_empty() {
            s.push_str(blank);
        } else {
            s.push_str(&occ.indent);
            s.push_str(line);
        }
    }
    if occ.text_after {
        s.push('\n');
        s.push_str(blank);
    }
    s
}

/// The Markdown that shows an escaped directive literally: `\<\<agentx …>>`.
pub(crate) fn literal_text(source: &str) -> String {
    let without_backslash = source.strip_prefix('\\').unwrap_or(source);
    format!("\\<\\<{}", &without_backslash[2..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(chapter: &str) -> Vec<(usize, usize, &'static str)> {
        find(chapter, MarkdownConfig::default())
            .into_iter()
            .map(|o| {
                let k = match o.found {
                    Found::Escaped => "escaped",
                    Found::Directive(Ok(_)) => "directive",
                    Found::Directive(Err(_)) => "error",
                };
                (o.position.line, o.position.column, k)
            })
            .collect()
    }

    #[test]
    fn find_table() {
        type Case<'a> = (&'a str, &'a [(usize, usize, &'a str)]);
        let cases: &[Case<'_>] = &[
            ("<<agentx page=\"A\">>\n", &[(1, 1, "directive")]),
            (
                "# T\n\n<<agentx page=\"A\">>\n\ntext\n",
                &[(3, 1, "directive")],
            ),
            ("```\n<<agentx page=\"A\">>\n```\n", &[]),
            ("~~~md\n<<agentx page=\"A\">>\n~~~\n", &[]),
            ("para\n\n    <<agentx page=\"A\">>\n", &[]),
            ("`<<agentx page=\"A\">>`\n", &[]),
            ("a `<<agentx page=\"A\">>` b\n", &[]),
            ("<div>\n<<agentx page=\"A\">>\n</div>\n", &[]),
            ("<!-- <<agentx page=\"A\"> -->\n", &[]),
            ("x <!-- <<agentx page=\"A\">> --> y\n", &[]),
            ("\\<<agentx page=\"A\">>\n", &[(1, 1, "escaped")]),
            ("say \\<<agentx page=\"A\">> here\n", &[(1, 5, "escaped")]),
            ("say <<agentx page=\"A\">> here\n", &[(1, 5, "error")]),
            (
                "- item\n\n  <<agentx page=\"A\">>\n",
                &[(3, 3, "directive")],
            ),
            ("- <<agentx page=\"A\">>\n", &[(1, 3, "directive")]),
            ("> <<agentx page=\"A\">>\n", &[(1, 3, "directive")]),
            (
                "<<agentx page=\"A\">>\r\n\r\n<<agentx page=\"B\">>\r\n",
                &[(1, 1, "directive"), (3, 1, "directive")],
            ),
            (
                "Ünïcödé ✓\n\n<<agentx page=\"Ä\">>\n",
                &[(3, 1, "directive")],
            ),
            (
                "text\n<<agentx page=\"A\">>\nmore\n",
                &[(2, 1, "directive")],
            ),
            ("<<agentxfoo>>\n", &[]),
            ("<<agentx page=A>>\n", &[(1, 1, "error")]),
        ];
        for (src, want) in cases {
            assert_eq!(kinds(src), *want, "{src:?}");
        }
    }

    #[test]
    fn splice_keeps_everything_else() {
        let table: &[(&str, &str, &str)] = &[
            (
                "a\n\n<<agentx page=\"A\">>\n\nb\n",
                "X\nY\n",
                "a\n\nX\nY\n\nb\n",
            ),
            ("<<agentx page=\"A\">>", "X\n\nY\n", "X\n\nY"),
            ("a\n<<agentx page=\"A\">>\nb\n", "X\n", "a\n\nX\n\nb\n"),
            (
                "- i\n\n  <<agentx page=\"A\">>\n",
                "X\n\nY\n",
                "- i\n\n  X\n\n  Y\n",
            ),
            ("> <<agentx page=\"A\">>\n", "X\n\nY\n", "> X\n>\n> Y\n"),
            (
                "x\r\n\r\n<<agentx page=\"A\">>\r\n\r\ny\r\n",
                "X\n",
                "x\r\n\r\nX\r\n\r\ny\r\n",
            ),
        ];
        for (src, repl, want) in table {
            let occ = find(src, MarkdownConfig::default());
            assert_eq!(occ.len(), 1, "{src:?}");
            let reps: Vec<Replacement> = occ
                .into_iter()
                .map(|o| Replacement {
                    occurrence: o,
                    text: repl.to_string(),
                })
                .collect();
            assert_eq!(splice(src, &reps), *want, "{src:?}");
        }
    }

    #[test]
    fn escaped_is_shown_literally() {
        let src = "see \\<<agentx page=\"A\">> here\n";
        let occ = find(src, MarkdownConfig::default());
        let lit = literal_text(occ[0].source(src));
        assert_eq!(lit, "\\<\\<agentx page=\"A\">>");
        let out = splice(
            src,
            &[Replacement {
                occurrence: occ[0].clone(),
                text: lit,
            }],
        );
        let html = {
            let mut s = String::new();
            pulldown_cmark::html::push_html(&mut s, MarkdownConfig::default().parser(&out));
            s
        };
        assert_eq!(html, "<p>see &lt;&lt;agentx page=“A”&gt;&gt; here</p>\n");
    }
}
