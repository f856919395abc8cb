//! Bash-script lanes (`benchmarks/single_node/agentic/*.sh`), read without
//! running anything from the input: the script and the `benchmark_lib.sh`
//! it sources are parsed with brush's bash parser ([`syntax`]) and
//! interpreted per point of the master entry ([`interp`], [`commands`],
//! [`expand`], [`arith`], [`cond`], [`pattern`]) under the env the launcher
//! would pass ([`launcher`]); harness functions and side-effect-only
//! programs are skipped by table ([`library`]); `awk` numeric tests are
//! computed ([`awk`]) and `sed` judged by its arguments, image patches
//! needing the manifest's word ([`programs`]); the captured
//! `sglang.launch_server` argv and env become a one-worker recipe that the
//! recipe path's builders render ([`mapping`]). The rules are written out in
//! docs/sync-bash-lanes.md.
//!
//! May use: `sync::generate::{cells, doors, lane}`,
//! `sync::input::{lane_manifest, master, reader, recipe, yaml}` and what they
//! export, and `util::escape` (the reviewer's text in notes).

mod arith;
mod awk;
mod commands;
mod cond;
mod either;
mod expand;
mod interp;
mod launcher;
mod library;
mod mapping;
mod pattern;
mod programs;
mod state;
mod subst;
mod syntax;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_either;
#[cfg(test)]
mod tests_programs;

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::generate::doors::nginx::KnownFiles;
use super::generate::lane::{self, LaneFailure, LanePoint, PointError, PointInput};
use super::input::lane_manifest::{Lane, LaneManifest};
use super::input::master::{BashRow, MasterEntry, Row, RowKind};
use super::input::reader::{Found, Reader};
use super::input::recipe::Variant;
use interp::{Files, Halt, Interp, Launch};
use launcher::Hardware;
use state::{State, Val, Var};
use syntax::Script;

use crate::util::escape;

/// The stack the thread running a sync needs for the bash parser and
/// interpreter at their caps ([`syntax::MAX_OPENERS`] nesting levels of the
/// parser, at most 18.2 KB each in a debug build: 75 MB; then
/// [`interp::MAX_NESTING`] levels of the interpreter, at most 16 KB each: 4 MB, with a
/// sourced file parsed at the deepest), with headroom. Only the pages a run
/// touches are ever committed.
pub(super) const STACK_BYTES: usize = 128 << 20;

/// The points of a bash lane. Errors name the row, the concurrency, and
/// `file:line` of what could not be interpreted; names the rules table does
/// not classify are collected over every point (the run reports them at once).
pub(super) fn lane_points(
    lane: &Lane,
    m: &LaneManifest,
    known_files: &KnownFiles,
    entry: &MasterEntry,
    rows: &[&Row],
    reader: &mut Reader<'_>,
    notes: &mut Vec<String>,
) -> Result<Vec<LanePoint>, LaneFailure> {
    let hw = launcher::hardware_id(&entry.runner)?;
    // A lane that is not carried over has a commit (lane::translate checks).
    let script_commit = lane
        .recipe_commit
        .clone()
        .or_else(|| lane.commit.clone())
        .unwrap_or_default();
    let includes = lane
        .includes_commit
        .clone()
        .unwrap_or_else(|| script_commit.clone());
    let mut ctx = LaneCtx {
        lane,
        m,
        known_files,
        entry,
        hw,
        hardware: None,
        includes,
        parsed: HashMap::new(),
        notes: Vec::new(),
    };
    let mut points = Vec::new();
    let mut failure = LaneFailure::default();
    for row in rows {
        let RowKind::Bash(b) = &row.kind else {
            return Err(LaneFailure::from(format!(
                "search-space[{}] names a recipe while other rows run a bash script; a lane is one or the other",
                row.item
            )));
        };
        let spec = row.spec_decoding.clone().unwrap_or_else(|| "none".into());
        let script = ctx.script(&spec, &script_commit, reader)?;
        if ctx.hardware.is_none() {
            ctx.hardware = Some(hardware(m, entry, &ctx.includes, reader, &mut ctx.notes)?);
        }
        for &conc in &row.concs {
            let name = format!("search-space[{}] c{conc}", row.item);
            match ctx.point(row, b, &spec, conc, &script, reader) {
                Ok(p) => points.push(p),
                // A bash point has no recipe variant: the script is what it ran.
                Err(PointError::Unclassified(names)) => {
                    failure.unclassified.extend(names.into_iter().map(|mut n| {
                        n.variant = "bash script".into();
                        (name.clone(), n)
                    }))
                }
                Err(PointError::Refused(why)) => {
                    failure.refused = Some(format!("{name}: {why}"));
                    return Err(failure);
                }
            }
        }
    }
    if !failure.unclassified.is_empty() {
        return Err(failure);
    }
    for n in ctx.notes {
        if !notes.contains(&n) {
            notes.push(n);
        }
    }
    Ok(points)
}

