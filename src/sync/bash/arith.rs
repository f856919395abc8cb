//! Shell arithmetic (`$(( ))`, `(( ))`, array indices, `[[ a -gt b ]]`),
//! parsed by brush and evaluated here on 64-bit integers. Where bash would
//! wrap around (overflow) or stop (division by zero), this refuses.
//! Uses nothing else of the crate.

use brush_parser::ast::{
    ArithmeticExpr as E, ArithmeticTarget, BinaryOperator as B, UnaryAssignmentOperator as UA,
    UnaryOperator as U,
};

/// A variable's value is itself evaluated as arithmetic, as bash does; this
/// bounds that recursion (`A=B`, `B=A`).
const MAX_DEPTH: usize = 16;

/// Operators and brackets in one expression: its text is expanded (values
/// included), not the script's, so it has its own bound.
const MAX_OPERATORS: usize = 64;

/// The characters of arithmetic operators and brackets.
const OPERATOR_CHARS: &str = "+-*/%<>=!~&|^?:,([";

/// The variables arithmetic reads and writes.
pub(super) trait ArithVars {
    /// The text of `name` (or of its element `index`); `Ok(None)` when unset.
    fn value(&self, name: &str, index: Option<i64>) -> Result<Option<String>, String>;
    /// Whether reading an unset variable is an error (`set -u`).
    fn nounset(&self) -> bool;
    fn assign(&mut self, name: &str, index: Option<i64>, value: i64) -> Result<(), String>;
    /// Counts one variable read against the run's bound: a value is
    /// arithmetic again, so a few short variables can make exponentially
    /// many reads (`a=b+b+…`, `b=c+c+…`) where depth alone bounds nothing.
    fn charge(&mut self) -> Result<(), String>;
}

/// Evaluates expression text (already parameter-expanded).
pub(super) fn eval_text(text: &str, vars: &mut dyn ArithVars) -> Result<i64, String> {
    eval_at(text, vars, 0)
}

fn eval_at(text: &str, vars: &mut dyn ArithVars, depth: usize) -> Result<i64, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "arithmetic on `{text}` refers to itself more than {MAX_DEPTH} times"
        ));
    }
    // The tree nests by operators as much as by parentheses (`- - - 1`,
    // `a=a=1`, `1+1+1`: each operator is one more level of the parser's and
    // the evaluator's recursion), so their number is bounded the same way:
    // every level needs one of these characters.
    let operators = text.chars().filter(|c| OPERATOR_CHARS.contains(*c)).count();
    if operators > MAX_OPERATORS {
        return Err(format!(
            "arithmetic with {operators} operators and brackets; more than {MAX_OPERATORS} \
             is not evaluated"
        ));
    }
    let expr =
        brush_parser::arithmetic::parse(text).map_err(|e| format!("arithmetic `{text}`: {e}"))?;
    Eval { vars, depth }.expr(&expr)
}

struct Eval<'a> {
    vars: &'a mut dyn ArithVars,
    depth: usize,
}

impl Eval<'_> {
    fn expr(&mut self, e: &E) -> Result<i64, String> {
        match e {
            E::Literal(n) => Ok(*n),
            E::Reference(t) => self.read(t),
            E::UnaryOp(op, x) => unary(*op, self.expr(x)?),
            E::BinaryOp(B::LogicalAnd, a, b) => {
                Ok(i64::from(self.expr(a)? != 0 && self.expr(b)? != 0))
            }
            E::BinaryOp(B::LogicalOr, a, b) => {
                Ok(i64::from(self.expr(a)? != 0 || self.expr(b)? != 0))
            }
            E::BinaryOp(op, a, b) => {
                let (x, y) = (self.expr(a)?, self.expr(b)?);
                binary(*op, x, y)
            }
            E::Conditional(c, a, b) => {
                if self.expr(c)? != 0 {
                    self.expr(a)
                } else {
                    self.expr(b)
                }
            }
            E::Assignment(t, x) => {
                let v = self.expr(x)?;
                self.write(t, v)?;
                Ok(v)
            }
            E::BinaryAssignment(op, t, x) => {
                let v = binary(*op, self.read(t)?, self.expr(x)?)?;
                self.write(t, v)?;
                Ok(v)
            }
            E::UnaryAssignment(op, t) => self.step(*op, t),
        }
    }

    fn step(&mut self, op: UA, t: &ArithmeticTarget) -> Result<i64, String> {
        let old = self.read(t)?;
        let delta = match op {
            UA::PrefixIncrement | UA::PostfixIncrement => 1,
            UA::PrefixDecrement | UA::PostfixDecrement => -1,
        };
        let new = old.checked_add(delta).ok_or_else(overflow)?;
        self.write(t, new)?;
        Ok(match op {
            UA::PrefixIncrement | UA::PrefixDecrement => new,
            UA::PostfixIncrement | UA::PostfixDecrement => old,
        })
    }

    fn target(&mut self, t: &ArithmeticTarget) -> Result<(String, Option<i64>), String> {
        match t {
            ArithmeticTarget::Variable(n) => Ok((n.clone(), None)),
            ArithmeticTarget::ArrayElement(n, i) => Ok((n.clone(), Some(self.expr(i)?))),
        }
    }

    fn read(&mut self, t: &ArithmeticTarget) -> Result<i64, String> {
        let (name, index) = self.target(t)?;
        self.vars.charge()?;
        match self.vars.value(&name, index)? {
            None if self.vars.nounset() => Err(format!(
                "`{name}` is unset (set -u): the script would stop here"
            )),
            None => Ok(0),
            Some(text) if text.trim().is_empty() => Ok(0),
            Some(text) => eval_at(text.trim(), self.vars, self.depth + 1),
        }
    }

    fn write(&mut self, t: &ArithmeticTarget, v: i64) -> Result<(), String> {
        let (name, index) = self.target(t)?;
        self.vars.assign(&name, index, v)
    }
}

