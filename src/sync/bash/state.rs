//! What the interpreter knows at a moment of a script: variables (strings
//! and indexed arrays, each value possibly unknown), which of them the script
//! exported, function-local scopes, positional parameters and the shell
//! options the scripts set. Cloned for subshells. Uses nothing else of the crate.

use std::collections::{BTreeMap, HashMap, HashSet};

/// A value, or why it cannot be known statically (a process id, a variable a
/// skipped harness function assigns, …). Unknown values may flow through
/// assignments; reading one where the server command depends on it is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Val {
    Known(String),
    Unknown(String),
}

impl Val {
    pub(super) fn known(s: impl Into<String>) -> Val {
        Val::Known(s.into())
    }

    /// Concatenation: unknown wins (keeping the first reason).
    pub(super) fn cat(self, other: Val) -> Val {
        match (self, other) {
            (Val::Known(mut a), Val::Known(b)) => {
                a.push_str(&b);
                Val::Known(a)
            }
            (u @ Val::Unknown(_), _) | (_, u @ Val::Unknown(_)) => u,
        }
    }

    /// The text, or an error saying why it is unknown.
    pub(super) fn text(&self) -> Result<&str, String> {
        match self {
            Val::Known(s) => Ok(s),
            Val::Unknown(why) => Err(format!("the value is not known statically ({why})")),
        }
    }
}

/// The bytes of a value: its text (or reason) and the value itself.
fn val_bytes(v: &Val) -> usize {
    std::mem::size_of::<Val>()
        + match v {
            Val::Known(s) | Val::Unknown(s) => s.len(),
        }
}

/// A variable's content. Arrays are indexed and dense.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Var {
    Scalar(Val),
    Array(Vec<Val>),
}

impl Var {
    /// `$NAME` of an array is its element 0.
    pub(super) fn scalar(&self) -> Option<Val> {
        match self {
            Var::Scalar(v) => Some(v.clone()),
            Var::Array(a) => a.first().cloned(),
        }
    }
}

/// `old` with element `i` set to `v` (a scalar is element 0; arrays stay
/// dense, so only an existing index or the next one can be set).
pub(super) fn set_element(old: Option<Var>, i: i64, v: Val) -> Result<Var, String> {
    let mut arr = match old {
        Some(Var::Array(a)) => a,
        Some(Var::Scalar(s)) => vec![s],
        None => Vec::new(),
    };
    match usize::try_from(i) {
        Ok(i) if i < arr.len() => arr[i] = v,
        Ok(i) if i == arr.len() => arr.push(v),
        _ => return Err(format!("a sparse array element `[{i}]` is not interpreted")),
    }
    Ok(Var::Array(arr))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub var: Var,
    /// Exported by the script or a library it sourced (what the launcher
    /// passed in is the point's input, not part of the server's env).
    pub exported: bool,
}

/// Variables with bash's dynamic scoping: a `local` shadows outer values
/// until its function returns.
#[derive(Debug, Clone, Default)]
pub(super) struct Vars {
    global: HashMap<String, Entry>,
    /// Innermost last; `None` is a local declared but unset.
    frames: Vec<HashMap<String, Option<Entry>>>,
    /// `export NAME` of an unset global: exported once assigned.
    pending_export: HashSet<String>,
}

impl Vars {
    pub(super) fn get(&self, name: &str) -> Option<&Entry> {
        for f in self.frames.iter().rev() {
            if let Some(e) = f.get(name) {
                return e.as_ref();
            }
        }
        self.global.get(name)
    }

    /// Sets a variable where it lives (its local frame, else global),
    /// keeping its export flag.
    pub(super) fn set(&mut self, name: &str, var: Var) {
        if let Some(i) = self.frames.iter().rposition(|f| f.contains_key(name)) {
            let slot = self.frames[i].entry(name.to_string()).or_insert(None);
            let exported = slot.as_ref().is_some_and(|e| e.exported);
            *slot = Some(Entry { var, exported });
            return;
        }
        let exported =
            self.global.get(name).is_some_and(|e| e.exported) || self.pending_export.remove(name);
        self.global
            .insert(name.to_string(), Entry { var, exported });
    }

    /// Marks an existing variable exported (`export NAME` of an unset name
    /// only takes effect on its next assignment).
    pub(super) fn export(&mut self, name: &str) {
        if let Some(i) = self.frames.iter().rposition(|f| f.contains_key(name)) {
            if let Some(Some(e)) = self.frames[i].get_mut(name) {
                e.exported = true;
            }
            return;
        }
        match self.global.get_mut(name) {
            Some(e) => e.exported = true,
            None => {
                self.pending_export.insert(name.to_string());
            }
        }
    }

    pub(super) fn unset(&mut self, name: &str) {
        if let Some(i) = self.frames.iter().rposition(|f| f.contains_key(name)) {
            self.frames[i].insert(name.to_string(), None);
        } else {
            self.global.remove(name);
            self.pending_export.remove(name);
        }
    }

    /// `local NAME`: a new unset variable in the innermost function scope.
    pub(super) fn declare_local(&mut self, name: &str) -> Result<(), String> {
        let f = self.frames.last_mut().ok_or("`local` outside a function")?;
        f.entry(name.to_string()).or_insert(None);
        Ok(())
    }

    pub(super) fn push_frame(&mut self) {
        self.frames.push(HashMap::new());
    }

    pub(super) fn pop_frame(&mut self) {
        self.frames.pop();
    }

    /// About the bytes the variables hold (names and texts, every scope).
    pub(super) fn bytes(&self) -> usize {
        let entry = |(name, e): (&String, Option<&Entry>)| {
            name.len()
                + e.map_or(0, |e| match &e.var {
                    Var::Scalar(v) => val_bytes(v),
                    Var::Array(a) => a.iter().map(val_bytes).sum(),
                })
        };
        let global: usize = self.global.iter().map(|(n, e)| entry((n, Some(e)))).sum();
        let frames: usize = (self.frames.iter().flatten())
            .map(|(n, e)| entry((n, e.as_ref())))
            .sum();
        global + frames
    }

    /// Every visible exported variable, sorted by name.
    pub(super) fn exported(&self) -> BTreeMap<String, Var> {
        let mut names: Vec<&String> = self.global.keys().collect();
        for f in &self.frames {
            names.extend(f.keys());
        }
        let mut out = BTreeMap::new();
        for n in names {
            if let Some(e) = self.get(n).filter(|e| e.exported) {
                out.insert(n.clone(), e.var.clone());
            }
        }
        out
    }
}

/// Shell options the scripts set with `set`.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Options {
    /// `-e`
    pub errexit: bool,
    /// `-u`
    pub nounset: bool,
}

/// Everything a subshell copies.
#[derive(Debug, Clone, Default)]
pub(super) struct State {
    pub vars: Vars,
    /// `$0`
    pub arg0: String,
    /// `$1…`, one list per function call (the script's own at the bottom).
    pub positional: Vec<Vec<String>>,
    pub options: Options,
    /// `$?`
    pub last_status: i32,
    /// `BASH_SOURCE`: innermost file first.
    pub sources: Vec<String>,
}

impl State {
    pub(super) fn args(&self) -> &[String] {
        self.positional.last().map_or(&[], Vec::as_slice)
    }
}