/// The runner's hardware: `runners.yaml` at the includes commit, else the
/// manifest's `[cluster.<fleet>]` facts.
fn hardware(
    m: &LaneManifest,
    entry: &MasterEntry,
    commit: &str,
    reader: &mut Reader<'_>,
    notes: &mut Vec<String>,
) -> Result<Hardware, String> {
    if let Some(found) = reader.yaml(commit, "configs/runners.yaml")?
        && let Some(h) = launcher::runners_hardware(&found.doc, &entry.runner)
    {
        return h.map_err(|e| format!("{}: {e}", found.at));
    }
    let fleet = entry
        .runner
        .strip_prefix("cluster:")
        .unwrap_or(&entry.runner);
    let c = m.clusters.get(fleet);
    match c.and_then(|c| c.gpus_per_node) {
        Some(gpus_per_node) => {
            // The report is Markdown: names go through the escaping module.
            notes.push(format!(
                "runner {}: no configs/runners.yaml entry at {}; its hardware facts come from \
                 the manifest's {}",
                escape::code(&entry.runner),
                escape::code(commit),
                escape::code(&format!("[cluster.\"{fleet}\"]"))
            ));
            Ok(Hardware {
                available_dram_mib: c.and_then(|c| c.available_cpu_dram_mib),
                gpus_per_node,
            })
        }
        None => Err(format!(
            "runner `{}` has no `hardware` entry in configs/runners.yaml at {commit}; name a \
             commit that has it with `includes-commit`, or give `gpus-per-node` (and \
             `available-cpu-dram-mib`) under [cluster.\"{fleet}\"]",
            entry.runner
        )),
    }
}

struct LaneCtx<'a> {
    lane: &'a Lane,
    m: &'a LaneManifest,
    known_files: &'a KnownFiles,
    entry: &'a MasterEntry,
    hw: String,
    /// Looked up once the lane's script is found.
    hardware: Option<Hardware>,
    includes: String,
    /// Parsed scripts and libraries by repository path (`None`: absent).
    parsed: HashMap<String, Option<Rc<Script>>>,
    notes: Vec<String>,
}

/// The library reader the interpreter sources through.
struct LibFiles<'c, 'r, 's> {
    reader: &'c mut Reader<'s>,
    commit: &'r str,
    parsed: &'c mut HashMap<String, Option<Rc<Script>>>,
}

impl Files for LibFiles<'_, '_, '_> {
    fn read(&mut self, repo_path: &str) -> Result<Option<Rc<Script>>, String> {
        read_parsed(self.reader, self.commit, repo_path, self.parsed)
    }
}

fn read_parsed(
    reader: &mut Reader<'_>,
    commit: &str,
    repo_path: &str,
    parsed: &mut HashMap<String, Option<Rc<Script>>>,
) -> Result<Option<Rc<Script>>, String> {
    let key = format!("{commit}:{repo_path}");
    if let Some(p) = parsed.get(&key) {
        return Ok(p.clone());
    }
    let script = match reader.text(commit, repo_path)? {
        None => None,
        Some((_, at, text)) => Some(Rc::new(syntax::parse_script(&text, &at)?)),
    };
    parsed.insert(key, script.clone());
    Ok(script)
}

