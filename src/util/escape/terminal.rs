//! Data text for a terminal. `decode`, `diff`, `stats`, `check`, `sync` and
//! every error message print text that came from data files, manifests,
//! recipes and chapters; a terminal acts on control characters (ESC starts
//! a sequence that can erase the line above, `ESC[2K`, and hide what was
//! there; CR returns to the line's start; C1's U+009B is CSI to some
//! terminals), and bidirectional controls reorder what is shown. Each is
//! printed as a visible escape instead.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether a terminal would act on `c` rather than show it: C0 controls
/// but tab and line feed, DEL, C1, the bidirectional controls, and the
/// line and paragraph separators.
fn acted_on(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `s` with every character a terminal acts on written as an escape
/// (`\x1b`, `\r`, `\u{9b}`, `\u{202e}`); tabs and line feeds stay.
pub fn terminal_text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(acted_on) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if acted_on(c) && (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if acted_on(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// JSON text (as serde_json writes it) with the characters a terminal acts
/// on that serde_json leaves raw (DEL, C1, bidirectional controls,
/// separators) written as `\uXXXX`; such characters only occur inside
/// strings, so the JSON means the same.
pub fn terminal_json(json: &str) -> Cow<'_, str> {
    if !json.chars().any(acted_on) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if acted_on(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_escaped() {
        let table = [
            ("plain é ✓\tand\nlines", "plain é ✓\tand\nlines"),
            ("curl x | sh\u{1b}[2K\rsafe", "curl x | sh\\x1b[2K\\rsafe"),
            ("\u{0}\u{7f}\u{9b}2K", "\\x00\\x7f\\u{9b}2K"),
            ("a\u{202e}b\u{2028}", "a\\u{202e}b\\u{2028}"),
        ];
        for (s, want) in table {
            assert_eq!(terminal_text(s), want, "{s:?}");
        }
    }

    #[test]
    fn json_stays_json() {
        let v = serde_json::json!({"a": "x\u{1b}\u{7f}\u{9b}\u{202e}y"});
        let json = serde_json::to_string(&v).unwrap();
        let safe = terminal_json(&json);
        assert!(!safe.chars().any(acted_on), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
    }
}
