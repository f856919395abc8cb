//! Glob patterns (`case`, `[[ == ]]`, `${x%pat}`) and `[[ =~ ]]` regular
//! expressions, matched here: brush turns a pattern into a regular
//! expression, the `regex` crate runs it. Plus the small syntactic checks
//! expansion needs. Uses `sync::bash::syntax`.

use brush_parser::ast;
use brush_parser::word::{ParameterExpr, WordPiece, WordPieceWithSource};
use regex::Regex;

use super::syntax;

/// Patterns or regexes longer than this are refused (the real ones are short).
const MAX_PATTERN: usize = 4096;

/// Whether unquoted text would be a pathname pattern: `*`, `?`, or `[…]`.
pub(super) fn has_glob(s: &str) -> bool {
    s.contains(['*', '?']) || s.find('[').is_some_and(|i| s[i + 1..].contains(']'))
}

/// Escapes glob metacharacters so text matches literally.
pub(super) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether unquoted text holds a brace expansion (`{a,b}`, `{1..3}`).
pub(super) fn has_brace_expansion(pieces: &[WordPieceWithSource]) -> bool {
    pieces.iter().any(|p| match &p.piece {
        WordPiece::Text(t) => t.find('{').is_some_and(|i| {
            let rest = &t[i..];
            rest.find('}')
                .is_some_and(|j| rest[..j].contains(',') || rest[..j].contains(".."))
        }),
        _ => false,
    })
}

/// A command substitution's text as the raw words of simple commands joined
/// by `&&` (`cd DIR && pwd`), each without redirections or assignments, or
/// `None`.
pub(super) fn and_list(text: &str) -> Option<Vec<Vec<String>>> {
    let script = syntax::parse_script(text, "$(…)").ok()?;
    let [list] = script.program.complete_commands.as_slice() else {
        return None;
    };
    let [ast::CompoundListItem(and_or, _)] = list.0.as_slice() else {
        return None;
    };
    let mut out = vec![simple_words(&and_or.first)?];
    for next in &and_or.additional {
        match next {
            ast::AndOr::And(p) => out.push(simple_words(p)?),
            ast::AndOr::Or(_) => return None,
        }
    }
    Some(out)
}

/// The raw words of every command of a command substitution's text, when
/// it holds only simple commands without assignments, joined by `;`, `&&`,
/// `||` and `|`, whose redirections go to `/dev/null` or to another
/// descriptor (so they write no file); `None` otherwise.
pub(super) fn simple_commands(text: &str) -> Option<Vec<Vec<String>>> {
    let script = syntax::parse_script(text, "$(…)").ok()?;
    let mut out = Vec::new();
    for list in &script.program.complete_commands {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            let rest = and_or.additional.iter().map(|a| match a {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            });
            for p in std::iter::once(&and_or.first).chain(rest) {
                for c in &p.seq {
                    out.push(words_writing_nothing(c)?);
                }
            }
        }
    }
    Some(out)
}

/// A simple command's raw words, when it assigns nothing and redirects
/// only to `/dev/null` or a descriptor.
fn words_writing_nothing(c: &ast::Command) -> Option<Vec<String>> {
    let ast::Command::Simple(cmd) = c else {
        return None;
    };
    if cmd.prefix.is_some() {
        return None;
    }
    let mut out = vec![cmd.word_or_name.as_ref()?.value.clone()];
    for item in cmd.suffix.iter().flat_map(|s| s.0.iter()) {
        match item {
            ast::CommandPrefixOrSuffixItem::Word(w) => out.push(w.value.clone()),
            ast::CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::File(_, _, t)) => match t {
                ast::IoFileRedirectTarget::Filename(w) if w.value == "/dev/null" => {}
                ast::IoFileRedirectTarget::Fd(_) => {}
                ast::IoFileRedirectTarget::Duplicate(w)
                    if w.value.chars().all(|c| c.is_ascii_digit() || c == '-') => {}
                _ => return None,
            },
            _ => return None,
        }
    }
    Some(out)
}

/// The raw words of a pipeline that is one simple command without `!`,
/// assignments or redirections.
fn simple_words(p: &ast::Pipeline) -> Option<Vec<String>> {
    let [ast::Command::Simple(cmd)] = p.seq.as_slice() else {
        return None;
    };
    if p.bang || cmd.prefix.is_some() {
        return None;
    }
    let mut out = vec![cmd.word_or_name.as_ref()?.value.clone()];
    for item in cmd.suffix.iter().flat_map(|s| s.0.iter()) {
        match item {
            ast::CommandPrefixOrSuffixItem::Word(w) => out.push(w.value.clone()),
            _ => return None,
        }
    }
    Some(out)
}

/// A whole-string matcher for a glob pattern.
pub(super) fn glob(pattern: &str) -> Result<Regex, String> {
    if pattern.len() > MAX_PATTERN {
        return Err(format!(
            "a pattern of {} bytes is not matched",
            pattern.len()
        ));
    }
    let re = brush_parser::pattern::pattern_to_regex_str(pattern, false)
        .map_err(|e| format!("pattern `{pattern}`: {e}"))?;
    Regex::new(&format!("^(?s:{re})$")).map_err(|e| format!("pattern `{pattern}`: {e}"))
}