impl LaneCtx<'_> {
    /// The script the launcher runs for this spec-decoding mode, and its path.
    fn script(
        &mut self,
        spec: &str,
        commit: &str,
        reader: &mut Reader<'_>,
    ) -> Result<(String, Rc<Script>), String> {
        let candidates = launcher::script_candidates(self.entry, &self.hw, spec)?;
        for c in &candidates {
            if let Some(s) = read_parsed(reader, commit, c, &mut self.parsed)? {
                let path = s
                    .name
                    .rsplit_once('@')
                    .map_or(c.clone(), |(p, _)| p.to_string());
                return Ok((path, s));
            }
        }
        Err(format!(
            "a bash-script lane: none of {} is at commit {commit} (name the commit that has the \
             script with `recipe-commit`, or set `carry-over = true` to keep the lane's cells \
             from --previous)",
            candidates.join(", ")
        ))
    }

    fn point(
        &mut self,
        row: &Row,
        b: &BashRow,
        spec: &str,
        conc: u32,
        (path, script): &(String, Rc<Script>),
        reader: &mut Reader<'_>,
    ) -> Result<LanePoint, PointError> {
        let hardware = self.hardware.ok_or("the runner's hardware is not known")?;
        let tp =
            b.tp.and_then(|t| u32::try_from(t).ok())
                .filter(|t| *t > 0)
                .ok_or("the row has no `tp`")?;
        let dram = match b.kv_offloading.as_deref() {
            Some("dram") => {
                let util = self.entry.dram_utilization.as_deref().ok_or(
                    "the row offloads KV to DRAM, but the scenario has no `dram-utilization`",
                )?;
                launcher::dram_budget_gb(&hardware, util, tp)?
            }
            _ => 0,
        };
        let env = launcher::point_env(self.entry, b, spec, conc, dram)?;
        let launch = self.interpret(path, script, env, reader)?;
        let (node, unknowns) = mapping::recipe(
            &launch,
            &mapping::Shape {
                hw: &self.hw,
                gpus_per_node: hardware.gpus_per_node,
                gpus: tp,
            },
        )?;
        let found = Found {
            path: path.clone(),
            at: script.name.clone(),
            doc: Rc::new(node.clone()),
        };
        let variant = Variant { name: None, node };
        let cluster_env = lane::cluster_env(self.m, self.entry);
        let input = PointInput {
            lane: self.lane,
            m: self.m,
            known_files: self.known_files,
            entry: self.entry,
            cluster_env: &cluster_env,
            row,
            concs: &[conc],
            variant: &variant,
            found: &found,
        };
        let p = lane::point(&input, reader).map_err(|e| match e {
            PointError::Refused(why) => PointError::Refused(unknowns.explain(&why)),
            unclassified => unclassified,
        })?;
        unknowns.check(&p, &launch.at)?;
        mapping::check_golden_al(&launch, p.golden_al.as_deref())?;
        Ok(p)
    }

    /// Runs the script's control flow for one point; the launch it reaches.
    fn interpret(
        &mut self,
        path: &str,
        script: &Script,
        env: BTreeMap<&'static str, String>,
        reader: &mut Reader<'_>,
    ) -> Result<Launch, String> {
        let mut files = LibFiles {
            reader,
            commit: &self.includes,
            parsed: &mut self.parsed,
        };
        let reviewed = self.lane.image_patches.clone();
        let (launch, notes) = run_script(path, script, env, &mut files, reviewed);
        self.notes.extend(notes);
        launch
    }
}

/// Interprets `script` (run as `path`) under the launcher's `env`; the
/// launch it reaches and the notes it made (guards assumed not taken), as
/// Markdown for the report.
fn run_script(
    path: &str,
    script: &Script,
    env: BTreeMap<&str, String>,
    files: &mut dyn Files,
    reviewed_patches: BTreeMap<String, String>,
) -> (Result<Launch, String>, Vec<String>) {
    let mut st = State {
        arg0: path.to_string(),
        positional: vec![Vec::new()],
        sources: vec![path.to_string()],
        ..State::default()
    };
    for (k, v) in env {
        st.vars.set(k, Var::Scalar(Val::Known(v)));
    }
    // Inherited by every process, from the container: not the point's input,
    // and not known here.
    if st.vars.get("PATH").is_none() {
        let path = Val::NonEmpty("the container's `PATH`, inherited".into());
        st.vars.set("PATH", Var::Scalar(path));
    }
    let mut it = Interp::new(st, files, &script.name);
    it.reviewed_patches = reviewed_patches;
    let r = it.run(script);
    let at = it.at();
    let notes = std::mem::take(&mut it.notes);
    let launch = match (r, it.launch.take()) {
        (Ok(()) | Err(Halt::Exit(_)), Some(l)) => Ok(l),
        (Err(Halt::Fail(e)), _) => Err(e),
        (Err(Halt::Opaque(why)), _) => Err(format!("{at}: {why}; not interpreted")),
        (Err(Halt::Return(_)), _) => Err(format!("{at}: `return` outside a function")),
        (Err(Halt::Exit(n)), None) => Err(format!(
            "{at}: the script exits with status {n} before launching the server"
        )),
        (Ok(()), None) => Err(format!(
            "{}: the script ends without launching {}",
            script.name,
            commands::SERVER_MODULE
        )),
    };
    (launch, notes)
}
