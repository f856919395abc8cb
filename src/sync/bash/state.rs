//! What the interpreter knows at a moment of a script: variables (strings
//! and indexed arrays, each value possibly unknown), which of them the script
//! exported, function-local scopes, positional parameters and the shell
//! options the scripts set. Cloned for subshells. Uses nothing else of the crate.

use std::collections::{BTreeMap, HashMap, HashSet};

/// A value, or why it cannot be known statically (a process id, a variable a
/// skipped harness function assigns, …). Unknown values may flow through
/// assignments; reading one where the server command depends on it is refused
/// (docs/sync-bash-lanes.md, "Values that cannot be known").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Val {
    Known(String),
    /// Any text, the empty one included, and why it is not known.
    Unknown(String),
    /// A text that is not empty, and why it is not known otherwise (every
    /// way the script could have gone gives a non-empty text).
    NonEmpty(String),
    /// `<checkout><rest>`: an absolute path inside the InferenceX checkout,
    /// whose mount point the launcher chooses; `rest` is empty (the root) or
    /// starts with `/` (`/benchmarks/../x` as written).
    InCheckout(String),
    /// What `command -v NAME` printed: the program `NAME` names (its path
    /// depends on the image); running it runs `NAME`.
    PathOf(String),
    /// A variable that may be unset, and why (set one way of an `if` the
    /// interpreter read both ways): tests of whether it is set are undecided.
    MaybeUnset(String),
}

impl Val {
    pub(super) fn known(s: impl Into<String>) -> Val {
        Val::Known(s.into())
    }

    /// Concatenation. Known texts join; a checkout path followed by known
    /// text stays a checkout path (`$ROOT/benchmarks`); anything else with
    /// an unknown part is unknown (keeping the first reason), and not empty
    /// when either part is not.
    pub(super) fn cat(self, other: Val) -> Val {
        match (self, other) {
            (Val::Known(a), v) if a.is_empty() => v,
            (v, Val::Known(b)) if b.is_empty() => v,
            (Val::Known(mut a), Val::Known(b)) => {
                a.push_str(&b);
                Val::Known(a)
            }
            // `<checkout>x` would name a sibling of the checkout.
            (Val::InCheckout(mut a), Val::Known(b)) if !a.is_empty() || b.starts_with('/') => {
                a.push_str(&b);
                Val::InCheckout(a)
            }
            (a, b) => {
                let why = match (&a, &b) {
                    (Val::Known(_), u) => u.why(),
                    (u, _) => u.why(),
                };
                // Both parts are non-empty here (empty known texts left above).
                let non_empty = a.is_empty() == Some(false) || b.is_empty() == Some(false);
                if non_empty {
                    Val::NonEmpty(why)
                } else {
                    Val::Unknown(why)
                }
            }
        }
    }

    /// Whether the text is empty, when that is known.
    pub(super) fn is_empty(&self) -> Option<bool> {
        match self {
            Val::Known(s) => Some(s.is_empty()),
            Val::Unknown(_) | Val::MaybeUnset(_) => None,
            Val::NonEmpty(_) | Val::InCheckout(_) | Val::PathOf(_) => Some(false),
        }
    }

    /// Why the text is not known (for a known text, the text).
    pub(super) fn why(&self) -> String {
        match self {
            Val::Known(s) => s.clone(),
            Val::Unknown(why) | Val::NonEmpty(why) | Val::MaybeUnset(why) => why.clone(),
            Val::InCheckout(rest) => format!(
                "`<checkout>{rest}`, a path in the InferenceX checkout, whose mount point the \
                 launcher chooses"
            ),
            Val::PathOf(name) => {
                format!("the path `command -v {name}` prints, which depends on the image")
            }
        }
    }

    /// The text, or `<…>` saying what it is, for messages.
    pub(super) fn shown(&self) -> String {
        match self {
            Val::Known(s) => s.clone(),
            other => format!("<{}>", other.why()),
        }
    }

    /// The length of the text a value carries (its text, path or reason),
    /// which the interpreter's byte bound counts: every kind counts, since a
    /// checkout path grows with the known text after it.
    pub(super) fn text_len(&self) -> usize {
        match self {
            Val::Known(s)
            | Val::Unknown(s)
            | Val::NonEmpty(s)
            | Val::InCheckout(s)
            | Val::PathOf(s)
            | Val::MaybeUnset(s) => s.len(),
        }
    }

