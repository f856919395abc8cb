//! Simple commands: assignments, the builtins the scripts use (`export`,
//! `local`, `unset`, `set`, `source`, `return`, `exit`, `shift`, `[`/`test`,
//! `:`/`true`/`false`), calls of script and library functions, harness
//! functions skipped, external programs skipped, and the server launch
//! captured (`python3 -m sglang.launch_server …`). Nothing is ever run.
//! Uses `sync::bash::*`.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use brush_parser::ast::{self, CommandPrefixOrSuffixItem as Item};

use super::expand::is_name;
use super::interp::{Halt, Interp, Launch, MAX_DEPTH};
use super::library::{self, Effects};
use super::state::{Val, Var};
use super::syntax;

/// The module a launch must name to be the server.
pub(super) const SERVER_MODULE: &str = "sglang.launch_server";

impl Interp<'_> {
    pub(super) fn simple(&mut self, cmd: &ast::SimpleCommand) -> Result<i32, Halt> {
        self.line = syntax::simple_line(cmd);
        let mut assigns = Vec::new();
        for item in cmd.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                Item::AssignmentWord(a, _) => assigns.push(a),
                Item::ProcessSubstitution(..) => {
                    return Err(self.fail("process substitution is not interpreted"));
                }
                Item::IoRedirect(_) | Item::Word(_) => {}
            }
        }
        let suffix: Vec<&Item> = cmd.suffix.iter().flat_map(|s| s.0.iter()).collect();
        if suffix
            .iter()
            .any(|i| matches!(i, Item::ProcessSubstitution(..)))
        {
            return Err(self.fail("process substitution is not interpreted"));
        }
        let Some(name_word) = &cmd.word_or_name else {
            self.assign_only = true;
            let r = assigns.into_iter().try_for_each(|a| self.assign(a));
            self.assign_only = false;
            r?;
            return Ok(0);
        };
        let mut head = self.fields(&name_word.value)?;
        let Some(first) = head.first() else {
            return Err(self.fail(format!("`{}` expands to no command", name_word.value)));
        };
        let name = match first {
            // `"$(command -v NAME)"` runs what `NAME` would.
            Val::PathOf(name) => name.clone(),
            v => self.known(v, &name_word.value)?,
        };
        head[0] = Val::known(name.clone());
        if let Some(f) = self.funcs.get(&name).cloned() {
            return self.call_or_skip(&name, &f, &head[1..], &suffix, &assigns);
        }
        if let Some(status) = self.builtin(&name, &suffix, &assigns)? {
            return Ok(status);
        }
        self.external(&name, head, &suffix, &assigns)
    }

    fn call_or_skip(
        &mut self,
        name: &str,
        f: &Rc<super::interp::Func>,
        head_rest: &[Val],
        suffix: &[&Item],
        assigns: &[&ast::Assignment],
    ) -> Result<i32, Halt> {
        if f.library && library::harness_function(name) {
            return self.skip_harness(name);
        }
        if !assigns.is_empty() {
            return Err(self.fail(format!(
                "assignments before the call of `{name}` are not interpreted"
            )));
        }
        let mut args: Vec<String> = Vec::new();
        for v in head_rest.iter().cloned().chain(self.words(suffix)?) {
            args.push(self.known(&v, name)?);
        }
        self.call(name, f, args)
    }

    /// Runs a function body with its own positional parameters and locals.
    fn call(
        &mut self,
        name: &str,
        f: &super::interp::Func,
        args: Vec<String>,
    ) -> Result<i32, Halt> {
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(format!("`{name}`: calls nested deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        self.st.positional.push(args);
        self.st.vars.push_frame();
        let (file, line) = (self.file.clone(), self.line);
        let r = self.compound(&f.body.0);
        self.st.vars.pop_frame();
        self.st.positional.pop();
        self.depth -= 1;
        (self.file, self.line) = (file, line);
        match r {
            Err(Halt::Return(s)) => Ok(s),
            other => other,
        }
    }

    /// Skips a harness function: every variable it (or a library function
    /// it calls) may assign becomes unknown. Before the launch it must not
    /// export, change directory or source anything.
    fn skip_harness(&mut self, name: &str) -> Result<i32, Halt> {
        let mut all = Effects::default();
        let mut todo = vec![name.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(n) = todo.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            let Some(f) = self.funcs.get(&n).filter(|f| f.library).cloned() else {
                continue;
            };
            let e = Effects::of_body(&f.body);
            all.assigned.extend(e.assigned);
            todo.extend(e.calls);
            if all.forbidden.is_none() {
                all.forbidden = e.forbidden.map(|w| format!("`{n}` {w}"));
            }
        }
        if let (Some(why), None) = (&all.forbidden, &self.launch) {
            return Err(self.fail(format!(
                "the harness function `{name}` cannot be skipped before the launch: {why}"
            )));
        }
        for v in all.assigned {
            let why = format!("assigned by `{name}`, which is not interpreted");
            self.st.vars.set(&v, Var::Scalar(Val::Unknown(why)));
        }
        Ok(0)
    }

    pub(super) fn words(&mut self, suffix: &[&Item]) -> Result<Vec<Val>, Halt> {
        let mut out = Vec::new();
        for item in suffix {
            match item {
                Item::Word(w) | Item::AssignmentWord(_, w) => out.extend(self.fields(&w.value)?),
                Item::IoRedirect(_) | Item::ProcessSubstitution(..) => {}
            }
        }
        Ok(out)
    }

    fn known_words(&mut self, suffix: &[&Item]) -> Result<Vec<String>, Halt> {
        let vals = self.words(suffix)?;
        vals.iter().map(|v| self.known(v, "an argument")).collect()
    }

    /// `Ok(None)`: not a builtin.
    fn builtin(
        &mut self,
        name: &str,
        suffix: &[&Item],
        assigns: &[&ast::Assignment],
    ) -> Result<Option<i32>, Halt> {
        let is_builtin = matches!(
            name,
            ":" | "true"
                | "false"
                | "["
                | "test"
                | "export"
                | "local"
                | "unset"
                | "set"
                | "source"
                | "."
                | "return"
                | "exit"
                | "shift"
        );
        if !is_builtin {
            return Ok(None);
        }
        if !assigns.is_empty() {
            return Err(self.fail(format!("assignments before `{name}` are not interpreted")));
        }
        let status = match name {
            ":" | "true" => 0,
            "false" => 1,
            "[" | "test" => {
                let mut args = self.words(suffix)?;
                if name == "[" && args.pop() != Some(Val::known("]")) {
                    return Err(self.fail("`[` without a closing `]`"));
                }
                i32::from(!self.test_values(&args)?)
            }
            "export" | "local" => self.declare(name, suffix)?,
            "unset" => self.unset(suffix)?,
            "set" => self.set(suffix)?,
            "source" | "." => self.source(suffix)?,
            "return" | "exit" => {
                let args = self.known_words(suffix)?;
                let n = match args.as_slice() {
                    [] => self.st.last_status,
                    [n] => n
                        .parse::<i32>()
                        .map_err(|_| self.fail(format!("`{name} {n}`")))?,
                    _ => return Err(self.fail(format!("`{name}` with several arguments"))),
                };
                return Err(if name == "exit" {
                    Halt::Exit(n)
                } else {
                    Halt::Return(n)
                });
            }
            _ => self.shift(suffix)?,
        };
        Ok(Some(status))
    }

    /// `export` and `local`, with `NAME=value` or `NAME` arguments.
    fn declare(&mut self, name: &str, suffix: &[&Item]) -> Result<i32, Halt> {
        for item in suffix {
            match item {
                Item::AssignmentWord(a, _) => {
                    let n = assigned_name(a).to_string();
                    if name == "local" {
                        self.st.vars.declare_local(&n).map_err(|e| self.fail(e))?;
                    }
                    self.assign(a)?;
                    if name == "export" {
                        self.st.vars.export(&n);
                    }
                }
                Item::Word(w) => {
                    let v = self.single(&w.value)?;
                    let n = self.known(&v, &w.value)?;
                    if !is_name(&n) {
                        return Err(self.fail(format!("`{name} {n}` is not interpreted")));
                    }
                    if name == "local" {
                        self.st.vars.declare_local(&n).map_err(|e| self.fail(e))?;
                    } else {
                        self.st.vars.export(&n);
                    }
                }
                Item::IoRedirect(_) | Item::ProcessSubstitution(..) => {}
            }
        }
        Ok(0)
    }

    fn unset(&mut self, suffix: &[&Item]) -> Result<i32, Halt> {
        let mut functions = false;
        for a in self.known_words(suffix)? {
            match a.as_str() {
                "-v" => functions = false,
                "-f" => functions = true,
                n if is_name(n) && !functions => self.st.vars.unset(n),
                n if functions => {
                    self.funcs.remove(n);
                }
                n => return Err(self.fail(format!("`unset {n}` is not interpreted"))),
            }
        }
        Ok(0)
    }

    /// `set -e`, `-u`, `-x`, `-o pipefail` and their `+` forms.
    fn set(&mut self, suffix: &[&Item]) -> Result<i32, Halt> {
        let args = self.known_words(suffix)?;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let on = a.starts_with('-');
            if !(on || a.starts_with('+')) || a.len() < 2 {
                return Err(self.fail(format!("`set {a}` is not interpreted")));
            }
            for c in a[1..].chars() {
                match c {
                    'e' => self.st.options.errexit = on,
                    'u' => self.st.options.nounset = on,
                    'x' => {}
                    'o' => match it.next().map(String::as_str) {
                        Some("xtrace") => {}
                        Some("pipefail") => self.st.options.pipefail = on,
                        Some("errexit") => self.st.options.errexit = on,
                        Some("nounset") => self.st.options.nounset = on,
                        other => {
                            return Err(self.fail(format!(
                                "`set -o {}` is not interpreted",
                                other.unwrap_or("")
                            )));
                        }
                    },
                    _ => return Err(self.fail(format!("`set {a}` is not interpreted"))),
                }
            }
        }
        Ok(0)
    }

    fn shift(&mut self, suffix: &[&Item]) -> Result<i32, Halt> {
        let args = self.known_words(suffix)?;
        let n: usize = match args.as_slice() {
            [] => 1,
            [n] => n.parse().map_err(|_| self.fail(format!("`shift {n}`")))?,
            _ => return Err(self.fail("`shift` with several arguments")),
        };
        let Some(p) = self.st.positional.last_mut() else {
            return Ok(1);
        };
        if n > p.len() {
            return Ok(1);
        }
        p.drain(..n);
        Ok(0)
    }

    /// `source FILE`: read at the lane's commit, parsed and run here.
    fn source(&mut self, suffix: &[&Item]) -> Result<i32, Halt> {
        let args = self.words(suffix)?;
        let [arg] = args.as_slice() else {
            return Err(self.fail("`source` with other than one argument"));
        };
        // A path from `$(cd … && pwd)` is a file of the checkout wherever
        // the launcher mounts it.
        let path = &match arg {
            Val::InCheckout(rest) => rest.trim_start_matches('/').to_string(),
            v => self.known(v, "an argument")?,
        };
        let repo_path = normalize(path).ok_or_else(|| {
            self.fail(format!("`source {path}`: not a path inside the repository"))
        })?;
        if self.depth >= MAX_DEPTH {
            return Err(self.fail("`source` nested too deep"));
        }
        let read = self.files.read(&repo_path).map_err(|e| self.fail(e))?;
        let script = read.ok_or_else(|| {
            self.fail(format!("`source {path}`: {repo_path} is not in the source"))
        })?;
        let (file, line) = (self.file.clone(), self.line);
        self.file = Rc::from(script.name.as_str());
        self.st.sources.insert(0, repo_path);
        self.sourced += 1;
        self.depth += 1;
        let r = self.run(&script);
        self.depth -= 1;
        self.sourced -= 1;
        self.st.sources.remove(0);
        (self.file, self.line) = (file, line);
        match r {
            Ok(()) => Ok(self.st.last_status),
            Err(Halt::Return(s)) => Ok(s),
            Err(e) => Err(e),
        }
    }

    /// Programs: the server launch, skipped programs, and (after the launch) anything.
    fn external(
        &mut self,
        name: &str,
        head: Vec<Val>,
        suffix: &[&Item],
        assigns: &[&ast::Assignment],
    ) -> Result<i32, Halt> {
        if name == "python3" || name == "python" {
            let argv = head.into_iter().chain(self.words(suffix)?).collect();
            return self.python(argv, assigns);
        }
        if name == "env" && !suffix.iter().all(|i| matches!(i, Item::IoRedirect(_))) {
            return Err(self.fail("`env` with arguments runs a program; not interpreted"));
        }
        if self.launch.is_some() {
            return Ok(0);
        }
        if library::skipped_program(name) {
            if self.in_condition > 0 && library::status_depends_on_input(name) {
                return Err(Halt::Opaque(format!(
                    "`{name}` would have to run to decide the condition"
                )));
            }
            return Ok(0);
        }
        match name {
            "awk" => return self.awk(suffix),
            "sed" => return self.sed(suffix),
            _ => {}
        }
        if self.in_condition > 0 {
            // Its status decides a branch: opaque, for the guard rule to judge.
            return Err(Halt::Opaque(format!(
                "`{name}` would have to run to decide the condition"
            )));
        }
        Err(self.fail(format!(
            "the command `{name}` is not interpreted (it is neither a builtin, a function, a \
             skipped program nor the server launch)"
        )))
    }

    /// `python3 -m MODULE …`: the server launch is captured, with values
    /// that may be unknown (the mapping refuses those the page would show).
    fn python(&mut self, argv: Vec<Val>, assigns: &[&ast::Assignment]) -> Result<i32, Halt> {
        let module = match argv.get(1..3) {
            Some([Val::Known(m), Val::Known(module)]) if m == "-m" => module.clone(),
            _ => String::new(),
        };
        match (module.as_str(), &self.launch) {
            (SERVER_MODULE, None) => {
                let mut env = BTreeMap::new();
                for (k, var) in self.st.vars.exported() {
                    env.insert(k.clone(), var.scalar().unwrap_or(Val::known("")));
                }
                for a in assigns {
                    let v = match &a.value {
                        ast::AssignmentValue::Scalar(w) => self.single(&w.value)?,
                        ast::AssignmentValue::Array(_) => {
                            return Err(self.fail("an array assigned for one command"));
                        }
                    };
                    env.insert(assigned_name(a).to_string(), v);
                }
                self.launch = Some(Launch {
                    argv,
                    env,
                    at: self.at(),
                });
                Ok(0)
            }
            (SERVER_MODULE, Some(first)) => Err(self.fail(format!(
                "a second server launch (the first is at {}); several servers are not supported",
                first.at
            ))),
            ("sglang_router.launch_router", Some(_)) => Err(self.fail(
                "the script starts an SGLang router after the server; a router front door from a \
                 bash lane is not supported yet",
            )),
            (_, Some(_)) => Ok(0),
            // It creates a virtual environment (a folder); what the script
            // then does with it (`PATH`) is read like anything else.
            ("venv", None) => Ok(0),
            (_, None) => {
                let shown: Vec<String> = argv.iter().map(Val::shown).collect();
                Err(self.fail(format!(
                    "`{}` before the server launch is not interpreted",
                    shown.join(" ")
                )))
            }
        }
    }

    /// `NAME=value`, `NAME+=value`, `NAME=(…)`, `NAME+=(…)`, `NAME[i]=value`.
    pub(super) fn assign(&mut self, a: &ast::Assignment) -> Result<(), Halt> {
        self.line = syntax::line(a).max(self.line);
        let name = assigned_name(a).to_string();
        let old = self.st.vars.get(&name).map(|e| e.var.clone());
        let var = match (&a.name, &a.value) {
            (ast::AssignmentName::VariableName(_), ast::AssignmentValue::Scalar(w)) => {
                let v = self.single(&w.value)?;
                match (a.append, old) {
                    (true, Some(Var::Scalar(o))) => Var::Scalar(o.cat(v)),
                    (true, Some(Var::Array(mut arr))) if !arr.is_empty() => {
                        arr[0] = arr[0].clone().cat(v);
                        Var::Array(arr)
                    }
                    _ => Var::Scalar(v),
                }
            }
            (ast::AssignmentName::VariableName(_), ast::AssignmentValue::Array(items)) => {
                let mut vals = match (a.append, old) {
                    (true, Some(Var::Array(arr))) => arr,
                    (true, Some(Var::Scalar(s))) => vec![s],
                    _ => Vec::new(),
                };
                for (key, w) in items {
                    if key.is_some() {
                        return Err(self.fail("`[i]=` inside an array literal is not interpreted"));
                    }
                    vals.extend(self.fields(&w.value)?);
                }
                Var::Array(vals)
            }
            (ast::AssignmentName::ArrayElementName(_, index), ast::AssignmentValue::Scalar(w)) => {
                let v = self.single(&w.value)?;
                self.element_assign(old, index, v)?
            }
            _ => return Err(self.fail("this assignment form is not interpreted")),
        };
        self.st.vars.set(&name, var);
        Ok(())
    }

    fn element_assign(&mut self, old: Option<Var>, index: &str, v: Val) -> Result<Var, Halt> {
        let text = self.single(index)?;
        let text = self.known(&text, index)?;
        let i = super::arith::eval_text(&text, self).map_err(|e| self.fail(e))?;
        super::state::set_element(old, i, v).map_err(|e| self.fail(e))
    }
}

fn assigned_name(a: &ast::Assignment) -> &str {
    match &a.name {
        ast::AssignmentName::VariableName(n) | ast::AssignmentName::ArrayElementName(n, _) => n,
    }
}

/// A relative path with `.` and `..` resolved, staying inside the repository
/// (the launcher runs scripts from its root).
pub(super) fn normalize(path: &str) -> Option<String> {
    super::subst::checkout_path(path).filter(|p| !p.is_empty())
}
