//! The bash parser: scripts and the words inside them go through
//! `brush-parser` (the brush shell's own parser), never through a hand-made
//! one. This module only wraps it: limits that keep the parser's recursion
//! bounded, errors naming `file:line`, and the line of any node.
//! Uses nothing else of the crate.

use std::io::BufReader;

use brush_parser::ast::{self, SourceLocation};
use brush_parser::word::{self, WordPieceWithSource};
use brush_parser::{ParserOptions, SourceSpan};

/// Scripts larger than this are refused before parsing (the real ones are under 100 KB).
const MAX_SCRIPT_BYTES: usize = 1 << 20;

/// Scripts with more openers than this are refused before parsing. An
/// opener is anything that may start a nesting level of brush's recursive
/// parser or of the interpreter: the substrings `if`, `case`, `for`,
/// `while`, `until`, `select`, `&&`, `||` and the characters `(`, `{`, `[`,
/// `!`, counted anywhere (quotes, comments and words included) and never
/// offset by a closer, so no quoting hides one. Their number bounds the
/// nesting depth, and with it the stack the parser needs (measured in a
/// debug build at most 18.2 KB per level, nested `$(`: 4,096 levels fit in
/// [`super::STACK_BYTES`]). The real scripts have at most 1,727
/// (benchmark_lib.sh at InferenceX 843c6254); docs/sync-bash-lanes.md, "Limits".
pub(super) const MAX_OPENERS: usize = 4_096;

/// A parsed script and the name it is reported under (`path@commit`).
#[derive(Debug)]
pub(super) struct Script {
    pub name: String,
    pub program: ast::Program,
}

/// The options bash runs scripts with (non-POSIX, extended globs off, so a
/// pattern means what plain bash makes of it).
pub(super) fn options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        ..ParserOptions::default()
    }
}

/// Parses a whole script.
pub(super) fn parse_script(text: &str, name: &str) -> Result<Script, String> {
    check_limits(text, name)?;
    let opts = options();
    let mut parser = brush_parser::Parser::new(BufReader::new(text.as_bytes()), &opts);
    let program = parser
        .parse_program()
        .map_err(|e| format!("{name}: bash syntax: {e}"))?;
    Ok(Script {
        name: name.to_string(),
        program,
    })
}

/// Refuses inputs the parser could not be trusted with.
pub(super) fn check_limits(text: &str, name: &str) -> Result<(), String> {
    if text.len() > MAX_SCRIPT_BYTES {
        return Err(format!(
            "{name}: {} bytes; scripts over {MAX_SCRIPT_BYTES} bytes are not read",
            text.len()
        ));
    }
    let openers = openers(text);
    if openers > MAX_OPENERS {
        return Err(format!(
            "{name}: {openers} openers (`if`, `case`, `for`, `while`, `until`, `select`, \
             `(`, `{{`, `[`, `!`, `&&`, `||`, counted anywhere, quotes included); scripts with \
             more than {MAX_OPENERS} are not read (a bound on how deep they can nest)"
        ));
    }
    Ok(())
}

/// Words and characters that may open a nesting level (see [`MAX_OPENERS`]).
const OPENER_WORDS: [&str; 8] = ["if", "case", "for", "while", "until", "select", "&&", "||"];

/// How many openers `text` holds: an upper bound of how deep it can nest,
/// whatever its quoting (occurrences may overlap; each counts).
fn openers(text: &str) -> usize {
    let chars = text
        .bytes()
        .filter(|b| matches!(b, b'(' | b'{' | b'[' | b'!'))
        .count();
    let words: usize = OPENER_WORDS.iter().map(|w| text.matches(w).count()).sum();
    chars + words
}

/// The pieces of one word (quotes, expansions), as brush splits them.
pub(super) fn word_pieces(text: &str) -> Result<Vec<WordPieceWithSource>, String> {
    if openers(text) > MAX_OPENERS {
        return Err(format!(
            "`{text}` may nest too deep (more than {MAX_OPENERS} openers)"
        ));
    }
    word::parse(text, &options()).map_err(|e| format!("`{text}`: {e}"))
}

/// The 1-based line a node starts on, 0 when brush kept no location.
pub(super) fn line(node: &dyn SourceLocation) -> usize {
    node.location().map_or(0, |s: SourceSpan| s.start.line)
}

/// The line of a simple command: its name, else its first prefix item.
pub(super) fn simple_line(cmd: &ast::SimpleCommand) -> usize {
    match cmd.location() {
        Some(s) => s.start.line,
        None => cmd.word_or_name.as_ref().map_or(0, |w| line(w)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_lines() {
        let s = parse_script("A=1\n\nif true; then\n  echo é\nfi\n", "t.sh").unwrap();
        assert_eq!(s.program.complete_commands.len(), 2);
        assert_eq!(line(&s.program.complete_commands[1]), 3);
        let deep = "(".repeat(MAX_OPENERS + 1);
        assert!(parse_script(&deep, "d.sh").unwrap_err().contains("openers"));
        assert!(
            parse_script("if then fi", "e.sh")
                .unwrap_err()
                .starts_with("e.sh: bash syntax")
        );
        // Closers and quotes offset nothing; `if` counts inside `diff` too.
        assert_eq!(openers("a(b{c[d]})é"), 3);
        assert_eq!(openers("( echo \")\" ( echo ')'"), 2);
        assert_eq!(openers("diff && ! for x; done || case"), 6);
    }
}
