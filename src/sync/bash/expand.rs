//! Word expansion, in bash's order for the subset the scripts use: quotes,
//! escapes, parameter expansion (plain, `:-`/`-`, `:=`, `:+`, `:?`, `#`,
//! `%`/`%%`/`#`/`##`, indirect `!`, arrays with `[@]`/`[*]`/`[i]`),
//! arithmetic `$(( ))`, command substitutions (in [`super::subst`], never
//! run), word splitting of unquoted expansions. Pathname and brace
//! expansion, the splitting of unknown text and other parameter operators
//! are refused. Uses `sync::bash::*`.

use brush_parser::word::{
    Parameter, ParameterExpr as P, ParameterTestType, SpecialParameter, WordPiece,
};

use super::arith;
use super::interp::{Halt, Interp};
use super::pattern;
use super::state::{Val, Var};
use super::syntax;

/// What a word is expanded for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Command arguments: unquoted expansions split into fields.
    Fields,
    /// One string (assignments, `case` subjects, `[[ ]]` operands).
    Single,
    /// A glob pattern: quoted parts are escaped so they match literally.
    Pattern,
}

/// The operators that test whether a parameter is set.
#[derive(Clone, Copy)]
pub(super) enum Op {
    Default,
    Assign,
    Alternative,
    Error,
}

/// A parameter's value before operators apply.
pub(super) enum Got {
    One(Option<Val>),
    Many(Vec<Val>),
}

/// Fields being built.
struct Acc {
    mode: Mode,
    done: Vec<Val>,
    cur: Option<Val>,
    /// Unquoted text with glob characters: bash would expand pathnames.
    globby: bool,
    /// A `"$@"`-like list was expanded (an empty one yields no field).
    saw_many: bool,
    /// Why an unquoted unknown text was expanded: how it splits into words
    /// cannot be known.
    split_unknown: Option<String>,
    /// The bytes of the fields so far, each field counted with its overhead.
    bytes: usize,
}

/// What one field costs beyond its text (a `Val` and its `String`).
const FIELD_BYTES: usize = std::mem::size_of::<Val>();

impl Acc {
    fn push(&mut self, v: Val) {
        self.bytes += v.text_len();
        let cur = self.cur.take().unwrap_or(Val::known(""));
        self.cur = Some(cur.cat(v));
    }

    fn literal(&mut self, s: &str, quoted: bool) {
        if !quoted && self.mode == Mode::Fields && pattern::has_glob(s) {
            self.globby = true;
        }
        if quoted && self.mode == Mode::Pattern {
            self.push(Val::Known(pattern::escape(s)));
        } else {
            self.push(Val::known(s));
        }
    }

    fn expanded(&mut self, v: Val, quoted: bool) {
        match v {
            Val::Known(s) if !quoted && self.mode == Mode::Fields => self.split(&s),
            Val::Known(s) if quoted && self.mode == Mode::Pattern => {
                self.push(Val::Known(pattern::escape(&s)))
            }
            v => {
                if !quoted && self.mode == Mode::Fields {
                    self.split_unknown.get_or_insert_with(|| v.why());
                }
                self.push(v)
            }
        }
    }

    /// Word splitting on the default IFS (space, tab, newline).
    fn split(&mut self, s: &str) {
        if pattern::has_glob(s) {
            self.globby = true;
        }
        let ifs = |c: char| c == ' ' || c == '\t' || c == '\n';
        if s.starts_with(ifs) {
            self.end_field();
        }
        let toks: Vec<&str> = s.split(ifs).filter(|t| !t.is_empty()).collect();
        for (i, t) in toks.iter().enumerate() {
            if i > 0 {
                self.end_field();
            }
            self.push(Val::known(*t));
        }
        if s.ends_with(ifs) && !toks.is_empty() {
            self.end_field();
        }
    }

    fn end_field(&mut self) {
        if let Some(c) = self.cur.take() {
            self.bytes += FIELD_BYTES;
            self.done.push(c);
        }
    }

    fn many(&mut self, vs: Vec<Val>, quoted: bool) {
        self.saw_many = true;
        if self.mode != Mode::Fields || !quoted {
            let mut joined: Option<Val> = None;
            for v in vs {
                joined = Some(match joined {
                    None => v,
                    Some(j) => j.cat(Val::known(" ")).cat(v),
                });
            }
            if let Some(j) = joined {
                self.expanded(j, quoted);
            }
            return;
        }
        let n = vs.len();
        for (i, v) in vs.into_iter().enumerate() {
            self.push(v);
            if i + 1 < n {
                let c = self.cur.take().unwrap_or(Val::known(""));
                self.bytes += FIELD_BYTES;
                self.done.push(c);
            }
        }
    }

    fn finish(mut self) -> Vec<Val> {
        if let Some(c) = self.cur.take() {
            self.done.push(c);
        }
        self.done
    }
}

