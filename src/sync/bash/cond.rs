//! Conditions: `[[ … ]]` and `[ … ]` / `test`. String tests, patterns,
//! regexes, integer comparisons and `-v` are evaluated; tests of the file
//! system cannot be, and make the condition opaque (the caller decides
//! whether that is acceptable, see the guard rule in docs/sync-bash-lanes.md).
//! Uses `sync::bash::*`.

use brush_parser::ast::{
    BinaryPredicate as B, ExtendedTestExpr as X, TestExpr as T, UnaryPredicate as U,
};
use brush_parser::word::WordPiece;

use super::arith;
use super::expand::is_name;
use super::interp::{Halt, Interp};
use super::pattern;
use super::state::Val;
use super::syntax;

impl Interp<'_> {
    /// `[[ expr ]]`.
    pub(super) fn extended_test(&mut self, e: &X) -> Result<bool, Halt> {
        match e {
            X::And(a, b) => Ok(self.extended_test(a)? && self.extended_test(b)?),
            X::Or(a, b) => Ok(self.extended_test(a)? || self.extended_test(b)?),
            X::Not(a) => Ok(!self.extended_test(a)?),
            X::Parenthesized(a) => self.extended_test(a),
            X::UnaryTest(p, w) => {
                if let Some(why) = file_test(p) {
                    return Err(Halt::Opaque(why));
                }
                let v = self.single(&w.value)?;
                if let Some(decided) = emptiness(p, &v) {
                    return Ok(decided);
                }
                let s = self.decidable(&v, Some(&w.value))?;
                self.unary(p, &s)
            }
            X::BinaryTest(p, l, r) => self.extended_binary(p, &l.value, &r.value),
        }
    }

    fn extended_binary(&mut self, p: &B, l: &str, r: &str) -> Result<bool, Halt> {
        let left = self.single(l)?;
        let left = self.decidable(&left, Some(l))?;
        match p {
            B::StringExactlyMatchesPattern | B::StringDoesNotExactlyMatchPattern => {
                let pat = self.pattern(r)?;
                let m = pattern::glob(&pat)
                    .map_err(|e| self.fail(e))?
                    .is_match(&left);
                Ok(m == matches!(p, B::StringExactlyMatchesPattern))
            }
            // brush reads `=~ "literal"` as a substring test.
            B::StringContainsSubstring => {
                let right = self.single(r)?;
                let right = self.decidable(&right, Some(r))?;
                Ok(left.contains(right.as_str()))
            }
            B::StringMatchesRegex => {
                let re = self.regex_word(r)?;
                pattern::regex_matches(&left, &re).map_err(|e| self.fail(e))
            }
            _ => {
                let right = self.single(r)?;
                let right = self.decidable(&right, Some(r))?;
                self.binary(p, &left, &right, true)
            }
        }
    }

    /// The right side of `=~`: quoted parts literal, the rest a regex.
    fn regex_word(&mut self, text: &str) -> Result<String, Halt> {
        let pieces = syntax::word_pieces(text).map_err(|e| self.fail(e))?;
        let mut out = String::new();
        for p in &pieces {
            match &p.piece {
                WordPiece::Text(t) => out.push_str(t),
                WordPiece::EscapeSequence(t) => {
                    out.push_str(&pattern::regex_escape(t.strip_prefix('\\').unwrap_or(t)))
                }
                _ => {
                    let raw = &text[p.start_index.min(text.len())..p.end_index.min(text.len())];
                    let v = self.single(raw)?;
                    let v = self.decidable(&v, Some(raw))?;
                    out.push_str(&pattern::regex_escape(&v));
                }
            }
        }
        Ok(out)
    }

    /// A condition's operand (`word` as written, or `None` inside `[ … ]`,
    /// whose words are expanded first): its text, or, when it is not known,
    /// an undecidable condition (for the rules of docs/sync-bash-lanes.md to
    /// judge) rather than a refusal.
    pub(super) fn decidable(&self, v: &Val, word: Option<&str>) -> Result<String, Halt> {
        v.text().map(str::to_string).map_err(|_| {
            let what = word.map_or_else(|| "an operand".to_string(), |w| format!("`{w}`"));
            Halt::Opaque(format!(
                "{what} would have to be known to decide the condition ({})",
                v.why()
            ))
        })
    }

    /// `[ … ]` and `test …` on expanded arguments: `-n`/`-z` of a text whose
    /// emptiness is known are decided, other unknown operands make the
    /// condition undecidable.
    pub(super) fn test_values(&mut self, args: &[Val]) -> Result<bool, Halt> {
        if let [Val::Known(op), v] = args {
            let p = match op.as_str() {
                "-n" => Some(U::StringHasNonZeroLength),
                "-z" => Some(U::StringHasZeroLength),
                _ => None,
            };
            if let Some(decided) = p.and_then(|p| emptiness(&p, v)) {
                return Ok(decided);
            }
        }
        let mut texts = Vec::new();
        for a in args {
            texts.push(self.decidable(a, None)?);
        }
        self.test_command(&texts)
    }

    /// `[ … ]` and `test …`, on already expanded arguments.
    fn test_command(&mut self, args: &[String]) -> Result<bool, Halt> {
        let e = brush_parser::test_command::parse(args)
            .map_err(|e| self.fail(format!("`[ {} ]`: {e}", args.join(" "))))?;
        self.test_expr(&e)
    }

    fn test_expr(&mut self, e: &T) -> Result<bool, Halt> {
        match e {
            T::False => Ok(false),
            T::Literal(s) => Ok(!s.is_empty()),
            T::And(a, b) => Ok(self.test_expr(a)? && self.test_expr(b)?),
            T::Or(a, b) => Ok(self.test_expr(a)? || self.test_expr(b)?),
            T::Not(a) => Ok(!self.test_expr(a)?),
            T::Parenthesized(a) => self.test_expr(a),
            T::UnaryTest(p, s) => match file_test(p) {
                Some(why) => Err(Halt::Opaque(why)),
                None => self.unary(p, s),
            },
            T::BinaryTest(p, l, r) => self.binary(p, l, r, false),
        }
    }

    fn unary(&mut self, p: &U, s: &str) -> Result<bool, Halt> {
        match p {
            U::StringHasZeroLength => Ok(s.is_empty()),
            U::StringHasNonZeroLength => Ok(!s.is_empty()),
            U::ShellVariableIsSetAndAssigned if is_name(s) => match self.st.vars.get(s) {
                Some(e) if matches!(e.var.scalar(), Some(Val::MaybeUnset(_))) => Err(Halt::Opaque(
                    format!("whether `{s}` is set would have to be known to decide the condition"),
                )),
                e => Ok(e.is_some()),
            },
            other => Err(self.fail(format!("the test `{other}` is not interpreted"))),
        }
    }

    /// `extended`: operands of `-eq`… are arithmetic expressions (in `[[ ]]`),
    /// else plain integers (in `[ ]`).
    fn binary(&mut self, p: &B, l: &str, r: &str, extended: bool) -> Result<bool, Halt> {
        let int = |me: &mut Self, s: &str| -> Result<i64, Halt> {
            if extended {
                arith::eval_text(s, me).map_err(|e| me.fail(e))
            } else {
                s.trim().parse::<i64>().map_err(|_| {
                    me.fail(format!(
                        "`{s}` is not an integer (the test would fail with an error)"
                    ))
                })
            }
        };
        match p {
            B::StringExactlyMatchesString | B::StringExactlyMatchesPattern => Ok(l == r),
            B::StringDoesNotExactlyMatchString | B::StringDoesNotExactlyMatchPattern => Ok(l != r),
            B::LeftSortsBeforeRight => Ok(l < r),
            B::LeftSortsAfterRight => Ok(l > r),
            B::ArithmeticEqualTo => Ok(int(self, l)? == int(self, r)?),
            B::ArithmeticNotEqualTo => Ok(int(self, l)? != int(self, r)?),
            B::ArithmeticLessThan => Ok(int(self, l)? < int(self, r)?),
            B::ArithmeticLessThanOrEqualTo => Ok(int(self, l)? <= int(self, r)?),
            B::ArithmeticGreaterThan => Ok(int(self, l)? > int(self, r)?),
            B::ArithmeticGreaterThanOrEqualTo => Ok(int(self, l)? >= int(self, r)?),
            B::FilesReferToSameDeviceAndInodeNumbers
            | B::LeftFileIsNewerOrExistsWhenRightDoesNot
            | B::LeftFileIsOlderOrDoesNotExistWhenRightDoes => Err(Halt::Opaque(format!(
                "the file test `{p}` depends on the file system"
            ))),
            other => Err(self.fail(format!("the test `{other}` is not interpreted"))),
        }
    }
}

/// `-z`/`-n` of a value whose emptiness is known, even if its text is not.
fn emptiness(p: &U, v: &Val) -> Option<bool> {
    match p {
        U::StringHasZeroLength => v.is_empty(),
        U::StringHasNonZeroLength => v.is_empty().map(|e| !e),
        _ => None,
    }
}

/// Why a unary test depends on the file system, or `None` for string tests.
fn file_test(p: &U) -> Option<String> {
    let string_test = matches!(
        p,
        U::StringHasZeroLength
            | U::StringHasNonZeroLength
            | U::ShellVariableIsSetAndAssigned
            | U::ShellOptionEnabled
            | U::ShellVariableIsSetAndNameRef
    );
    (!string_test).then(|| format!("the test `{p}` depends on the file system or the terminal"))
}