fn overflow() -> String {
    "arithmetic overflows 64 bits (bash would wrap around)".to_string()
}

fn unary(op: U, x: i64) -> Result<i64, String> {
    Ok(match op {
        U::UnaryPlus => x,
        U::UnaryMinus => x.checked_neg().ok_or_else(overflow)?,
        U::BitwiseNot => !x,
        U::LogicalNot => i64::from(x == 0),
    })
}

fn binary(op: B, x: i64, y: i64) -> Result<i64, String> {
    let shift = |y: i64| u32::try_from(y).ok().filter(|s| *s < 64);
    let v = match op {
        B::Power => {
            let e = u32::try_from(y).map_err(|_| "a negative exponent".to_string())?;
            x.checked_pow(e)
        }
        B::Multiply => x.checked_mul(y),
        B::Divide | B::Modulo if y == 0 => return Err("division by zero".into()),
        B::Divide => x.checked_div(y),
        B::Modulo => x.checked_rem(y),
        B::Comma => Some(y),
        B::Add => x.checked_add(y),
        B::Subtract => x.checked_sub(y),
        B::ShiftLeft => shift(y).and_then(|s| x.checked_shl(s)),
        B::ShiftRight => shift(y).and_then(|s| x.checked_shr(s)),
        B::LessThan => Some(i64::from(x < y)),
        B::LessThanOrEqualTo => Some(i64::from(x <= y)),
        B::GreaterThan => Some(i64::from(x > y)),
        B::GreaterThanOrEqualTo => Some(i64::from(x >= y)),
        B::Equals => Some(i64::from(x == y)),
        B::NotEquals => Some(i64::from(x != y)),
        B::BitwiseAnd => Some(x & y),
        B::BitwiseXor => Some(x ^ y),
        B::BitwiseOr => Some(x | y),
        B::LogicalAnd => Some(i64::from(x != 0 && y != 0)),
        B::LogicalOr => Some(i64::from(x != 0 || y != 0)),
    };
    v.ok_or_else(overflow)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Map(HashMap<String, String>, bool);

    impl ArithVars for Map {
        fn value(&self, name: &str, _: Option<i64>) -> Result<Option<String>, String> {
            Ok(self.0.get(name).cloned())
        }
        fn nounset(&self) -> bool {
            self.1
        }
        fn assign(&mut self, name: &str, _: Option<i64>, v: i64) -> Result<(), String> {
            self.0.insert(name.into(), v.to_string());
            Ok(())
        }
        fn charge(&mut self) -> Result<(), String> {
            Ok(())
        }
    }

    #[test]
    fn table() {
        let vars = [
            ("TP", "2"),
            ("CONC", "36"),
            ("R", "TP"),
            ("E", ""),
            ("S", " 7 "),
        ];
        let mut m = Map(
            vars.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            true,
        );
        for (text, want) in [
            ("2 * CONC", Ok(72)),
            ("(598 * 15 / TP / 31)", Ok(144)),
            ("((144 * TP * 31 + 14) / 15 + TP)", Ok(598)),
            ("R + 1", Ok(3)),
            ("E + 1", Ok(1)),
            ("S * 2", Ok(14)),
            ("CONC > 64 ? 64 : CONC", Ok(36)),
            ("X = 5, X * 2", Ok(10)),
            ("1 / 0", Err("division by zero")),
            ("9223372036854775807 + 1", Err("overflows")),
            ("NOPE + 1", Err("`NOPE` is unset")),
            ("2 ** -1", Err("negative exponent")),
            ("1 +", Err("arithmetic `1 +`")),
        ] {
            match (eval_text(text, &mut m), want) {
                (Ok(v), Ok(w)) => assert_eq!(v, w, "{text}"),
                (Err(e), Err(w)) => assert!(e.contains(w), "{text}: {e}"),
                (got, w) => panic!("{text}: {got:?}, want {w:?}"),
            }
        }
        assert_eq!(m.0["X"], "5");
        m.0.insert("A".into(), "B".into());
        m.0.insert("B".into(), "A".into());
        assert!(
            eval_text("A", &mut m)
                .unwrap_err()
                .contains("refers to itself")
        );
    }
}
