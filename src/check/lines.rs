//! Command lines against the flag registry of their image: each process's
//! text split as a shell would, each checked entry point's arguments parsed
//! as argparse would.

use std::collections::BTreeMap;

use anyhow::Result;

use super::registries::Registries;
use super::registry::{ArgProblem, Severity, check_args};
use super::report::{ArgumentLists, CheckReport, Finding, ImageTally};
use crate::decode::{CommandSet, DecodedPage};
use crate::shell::shell_commands;

/// Entry points whose command lines are checked.
pub(crate) const ENTRYPOINTS: [&str; 4] = [
    "sglang.launch_server",
    "dynamo.sglang",
    "sglang_router.launch_router",
    "dynamo.frontend",
];

/// One command of a process: the entry point it runs and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation<'w> {
    /// `sglang.launch_server` for `python3 -m sglang.launch_server`, else
    /// the program's file name.
    pub entry_point: String,
    /// The words after it.
    pub args: &'w [String],
}

/// The entry point a command runs and its arguments: `python3 -m dynamo.sglang
/// --x` → `dynamo.sglang` with `--x`; leading `NAME=value` words are skipped.
pub(crate) fn invocation(words: &[String]) -> Option<Invocation<'_>> {
    let is_assignment = |w: &String| {
        w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty()
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !k.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    let start = words.iter().position(|w| !is_assignment(w))?;
    let program = &words[start];
    let base = program.rsplit('/').next().unwrap_or(program);
    if base.starts_with("python") && words.get(start + 1).map(String::as_str) == Some("-m") {
        return Some(Invocation {
            entry_point: words.get(start + 2)?.clone(),
            args: &words[start + 3..],
        });
    }
    Some(Invocation {
        entry_point: base.to_string(),
        args: &words[start + 1..],
    })
}

/// Command lines per (image, entry point), in that order.
pub(super) type Tallies = BTreeMap<(String, String), ImageTally>;

/// Where a command line sits, for findings.
struct Place<'a> {
    page: &'a str,
    set: &'a CommandSet,
    /// `<n>. <process title>`.
    process: String,
}

/// The command lines of a set that are checked (those running one of
/// [`ENTRYPOINTS`]), each with the index of its process, as words.
pub(crate) fn checked_lines(set: &CommandSet) -> impl Iterator<Item = (usize, Vec<String>)> + '_ {
    set.processes
        .iter()
        .enumerate()
        .flat_map(|(pi, p)| shell_commands(&p.command).into_iter().map(move |w| (pi, w)))
        .filter(|(_, words)| {
            invocation(words).is_some_and(|c| ENTRYPOINTS.contains(&c.entry_point.as_str()))
        })
}

/// Adds each distinct argument list of `page`'s checked command lines to
/// `lists`, by (image, entry point): what [`check_set`] counts as distinct,
/// without a registry (a base's lines, compared with the book's).
pub(crate) fn argument_lists(page: &DecodedPage, lists: &mut ArgumentLists) {
    for set in page.command_sets() {
        for (_, words) in checked_lines(set) {
            let call = invocation(&words).expect("checked lines have an invocation");
            let key = (set.image.image.clone(), call.entry_point.clone());
            lists.entry(key).or_default().insert(call.args.to_vec());
        }
    }
}

/// Checks the command lines of one command set.
pub(super) fn check_set(
    page: &str,
    set: &CommandSet,
    registries: &mut Registries,
    tallies: &mut Tallies,
    report: &mut CheckReport,
) -> Result<()> {
    for (pi, words) in checked_lines(set) {
        let place = Place {
            page,
            set,
            process: format!("{}. {}", pi + 1, set.processes[pi].title),
        };
        let call = invocation(&words).expect("checked lines have an invocation");
        check_line(&place, &call, registries, tallies, report)?;
    }
    Ok(())
}

/// Checks one command line against its image's registry for its entry point.
fn check_line(
    place: &Place<'_>,
    call: &Invocation<'_>,
    registries: &mut Registries,
    tallies: &mut Tallies,
    report: &mut CheckReport,
) -> Result<()> {
    let image = &place.set.image.image;
    let entrypoint = &call.entry_point;
    let Some(reg) = registries.for_image(image, entrypoint)? else {
        let msg = format!(
            "image {image} · {entrypoint}: add a registry under [preprocessor.agentx.registries] in book.toml"
        );
        if !report.unconfigured.contains(&msg) {
            report.unconfigured.push(msg);
        }
        return Ok(());
    };
    let problems: Vec<ArgProblem> = check_args(reg, call.args);
    let tally = tallies
        .entry((image.clone(), entrypoint.clone()))
        .or_insert_with(|| ImageTally {
            image: image.clone(),
            entrypoint: entrypoint.clone(),
            registry: reg.label.clone(),
            lines: 0,
            parsed: 0,
            distinct: 0,
        });
    tally.lines += 1;
    if !problems.iter().any(|p| p.severity == Severity::Error) {
        tally.parsed += 1;
    }
    let key = (image.clone(), entrypoint.clone());
    let lists = report.arguments.entry(key).or_default();
    if !lists.contains(call.args) {
        lists.insert(call.args.to_vec());
    }
    for p in problems {
        let finding = Finding {
            page: place.page.to_string(),
            cell: place.set.cell_id.clone(),
            concs: place.set.concs.clone(),
            tier: place.set.tier,
            router: place.set.router,
            process: place.process.clone(),
            image: image.clone(),
            entrypoint: entrypoint.clone(),
            registry: reg.label.clone(),
            severity: p.severity,
            flag: p.flag,
            message: p.message,
        };
        match finding.severity {
            Severity::Error => report.failures.push(finding),
            Severity::Warning => report.warnings.push(finding),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocations() {
        let words = |s: &str| -> Vec<String> { s.split(' ').map(String::from).collect() };
        let cmd = words("A=1 B=x python3 -m sglang.launch_server --tp 4");
        let call = invocation(&cmd).unwrap();
        assert_eq!(call.entry_point, "sglang.launch_server");
        assert_eq!(call.args, ["--tp", "4"]);
        assert_eq!(
            invocation(&words("ulimit -n 1")).unwrap().entry_point,
            "ulimit"
        );
        assert_eq!(
            invocation(&words("/usr/bin/etcd --x")).unwrap().entry_point,
            "etcd"
        );
        assert_eq!(invocation(&words("X=1")), None);
        assert_eq!(invocation(&words("python3 -m")), None);
    }
}
