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

/// Brackets nested deeper than this are refused before parsing: the parser
/// recurses per level and a deep enough input would exhaust the stack.
pub(super) const MAX_NESTING: usize = 64;

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
    let depth = nesting(text);
    if depth > MAX_NESTING {
        return Err(format!(
            "{name}: brackets nested {depth} deep; more than {MAX_NESTING} is not read"
        ));
    }
    Ok(())
}

/// The deepest nesting of `(`, `{` and `[` in `text`, quotes ignored: an
/// upper bound of what the parser recurses into.
fn nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'(' | b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The pieces of one word (quotes, expansions), as brush splits them.
pub(super) fn word_pieces(text: &str) -> Result<Vec<WordPieceWithSource>, String> {
    if nesting(text) > MAX_NESTING {
        return Err(format!("`{text}` nests too deep"));
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
        let deep = "(".repeat(MAX_NESTING + 1);
        assert!(parse_script(&deep, "d.sh").unwrap_err().contains("nested"));
        assert!(
            parse_script("if then fi", "e.sh")
                .unwrap_err()
                .starts_with("e.sh: bash syntax")
        );
        assert_eq!(nesting("a(b{c[d]})é"), 3);
    }
}
