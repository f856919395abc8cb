//! Finding `<<agentx …>>` directives in a chapter and splicing replacements in.
//!
//! The chapter is parsed with pulldown-cmark (mdBook's options) and only
//! paragraph text is searched, so directives inside fenced or indented code,
//! inline code and HTML blocks are left alone. Replacements are spliced by byte
//! range: everything outside a directive stays byte-identical.

use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::util::markdown::markdown_options;

const OPEN: &str = "<<agentx";
const CLOSE: &str = ">>";

/// The attributes a directive may carry.
pub(crate) const ATTRIBUTES: [&str; 4] = ["page", "hardware", "level", "data"];

/// A parsed directive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Directive {
    pub page: Option<String>,
    /// Hardware ids to keep (`hardware="b200,gb200"`).
    pub hardware: Option<Vec<String>>,
    /// Heading level of the section.
    pub level: Option<u8>,
    /// Data file to use instead of looking the page up, relative to the book root.
    pub data: Option<String>,
}

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
    Directive(Result<Directive, String>),
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
pub(crate) fn find(chapter: &str) -> Vec<Occurrence> {
    // Runs of inline content (paragraphs, and the text of tight list items,
    // which have no paragraph); code blocks and HTML blocks are never in one.
    let mut paragraphs: Vec<Range<usize>> = Vec::new();
    let mut skip: Vec<Range<usize>> = Vec::new();
    let mut run: Option<Range<usize>> = None;
    let mut in_code_block = false;
    for (event, range) in Parser::new_ext(chapter, markdown_options()).into_offset_iter() {
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
                skip.push(range.clone());
                true
            }
            Event::InlineHtml(h) => {
                if h.starts_with("<!--") {
                    skip.push(range.clone());
                }
                true
            }
            Event::Start(
                Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Link { .. }
                | Tag::Image { .. },
            )
            | Event::End(
                TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Link
                | TagEnd::Image,
            )
            | Event::FootnoteReference(_)
            | Event::TaskListMarker(_) => true,
            _ => false,
        };
        if inline {
            run = Some(match run {
                Some(r) => r.start.min(range.start)..r.end.max(range.end),
                None => range,
            });
        } else if let Some(r) = run.take() {
            paragraphs.push(r);
        }
    }
    if let Some(r) = run {
        paragraphs.push(r);
    }
    let mut out = Vec::new();
    for para in paragraphs {
        let mut from = para.start;
        while let Some(rel) = chapter[from..para.end].find(OPEN) {
            let start = from + rel;
            from = start + OPEN.len();
            let next = chapter[from..].chars().next();
            if !matches!(next, Some(c) if c.is_whitespace() || c == '>') {
                continue; // `<<agentxfoo`
            }
            if skip.iter().any(|r| r.contains(&start)) {
                continue;
            }
            // An odd number of backslashes escapes the directive (`\\` is a literal backslash).
            let backslashes = chapter[..start]
                .bytes()
                .rev()
                .take_while(|b| *b == b'\\')
                .count();
            let escaped = backslashes % 2 == 1;
            let occ_start = if escaped { start - 1 } else { start };
            let line_of_start_end = chapter[start..]
                .find('\n')
                .map_or(chapter.len(), |i| start + i);
            let (end, parsed) = match parse(&chapter[start..para.end]) {
                Ok((d, len)) => (start + len, Ok(d)),
                // A broken directive covers the rest of its line (up to `>>` when
                // there is one), so `on-error = "warn"` shows all of it.
                Err((msg, _)) => {
                    let rest = &chapter[start..line_of_start_end];
                    let end = rest
                        .find(CLOSE)
                        .map_or(line_of_start_end, |i| start + i + CLOSE.len());
                    (end.max(start + OPEN.len()), Err(msg))
                }
            };
            from = from.max(end);
            let line_start = chapter[..occ_start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = chapter[end..].find('\n').map_or(chapter.len(), |i| end + i);
            let before = &chapter[line_start..occ_start];
            let after = chapter[end..line_end].trim_end_matches('\r');
            let position = Position {
                line: chapter[..occ_start].matches('\n').count() + 1,
                column: before.chars().count() + 1,
            };
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
                Found::Directive(Err(
                    "a directive must stand on its own line; move it to a line of its own (or \
                     write `\\<<agentx …>>` to show it literally)"
                        .into(),
                ))
            } else {
                Found::Directive(parsed)
            };
            let indent: String = before
                .chars()
                .map(|c| if c == '>' || c == '\t' { c } else { ' ' })
                .collect();
            out.push(Occurrence {
                range: occ_start..end,
                position,
                indent,
                text_before: line_start > para.start,
                text_after: !chapter[line_end.min(para.end)..para.end].trim().is_empty(),
                found,
            });
        }
    }
    out.sort_by_key(|o| o.range.start);
    out
}

