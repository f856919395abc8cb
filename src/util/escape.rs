//! The one place data text enters Markdown, HTML and inline scripts.
//!
//! AgentX data is third-party text, and docs builds run on pull requests, so
//! nothing a data file says may become markup: every data-derived string that
//! `decode` (note texts, placements) and `render` put into Markdown goes
//! through [`text`], [`code`], [`link`] or [`table_cell`] here, and every
//! string or JSON the site puts into HTML or an inline `<script>` through
//! [`html`], [`script_json`] (split by [`script_json_parts`]) or
//! [`inline_script`]. Output is exact: the
//! rendered page shows the data's characters, never what Markdown would make
//! of them (only `\n`/`\r` become spaces, because every place data goes is
//! one line of Markdown).
//!
//! What mdBook's own `links` preprocessor would read in text (`{{#include
//! …}}`, split over strings and lines or not) is found by [`mdbook_link`]
//! and [`mdbook_link_opening`]: such data is refused, since commands and
//! code are printed verbatim.
//!
//! Text for a terminal goes through [`terminal_text`] (and JSON through
//! [`terminal_json`]): control characters are shown as escapes.
//!
//! The escapes are checked against the Markdown parser itself, not against
//! expectations: the tests parse what these functions produce (in a
//! paragraph, a list item, a heading, a table cell, a link) and compare the
//! parser's text with the input, over a table of hostile cases and random
//! strings.

use std::fmt::Write as _;

mod mdbook;
mod terminal;
pub(crate) use mdbook::{mdbook_link, mdbook_link_opening};
pub use terminal::{terminal_json, terminal_text};

/// Characters that mean something inline anywhere in a line: escapes, code
/// spans, emphasis, strikethrough, links/images/footnotes, raw HTML and
/// autolinks (`<`, which also defuses `<<agentx …>>`), entities, table pipes
/// and heading attributes (`{#id onclick=…}`). `#` only matters at a line
/// start and as a heading's closing run, so only those are escaped.
const INLINE_SPECIAL: &[char] = &[
    '\\', '`', '*', '_', '~', '[', ']', '<', '>', '&', '|', '{', '}',
];

/// Data text as inline Markdown that renders as exactly that text.
///
/// Line breaks become spaces, and leading/trailing whitespace is dropped (a
/// browser would not show it, and at a line start four spaces would open a
/// code block). The result is safe at any position of a line, including its
/// start: a block marker there (`- `, `+ `, `: `, `=`, `1. `, `1) `) is
/// escaped too, while `-5` or `3.10` stay as they are. It is also exact
/// under smart punctuation (mdBook's default), which would make flags and
/// ids typographic (`--max-running-requests` → `–max-running-requests`):
/// quotes, and each `-` or `.` that follows another, are escaped.
pub(crate) fn text(s: &str) -> String {
    let s = one_line(s);
    let s = s.trim();
    let mut out = String::with_capacity(s.len() + 8);
    // Whether everything before is digits (`12` of `12) x`, a list marker).
    let mut only_digits = true;
    let mut previous = None;
    let mut chars = s.chars().enumerate().peekable();
    while let Some((i, c)) = chars.next() {
        let typographic =
            matches!(c, '\'' | '"') || (matches!(c, '-' | '.') && previous == Some(c));
        previous = Some(c);
        let ends_marker = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let block_marker = match c {
            '-' => i == 0 && (ends_marker || chars.peek().is_some_and(|(_, n)| *n == '-')),
            '+' | ':' => i == 0 && ends_marker,
            '=' => i == 0,
            // `# x` opens a heading; `x #` (a run at the end) closes one.
            '#' => {
                i == 0
                    || chars
                        .peek()
                        .is_none_or(|(_, n)| n.is_whitespace() || *n == '#')
            }
            '.' | ')' => i > 0 && only_digits && ends_marker,
            _ => false,
        };
        if INLINE_SPECIAL.contains(&c) || block_marker || typographic {
            out.push('\\');
        }
        only_digits &= c.is_ascii_digit();
        out.push(c);
    }
    out
}

