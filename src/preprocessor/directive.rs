//! Finding `<<agentx …>>` directives in a chapter and splicing replacements in.
//!
//! The chapter is parsed with pulldown-cmark (mdBook's options) and only
//! paragraph text is searched, so directives inside fenced or indented code,
//! inline code and HTML blocks are left alone. Replacements are spliced by byte
//! range: everything outside a directive stays byte-identical.

use std::ops::Range;

use pulldown_cmark::{Event, Tag, TagEnd};

use super::parse::{CLOSE, Directive, DirectiveError, OPEN, parse};
use crate::util::cmark::MarkdownConfig;

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
///
/// Linear in the chapter's length: each paragraph is scanned once, and
/// positions come from a line index, so a chapter of thousands of
/// directives (even on one line) costs no more per directive than one.
pub(crate) fn find(chapter: &str, markdown: MarkdownConfig) -> Vec<Occurrence> {
    let runs = inline_runs(chapter, markdown);
    let mut lines = Lines::new(chapter);
    let mut out = Vec::new();
    for para in &runs.paragraphs {
        let mut from = para.start;
        // A broken directive's text may run past its paragraph (to the end
        // of its line, trailing spaces or `\r` included), so `from` can too.
        while from < para.end {
            let Some(rel) = chapter[from..para.end].find(OPEN) else {
                break;
            };
            let start = from + rel;
            from = start + OPEN.len();
            let next = chapter[from..].chars().next();
            if !matches!(next, Some(c) if c.is_whitespace() || c == '>') {
                continue; // `<<agentxfoo`
            }
            if runs.skips(start) {
                continue;
            }
            let occ = occurrence(chapter, &mut lines, para, start);
            from = from.max(occ.range.end);
            out.push(occ);
        }
    }
    out.sort_by_key(|o| o.range.start);
    out
}

/// Line starts of a chapter, for line numbers and line bounds by offset in
/// O(log n); and the last occurrence found, so that several on one line
/// count their columns and container prefix once.
struct Lines<'c> {
    text: &'c str,
    /// Byte offset of each line's first character.
    starts: Vec<usize>,
    last: Option<LastOccurrence>,
}

/// Where the last occurrence was, and its line's container prefix.
struct LastOccurrence {
    line: usize,
    offset: usize,
    column: usize,
    indent: String,
}

impl<'c> Lines<'c> {
    fn new(text: &'c str) -> Self {
        // Markdown ends a line at `\n`, `\r\n` or a lone `\r`.
        let bytes = text.as_bytes();
        let breaks = bytes
            .iter()
            .enumerate()
            .filter(|&(i, b)| *b == b'\n' || (*b == b'\r' && bytes.get(i + 1) != Some(&b'\n')));
        let starts = std::iter::once(0)
            .chain(breaks.map(|(i, _)| i + 1))
            .collect();
        Lines {
            text,
            starts,
            last: None,
        }
    }

    /// 0-based line of a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|s| *s <= offset) - 1
    }

    fn start(&self, line: usize) -> usize {
        self.starts[line]
    }

    /// Where the line ends: its `\n` (or lone `\r`), or the end of the text.
    fn end(&self, line: usize) -> usize {
        self.starts.get(line + 1).map_or(self.text.len(), |s| s - 1)
    }

    /// The occurrence before `offset` on the same line, if any.
    fn earlier_on_line(&self, line: usize, offset: usize) -> Option<&LastOccurrence> {
        self.last
            .as_ref()
            .filter(|l| l.line == line && l.offset < offset)
    }
}

/// Where directives can be: runs of inline content (paragraphs, and the
/// text of tight list items, which have no paragraph), minus inline code and
/// HTML comments. Code blocks and HTML blocks are never in a run.
struct InlineRuns {
    paragraphs: Vec<Range<usize>>,
    skip: Vec<Range<usize>>,
}