/// Parses `<<agentx name="value" …>>` at the start of `s`. Returns the
/// directive and its length, or a message and how far parsing got.
pub(crate) fn parse(s: &str) -> Result<(Directive, usize), (String, usize)> {
    debug_assert!(s.starts_with(OPEN));
    let mut d = Directive::default();
    let mut seen: Vec<String> = Vec::new();
    let mut i = OPEN.len();
    let bytes = s.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        i
    };
    loop {
        i = skip_ws(i);
        if s[i..].starts_with(CLOSE) {
            i += CLOSE.len();
            break;
        }
        if i >= s.len() || bytes[i] == b'\n' || bytes[i] == b'\r' {
            return Err(("missing `>>` at the end of the directive".into(), i));
        }
        let name_start = i;
        while i < bytes.len()
            && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-' || bytes[i] == b'_')
        {
            i += 1;
        }
        if i == name_start {
            let ch = s[i..].chars().next().unwrap_or(' ');
            return Err((
                format!(
                    "unexpected `{ch}`; expected an attribute like page=\"Model-Name\" or `>>`"
                ),
                i,
            ));
        }
        let name = &s[name_start..i];
        if !ATTRIBUTES.contains(&name) {
            return Err((
                format!(
                    "unknown attribute `{name}`; expected one of: {}",
                    ATTRIBUTES.join(", ")
                ),
                name_start,
            ));
        }
        if seen.iter().any(|n| n == name) {
            return Err((format!("attribute `{name}` is given twice"), name_start));
        }
        seen.push(name.to_string());
        i = skip_ws(i);
        if bytes.get(i) != Some(&b'=') {
            return Err((format!("expected `=` after `{name}`"), i));
        }
        i = skip_ws(i + 1);
        let quote = match bytes.get(i) {
            Some(q @ (b'"' | b'\'')) => *q,
            _ => {
                return Err((
                    format!("the value of `{name}` must be in double quotes: {name}=\"…\""),
                    i,
                ));
            }
        };
        let value_start = i + 1;
        let Some(len) = s[value_start..].find(|c: char| c as u32 == quote as u32 || c == '\n')
        else {
            return Err((format!("unterminated quote in `{name}`"), i));
        };
        if bytes[value_start + len] == b'\n' {
            return Err((format!("unterminated quote in `{name}`"), i));
        }
        let value = s[value_start..value_start + len].to_string();
        i = value_start + len + 1;
        match name {
            "page" => d.page = Some(value),
            "data" => d.data = Some(value),
            "hardware" => {
                let hw: Vec<String> = value
                    .split(',')
                    .map(|h| h.trim().to_ascii_lowercase())
                    .filter(|h| !h.is_empty())
                    .collect();
                if hw.is_empty() {
                    return Err((
                        "`hardware` is empty; expected ids like \"b200,gb200\"".into(),
                        value_start,
                    ));
                }
                d.hardware = Some(hw);
            }
            "level" => match value.parse::<u8>() {
                Ok(l @ 1..=5) => d.level = Some(l),
                _ => {
                    return Err((
                        format!("`level` must be a heading level from 1 to 5, not `{value}`"),
                        value_start,
                    ));
                }
            },
            _ => unreachable!("checked against ATTRIBUTES"),
        }
        if !matches!(bytes.get(i), Some(b' ' | b'\t') | Some(b'>')) {
            if i >= bytes.len() {
                return Err(("missing `>>` at the end of the directive".into(), i));
            }
            let ch = s[i..].chars().next().unwrap_or(' ');
            return Err((format!("unexpected `{ch}` after the value of `{name}`"), i));
        }
    }
    if d.page.is_none() && d.data.is_none() {
        return Err((
            "missing `page`: write <<agentx page=\"Model-Name\">> (or give data=\"file\")".into(),
            i,
        ));
    }
    Ok((d, i))
}