    /// The text, or an error saying why it is unknown.
    pub(super) fn text(&self) -> Result<&str, String> {
        match self {
            Val::Known(s) => Ok(s),
            other => Err(format!(
                "the value is not known statically ({})",
                other.why()
            )),
        }
    }
}

/// The bytes of a value: its text (or reason) and the value itself.
fn val_bytes(v: &Val) -> usize {
    std::mem::size_of::<Val>() + v.text_len()
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Options {
    /// `-e`
    pub errexit: bool,
    /// `-u`
    pub nounset: bool,
    /// `-o pipefail`: a pipeline fails when any part fails, not only its last.
    pub pipefail: bool,
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

/// What two ways of a branch left in a variable: kept when equal; else an
/// unknown value (not empty when neither is), exported when either way
/// exported it, maybe unset when one way left it unset. An array that
/// differs has no single shape: refused.
fn either_entry(
    name: &str,
    a: Option<&Entry>,
    b: Option<&Entry>,
    why: &str,
) -> Result<Option<Entry>, String> {
    if a == b {
        return Ok(a.cloned());
    }
    let value = |e: &Entry| match &e.var {
        Var::Scalar(v) => Ok(v.clone()),
        Var::Array(_) => Err(format!(
            "the array `{name}` differs between the two ways, so it has no single shape"
        )),
    };
    let val = match (a, b) {
        (Some(x), Some(y)) => {
            let (x, y) = (value(x)?, value(y)?);
            if x.is_empty() == Some(false) && y.is_empty() == Some(false) {
                Val::NonEmpty(why.to_string())
            } else {
                Val::Unknown(why.to_string())
            }
        }
        (Some(e), None) | (None, Some(e)) => {
            value(e)?;
            Val::MaybeUnset(why.to_string())
        }
        (None, None) => return Ok(None),
    };
    let exported = a.is_some_and(|e| e.exported) || b.is_some_and(|e| e.exported);
    Ok(Some(Entry {
        var: Var::Scalar(val),
        exported,
    }))
}

impl Vars {
    /// `self` (one way) joined with `other` (the other way); the names
    /// whose value now depends on the way taken.
    fn either(&mut self, other: &Vars, why: &str) -> Result<Vec<String>, String> {
        let same_scopes = self.frames.len() == other.frames.len()
            && self
                .frames
                .iter()
                .zip(&other.frames)
                .all(|(a, b)| a.len() == b.len() && a.keys().all(|k| b.contains_key(k)));
        if !same_scopes || self.pending_export != other.pending_export {
            return Err("the two ways declare different local or exported names".into());
        }
        let mut changed = Vec::new();
        for (f, g) in self.frames.iter_mut().zip(&other.frames) {
            for (name, slot) in f.iter_mut() {
                let joined = either_entry(name, slot.as_ref(), g[name].as_ref(), why)?;
                if joined != *slot {
                    changed.push(name.clone());
                    *slot = joined;
                }
            }
        }
        let mut names: Vec<String> = self
            .global
            .keys()
            .chain(other.global.keys())
            .cloned()
            .collect();
        names.sort();
        names.dedup();
        for name in names {
            let a = self.global.get(&name);
            let joined = either_entry(&name, a, other.global.get(&name), why)?;
            if joined.as_ref() != a {
                changed.push(name.clone());
                match joined {
                    Some(e) => self.global.insert(name, e),
                    None => self.global.remove(&name),
                };
            }
        }
        Ok(changed)
    }
}

impl State {
    /// The state after a branch read both ways (`self` one way, `other` the
    /// other): variables joined by [`either_entry`]; anything else that
    /// differs (options, positional parameters, sourced files) cannot be
    /// unknown, so it is refused. The names that changed, sorted.
    pub(super) fn either(&mut self, other: &State, why: &str) -> Result<Vec<String>, String> {
        if self.options != other.options
            || self.positional != other.positional
            || self.sources != other.sources
            || self.arg0 != other.arg0
        {
            return Err("the two ways differ in shell options or parameters".into());
        }
        let mut changed = self.vars.either(&other.vars, why)?;
        changed.sort();
        changed.dedup();
        Ok(changed)
    }
}