/// Data text as a code span that shows exactly that text: the fence is a
/// backtick run that does not occur inside, and text that starts or ends
/// with a backtick (or with spaces on both ends) is padded with one space,
/// which CommonMark strips again. Empty text gives an empty string.
pub(crate) fn code(s: &str) -> String {
    let s = one_line(s);
    if s.is_empty() {
        return String::new();
    }
    let fence = "`".repeat(shortest_absent_run(&s, b'`'));
    let all_spaces = s.chars().all(|c| c == ' ');
    let pad = s.starts_with('`')
        || s.ends_with('`')
        || (!all_spaces && s.starts_with(' ') && s.ends_with(' '));
    let pad = if pad { " " } else { "" };
    // Pushed into one buffer of the final size (`format!` grew it by
    // doubling; long command lines go through here).
    let mut out = String::with_capacity(2 * (fence.len() + pad.len()) + s.len());
    for piece in [fence.as_str(), pad, &s, pad, &fence] {
        out.push_str(piece);
    }
    out
}

/// A fenced code block whose fence is longer than any backtick run inside
/// (the body is shown verbatim; `lang` is ours, never data). A lone `\r` is
/// a line break to Markdown: it becomes `\n`, so that the lines a container
/// (list item, block quote) prefixes are all the lines Markdown sees.
pub(crate) fn fenced(lang: &str, body: &str) -> String {
    let mut out = String::new();
    fenced_into(&mut out, lang, body);
    out
}

/// [`fenced`] onto the end of `out`: a command set's blocks are written
/// straight into its Markdown.
pub(crate) fn fenced_into(out: &mut String, lang: &str, body: &str) {
    let body = if body.contains('\r') {
        body.replace("\r\n", "\n").replace('\r', "\n").into()
    } else {
        std::borrow::Cow::Borrowed(body)
    };
    let longest = longest_run(&body, b'`');
    let fence = "`".repeat(longest.max(2) + 1);
    out.reserve(2 * fence.len() + lang.len() + body.len() + 4);
    for piece in [fence.as_str(), lang, "\n", &body, "\n", &fence, "\n\n"] {
        out.push_str(piece);
    }
}

/// A link whose label is Markdown made by this module, to `url` when the URL
/// is one a reader may follow ([`safe_url`]); otherwise the label alone, as
/// plain text. `url` comes from data and is written so that Markdown hands
/// the browser exactly that URL.
pub(crate) fn link(label: &str, url: &str) -> String {
    match safe_url(url) {
        Some(dest) => format!("[{label}]({dest})"),
        None => label.to_string(),
    }
}

/// `url` as a Markdown link destination, or `None` when a browser could run
/// or embed it: only `http:`/`https:` URLs and relative references (no
/// scheme) pass. URLs with whitespace or control characters never pass (a
/// browser strips or removes them before it reads the scheme, which is how
/// `java\tscript:` works). The scheme is read as a browser reads it
/// (ASCII letters, digits, `+`, `-`, `.`, case-insensitive); an entity such
/// as `&colon;` is not a colon here, and the `&` is escaped so Markdown does
/// not decode it either, so the browser sees a relative URL.
pub(crate) fn safe_url(url: &str) -> Option<String> {
    if url.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    if let Some(scheme) = scheme(url)
        && !scheme.eq_ignore_ascii_case("http")
        && !scheme.eq_ignore_ascii_case("https")
    {
        return None;
    }
    let mut dest = String::with_capacity(url.len() + 4);
    for c in url.chars() {
        // Backslash escapes are undone in destinations; these would end
        // the destination, start an entity, or pair with the label's brackets.
        if matches!(
            c,
            '\\' | '&' | '(' | ')' | '<' | '>' | '`' | '[' | ']' | '|'
        ) {
            dest.push('\\');
        }
        dest.push(c);
    }
    Some(dest)
}

/// The scheme of an absolute URL (`https` of `https://…`), if it has one.
fn scheme(url: &str) -> Option<&str> {
    let colon = url.find(':')?;
    let s = &url[..colon];
    let mut chars = s.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then_some(s)
}

/// Markdown made by this module, made safe inside a GFM table cell: every
/// `|` that is not already escaped gets a backslash. GFM splits rows before
/// anything else, even inside code spans, and turns `\|` back into `|`.
pub(crate) fn table_cell(md: &str) -> String {
    let mut out = String::with_capacity(md.len() + 4);
    let mut backslashes = 0;
    for c in md.chars() {
        if c == '|' && backslashes % 2 == 0 {
            out.push('\\');
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
        out.push(c);
    }
    out
}

/// Text for HTML: element content and (quoted) attribute values.
pub(crate) fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    html_into(&mut out, s);
    out
}

