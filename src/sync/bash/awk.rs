//! The one `awk` program the scripts run before the launch: a numeric test
//! whose exit status decides a branch, `awk -v s=270 -v cap=270 'BEGIN {
//! exit !(s <= 0 || s > cap) }'` (bash's integer arithmetic cannot compare
//! the decimals the scripts hold, such as a HiCache ratio of 0.75). Only that
//! form is computed: `-v NAME=VALUE` assignments, a program that is one
//! `BEGIN` action `exit EXPR`, and an expression of comparisons joined by
//! `!`, `&&`, `||` and parentheses, over those variables and integer
//! literals. The expression goes through brush's arithmetic parser (its
//! grammar and precedence are C's, as awk's are for these operators) and is
//! evaluated here on doubles, as awk compares numeric strings. Anything else
//! is not this form, and the caller treats the program as opaque.
//! docs/sync-bash-lanes.md, "A numeric test in awk". Uses nothing else of the crate.

use std::collections::HashMap;

use brush_parser::ast::{
    ArithmeticExpr as E, ArithmeticTarget, BinaryOperator as B, UnaryOperator as U,
};

/// Programs longer than this are not read (the real ones are under 60 bytes).
const MAX_PROGRAM: usize = 256;

/// The exit status of `awk ARGS`, when ARGS are this numeric-test form;
/// otherwise why not.
pub(super) fn numeric_test(args: &[String]) -> Result<i32, String> {
    let mut vars: HashMap<&str, &str> = HashMap::new();
    let mut it = args.iter();
    let mut program = None;
    while let Some(a) = it.next() {
        match a.as_str() {
            "-v" => {
                let assignment = it.next().ok_or("`-v` without an assignment")?;
                let (name, value) = assignment
                    .split_once('=')
                    .filter(|(n, _)| super::expand::is_name(n))
                    .ok_or_else(|| format!("`-v {assignment}` is not NAME=VALUE"))?;
                vars.insert(name, value);
            }
            p if program.is_none() && !p.starts_with('-') => program = Some(p),
            other => return Err(format!("the argument `{other}` is not read")),
        }
    }
    let program = program.ok_or("no program")?;
    let expr = exit_expression(program)?;
    let parsed = brush_parser::arithmetic::parse(expr)
        .map_err(|e| format!("`{expr}` is not a comparison: {e}"))?;
    let truth = Test { vars: &vars }.truth(&parsed)?;
    Ok(i32::from(truth))
}

/// `BEGIN { exit EXPR }` (an optional `;` after EXPR) → EXPR.
fn exit_expression(program: &str) -> Result<&str, String> {
    let not_form = || format!("the program `{program}` is not `BEGIN {{ exit EXPR }}`");
    if program.len() > MAX_PROGRAM {
        return Err(format!("a program of {} bytes", program.len()));
    }
    let body = program
        .trim()
        .strip_prefix("BEGIN")
        .map(str::trim_start)
        .and_then(|b| b.strip_prefix('{'))
        .and_then(|b| b.trim_end().strip_suffix('}'))
        .ok_or_else(not_form)?
        .trim();
    let expr = body.strip_prefix("exit").ok_or_else(not_form)?;
    if !expr.starts_with([' ', '\t', '(', '!']) {
        return Err(not_form());
    }
    let expr = expr.trim();
    let expr = expr.strip_suffix(';').unwrap_or(expr).trim_end();
    if expr.is_empty() || expr.contains([';', '{', '}', '"', '$']) {
        return Err(not_form());
    }
    Ok(expr)
}

struct Test<'a> {
    vars: &'a HashMap<&'a str, &'a str>,
}