/// `[[ s =~ re ]]`: a POSIX extended regular expression, found anywhere in `s`.
pub(super) fn regex_matches(s: &str, re: &str) -> Result<bool, String> {
    if re.len() > MAX_PATTERN {
        return Err(format!(
            "a regular expression of {} bytes is not matched",
            re.len()
        ));
    }
    let r = Regex::new(re).map_err(|e| format!("regular expression `{re}`: {e}"))?;
    Ok(r.is_match(s))
}

/// `[[ =~ ]]`'s right side: quoted parts match literally.
pub(super) fn regex_escape(s: &str) -> String {
    regex::escape(s)
}

/// Which end of a value `${x%…}` and friends remove, and how much.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trim {
    SmallestSuffix,
    LargestSuffix,
    SmallestPrefix,
    LargestPrefix,
}

impl Trim {
    pub(super) fn of(e: &ParameterExpr) -> Trim {
        match e {
            ParameterExpr::RemoveSmallestSuffixPattern { .. } => Trim::SmallestSuffix,
            ParameterExpr::RemoveLargestSuffixPattern { .. } => Trim::LargestSuffix,
            ParameterExpr::RemoveSmallestPrefixPattern { .. } => Trim::SmallestPrefix,
            _ => Trim::LargestPrefix,
        }
    }
}

/// Removes the prefix or suffix of `s` that `pattern` matches, at character
/// boundaries (so multibyte text is cut only between characters).
pub(super) fn trim(s: &str, pattern: &str, op: Trim) -> Result<String, String> {
    let re = glob(pattern)?;
    let mut cuts: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
    cuts.push(s.len());
    let found = match op {
        Trim::SmallestPrefix => cuts.iter().find(|&&i| re.is_match(&s[..i])),
        Trim::LargestPrefix => cuts.iter().rev().find(|&&i| re.is_match(&s[..i])),
        Trim::SmallestSuffix => cuts.iter().rev().find(|&&i| re.is_match(&s[i..])),
        Trim::LargestSuffix => cuts.iter().find(|&&i| re.is_match(&s[i..])),
    };
    Ok(match (found, op) {
        (None, _) => s.to_string(),
        (Some(&i), Trim::SmallestPrefix | Trim::LargestPrefix) => s[i..].to_string(),
        (Some(&i), _) => s[..i].to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_at_character_boundaries() {
        let cases = [
            ("org/Model-FP8", "*/", Trim::LargestPrefix, "Model-FP8"),
            ("a/b/c", "*/", Trim::SmallestPrefix, "b/c"),
            ("qwen3.5_tp2_conc4", "_*", Trim::LargestSuffix, "qwen3.5"),
            (
                "qwen3.5_tp2_conc4",
                "_*",
                Trim::SmallestSuffix,
                "qwen3.5_tp2",
            ),
            ("/data/models/", "/", Trim::SmallestSuffix, "/data/models"),
            ("ünï/cödé", "*/", Trim::LargestPrefix, "cödé"),
            ("日本語_テスト", "_*", Trim::LargestSuffix, "日本語"),
            ("abc", "x", Trim::SmallestSuffix, "abc"),
        ];
        for (s, p, op, want) in cases {
            assert_eq!(trim(s, p, op).unwrap(), want, "{s} {p} {op:?}");
        }
    }

    #[test]
    fn globs_regexes_and_checks() {
        assert!(
            glob("*/agentic/*")
                .unwrap()
                .is_match("benchmarks/single_node/agentic/x.sh")
        );
        assert!(!glob("*/agentic_*.sh").unwrap().is_match("a/agentic/x.sh"));
        assert!(glob(&escape("a*b")).unwrap().is_match("a*b"));
        assert!(!glob(&escape("a*b")).unwrap().is_match("axxb"));
        assert!(glob("é?").unwrap().is_match("éü"));
        assert!(regex_matches("270", "^[0-9]+$").unwrap());
        assert!(!regex_matches("27O", "^[1-9][0-9]*$").unwrap());
        assert!(regex_matches("a.b", &regex_escape("a.b")).unwrap());
        assert!(regex_matches("x", "(").is_err());
        assert!(has_glob("a*") && has_glob("[ab]") && !has_glob("[") && !has_glob("plain"));
        assert_eq!(and_list("dirname \"$0\"").unwrap(), [["dirname", "\"$0\""]]);
        assert!(and_list("a | b").is_none() && and_list("X=1 a").is_none());
        assert_eq!(
            and_list("cd \"$(dirname \"$0\")\" && pwd").unwrap(),
            [vec!["cd", "\"$(dirname \"$0\")\""], vec!["pwd"]]
        );
        for no in [
            "cd a || pwd",
            "cd a && ! pwd",
            "cd a 2>/dev/null && pwd",
            "a; b",
        ] {
            assert!(and_list(no).is_none(), "{no}");
        }
        assert_eq!(
            simple_commands("find /é -name x 2>/dev/null || true; ls | wc -l 2>&1").unwrap(),
            [
                vec!["find", "/é", "-name", "x"],
                vec!["true"],
                vec!["ls"],
                vec!["wc", "-l"]
            ]
        );
        for no in [
            "ls > é.txt",
            "X=1 ls",
            "{ ls; }",
            "ls >> /dev/nullx",
            "f() { :; }",
            "cat <(ls)",
        ] {
            assert!(simple_commands(no).is_none(), "{no}");
        }
    }
}
