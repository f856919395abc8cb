//! The interpreter: runs a parsed script's control flow over [`State`] without
//! running any program. Lists, `&&`/`||`, `!`, pipelines (each part in a
//! subshell copy), `&`, `{ }`, `( )`, `if`, `case`, `for … in`, `(( ))`,
//! `[[ ]]`, functions, `set -e`/`-u`. Simple commands are in
//! [`super::commands`]. Where bash would need to run something to decide, the
//! interpreter stops with a message naming `file:line`, except for the guard
//! and neutral-branch rules (docs/sync-bash-lanes.md). Uses `sync::bash::*` and
//! `util::escape` (its notes are Markdown for the report).

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use brush_parser::ast::{self, CompoundCommand as C};

use super::arith;
use super::library::Effects;
use super::state::{State, Val, Var};
use super::syntax::{self, Script};
use crate::util::escape;

/// Commands run before the interpreter gives up (bounds any input's cost).
const MAX_STEPS: usize = 200_000;
/// Bytes all expansions and subshell copies of one run may produce: every
/// value a script holds was made by an expansion, so this bounds its memory
/// (`x=$x$x` forty times asked for 2^40 bytes). The real scripts produce
/// well under 1 MiB.
const MAX_EXPANDED_BYTES: usize = 64 << 20;
/// Function calls and `source`s nested deeper than this are refused.
pub(super) const MAX_DEPTH: usize = 32;
/// Compound commands (function bodies included) open at once, across calls:
/// each is a level of this interpreter's recursion, and calls multiply the
/// nesting the text allows (32 calls of bodies nested 100 deep), so the
/// count is kept here, not only bounded by the text. Measured in a debug
/// build: 4.5 KB of stack a nested `if`, 16 KB a function call with its body.
pub(super) const MAX_NESTING: usize = 256;

/// Why execution stopped going straight on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Halt {
    /// `exit N`, or `set -e` after a failure.
    Exit(i32),
    /// `return N` from a function or sourced file.
    Return(i32),
    /// A condition that cannot be decided without running something.
    Opaque(String),
    /// Refused: the message names `file:line` and why.
    Fail(String),
}

/// Files a script sources (`benchmark_lib.sh`), read at the lane's commit
/// and parsed (once: every point of a lane sources the same file).
pub(super) trait Files {
    /// The parsed file, named `path@commit` for messages; `Ok(None)` when absent.
    fn read(&mut self, repo_path: &str) -> Result<Option<Rc<Script>>, String>;
}

/// The server launch: its argv and the environment the script exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Launch {
    /// Words that may be unknown: the mapping refuses those the page would
    /// show (docs/sync-bash-lanes.md, "Values that cannot be known").
    pub argv: Vec<Val>,
    pub env: BTreeMap<String, Val>,
    /// `file:line` of the launching command.
    pub at: String,
}

/// A function definition and where it came from.
pub(super) struct Func {
    pub body: ast::FunctionBody,
    /// Defined by a sourced library rather than the script itself.
    pub library: bool,
}

pub(super) struct Interp<'a> {
    pub st: State,
    pub funcs: HashMap<String, Rc<Func>>,
    pub files: &'a mut dyn Files,
    pub launch: Option<Launch>,
    /// What the reviewer should know (guards assumed not taken, …).
    pub notes: Vec<String>,
    pub file: Rc<str>,
    pub line: usize,
    /// Files sourced below the script (0 in the script itself).
    pub sourced: usize,
    steps: usize,
    /// Bytes expansions and subshell copies produced so far.
    expanded: usize,
    pub depth: usize,
    /// Compound commands being run (see [`MAX_NESTING`]).
    nesting: usize,
    /// Inside a condition: `set -e` does not apply.
    pub in_condition: usize,
    /// Expanding an assignment without a command (`NAME="$(…)"`): its
    /// status is its last command substitution's.
    pub assign_only: bool,
    /// Image patches the manifest vouches for: `path:line` → why the patch
    /// does not change how the server serves.
    pub reviewed_patches: BTreeMap<String, String>,
}

