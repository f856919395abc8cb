//! What YAML text may hold before it is parsed, and what a scalar may say.

/// Fails at the first character PyYAML's reader refuses (it accepts tab,
/// LF, CR, printable ASCII, NEL, and `U+00A0` upward except surrogates and
/// `U+FFFE`/`U+FFFF`): a NUL would otherwise end the document silently in
/// the parser, dropping the rest of the recipe.
pub(super) fn printable(text: &str) -> Result<(), String> {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}')
            || (c >= '\u{a0}' && !matches!(c, '\u{fffe}' | '\u{ffff}'))
    };
    let Some((at, c)) = text.char_indices().find(|(_, c)| !allowed(*c)) else {
        return Ok(());
    };
    let line = text[..at].matches('\n').count() + 1;
    let column = text[..at].rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Err(format!(
        "line {line}, column {column}: character U+{:04X} is not allowed in YAML (PyYAML \
         refuses it, and it would cut the document short here); remove it",
        c as u32
    ))
}

/// A scalar (key or value) that opens mdBook's `{{#include …}}`: recipe
/// text ends up verbatim in commands, where mdBook's `links` preprocessor
/// would read a file of the build machine into the page, also when the
/// link closes in another value.
pub(super) fn refuse_mdbook_link(text: &str, line: usize) -> Result<(), String> {
    match crate::util::escape::mdbook_link_opening(text) {
        Some(at) => Err(format!(
            "line {line}: `{}` opens mdBook's include syntax (`{{{{#include …}}}}`), which \
             mdBook would expand in the generated pages (also across values); a recipe \
             value cannot hold it",
            &text[at]
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_pyyaml_refuses() {
        for ok in ["a: 1\r\n\tb: é ✓ \u{85}\u{feff}", ""] {
            assert!(printable(ok).is_ok(), "{ok:?}");
        }
        for (bad, want) in [
            ("a: 1\nb: x\u{0}y\n", "line 2, column 5: character U+0000"),
            ("\u{1b}", "line 1, column 1: character U+001B"),
            ("a: \u{7f}", "line 1, column 4: character U+007F"),
            ("a: \u{9b}", "line 1, column 4: character U+009B"),
            ("a: \u{ffff}", "line 1, column 4: character U+FFFF"),
        ] {
            let e = printable(bad).unwrap_err();
            assert!(e.starts_with(want), "{bad:?}: {e}");
        }
        // The parser alone ends the document at a NUL, without an error.
        assert!(super::super::parse("a: 1\nb: x\u{0}\nc: 3\n").is_err());
    }
}