/// [`html`] onto the end of `out`: the highlighter escapes every token of
/// every block, and a `String` for each was a visible cost of a build. The
/// five special characters are ASCII, so the text between them is copied
/// as whole slices (a UTF-8 continuation byte is never one of them).
pub(crate) fn html_into(out: &mut String, s: &str) {
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        out.push_str(entity);
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// A value as JSON that is safe inside an inline `<script>`: `<`, `>` and
/// `&` (which only occur in strings) as `\u003c` …, so no `</script>` of
/// any case, `<!--` or entity survives, and the JS line separators U+2028/9
/// as escapes too.
pub(crate) fn script_json<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let json = serde_json::to_string(value)?;
    // 0xE2 leads the UTF-8 of U+2028/9; most selector data has none of
    // these bytes, and is then already safe as it is.
    if !json.bytes().any(|b| matches!(b, b'<' | b'>' | b'&' | 0xE2)) {
        return Ok(json);
    }
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(json.len() + 16);
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let (len, code) = match bytes[i] {
            b @ (b'<' | b'>' | b'&') => (1, u32::from(b)),
            // U+2028 and U+2029: E2 80 A8 and E2 80 A9.
            0xE2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
            {
                (3, 0x2028 + u32::from(bytes[i + 2] - 0xA8))
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&json[start..i]);
        let _ = write!(out, "\\u{code:04x}");
        i += len;
        start = i;
    }
    out.push_str(&json[start..]);
    Ok(out)
}

/// A [`script_json`] text in pieces of at most about `max` bytes (cut at
/// character boundaries, as even as that allows), for pages that hold one
/// JSON text in several `<script>` elements (mdBook's data pages): a piece
/// of a text with no `<`, `>` or `&` is as safe inside a script as the
/// whole, and no piece holds a line break (Markdown ends an HTML block
/// there). `None` when `json` is not such a text.
pub(crate) fn script_json_parts(json: &str, max: usize) -> Option<Vec<&str>> {
    if json
        .bytes()
        .any(|b| matches!(b, b'<' | b'>' | b'&' | b'\n' | b'\r'))
        || json.is_empty()
    {
        return None;
    }
    let n = json.len().div_ceil(max.max(1));
    let size = json.len().div_ceil(n);
    let mut parts = Vec::with_capacity(n);
    let mut rest = json;
    while !rest.is_empty() {
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (part, tail) = rest.split_at(cut);
        parts.push(part);
        rest = tail;
    }
    Some(parts)
}

/// Script text for an inline `<script>` element: every `</script` (any
/// case) becomes `<\/script` and every `<!--` becomes `<\!--`, so the
/// element ends where it was meant to end. Both spellings mean the same in
/// a JS string, template or regular expression.
pub(crate) fn inline_script(js: &str) -> String {
    escape_closing(js, "script").replace("<!--", "<\\!--")
}

/// Style text for an inline `<style>` element: every `</style` (any case)
/// becomes `<\/style` (the same in CSS).
pub(crate) fn inline_style(css: &str) -> String {
    escape_closing(css, "style")
}

/// `</name` in any case → `<\/name`.
fn escape_closing(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("</") {
        let after = &rest[i + 2..];
        out.push_str(&rest[..i]);
        let closes = after
            .get(..name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name));
        out.push_str(if closes { "<\\/" } else { "</" });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Line breaks as spaces.
fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\n', '\r']) {
        s.replace("\r\n", " ").replace(['\n', '\r'], " ").into()
    } else {
        s.into()
    }
}

fn longest_run(s: &str, ch: u8) -> usize {
    runs(s, ch).max().unwrap_or(0)
}

/// The shortest length ≥ 1 of which `s` has no run of `ch` (exactly).
fn shortest_absent_run(s: &str, ch: u8) -> usize {
    let lengths: std::collections::BTreeSet<usize> = runs(s, ch).collect();
    (1..).find(|n| !lengths.contains(n)).unwrap_or(1)
}

/// Lengths of the maximal runs of the ASCII `ch` in `s`, read as bytes (an
/// ASCII byte is never part of a multibyte character): every fenced block
/// of a build is scanned, and char by char that was a visible cost.
fn runs(s: &str, ch: u8) -> impl Iterator<Item = usize> + '_ {
    debug_assert!(ch.is_ascii());
    let bytes = if s.as_bytes().contains(&ch) {
        s.as_bytes()
    } else {
        &[]
    };
    bytes
        .split(move |b| *b != ch)
        .map(<[u8]>::len)
        .filter(|n| *n > 0)
}

#[cfg(test)]
mod tests;
