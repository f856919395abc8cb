//! mdBook's `links` preprocessor, as it reads the Markdown we hand it.
//!
//! mdBook runs `links` after every other preprocessor, over the whole
//! chapter, code blocks included. In 0.5.4 (`mdbook-driver`,
//! `builtin_preprocessors/links.rs`, `find_links`) its pattern is
//!
//! ```text
//! \\\{\{\#.*\}\}                            an escaped link: `\{{#` … `}}` on one line
//! | \{\{\s*\#([a-zA-Z0-9_]+)\s+([^}]+)\}\}  a link: `{{`, `#kind`, target, `}}`
//! ```
//!
//! `\s` is Unicode whitespace and matches line breaks, so a link may span
//! lines (and strings: the end of one env value and the next one, an
//! argument and the one after it, a value and the JSON around it); the
//! escape only holds while `}}` is on the same line, and even then it
//! changes the text (mdBook drops the backslash). The functions here find
//! both forms wherever they start; data containing either is refused.

use std::ops::Range;

/// The first place in `text` that mdBook's `links` preprocessor would act
/// on: every match of its pattern starts at a `{{` (or the `\` before one),
/// and each `{{` is tried with both alternatives, so this finds a superset
/// of what mdBook replaces (any `#kind`, not only the kinds it knows).
///
/// Linear: the `}` and `}}` searches only move forward.
pub(crate) fn mdbook_link(text: &str) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let mut close = Forward::default();
    let mut close_pair = Forward::default();
    let mut newline = Forward::default();
    let mut from = 0;
    while let Some(i) = find_pair(text, from) {
        from = i + 1;
        // `\{{#` … `}}` with no line break in between.
        if i > 0 && bytes[i - 1] == b'\\' && bytes.get(i + 2) == Some(&b'#') {
            let end = close_pair.next(text, i + 3, "}}");
            let eol = newline.next(text, i + 3, "\n");
            if let Some(end) = end.filter(|e| eol.is_none_or(|n| *e < n)) {
                return Some(i - 1..end + 2);
            }
        }
        let Some(word_end) = kind_end(text, i + 2) else {
            continue;
        };
        let Some(brace) = close.next(text, word_end, "}") else {
            continue;
        };
        // `\s+([^}]+)`: a whitespace character, then at least one more
        // character, all before the first `}`, which must be doubled.
        let target = &text[word_end..brace];
        let mut chars = target.chars();
        let spaced = chars.next().is_some_and(char::is_whitespace) && chars.next().is_some();
        if spaced && bytes.get(brace + 1) == Some(&b'}') {
            return Some(i..brace + 2);
        }
    }
    None
}

/// The first opening of an mdBook link in one string: `{{`, any
/// whitespace, then `#` — or `{{` and whitespace up to the end of the
/// string, where the `#` could come from whatever text follows. Every link
/// and every escaped link begins with such an opening, so data strings
/// without one cannot start a link, however they are joined.
pub(crate) fn mdbook_link_opening(s: &str) -> Option<Range<usize>> {
    let mut from = 0;
    while let Some(i) = find_pair(s, from) {
        from = i + 1;
        let rest = s[i + 2..].trim_start_matches(char::is_whitespace);
        if rest.is_empty() || rest.starts_with('#') {
            let end = s.len() - rest.len() + usize::from(!rest.is_empty());
            let start = if i > 0 && s.as_bytes()[i - 1] == b'\\' {
                i - 1
            } else {
                i
            };
            return Some(start..end);
        }
    }
    None
}

/// The next `{{` at or after `from`.
fn find_pair(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        let i = at + text.get(at..)?.find('{')?;
        if bytes.get(i + 1) == Some(&b'{') {
            return Some(i);
        }
        at = i + 1;
    }
}

/// After `{{` at `after`: `\s*#` and a `[A-Za-z0-9_]+` word; where the word ends.
fn kind_end(text: &str, after: usize) -> Option<usize> {
    let rest = text[after..].trim_start_matches(char::is_whitespace);
    let word = rest.strip_prefix('#')?;
    let len = word
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    (len > 0).then(|| text.len() - word.len() + len)
}

/// The next occurrence of a pattern at or after a position that only
/// grows: found once, reused until the position passes it.
#[derive(Default)]
struct Forward {
    /// Where the last search started, and what it found.
    last: Option<(usize, Option<usize>)>,
}