impl InlineRuns {
    /// Whether `offset` is inside inline code or an HTML comment (the skip
    /// ranges come in document order and do not overlap).
    fn skips(&self, offset: usize) -> bool {
        let after = self.skip.partition_point(|r| r.start <= offset);
        after > 0 && self.skip[after - 1].contains(&offset)
    }
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
fn occurrence(
    chapter: &str,
    lines: &mut Lines<'_>,
    para: &Range<usize>,
    start: usize,
) -> Occurrence {
    // An odd number of backslashes escapes the directive (`\\` is a literal backslash).
    let backslashes = chapter[..start]
        .bytes()
        .rev()
        .take_while(|b| *b == b'\\')
        .count();
    let escaped = backslashes % 2 == 1;
    let occ_start = if escaped { start - 1 } else { start };
    let line = lines.line_of(occ_start);
    let (line_start, line_end) = (lines.start(line), lines.end(line));
    let text_end = line_end.min(para.end).max(start);
    let (end, parsed) = directive_at(chapter, start, text_end, line_end);
    let (column, indent, own_line_before) = match lines.earlier_on_line(line, occ_start) {
        // An earlier directive on this line is text before this one.
        Some(last) => {
            let column = last.column + chapter[last.offset..occ_start].chars().count();
            (column, last.indent.clone(), false)
        }
        None => {
            let before = &chapter[line_start..occ_start];
            let own_line_before = if para.start > line_start {
                // The paragraph starts on this line, after a container marker (`- `, `> `).
                chapter[para.start.min(occ_start)..occ_start]
                    .trim()
                    .is_empty()
            } else {
                before.chars().all(|c| " \t>".contains(c))
            };
            let indent = before
                .chars()
                .map(|c| if c == '>' || c == '\t' { c } else { ' ' })
                .collect();
            (before.chars().count() + 1, indent, own_line_before)
        }
    };
    lines.last = Some(LastOccurrence {
        line,
        offset: occ_start,
        column,
        indent: indent.clone(),
    });
    let after = chapter[end.min(line_end)..line_end].trim_end_matches('\r');
    let found = if escaped {
        Found::Escaped
    } else if !own_line_before || (parsed.is_ok() && after.chars().any(|c| !c.is_whitespace())) {
        Found::Directive(Err(DirectiveError::NotOnOwnLine))
    } else {
        Found::Directive(parsed)
    };
    let rest_of_paragraph = &chapter[line_end.min(para.end)..para.end];
    Occurrence {
        range: occ_start..end,
        position: Position {
            line: line + 1,
            column,
        },
        indent,
        text_before: line_start > para.start,
        text_after: rest_of_paragraph.chars().any(|c| !c.is_whitespace()),
        found,
    }
}

/// The directive starting at `start`: where it ends, and what it says. It
/// is parsed up to `text_end` (its paragraph's text on its line); a broken
/// one covers the rest of its line up to `line_end` (up to `>>` when there
/// is one, without trailing whitespace), so `on-error = "warn"` shows all of it.
fn directive_at(
    chapter: &str,
    start: usize,
    text_end: usize,
    line_end: usize,
) -> (usize, Result<Directive, DirectiveError>) {
    match parse(&chapter[start..text_end]) {
        Ok(p) => (start + p.len, Ok(p.directive)),
        Err(e) => {
            let rest = chapter[start..line_end].trim_end();
            let end = rest
                .find(CLOSE)
                .map_or(start + rest.len(), |i| start + i + CLOSE.len());
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

/// Replaces occurrences with their texts in one pass (occurrences do not
/// overlap). `replacement` is Markdown without indentation; it is
/// re-indented to the directive's container and separated from surrounding
/// paragraph text.
pub(crate) fn splice(chapter: &str, replacements: &[Replacement]) -> String {
    let mut sorted: Vec<&Replacement> = replacements.iter().collect();
    sorted.sort_by_key(|r| r.occurrence.range.start);
    let mut out = String::with_capacity(chapter.len());
    let mut copied = 0;
    for Replacement {
        occurrence: occ,
        text,
    } in sorted
    {
        out.push_str(&chapter[copied..occ.range.start]);
        if matches!(occ.found, Found::Directive(_)) {
            out.push_str(&place_block(occ, text));
        } else {
            out.push_str(text);
        }
        copied = occ.range.end;
    }
    out.push_str(&chapter[copied..]);
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
mod tests;
