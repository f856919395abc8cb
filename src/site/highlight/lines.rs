//! The highlighter's line cache: one line's tokens from one parser state,
//! kept per worker thread.
//!
//! Why a cache: command blocks repeat the same lines (`  --host 0.0.0.0 \`)
//! hundreds of times across command sets and pages; the grammar's regexes,
//! then applying their scope operations and classing each token, dominated
//! a build. The cached result is exact: a line's pieces depend only on the
//! line, the parser state and the scope stack before it.
//!
//! Why per thread: syntect's `ParseState` is not `Send` (with Oniguruma, a
//! state may hold a regex `Region`, which holds raw pointers), so a cache
//! shared by threads had to assert `Send` for it, a promise about syntect's
//! private layout that no version pin kept. Each thread's cache holds only
//! states that thread made, and compares them with syntect's public
//! `PartialEq`; a state with captures then only ever equals itself, which
//! costs a miss, never a wrong hit.

use std::cell::RefCell;

use syntect::parsing::{ParseState, ScopeStack, ScopeStackOp, SyntaxSet};

use super::{TwoLevelCache, class_for_cached};

/// Bound of each thread's line cache (entries); reaching it empties it.
const MAX_CACHED_LINES: usize = 20_000;

/// Where the parser stands between two lines.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ParserAt {
    pub(super) state: ParseState,
    pub(super) stack: ScopeStack,
}

/// One line's highlighting from one parser position: the line's pieces
/// (byte ranges with their token class) and the position after it.
#[derive(Debug)]
struct LineTokens {
    before: ParserAt,
    pieces: Vec<(usize, usize, Option<&'static str>)>,
    after: ParserAt,
}

thread_local! {
    /// Lines by grammar name and text; each line has one entry per parser
    /// position it was met at.
    static LINES: RefCell<TwoLevelCache<Vec<LineTokens>>> =
        RefCell::new(TwoLevelCache::new(MAX_CACHED_LINES));
}

/// A line's pieces, handed to `on_piece`, and the parser moved past the
/// line, reusing an earlier result of this thread for the same line from
/// the same position. `None` when the grammar fails on the line.
pub(super) fn line_tokens(
    at: &mut ParserAt,
    line: &str,
    set: &SyntaxSet,
    syntax: &str,
    on_piece: &mut impl FnMut(&str, Option<&'static str>),
) -> Option<()> {
    LINES.with(|cache| {
        if let Some(hit) = cache
            .borrow()
            .get(syntax, line)
            .and_then(|entries| entries.iter().find(|e| e.before == *at))
        {
            at.clone_from(&hit.after);
            for &(from, to, class) in &hit.pieces {
                on_piece(&line[from..to], class);
            }
            return Some(());
        }
        let before = at.clone();
        let pieces = parse_line(at, line, set)?;
        for &(from, to, class) in &pieces {
            on_piece(&line[from..to], class);
        }
        let entry = LineTokens {
            before,
            pieces,
            after: at.clone(),
        };
        let mut cache = cache.borrow_mut();
        match cache.get_mut(syntax, line) {
            Some(entries) => entries.push(entry),
            None => cache.insert(syntax, line, vec![entry]),
        }
        Some(())
    })
}

/// Parses one line from `at` (moving it past the line) into pieces: the
/// grammar's tokens, each with its class, with leading and trailing
/// whitespace kept outside the classed part, so no span holds a line break.
fn parse_line(
    at: &mut ParserAt,
    line: &str,
    set: &SyntaxSet,
) -> Option<Vec<(usize, usize, Option<&'static str>)>> {
    let ops = at.state.parse_line(line, set).ok()?;
    let mut pieces = Vec::new();
    let mut pos = 0;
    for (pos_to, op) in ops
        .iter()
        .map(|(i, op)| (*i, op))
        .chain(std::iter::once((line.len(), &ScopeStackOp::Noop)))
    {
        if pos_to > pos {
            let class = class_for_cached(at.stack.as_slice());
            let text = &line[pos..pos_to];
            let core = text.trim();
            let lead = text.len() - text.trim_start().len();
            let core_end = lead + core.len();
            for (from, to, class) in [
                (0, lead, None),
                (lead, core_end, class),
                (core_end, text.len(), None),
            ] {
                if to > from {
                    pieces.push((pos + from, pos + to, class));
                }
            }
            pos = pos_to;
        }
        at.stack.apply(op).ok()?;
    }
    Some(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of each line of `code`, parsed from scratch or through
    /// the thread's cache.
    fn pieces(code: &str, cached: bool) -> Vec<Vec<(String, Option<&'static str>)>> {
        let (set, syntax) = super::super::syntax_for("bash").unwrap();
        let mut at = ParserAt {
            state: ParseState::new(syntax),
            stack: ScopeStack::new(),
        };
        let mut lines = Vec::new();
        for line in syntect::util::LinesWithEndings::from(code) {
            let mut got = Vec::new();
            let mut on_piece = |p: &str, c| got.push((p.to_string(), c));
            if cached {
                line_tokens(&mut at, line, set, &syntax.name, &mut on_piece).unwrap();
            } else {
                for (from, to, c) in parse_line(&mut at, line, set).unwrap() {
                    on_piece(&line[from..to], c);
                }
            }
            lines.push(got);
        }
        lines
    }

    /// Cached lines equal parsed ones, also when the same line comes from
    /// another parser state (inside a string, after a continuation), and
    /// on another thread (with its own cache).
    #[test]
    fn cached_lines_equal_parsed_ones() {
        let code = "A=1 \\\n  --port 80 \\\n  --port 80\necho \"\n  --port 80\n\"\n  --port 80\n";
        let fresh = pieces(code, false);
        assert_eq!(pieces(code, true), fresh);
        assert_eq!(pieces(code, true), fresh, "second pass, all hits");
        let other = std::thread::spawn(move || pieces(code, true))
            .join()
            .unwrap();
        assert_eq!(other, fresh, "on another thread");
        // The same line inside the string is classed differently.
        assert_ne!(fresh[2], fresh[4]);
    }
}
