//! Command substitutions, never run. Three forms are computed, because
//! their text follows from the script and the launcher alone: `$(dirname
//! WORD)`, `$(cd WORD && pwd)` (a folder of the checkout, see
//! [`Val::InCheckout`]) and `$(command -v NAME)` (the program `NAME` names,
//! see [`Val::PathOf`]). Any other is unknown text: what the program would
//! print. docs/sync-bash-lanes.md, "Command substitutions". Uses
//! `sync::bash::*`.

use super::expand::dirname;
use super::interp::{Halt, Interp};
use super::pattern;
use super::state::Val;

impl Interp<'_> {
    /// The value of `$(s)`.
    pub(super) fn substitution(&mut self, text: &str) -> Result<Val, Halt> {
        // Messages show the command on one line (scripts continue long ones).
        let s = &text.split_whitespace().collect::<Vec<_>>().join(" ");
        let commands = pattern::and_list(text).unwrap_or_default();
        let words: Vec<Vec<&str>> = commands
            .iter()
            .map(|c| c.iter().map(String::as_str).collect())
            .collect();
        match words.as_slice() {
            [w] if matches!(w.as_slice(), ["dirname", _]) => {
                let path = self.one_field(w[1], s)?;
                let path = self.known(&path, w[1])?;
                Ok(Val::Known(dirname(&path)))
            }
            [cd, pwd] if matches!(cd.as_slice(), ["cd", _]) && pwd.as_slice() == ["pwd"] => {
                self.ran_to_success(s)?;
                let dir = self.one_field(cd[1], s)?;
                self.folder_of_checkout(&dir, s)
            }
            [w] if matches!(w.as_slice(), ["command", "-v", _]) => {
                self.ran_to_success(s)?;
                let name = self.one_field(w[2], s)?;
                Ok(Val::PathOf(self.known(&name, w[2])?))
            }
            _ => self.not_run(s, text),
        }
    }

    /// A word of the substituted command that must expand to one field.
    fn one_field(&mut self, word: &str, s: &str) -> Result<Val, Halt> {
        let fields = self.fields(word)?;
        match <[Val; 1]>::try_from(fields) {
            Ok([one]) => Ok(one),
            Err(_) => Err(self.fail(format!("`$({s})`: `{word}` does not expand to one word"))),
        }
    }

    /// `cd` and `command -v` can fail and print nothing. Only as the value
    /// of an assignment on its own (`NAME="$(…)"`) under `set -e` does the
    /// run reaching the launch show that it succeeded: a failure would have
    /// stopped the script there.
    fn ran_to_success(&self, s: &str) -> Result<(), Halt> {
        if self.assign_only && self.in_condition == 0 && self.st.options.errexit {
            return Ok(());
        }
        Err(self.fail(format!(
            "`$({s})` may fail and print nothing; it is read only as `NAME=\"$({s})\"` under \
             `set -e`, where a failure would have stopped the script"
        )))
    }

    /// `cd DIR && pwd`: the launcher runs the script from the checkout's
    /// root, so a relative `DIR` is a folder of the checkout, printed as an
    /// absolute path whose mount point the launcher chooses.
    fn folder_of_checkout(&self, dir: &Val, s: &str) -> Result<Val, Halt> {
        let rel = match dir {
            Val::Known(d) if !d.starts_with('/') => d.as_str(),
            Val::InCheckout(rest) => rest.trim_start_matches('/'),
            Val::Known(_) => {
                return Err(self.fail(format!(
                    "`$({s})`: a folder outside the checkout, whose path depends on the image"
                )));
            }
            other => {
                return Err(self.fail(format!("`$({s})`: the folder is {}", other.why())));
            }
        };
        let under_root = |p: String| {
            if p.is_empty() { p } else { format!("/{p}") }
        };
        checkout_path(rel)
            .map(under_root)
            .map(Val::InCheckout)
            .ok_or_else(|| {
                self.fail(format!(
                    "`$({s})`: `{rel}` leaves the checkout, whose surroundings depend on the image"
                ))
            })
    }

    /// What another command would print: unknown, since nothing is run.
    /// Before the launch its programs must only print ([`only_prints`]). In
    /// an assignment on its own, the command's status becomes `$?`: under
    /// `set -e` the run went on, so it succeeded; in a condition it decides
    /// the branch.
    fn not_run(&self, s: &str, text: &str) -> Result<Val, Halt> {
        if self.launch.is_none() {
            only_prints(text)
                .map_err(|why| self.fail(format!("`$({s})` before the server launch: {why}")))?;
        }
        if self.assign_only && self.in_condition > 0 {
            return Err(Halt::Opaque(format!(
                "the status of `$({s})` would have to be known to decide the condition"
            )));
        }
        if self.assign_only && !self.st.options.errexit {
            return Err(self.fail(format!(
                "the status of `$({s})` becomes `$?`, which cannot be known without running it \
                 (without `set -e`)"
            )));
        }
        Ok(Val::Unknown(format!(
            "what `$({s})` prints, which would have to run"
        )))
    }
}

/// Programs a command substitution before the launch may name: they print
/// and change nothing (a substitution runs in a subshell, so the shell is
/// unchanged whatever it runs; files and the image are what could change).
const PRINTING: &[&str] = &[
    "basename", "cat", "date", "dirname", "echo", "find", "grep", "head", "hostname", "ls",
    "nproc", "printf", "seq", "tail", "true", "uname", "wc",
];

/// Options of [`PRINTING`] programs that act instead of printing.
const ACTING: &[(&str, &[&str])] = &[
    (
        "find",
        &[
            "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
    ),
    ("date", &["-s", "--set"]),
];

/// Why the text of a command substitution could change a file or the
/// image, or `Ok` when every program in it only prints: simple commands of
/// [`PRINTING`], without acting options, nested substitutions or writing
/// redirections.
fn only_prints(text: &str) -> Result<(), String> {
    let commands = pattern::simple_commands(text).ok_or(
        "only simple commands of printing programs, with redirections to /dev/null, are read \
         there",
    )?;
    for words in commands {
        let name = words[0].as_str();
        if !PRINTING.contains(&name) {
            return Err(format!("`{name}` is not a program read as only printing"));
        }
        for w in &words[1..] {
            if w.contains("$(") || w.contains('`') {
                return Err(format!("`{w}` holds a command substitution of its own"));
            }
            let bare = w.trim_matches(['"', '\'']);
            let acting = ACTING
                .iter()
                .filter(|(p, _)| *p == name)
                .flat_map(|(_, o)| o.iter());
            if let Some(o) = acting
                .into_iter()
                .find(|o| bare == **o || bare.starts_with(&format!("{o}=")))
            {
                return Err(format!("`{name} {o}` acts on files instead of printing"));
            }
        }
    }
    Ok(())
}

/// A path relative to the checkout's root with `.` and `..` resolved,
/// `""` for the root; `None` when it leaves the checkout.
pub(super) fn checkout_path(path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}