/// Replaces occurrences with their texts, from the end so offsets stay valid.
/// `replacement` is Markdown without indentation; it is re-indented to the
/// directive's container and separated from surrounding paragraph text.
pub(crate) fn splice(chapter: &str, replacements: &[(Occurrence, String)]) -> String {
    let mut out = chapter.to_string();
    let mut sorted: Vec<&(Occurrence, String)> = replacements.iter().collect();
    sorted.sort_by_key(|(o, _)| std::cmp::Reverse(o.range.start));
    for (occ, text) in sorted {
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

    fn dir(page: &str) -> Directive {
        Directive {
            page: Some(page.into()),
            ..Directive::default()
        }
    }

    #[test]
    fn parse_table() {
        let ok: &[(&str, Directive)] = &[
            ("<<agentx page=\"Qwen3.5\">>", dir("Qwen3.5")),
            ("<<agentx   page='Qwen3.5'  >>", dir("Qwen3.5")),
            (
                "<<agentx page=\"X\" hardware=\"B200, gb200\" level=\"3\" data=\"a/b.json\">>",
                Directive {
                    page: Some("X".into()),
                    hardware: Some(vec!["b200".into(), "gb200".into()]),
                    level: Some(3),
                    data: Some("a/b.json".into()),
                },
            ),
            (
                "<<agentx data=\"x.json\">>",
                Directive {
                    data: Some("x.json".into()),
                    ..Directive::default()
                },
            ),
            (
                "<<agentx page=\"Muse Spark Open\">>",
                dir("Muse Spark Open"),
            ),
            ("<<agentx page=\"a>>b\">>", dir("a>>b")),
        ];
        for (src, want) in ok {
            let (d, len) = parse(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
            assert_eq!(&d, want, "{src}");
            assert_eq!(len, src.len(), "{src}");
        }
        let bad: &[(&str, &str, usize)] = &[
            ("<<agentx page=Qwen>>", "must be in double quotes", 14),
            ("<<agentx page=\"Qwen>>", "unterminated quote in `page`", 14),
            (
                "<<agentx pgae=\"Qwen\">>",
                "unknown attribute `pgae`; expected one of: page, hardware, level, data",
                9,
            ),
            ("<<agentx page=\"a\" page=\"b\">>", "given twice", 18),
            ("<<agentx page \"a\">>", "expected `=` after `page`", 14),
            ("<<agentx page=\"a\"", "missing `>>`", 17),
            (
                "<<agentx page=\"a\"x>>",
                "unexpected `x` after the value of `page`",
                17,
            ),
            ("<<agentx level=\"9\" page=\"a\">>", "from 1 to 5", 16),
            ("<<agentx hardware=\"b200\">>", "missing `page`", 26),
            ("<<agentx page=\"a\" ,>>", "unexpected `,`", 18),
        ];
        for (src, msg, at) in bad {
            let (m, pos) = parse(src).expect_err(src);
            assert!(m.contains(msg), "{src}: {m}");
            assert_eq!(pos, *at, "{src}: {m}");
        }
    }

    fn kinds(chapter: &str) -> Vec<(usize, usize, &'static str)> {
        find(chapter)
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
            let occ = find(src);
            assert_eq!(occ.len(), 1, "{src:?}");
            let reps: Vec<(Occurrence, String)> =
                occ.into_iter().map(|o| (o, repl.to_string())).collect();
            assert_eq!(splice(src, &reps), *want, "{src:?}");
        }
    }

    #[test]
    fn escaped_is_shown_literally() {
        let src = "see \\<<agentx page=\"A\">> here\n";
        let occ = find(src);
        let lit = literal_text(occ[0].source(src));
        assert_eq!(lit, "\\<\\<agentx page=\"A\">>");
        let out = splice(src, &[(occ[0].clone(), lit)]);
        let html = {
            let mut s = String::new();
            pulldown_cmark::html::push_html(&mut s, Parser::new_ext(&out, markdown_options()));
            s
        };
        assert_eq!(html, "<p>see &lt;&lt;agentx page=“A”&gt;&gt; here</p>\n");
    }
}
