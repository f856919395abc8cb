//! What a derived command set changes against the measured launch of the
//! same point (submitted router, measured tier): per process, the flags and
//! env lines added, removed or changed, and the processes added or removed.
//! Shown next to the set's blocks; the copyable text does not change.
//!
//! May use: `decode` (the model), `util::escape` (every data string).

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

/// Differences of one process: `added …; removed …; changed a → b`.
fn process_changes(derived: &Process, base: &Process) -> Option<String> {
    let (d, b) = (settings(&derived.command), settings(&base.command));
    fn find<'a>(v: &[Setting<'a>], k: &str) -> Option<Setting<'a>> {
        v.iter().find(|s| s.key == k).copied()
    }
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for s in &d {
        match find(&b, s.key) {
            None => added.push(code(s.line)),
            Some(old) if old.line != s.line => {
                changed.push(format!("{} → {}", code(old.line), code(s.line)))
            }
            _ => {}
        }
    }
    let removed: Vec<String> = b
        .iter()
        .filter(|s| find(&d, s.key).is_none())
        .map(|s| code(s.line))
        .collect();
    let mut parts = Vec::new();
    for (what, list) in [("added", added), ("removed", removed), ("changed", changed)] {
        if !list.is_empty() {
            parts.push(format!("{what} {}", list.join(", ")));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The Markdown list of what `derived` changes against `base` (the measured
/// launch of its point), or nothing when the two run the same commands.
pub(super) fn changes_markdown(
    derived: &CommandSet,
    base: &CommandSet,
    base_title: &str,
) -> String {
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
                    items.push(format!("{}: {c}", text(&p.long_title)));
                }
            }
            None => items.push(format!(
                "{}: added (not in the measured launch)",
                text(&p.long_title)
            )),
        }
    }
    for (i, b) in base.processes.iter().enumerate() {
        if !used[i] {
            items.push(format!("{}: removed", text(&b.long_title)));
        }
    }
    if items.is_empty() {
        return String::new();
    }
    let mut md = format!(
        "**What this derived launch changes** against the measured launch of this point \
         ({}), per process:\n\n",
        text(base_title)
    );
    for i in items {
        let _ = writeln!(md, "- {i}");
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
            process_changes(&derived, &base).unwrap(),
            "added `--c x`; removed `F=2`; changed `--a 1` → `--a 2`"
        );
        assert_eq!(process_changes(&base, &base), None);
    }
}
