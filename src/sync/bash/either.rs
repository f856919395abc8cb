//! The either-way rule (docs/sync-bash-lanes.md, "The either-way rule"): an
//! `if` whose condition cannot be decided, and which neither the guard rule
//! nor the neutral-branch rule settles, is read both ways — its branch, and
//! its `else` or nothing — each on a copy of the state. When both ways end
//! normally and differ only in variables, the `if` goes on with the variables
//! that differ unknown: a value nobody can know is refused later only where
//! the server command would depend on it. Also the parameter tests of such
//! values (maybe empty, maybe unset). Uses `sync::bash::*`.

use std::collections::BTreeSet;

use brush_parser::ast;

use brush_parser::word::Parameter;

use super::expand::{Got, Op};
use super::interp::{Halt, Interp};
use super::library::Effects;
use super::state::{State, Val, Var};
use crate::util::escape;

impl Interp<'_> {
    /// Reads `i` both ways, or refuses with `why` (the condition's reason)
    /// and what stopped the rule.
    pub(super) fn either_way(&mut self, i: &ast::IfClauseCommand, why: &str) -> Result<i32, Halt> {
        let refuse = |me: &Self, because: String| {
            let shape = if i.elses.is_some() {
                String::new()
            } else {
                " (its branch changes the shell and does not only exit with an error)".into()
            };
            Err(me.fail(format!(
                "{why}; the `if` cannot be decided{shape}; read both ways, {because}"
            )))
        };
        let other: Option<&ast::CompoundList> = match i.elses.as_deref() {
            None => None,
            Some(
                [
                    ast::ElseClause {
                        condition: None,
                        body,
                    },
                ],
            ) => Some(body),
            Some(_) => return refuse(self, "an `elif` would have to be decided too".into()),
        };
        let funcs = &self.funcs;
        if !Effects::of_list(&i.condition).leaves_shell_unchanged(|c| funcs.contains_key(c)) {
            return refuse(self, "its condition could change the shell".into());
        }
        let (at, line) = (self.at(), self.line);
        let start = self.st.clone();
        let taken = match self.one_way(&i.then, &start) {
            Ok(st) => st,
            Err(because) => return refuse(self, because),
        };
        let not_taken = match other {
            Some(body) => match self.one_way(body, &start) {
                Ok(st) => st,
                Err(because) => return refuse(self, because),
            },
            None => start,
        };
        let reason = format!("set either way of the `if` at {at}, undecided: {why}");
        let mut joined = taken;
        let changed = match joined.either(&not_taken, &reason) {
            Ok(changed) => changed,
            Err(because) => return refuse(self, because),
        };
        self.st = joined;
        self.st.last_status = 0;
        self.line = line;
        let names: Vec<String> = changed.iter().map(|n| escape::code(n)).collect();
        self.note(format!(
            "{}: {}; read both ways, it leaves {} unknown (either-way rule)",
            escape::code(&at),
            escape::text(why),
            if names.is_empty() {
                "nothing".to_string()
            } else {
                names.join(", ")
            }
        ));
        Ok(0)
    }

    /// Runs `list` on a copy of `start`; the state it ends in, or why that
    /// way cannot be read: it stops the script, returns, launches, defines
    /// functions or ends with a failure.
    fn one_way(&mut self, list: &ast::CompoundList, start: &State) -> Result<State, String> {
        let funcs: BTreeSet<String> = self.funcs.keys().cloned().collect();
        let launched = self.launch.is_some();
        self.st = start.clone();
        let r = self.list(list);
        let end = std::mem::replace(&mut self.st, start.clone());
        let because = match r {
            Ok(0) => None,
            Ok(s) => Some(format!("one way ends with status {s}")),
            Err(Halt::Exit(n)) => Some(format!("one way exits with status {n}")),
            Err(Halt::Return(_)) => Some("one way returns".into()),
            Err(Halt::Opaque(w) | Halt::Fail(w)) => Some(format!("one way stops: {w}")),
        };
        if let Some(b) = because {
            return Err(b);
        }
        if self.launch.is_some() != launched {
            return Err("one way launches the server".into());
        }
        if self.funcs.keys().cloned().collect::<BTreeSet<_>>() != funcs {
            return Err("one way defines a function".into());
        }
        Ok(end)
    }

    /// A test of a parameter that may be empty (`:`-tests of an unknown
    /// text) or unset (a maybe-unset one): `:-` and `:=` give it or the
    /// default, not empty when the default is not; `:+` the word or nothing;
    /// `:?` gives it, not empty, since the run went on. Without the colon, a
    /// maybe-unset parameter, when set, may be empty: the results are
    /// unknown texts that may be empty.
    pub(super) fn tested_unknown(
        &mut self,
        op: Op,
        (parameter, indirect, colon): (&Parameter, bool, bool),
        v: Option<Val>,
        word: Option<&str>,
    ) -> Result<Got, Halt> {
        let why = v.as_ref().map_or_else(String::new, Val::why);
        let why =
            format!("`{parameter}`, which may be empty or unset ({why}), or what replaces it");
        let either = |w: Val| {
            if colon && w.is_empty() == Some(false) {
                Val::NonEmpty(why.clone())
            } else {
                Val::Unknown(why.clone())
            }
        };
        match (op, parameter, indirect) {
            (Op::Error, ..) if colon => Ok(Got::One(v.map(|v| Val::NonEmpty(v.why())))),
            (Op::Error, ..) => Ok(Got::One(v.map(|v| Val::Unknown(v.why())))),
            (Op::Alternative, ..) => Ok(Got::One(Some(Val::Unknown(why)))),
            (Op::Default, ..) => {
                let w = self.single(word.unwrap_or(""))?;
                Ok(Got::One(Some(either(w))))
            }
            (Op::Assign, Parameter::Named(name), false) => {
                let w = self.single(word.unwrap_or(""))?;
                let v = either(w);
                self.st.vars.set(name, Var::Scalar(v.clone()));
                Ok(Got::One(Some(v)))
            }
            (Op::Assign, ..) => {
                Err(self.fail(format!("`${{{parameter}:=…}}` assigns to a non-variable")))
            }
        }
    }
}