impl Interp<'_> {
    /// A command word's fields.
    pub(super) fn fields(&mut self, text: &str) -> Result<Vec<Val>, Halt> {
        let acc = self.expand(text, Mode::Fields)?;
        if let Some(why) = &acc.split_unknown {
            return Err(self.fail(format!(
                "`{text}` is unquoted, and the words its unknown text splits into are not known \
                 statically ({why})"
            )));
        }
        if acc.globby {
            return Err(self.fail(format!(
                "`{text}` would undergo pathname expansion, which depends on the file system"
            )));
        }
        Ok(acc.finish())
    }

    /// A word as one string (no splitting).
    pub(super) fn single(&mut self, text: &str) -> Result<Val, Halt> {
        let acc = self.expand(text, Mode::Single)?;
        Ok(acc
            .finish()
            .into_iter()
            .reduce(Val::cat)
            .unwrap_or(Val::known("")))
    }

    /// A word as a glob pattern, quoted parts escaped.
    pub(super) fn pattern(&mut self, text: &str) -> Result<String, Halt> {
        let acc = self.expand(text, Mode::Pattern)?;
        let v = acc
            .finish()
            .into_iter()
            .reduce(Val::cat)
            .unwrap_or(Val::known(""));
        self.known(&v, text)
    }

    /// The text of a value, or a refusal naming what could not be known.
    pub(super) fn known(&self, v: &Val, what: &str) -> Result<String, Halt> {
        v.text()
            .map(str::to_string)
            .map_err(|e| self.fail(format!("`{what}`: {e}")))
    }

    fn expand(&mut self, text: &str, mode: Mode) -> Result<Acc, Halt> {
        self.tick()?;
        let pieces = syntax::word_pieces(text).map_err(|e| self.fail(e))?;
        let mut acc = Acc {
            mode,
            done: Vec::new(),
            cur: None,
            globby: false,
            saw_many: false,
            split_unknown: None,
            bytes: 0,
        };
        for p in &pieces {
            self.piece(&p.piece, false, &mut acc)?;
            self.room_for(acc.bytes)?;
        }
        self.charge_bytes(acc.bytes)?;
        if mode == Mode::Fields && pattern::has_brace_expansion(&pieces) {
            return Err(self.fail(format!("`{text}` would undergo brace expansion")));
        }
        Ok(acc)
    }

    fn piece(&mut self, p: &WordPiece, quoted: bool, acc: &mut Acc) -> Result<(), Halt> {
        match p {
            WordPiece::Text(s) => acc.literal(s, quoted),
            WordPiece::SingleQuotedText(s) => acc.literal(s, true),
            WordPiece::DoubleQuotedSequence(inner) => {
                acc.saw_many = false;
                for q in inner {
                    self.piece(&q.piece, true, acc)?;
                }
                // `""` is an empty field; `"$@"` of nothing is none.
                if acc.cur.is_none() && !acc.saw_many {
                    acc.push(Val::known(""));
                }
            }
            WordPiece::EscapeSequence(s) => {
                let c = s.strip_prefix('\\').unwrap_or(s);
                if c != "\n" {
                    acc.literal(c, true);
                }
            }
            WordPiece::TildeExpansion(_) => acc.push(Val::Unknown("a home directory (`~`)".into())),
            WordPiece::ParameterExpansion(e) => match self.param(e)? {
                Got::One(Some(v)) => acc.expanded(v, quoted),
                Got::One(None) => {}
                Got::Many(vs) => acc.many(vs, quoted),
            },
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                let v = self.substitution(s)?;
                acc.expanded(v, quoted);
            }
            WordPiece::ArithmeticExpression(e) => {
                let text = self.single(&e.value)?;
                let text = self.known(&text, &e.value)?;
                let n = arith::eval_text(&text, self).map_err(|e| self.fail(e))?;
                acc.expanded(Val::Known(n.to_string()), quoted);
            }
            WordPiece::AnsiCQuotedText(_) | WordPiece::GettextDoubleQuotedSequence(_) => {
                return Err(self.fail("`$'…'` and `$\"…\"` quoting are not interpreted"));
            }
        }
        Ok(())
    }

    fn param(&mut self, e: &P) -> Result<Got, Halt> {
        match e {
            P::Parameter {
                parameter,
                indirect,
            } => {
                let got = self.lookup(parameter, *indirect)?;
                if matches!(got, Got::One(None))
                    && self.st.options.nounset
                    && !is_special(parameter)
                {
                    return Err(self.fail(format!(
                        "`{parameter}` is unset (set -u): the script would stop here"
                    )));
                }
                Ok(got)
            }
            P::UseDefaultValues {
                parameter,
                indirect,
                test_type,
                default_value: w,
            } => self.tested(Op::Default, parameter, *indirect, test_type, w.as_deref()),
            P::AssignDefaultValues {
                parameter,
                indirect,
                test_type,
                default_value: w,
            } => self.tested(Op::Assign, parameter, *indirect, test_type, w.as_deref()),
            P::UseAlternativeValue {
                parameter,
                indirect,
                test_type,
                alternative_value: w,
            } => self.tested(
                Op::Alternative,
                parameter,
                *indirect,
                test_type,
                w.as_deref(),
            ),
            P::IndicateErrorIfNullOrUnset {
                parameter,
                indirect,
                test_type,
                error_message: w,
            } => self.tested(Op::Error, parameter, *indirect, test_type, w.as_deref()),
            P::ParameterLength {
                parameter,
                indirect,
            } => self.length(parameter, *indirect),
            P::RemoveSmallestSuffixPattern {
                parameter,
                indirect,
                pattern,
            }
            | P::RemoveLargestSuffixPattern {
                parameter,
                indirect,
                pattern,
            }
            | P::RemoveSmallestPrefixPattern {
                parameter,
                indirect,
                pattern,
            }
            | P::RemoveLargestPrefixPattern {
                parameter,
                indirect,
                pattern,
            } => {
                let op = pattern::Trim::of(e);
                self.trimmed(parameter, *indirect, pattern.as_deref().unwrap_or(""), op)
            }
            other => Err(self.fail(format!(
                "the parameter expansion `{}` is not interpreted",
                describe(other)
            ))),
        }
    }

    /// `:-`/`-`, `:=`/`=`, `:+`/`+`, `:?`/`?`.
    fn tested(
        &mut self,
        op: Op,
        parameter: &Parameter,
        indirect: bool,
        test: &ParameterTestType,
        word: Option<&str>,
    ) -> Result<Got, Halt> {
        let v = self.one(parameter, indirect)?;
        let Some(absent) = Self::absent(&v, test) else {
            let colon = matches!(test, ParameterTestType::UnsetOrNull);
            return self.tested_unknown(op, (parameter, indirect, colon), v, word);
        };
        match op {
            Op::Default | Op::Assign | Op::Error if !absent => Ok(Got::One(v)),
            Op::Alternative if absent => Ok(Got::One(None)),
            Op::Default | Op::Alternative => Ok(Got::One(Some(self.single(word.unwrap_or(""))?))),
            Op::Assign => {
                let (Parameter::Named(name), false) = (parameter, indirect) else {
                    return Err(
                        self.fail(format!("`${{{parameter}:=…}}` assigns to a non-variable"))
                    );
                };
                let d = self.single(word.unwrap_or(""))?;
                self.st.vars.set(name, Var::Scalar(d.clone()));
                Ok(Got::One(Some(d)))
            }
            Op::Error => Err(self.fail(format!(
                "`${{{parameter}:?}}`: {parameter} is not set ({}): the script would stop here",
                word.unwrap_or("no message")
            ))),
        }
    }

    /// `${x%pat}`, `${x%%pat}`, `${x#pat}`, `${x##pat}`.
    fn trimmed(
        &mut self,
        parameter: &Parameter,
        indirect: bool,
        pat: &str,
        op: pattern::Trim,
    ) -> Result<Got, Halt> {
        let Some(v) = self.one(parameter, indirect)? else {
            return Ok(Got::One(None));
        };
        let text = self.known(&v, &parameter.to_string())?;
        let pat = self.pattern(pat)?;
        let out = pattern::trim(&text, &pat, op).map_err(|e| self.fail(e))?;
        Ok(Got::One(Some(Val::Known(out))))
    }

    fn length(&mut self, parameter: &Parameter, indirect: bool) -> Result<Got, Halt> {
        let n = match self.lookup(parameter, indirect)? {
            Got::Many(vs) => vs.len(),
            Got::One(None) => 0,
            Got::One(Some(v)) => self.known(&v, &parameter.to_string())?.chars().count(),
        };
        Ok(Got::One(Some(Val::Known(n.to_string()))))
    }

    /// A scalar parameter (`${arr[@]}` with an operator is refused).
    fn one(&mut self, p: &Parameter, indirect: bool) -> Result<Option<Val>, Halt> {
        match self.lookup(p, indirect)? {
            Got::One(v) => Ok(v),
            Got::Many(_) => Err(self.fail(format!(
                "an operator on the list `${{{p}}}` is not interpreted"
            ))),
        }
    }

    /// Unset (or, for `:`-tests, empty).
    /// `None`: an unknown text that may be empty.
    fn absent(v: &Option<Val>, t: &ParameterTestType) -> Option<bool> {
        match (v, t) {
            (None, _) => Some(true),
            (Some(Val::MaybeUnset(_)), _) => None,
            (Some(_), ParameterTestType::Unset) => Some(false),
            (Some(v), ParameterTestType::UnsetOrNull) => v.is_empty(),
        }
    }

    fn lookup(&mut self, p: &Parameter, indirect: bool) -> Result<Got, Halt> {
        if indirect {
            let name = match self.lookup(p, false)? {
                Got::One(Some(v)) => self.known(&v, &p.to_string())?,
                Got::One(None) => return Ok(Got::One(None)),
                Got::Many(_) => {
                    return Err(self.fail(format!("`${{!{p}}}` of a list is not interpreted")));
                }
            };
            if !is_name(&name) {
                return Err(self.fail(format!("`${{!{p}}}` names `{name}`, not a variable")));
            }
            return self.lookup(&Parameter::Named(name), false);
        }
        let args = self.st.args().to_vec();
        Ok(match p {
            Parameter::Named(n) => Got::One(self.st.vars.get(n).and_then(|e| e.var.scalar())),
            Parameter::Positional(0) => Got::One(Some(Val::known(self.st.arg0.clone()))),
            Parameter::Positional(i) => {
                let i = usize::try_from(*i).unwrap_or(usize::MAX);
                Got::One(args.get(i - 1).map(|a| Val::known(a.clone())))
            }
            Parameter::NamedWithIndex { name, index } => self.element(name, index)?,
            Parameter::NamedWithAllIndices { name, concatenate } => {
                let vs = match self.st.vars.get(name).map(|e| &e.var) {
                    None => Vec::new(),
                    Some(Var::Array(a)) => a.clone(),
                    Some(Var::Scalar(v)) => vec![v.clone()],
                };
                if *concatenate {
                    Got::One(join(vs))
                } else {
                    Got::Many(vs)
                }
            }
            Parameter::Special(s) => self.special(s, args),
        })
    }

    fn special(&self, s: &SpecialParameter, args: Vec<String>) -> Got {
        let vals = || {
            args.iter()
                .map(|a| Val::known(a.clone()))
                .collect::<Vec<_>>()
        };
        match s {
            SpecialParameter::AllPositionalParameters { concatenate: false } => Got::Many(vals()),
            SpecialParameter::AllPositionalParameters { concatenate: true } => {
                Got::One(join(vals()))
            }
            SpecialParameter::PositionalParameterCount => {
                Got::One(Some(Val::Known(args.len().to_string())))
            }
            SpecialParameter::LastExitStatus => {
                Got::One(Some(Val::Known(self.st.last_status.to_string())))
            }
            SpecialParameter::ShellName => Got::One(Some(Val::known(self.st.arg0.clone()))),
            SpecialParameter::ProcessId | SpecialParameter::LastBackgroundProcessId => {
                Got::One(Some(Val::Unknown(format!("`${s}` is a process id"))))
            }
            SpecialParameter::CurrentOptionFlags => {
                Got::One(Some(Val::Unknown("`$-` (shell flags)".into())))
            }
        }
    }

    fn element(&mut self, name: &str, index: &str) -> Result<Got, Halt> {
        if name == "BASH_SOURCE" {
            let i: usize = index
                .trim()
                .parse()
                .map_err(|_| self.fail(format!("`BASH_SOURCE[{index}]`")))?;
            return Ok(Got::One(
                self.st.sources.get(i).map(|s| Val::known(s.clone())),
            ));
        }
        let text = self.single(index)?;
        let text = self.known(&text, index)?;
        let i = arith::eval_text(&text, self).map_err(|e| self.fail(e))?;
        Ok(Got::One(match self.st.vars.get(name).map(|e| &e.var) {
            None => None,
            Some(Var::Scalar(v)) => (i == 0).then(|| v.clone()),
            Some(Var::Array(a)) => {
                let at = if i < 0 {
                    i64::try_from(a.len()).unwrap_or(0) + i
                } else {
                    i
                };
                usize::try_from(at).ok().and_then(|k| a.get(k)).cloned()
            }
        }))
    }
}

fn join(vs: Vec<Val>) -> Option<Val> {
    vs.into_iter()
        .reduce(|a, b| a.cat(Val::known(" ")).cat(b))
        .or(Some(Val::known("")))
}

fn is_special(p: &Parameter) -> bool {
    matches!(
        p,
        Parameter::Special(_) | Parameter::NamedWithAllIndices { .. }
    )
}

pub(super) fn is_name(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && cs.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// POSIX `dirname`.
pub(super) fn dirname(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return if path.is_empty() {
            ".".into()
        } else {
            "/".into()
        };
    }
    match trimmed.rfind('/') {
        None => ".".into(),
        Some(i) => {
            let d = trimmed[..i].trim_end_matches('/');
            if d.is_empty() { "/".into() } else { d.into() }
        }
    }
}

fn describe(e: &P) -> String {
    let kind = format!("{e:?}");
    kind.split([' ', '{', '('])
        .next()
        .unwrap_or("?")
        .to_string()
}