impl Test<'_> {
    /// A boolean node: a comparison, `!`, `&&` or `||`.
    fn truth(&self, e: &E) -> Result<bool, String> {
        match e {
            E::UnaryOp(U::LogicalNot, x) => Ok(!self.truth(x)?),
            E::BinaryOp(B::LogicalAnd, a, b) => Ok(self.truth(a)? && self.truth(b)?),
            E::BinaryOp(B::LogicalOr, a, b) => Ok(self.truth(a)? || self.truth(b)?),
            E::BinaryOp(op, a, b) => {
                let (x, y) = (self.number(a)?, self.number(b)?);
                match op {
                    B::LessThan => Ok(x < y),
                    B::LessThanOrEqualTo => Ok(x <= y),
                    B::GreaterThan => Ok(x > y),
                    B::GreaterThanOrEqualTo => Ok(x >= y),
                    B::Equals => Ok(x == y),
                    B::NotEquals => Ok(x != y),
                    other => Err(format!("the operator {other:?} is not read")),
                }
            }
            _ => Err("the test is not a comparison".into()),
        }
    }

    /// An operand: an integer literal or a `-v` variable holding a decimal.
    fn number(&self, e: &E) -> Result<f64, String> {
        match e {
            // Exact for every literal the tests use; awk holds numbers as doubles too.
            #[allow(clippy::cast_precision_loss)]
            E::Literal(n) => Ok(*n as f64),
            E::Reference(ArithmeticTarget::Variable(name)) => {
                let v = self
                    .vars
                    .get(name.as_str())
                    .ok_or_else(|| format!("`{name}` is not given with -v"))?;
                decimal(v).ok_or_else(|| {
                    format!("`{name}` is `{v}`, not a decimal number (awk would compare text)")
                })
            }
            _ => Err("an operand is neither a variable nor an integer".into()),
        }
    }
}

/// `270`, `-1`, `0.75`, `.5`: what awk reads as a number from `-v` (without
/// the forms it reads differently by implementation: exponents, hex, blanks).
fn decimal(s: &str) -> Option<f64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    let ok = !(int.is_empty() && frac.is_empty()) && all_digits(int) && all_digits(frac);
    ok.then(|| s.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| (*a).to_string()).collect()
    }

    #[test]
    fn numeric_tests_table() {
        let t = |s: &str, cap: &str, prog: &str| {
            numeric_test(&args(&[
                "-v",
                &format!("s={s}"),
                "-v",
                &format!("cap={cap}"),
                prog,
            ]))
        };
        let range = "BEGIN { exit !(s <= 0 || s > cap) }";
        for (s, cap, prog, want) in [
            ("270", "270", range, 1),
            ("271", "270", range, 0),
            ("0", "270", range, 0),
            ("0.75", "0.75", "BEGIN { exit !(s > cap) }", 1),
            ("0.8", "0.75", "BEGIN{exit !(s>cap);}", 0),
            ("-1", "0", "BEGIN { exit !(s < cap && !(s == cap)) }", 0),
            (".5", "0", "BEGIN { exit (s > 0) }", 1),
            ("10", "9", "BEGIN { exit !(s > cap) }", 0),
        ] {
            // The status is the expression's truth: `exit !(x)` exits 1 when x is false.
            assert_eq!(t(s, cap, prog), Ok(want), "{s} {cap} {prog}");
        }
        // Values awk would not compare as numbers, and programs of another form.
        for (s, prog, want) in [
            ("", range, "not a decimal"),
            ("1e3", range, "not a decimal"),
            ("é", range, "`s` is `é`"),
            ("1", "BEGIN { exit !(x > 0) }", "`x` is not given"),
            ("1", "BEGIN { exit s + cap }", "not read"),
            ("1", "BEGIN { print s }", "not `BEGIN { exit EXPR }`"),
            ("1", "{ exit !(s > 0) }", "not `BEGIN"),
            ("1", "BEGIN { exit !(s > 0) }; END { }", "not `BEGIN"),
            ("1", "BEGIN { exit !(s > \"a\") }", "not `BEGIN"),
            ("1", "BEGIN { exit !(s > 0.5) }", "not a comparison"),
            ("1", "BEGIN { exit s }", "not a comparison"),
        ] {
            let e = t(s, "1", prog).unwrap_err();
            assert!(e.contains(want), "{s} {prog}: {e}");
        }
        for bad in [
            &["BEGIN { exit 1 }", "file"][..],
            &["-f", "prog.awk"],
            &["-v"],
            &["-v", "1x=2", "BEGIN { exit !(1 > 0) }"],
            &[],
        ] {
            assert!(numeric_test(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