impl Forward {
    fn next(&mut self, text: &str, from: usize, pattern: &str) -> Option<usize> {
        if let Some((start, found)) = self.last
            && start <= from
            && found.is_none_or(|f| f >= from)
        {
            return found;
        }
        let found = text.get(from..)?.find(pattern).map(|i| from + i);
        self.last = Some((from, found));
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mdBook 0.5.4's pattern, copied from `find_links` (see the module
    /// documentation): what the detector must never miss.
    fn mdbook_regex() -> regex::Regex {
        regex::Regex::new(r"(?x)\\\{\{\#.*\}\}|\{\{\s*\#([a-zA-Z0-9_]+)\s+([^}]+)\}\}").unwrap()
    }

    #[test]
    fn links_as_mdbook_reads_them() {
        let table: &[(&str, Option<&str>)] = &[
            (
                "echo {{#include /etc/passwd}} x",
                Some("{{#include /etc/passwd}}"),
            ),
            (
                "{{ #playground a.rs editable}}",
                Some("{{ #playground a.rs editable}}"),
            ),
            ("{{#title Hi}}", Some("{{#title Hi}}")),
            // Split over lines and strings: `\s` and `[^}]` cross line breaks.
            (
                "A='{{#include /etc/passwd ' \\\nB='}}' \\\n",
                Some("{{#include /etc/passwd ' \\\nB='}}"),
            ),
            (
                "{{\n#include\n/etc/passwd\n}}",
                Some("{{\n#include\n/etc/passwd\n}}"),
            ),
            // Unicode whitespace is `\s` too.
            (
                "{{\u{2028}#include\u{a0}/x}}",
                Some("{{\u{2028}#include\u{a0}/x}}"),
            ),
            // The escape holds on one line only, and still changes the text.
            ("\\{{#include x}}", Some("\\{{#include x}}")),
            ("\\{{#include x\n}}", Some("{{#include x\n}}")),
            ("{{#include}}", None),
            ("{{#include }}", None),
            ("{{#include  }}", Some("{{#include  }}")),
            ("{{ .Values.x }}", None),
            ("{{#a b}", None),
            ("{{#a b} }}", None),
            ("{ {#a b}}", None),
            ("é{{#include ü}}", Some("{{#include ü}}")),
            ("{{{#include x}}", Some("{{#include x}}")),
        ];
        for (s, want) in table {
            assert_eq!(mdbook_link(s).map(|r| &s[r]), *want, "{s:?}");
            let re = mdbook_regex().find(s).map(|m| m.as_str());
            assert_eq!(
                re.is_some(),
                want.is_some(),
                "mdBook's pattern on {s:?}: {re:?}"
            );
        }
    }

    #[test]
    fn openings_in_one_string() {
        let table: &[(&str, Option<&str>)] = &[
            ("{{#include /etc/passwd ", Some("{{#")),
            ("x {{  \n #include", Some("{{  \n #")),
            ("\\{{#x", Some("\\{{#")),
            ("ends with {{", Some("{{")),
            ("ends with {{ \n", Some("{{ \n")),
            ("{{ .Values.x }}", None),
            ("}}", None),
            ("#include x}}", None),
            ("{ {#", None),
            ("{{{ x", None),
        ];
        for (s, want) in table {
            assert_eq!(mdbook_link_opening(s).map(|r| &s[r]), *want, "{s:?}");
        }
    }

    proptest::proptest! {
        /// The detector and mdBook's pattern agree on whether text has a
        /// link and where the first one starts; and text with a link has
        /// an opening, so data strings without one cannot form it.
        #[test]
        fn agrees_with_mdbook(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "{{", "{", "}", "}}", "#", "#include", " ", "\n", "\u{a0}", "\\",
                    "/etc/passwd", "'", "x", "_", "é",
                ]),
                0..16,
            ),
        ) {
            let text = pieces.concat();
            let want = mdbook_regex().find(&text).map(|m| m.start());
            let found = mdbook_link(&text).map(|r| r.start);
            proptest::prop_assert_eq!(found, want, "{:?}", text);
            if want.is_some() {
                proptest::prop_assert!(mdbook_link_opening(&text).is_some(), "{:?}", text);
            }
        }
    }
}
