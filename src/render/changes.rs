//! What a derived command set changes against the measured launch of the
//! same point (submitted router, measured tier): per process, the flags and
//! env lines added, removed or changed, and the processes added or removed.
//! Shown next to the set's blocks; the copyable text does not change.
//!
//! May use: `decode` (the model), `util::escape` (every data string), `data`
//! (its tests' blocks).

use std::fmt::Write as _;

use crate::decode::{CommandSet, Process};
use crate::util::escape::{code, text};

/// One line of a command that a reader recognises: `--flag values` or
/// `NAME=value`, keyed by the flag or the name.
/// Borrowed from the command: a derived page compares hundreds of commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Setting<'a> {
    key: &'a str,
    line: &'a str,
}

/// The flags and env lines of a command, in order.
fn settings(command: &str) -> Vec<Setting<'_>> {
    let mut out = Vec::new();
    for raw in command.lines() {
        let line = raw.trim_end().trim_end_matches('\\').trim();
        let key = if line.starts_with('-') {
            line.split_whitespace().next().unwrap_or(line)
        } else {
            // `NAME=…`: the name is the run of ASCII letters, digits and `_`
            // that starts the line and ends at its first `=` (read up to
            // there only: command lines are long).
            let name_len = line
                .bytes()
                .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
                .unwrap_or(line.len());
            match line.as_bytes().get(name_len) {
                Some(b'=') if name_len > 0 => &line[..name_len],
                _ => continue,
            }
        };
        out.push(Setting { key, line });
    }
    out
}

/// What one process of a derived set changes against the measured launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ProcessChange<'a> {
    /// Settings (`--flag values`, `NAME=value` lines) added, removed, and
    /// changed (old line, new line).
    Settings {
        added: Vec<&'a str>,
        removed: Vec<&'a str>,
        changed: Vec<(&'a str, &'a str)>,
    },
    /// A process the measured launch does not run.
    Added,
    /// A process of the measured launch this set does not run.
    Removed,
}

/// Differences of one process, or `None` when it sets the same.
fn process_changes<'a>(derived: &'a Process, base: &'a Process) -> Option<ProcessChange<'a>> {
    let (d, b) = (settings(&derived.command), settings(&base.command));
    fn find<'a>(v: &[Setting<'a>], k: &str) -> Option<Setting<'a>> {
        v.iter().find(|s| s.key == k).copied()
    }
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for s in &d {
        match find(&b, s.key) {
            None => added.push(s.line),
            Some(old) if old.line != s.line => changed.push((old.line, s.line)),
            _ => {}
        }
    }
    let removed: Vec<&str> = b
        .iter()
        .filter(|s| find(&d, s.key).is_none())
        .map(|s| s.line)
        .collect();
    let none = added.is_empty() && removed.is_empty() && changed.is_empty();
    (!none).then_some(ProcessChange::Settings {
        added,
        removed,
        changed,
    })
}

/// `added `a`, `b`; removed …; changed `x` → `y`` as Markdown.
fn settings_markdown(change: &ProcessChange<'_>) -> String {
    match change {
        ProcessChange::Added => "added (not in the measured launch)".into(),
        ProcessChange::Removed => "removed".into(),
        ProcessChange::Settings {
            added,
            removed,
            changed,
        } => {
            let codes = |v: &[&str]| v.iter().map(|l| code(l)).collect::<Vec<_>>();
            let changed: Vec<String> = changed
                .iter()
                .map(|(a, b)| format!("{} → {}", code(a), code(b)))
                .collect();
            let mut parts = Vec::new();
            for (what, list) in [
                ("added", codes(added)),
                ("removed", codes(removed)),
                ("changed", changed),
            ] {
                if !list.is_empty() {
                    parts.push(format!("{what} {}", list.join(", ")));
                }
            }
            parts.join("; ")
        }
    }
}

/// What `derived` changes against `base` (the measured launch of its
/// point), per process that differs (by its long title), in the derived
/// set's order, then the processes it drops. Empty when the two run the
/// same commands.
pub(super) fn change_items<'a>(
    derived: &'a CommandSet,
    base: &'a CommandSet,
) -> Vec<(&'a str, ProcessChange<'a>)> {
    let mut items = Vec::new();
    let mut used = vec![false; base.processes.len()];
    for p in &derived.processes {
        let matched = base
            .processes
            .iter()
            .enumerate()
            .find(|(i, b)| !used[*i] && b.long_title == p.long_title);
        match matched {
            Some((i, b)) => {
                used[i] = true;
                if let Some(c) = process_changes(p, b) {
                    items.push((&*p.long_title, c));
                }
            }
            None => items.push((&*p.long_title, ProcessChange::Added)),
        }
    }
    for (i, b) in base.processes.iter().enumerate() {
        if !used[i] {
            items.push((&*b.long_title, ProcessChange::Removed));
        }
    }
    items
}

/// The Markdown list of what `derived` changes against `base` (the measured
/// launch of its point), or nothing when the two run the same commands.
pub(super) fn changes_markdown(
    derived: &CommandSet,
    base: &CommandSet,
    base_title: &str,
) -> String {
    let items = change_items(derived, base);
    if items.is_empty() {
        return String::new();
    }
    let mut md = format!(
        "**What this derived launch changes** against the measured launch of this point \
         ({}), per process:\n\n",
        text(base_title)
    );
    for (title, change) in &items {
        let _ = writeln!(md, "- {}: {}", text(title), settings_markdown(change));
    }
    md.push('\n');
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_flags_and_env_lines() {
        let cmd = "ulimit -n 1\nA_B=1 \\\nX=\"$Y\" \\\npython3 -m m \\\n  --port 1 \\\n  --bare \\\n  --j '{\"a\":1}'";
        let keys: Vec<&str> = settings(cmd).into_iter().map(|s| s.key).collect();
        assert_eq!(keys, ["A_B", "X", "--port", "--bare", "--j"]);
        // Not names: empty, a non-ASCII or other character before the `=`.
        let odd = "=1\nÄ=1\nA.B=1\nA B=1\nA\nA=\n_9=x=y";
        let keys: Vec<&str> = settings(odd).into_iter().map(|s| s.key).collect();
        assert_eq!(keys, ["A", "_9"]);
    }

    #[test]
    fn differences_are_listed_per_kind() {
        let p = |cmd: &str| Process {
            kind: crate::data::BlockKind::Worker,
            role: None,
            title: "Worker".into(),
            long_title: "Aggregated worker".into(),
            placement: "".into(),
            command: cmd.into(),
            nodes: 1,
            files: Vec::new(),
        };
        let base = p("E=1 \\\nF=2 \\\nrun \\\n  --a 1 \\\n  --b");
        let derived = p("E=1 \\\nrun \\\n  --a 2 \\\n  --b \\\n  --c x");
        assert_eq!(
            settings_markdown(&process_changes(&derived, &base).unwrap()),
            "added `--c x`; removed `F=2`; changed `--a 1` → `--a 2`"
        );
        assert_eq!(process_changes(&base, &base), None);
    }
}