impl<'a> Interp<'a> {
    pub(super) fn new(st: State, files: &'a mut dyn Files, file: &str) -> Interp<'a> {
        Interp {
            st,
            funcs: HashMap::new(),
            files,
            launch: None,
            notes: Vec::new(),
            file: Rc::from(file),
            line: 0,
            sourced: 0,
            steps: 0,
            expanded: 0,
            depth: 0,
            nesting: 0,
            in_condition: 0,
            assign_only: false,
            reviewed_patches: BTreeMap::new(),
        }
    }

    /// A refusal at the current line.
    pub(super) fn fail(&self, msg: impl std::fmt::Display) -> Halt {
        Halt::Fail(format!("{}:{}: {msg}", self.file, self.line))
    }

    pub(super) fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// Counts a step; refuses inputs that would run too long.
    pub(super) fn tick(&mut self) -> Result<(), Halt> {
        self.count_step().map_err(|e| self.fail(e))
    }

    /// A step, the message without `file:line` (arithmetic adds it).
    fn count_step(&mut self) -> Result<(), String> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(format!(
                "more than {MAX_STEPS} steps (commands, words and variables arithmetic \
                 reads); not interpreted further"
            ));
        }
        Ok(())
    }

    /// Refuses when `more` bytes would pass the run's expansion bound.
    pub(super) fn room_for(&self, more: usize) -> Result<(), Halt> {
        if self.expanded.saturating_add(more) > MAX_EXPANDED_BYTES {
            return Err(self.fail(format!(
                "expansions would produce more than {} MiB; not interpreted further",
                MAX_EXPANDED_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Counts `bytes` produced against the run's expansion bound.
    pub(super) fn charge_bytes(&mut self, bytes: usize) -> Result<(), Halt> {
        self.room_for(bytes)?;
        self.expanded += bytes;
        Ok(())
    }

    /// Runs a whole script; what it stopped with, if anything.
    pub(super) fn run(&mut self, script: &Script) -> Result<(), Halt> {
        for list in &script.program.complete_commands {
            self.list(list)?;
        }
        Ok(())
    }

    pub(super) fn list(&mut self, list: &ast::CompoundList) -> Result<i32, Halt> {
        let mut status = 0;
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            status = match sep {
                ast::SeparatorOperator::Sequence => self.and_or(and_or)?,
                ast::SeparatorOperator::Async => {
                    self.line = syntax::line(and_or);
                    self.subshell(|me| me.and_or(and_or))?;
                    0
                }
            };
            self.st.last_status = status;
        }
        Ok(status)
    }

    fn and_or(&mut self, l: &ast::AndOrList) -> Result<i32, Halt> {
        let n = l.additional.len();
        let mut status = self.pipeline(&l.first, n == 0)?;
        for (i, next) in l.additional.iter().enumerate() {
            let last = i + 1 == n;
            status = match next {
                ast::AndOr::And(p) if status == 0 => self.pipeline(p, last)?,
                ast::AndOr::Or(p) if status != 0 => self.pipeline(p, last)?,
                _ => status,
            };
        }
        Ok(status)
    }

    /// `checked`: the last part of an and-or list, where `set -e` applies.
    fn pipeline(&mut self, p: &ast::Pipeline, checked: bool) -> Result<i32, Halt> {
        if p.timed.is_some() {
            return Err(self.fail("`time` is not interpreted"));
        }
        let status = match p.seq.as_slice() {
            [one] => self.command(one)?,
            parts => {
                // Each part runs in a subshell. The status is the last part's,
                // or with `pipefail` the last failing part's.
                let mut status = 0;
                for c in parts {
                    let s = self.subshell(|me| me.command(c))?;
                    if s != 0 || !self.st.options.pipefail {
                        status = s;
                    }
                }
                status
            }
        };
        let status = if p.bang {
            i32::from(status == 0)
        } else {
            status
        };
        self.st.last_status = status;
        if checked && !p.bang && status != 0 && self.st.options.errexit && self.in_condition == 0 {
            return Err(Halt::Exit(status));
        }
        Ok(status)
    }

    /// Runs `f` on a copy of the state (a subshell): variables, functions and
    /// options it changes are dropped; a launch inside it is kept. `exit`
    /// inside leaves only the subshell.
    pub(super) fn subshell(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<i32, Halt>,
    ) -> Result<i32, Halt> {
        // The copy is as large as the state: counted like an expansion, so
        // 200,000 pipelines of a large state cannot copy without end.
        self.charge_bytes(self.st.vars.bytes())?;
        let saved = self.st.clone();
        let funcs = self.funcs.clone();
        let r = f(self);
        self.st = saved;
        self.funcs = funcs;
        match r {
            Ok(s) | Err(Halt::Exit(s)) | Err(Halt::Return(s)) => Ok(s),
            // An undecidable status stays undecidable: the `if` it decides
            // judges it (the guard and neutral-branch rules), else it is refused.
            Err(e) => Err(e),
        }
    }

    fn command(&mut self, c: &ast::Command) -> Result<i32, Halt> {
        self.tick()?;
        match c {
            ast::Command::Simple(s) => self.simple(s),
            ast::Command::Compound(cc, _redirects) => self.compound(cc),
            ast::Command::Function(f) => {
                self.line = syntax::line(f);
                let name = f.fname.value.clone();
                if name.is_empty() || name.contains(['=', '$', '`', '"', '\'']) {
                    return Err(self.fail(format!("`{name}` is not a function name")));
                }
                let func = Func {
                    body: f.body.clone(),
                    library: self.sourced > 0,
                };
                self.funcs.insert(name, Rc::new(func));
                Ok(0)
            }
            ast::Command::ExtendedTest(t, _) => {
                self.line = syntax::line(t);
                Ok(i32::from(!self.extended_test(&t.expr)?))
            }
        }
    }

    pub(super) fn compound(&mut self, cc: &C) -> Result<i32, Halt> {
        self.line = syntax::line(cc);
        if self.nesting >= MAX_NESTING {
            return Err(self.fail(format!(
                "compound commands and function calls nested more than {MAX_NESTING} deep; \
                 not interpreted"
            )));
        }
        self.nesting += 1;
        let r = self.compound_inner(cc);
        self.nesting -= 1;
        r
    }

    fn compound_inner(&mut self, cc: &C) -> Result<i32, Halt> {
        match cc {
            C::BraceGroup(g) => self.list(&g.list),
            C::Subshell(s) => self.subshell(|me| me.list(&s.list)),
            C::IfClause(i) => self.if_clause(i),
            C::CaseClause(c) => self.case_clause(c),
            C::ForClause(f) => self.for_clause(f),
            C::Arithmetic(a) => {
                let text = self.single(&a.expr.value)?;
                let text = self.known(&text, &a.expr.value)?;
                let v = arith::eval_text(&text, self).map_err(|e| self.fail(e))?;
                Ok(i32::from(v == 0))
            }
            C::WhileClause(_) | C::UntilClause(_) | C::ArithmeticForClause(_) => Err(self.fail(
                "`while`, `until` and `for ((…))` loops are not interpreted (their length \
                 is not bounded by the script's text)",
            )),
            C::Coprocess(_) => Err(self.fail("`coproc` is not interpreted")),
        }
    }

    /// A condition's status; `set -e` does not apply inside.
    fn condition(&mut self, list: &ast::CompoundList) -> Result<i32, Halt> {
        self.in_condition += 1;
        let r = self.list(list);
        self.in_condition -= 1;
        r
    }

    fn if_clause(&mut self, i: &ast::IfClauseCommand) -> Result<i32, Halt> {
        let line = self.line;
        match self.condition(&i.condition) {
            Ok(0) => return self.list(&i.then),
            Ok(_) => {}
            Err(Halt::Opaque(why)) => return self.guard(i, line, &why),
            Err(e) => return Err(e),
        }
        for e in i.elses.iter().flatten() {
            let taken = match &e.condition {
                None => true,
                Some(c) => match self.condition(c) {
                    Ok(s) => s == 0,
                    Err(Halt::Opaque(why)) => {
                        return Err(self.fail(format!("{why}; the `elif` cannot be decided")));
                    }
                    Err(e) => return Err(e),
                },
            };
            if taken {
                return self.list(&e.body);
            }
        }
        Ok(0)
    }

    /// An `if` whose condition cannot be decided. Without `else`, the guard
    /// rule: when its body ends in `exit N` (N ≠ 0), it was not taken — the
    /// measured run got past it to the launch; and the neutral-branch rule:
    /// when its body cannot change the shell (no assignment, no function, no
    /// builtin that changes the shell: only programs), the launch is the same
    /// either way; the body is run, so its programs are judged as any others.
    /// Otherwise the either-way rule ([`super::either`]).
    fn guard(&mut self, i: &ast::IfClauseCommand, line: usize, why: &str) -> Result<i32, Halt> {
        self.line = line;
        if i.elses.is_some() {
            return self.either_way(i, why);
        }
        if self.launch.is_none() && ends_in_error_exit(&i.then) {
            self.note(format!(
                "{}: {}; its branch only exits with an error, so the measured run did not take \
                 it (guard rule)",
                escape::code(&self.at()),
                escape::text(why)
            ));
            return Ok(0);
        }
        let funcs = &self.funcs;
        if Effects::of_list(&i.then).leaves_shell_unchanged(|c| funcs.contains_key(c)) {
            self.note(format!(
                "{}: {}; its branch changes no variable and runs only programs, so the launch \
                 is the same whichever way it went (neutral-branch rule)",
                escape::code(&self.at()),
                escape::text(why)
            ));
            return self.list(&i.then);
        }
        self.either_way(i, why)
    }

    /// A note for the reviewer, once: Markdown for the report, data in it
    /// through the escaping module.
    pub(super) fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    fn case_clause(&mut self, c: &ast::CaseClauseCommand) -> Result<i32, Halt> {
        let subject = self.single(&c.value.value)?;
        let subject = self.known(&subject, &c.value.value)?;
        for item in &c.cases {
            let mut hit = false;
            for p in &item.patterns {
                let pat = self.pattern(&p.value)?;
                if super::pattern::glob(&pat)
                    .map_err(|e| self.fail(e))?
                    .is_match(&subject)
                {
                    hit = true;
                    break;
                }
            }
            if !hit {
                continue;
            }
            if !matches!(item.post_action, ast::CaseItemPostAction::ExitCase) {
                return Err(self.fail("`;&` and `;;&` in `case` are not interpreted"));
            }
            return match &item.cmd {
                Some(list) => self.list(list),
                None => Ok(0),
            };
        }
        Ok(0)
    }

    fn for_clause(&mut self, f: &ast::ForClauseCommand) -> Result<i32, Halt> {
        let items: Vec<Val> = match &f.values {
            Some(words) => {
                let mut out = Vec::new();
                for w in words {
                    out.extend(self.fields(&w.value)?);
                }
                out
            }
            None => self
                .st
                .args()
                .iter()
                .map(|a| Val::known(a.clone()))
                .collect(),
        };
        let mut status = 0;
        for v in items {
            self.st
                .vars
                .set(&f.variable_name, super::state::Var::Scalar(v));
            status = self.list(&f.body.list)?;
        }
        Ok(status)
    }
}

/// Whether a list's last command is `exit N` with a literal N other than 0.
fn ends_in_error_exit(list: &ast::CompoundList) -> bool {
    let Some(ast::CompoundListItem(last, _)) = list.0.last() else {
        return false;
    };
    if !last.additional.is_empty() {
        return false;
    }
    let [ast::Command::Simple(cmd)] = last.first.seq.as_slice() else {
        return false;
    };
    let words: Vec<&str> = cmd
        .suffix
        .iter()
        .flat_map(|s| s.0.iter())
        .filter_map(|i| match i {
            ast::CommandPrefixOrSuffixItem::Word(w) => Some(w.value.as_str()),
            _ => None,
        })
        .collect();
    cmd.word_or_name.as_ref().is_some_and(|w| w.value == "exit")
        && matches!(words.as_slice(), [n] if n.parse::<i32>().is_ok_and(|n| n != 0))
}

impl arith::ArithVars for Interp<'_> {
    fn value(&self, name: &str, index: Option<i64>) -> Result<Option<String>, String> {
        let v = match (self.st.vars.get(name).map(|e| &e.var), index) {
            (None, _) => None,
            (Some(Var::Scalar(v)), None | Some(0)) => Some(v.clone()),
            (Some(Var::Scalar(_)), Some(_)) => None,
            (Some(Var::Array(a)), i) => usize::try_from(i.unwrap_or(0))
                .ok()
                .and_then(|i| a.get(i))
                .cloned(),
        };
        match v {
            None => Ok(None),
            Some(Val::Known(s)) => Ok(Some(s)),
            Some(other) => Err(format!(
                "`{name}` is not known statically ({})",
                other.why()
            )),
        }
    }

    fn nounset(&self) -> bool {
        self.st.options.nounset
    }

    fn charge(&mut self) -> Result<(), String> {
        self.count_step()
    }

    fn assign(&mut self, name: &str, index: Option<i64>, value: i64) -> Result<(), String> {
        let v = Val::Known(value.to_string());
        match index {
            None => self.st.vars.set(name, Var::Scalar(v)),
            Some(i) => {
                let old = self.st.vars.get(name).map(|e| e.var.clone());
                let var =
                    super::state::set_element(old, i, v).map_err(|e| format!("`{name}`: {e}"))?;
                self.st.vars.set(name, var);
            }
        }
        Ok(())
    }
}
