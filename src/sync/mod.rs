//! `sync`: AgentX data files generated from InferenceX lanes, in three
//! stages, one folder each: [`input`] (what is read), [`generate`] (what a
//! lane becomes) and [`output`] (what is written).
//!
//! A lane manifest ([`input::lane_manifest`]) pins each lane to an InferenceX
//! commit; the master config and srt-slurm recipes are read at those commits
//! through one [`input::source::Source`] (a git directory or a snapshot
//! folder); variants are resolved with srt-slurm's deep-merge
//! ([`input::recipe`]), typed ([`input::spec`]) and turned into worker and
//! front-door blocks ([`generate::workers`], [`generate::doors`]) through the
//! rules table ([`rules`], data in `rules.toml`); bash-script lanes are
//! interpreted ([`bash`]); points become cells ([`generate::cells`],
//! [`generate::kv`]), encoded against point 0 ([`output::encode`]), written as
//! one file per page ([`output::page`], [`output::json`]) only after every
//! point decoded back to its blocks; then a report ([`output::report`]).
//!
//! Sits beside `decode` and writes data; nothing in the library uses it.
//!
//! May use: `data`, `decode` (the round trip, and the rules the encoding
//! mirrors), `manifest` (the comparison with `--previous`), `util`.

mod bash;
mod generate;
mod input;
mod output;
mod rules;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use self::generate::lane;
use self::input::{lane_manifest, reader, source};
pub use self::output::changes::{LostField, PageChanges, RemovedCell};
use self::output::previous::{self, PreviousPage};
use self::output::{changes, report, write};
use crate::decode::DecodedPage;
use crate::manifest::ManifestDiff;

/// The form a data file is written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DataFormat {
    /// Plain JSON (`.json`).
    #[default]
    Json,
    /// The JS module the cookbook keeps (`.jsx`: `export const agentx = {…};`).
    Jsx,
}

/// What [`sync`] reads and where it writes (the `sync` command's arguments).
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// The lane manifest (TOML).
    pub manifest: PathBuf,
    /// InferenceX: a git directory, or a snapshot folder with one subfolder
    /// per commit (named by the commit or a unique prefix of 7+ hex digits).
    pub inferencex: PathBuf,
    /// The directory the data files are written into.
    pub out: PathBuf,
    /// The current data directory: carried-over lanes, the Mooncake donor and
    /// file names come from it, and the report compares against it.
    pub previous: Option<PathBuf>,
    /// The form of pages that are not in `previous` (a page that is keeps its form).
    pub format: DataFormat,
    /// Write a page although `previous` holds its lanes under another page name.
    pub allow_rename: bool,
}

/// A finished sync: every data file was written.
#[derive(Debug, Clone)]
pub struct Synced {
    /// The data files written, one per page.
    pub written: Vec<PathBuf>,
    /// The pages written, decoded.
    pages: Vec<DecodedPage>,
    /// Against `--previous`: the written pages' command sets, compared.
    comparison: Option<ManifestDiff>,
    /// Against `--previous`: what each page loses.
    changes: Vec<PageChanges>,
    report: report::Report,
}

impl Synced {
    /// The report (Markdown, for a pull-request description): per page
    /// counts, the comparison with `--previous`, every lane and what became
    /// of it, skipped lanes, notes for the reviewer.
    ///
    /// The two tables are the caller's: `pages_table` formats the written
    /// pages' counts and `comparison_table` the comparison (the binary passes
    /// the `stats` and `diff` tables), so that `sync` depends on neither.
    pub fn report(
        &self,
        pages_table: impl FnOnce(&[DecodedPage]) -> String,
        comparison_table: impl FnOnce(&ManifestDiff) -> String,
    ) -> String {
        let pages = pages_table(&self.pages);
        let comparison = self.comparison.as_ref().map(comparison_table);
        self.report.markdown(&pages, comparison.as_deref())
    }

    /// Against `--previous`, per page written: the cells removed (lanes not
    /// in the manifest, or no longer made by theirs) and the fields a
    /// regenerated cell loses (hand-added setup steps, labels, …).
    pub fn changes(&self) -> &[PageChanges] {
        &self.changes
    }
}

/// Every reason a sync stopped, each naming its manifest line, file or lane.
/// Nothing was written (short of a rename into `out` failing part-way, after
/// every file was staged).
#[derive(Debug, Clone, Default)]
pub struct SyncFailure {
    problems: Vec<String>,
    unclassified: Vec<UnclassifiedName>,
}

impl SyncFailure {
    fn new(problems: Vec<String>) -> SyncFailure {
        SyncFailure {
            problems,
            unclassified: Vec::new(),
        }
    }

    /// The reasons other than unclassified names, in manifest order.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Every name of the run that the rules table does not classify, each
    /// once per recipe line, with the points that used it.
    pub fn unclassified(&self) -> &[UnclassifiedName] {
        &self.unclassified
    }
}

impl fmt::Display for SyncFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines: Vec<String> = self.unclassified.iter().map(|u| u.to_string()).collect();
        lines.extend(self.problems.iter().cloned());
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for SyncFailure {}

/// A name the rules table does not classify, where the run met it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnclassifiedName {
    /// `path@commit:line` of the key in the recipe.
    pub location: String,
    /// The lane: its manifest line and config key.
    pub lane: String,
    /// The points that use it: `search-space[0] c1 (override_tp4_c1)`, ….
    pub points: Vec<String>,
    /// `worker argument`, `frontend argument`, `environment variable`, ….
    pub kind: String,
    /// The name, as the recipe writes it.
    pub key: String,
}

impl fmt::Display for UnclassifiedName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} `{}` is not in the rules table (used by {}); classify it (keep, drop, \
             drop-and-disclose or placeholder) in src/sync/rules.toml or the manifest's [rules]",
            self.location,
            self.lane,
            self.kind,
            self.key,
            self.points.join(", ")
        )
    }
}

/// One entry per (recipe line, key), in the order the run met them.
fn group_unclassified(
    failures: &[(&lane_manifest::Lane, lane::LaneFailure)],
) -> Vec<UnclassifiedName> {
    let mut out: Vec<UnclassifiedName> = Vec::new();
    for (l, f) in failures {
        for (point, u) in &f.unclassified {
            let location = format!("{}:{}", u.file, u.line);
            let lane = format!("{}: lane `{}`", l.at, l.config_key);
            let point = format!("{point} ({})", u.variant.trim_matches(['(', ')']));
            let kind = u.scope.to_string();
            match out.iter_mut().find(|o| {
                o.location == location && o.key == u.key && o.kind == kind && o.lane == lane
            }) {
                Some(o) => {
                    if !o.points.contains(&point) {
                        o.points.push(point);
                    }
                }
                None => out.push(UnclassifiedName {
                    location,
                    lane,
                    points: vec![point],
                    kind,
                    key: u.key.clone(),
                }),
            }
        }
    }
    out
}

/// Runs a sync: every lane, every check, then the files (all staged before
/// the first is renamed into place).
/// `progress` gets one line per lane (`sync: lane 3/7 …`).
///
/// The work runs on a thread of its own with a 128 MiB stack
/// (`bash::STACK_BYTES`): the bash parser and interpreter recurse once per
/// nesting level of a recipe script, up to their caps, which the caller's
/// stack (2 MiB on a test thread) cannot be trusted to hold.
pub fn sync(options: &SyncOptions, progress: &mut dyn FnMut(&str)) -> Result<Synced, SyncFailure> {
    let (lines, received) = std::sync::mpsc::channel::<String>();
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("sync".into())
            .stack_size(bash::STACK_BYTES)
            .spawn_scoped(scope, move || {
                // The receiver lives until this thread ends: a send cannot fail.
                sync_here(options, &mut |line| drop(lines.send(line.to_string())))
            })
            .map_err(|e| SyncFailure::new(vec![format!("sync: cannot start its thread: {e}")]))?;
        for line in received {
            progress(&line);
        }
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// [`sync`] on the calling thread.
fn sync_here(options: &SyncOptions, progress: &mut dyn FnMut(&str)) -> Result<Synced, SyncFailure> {
    let m = lane_manifest::load(&options.manifest).map_err(SyncFailure::new)?;
    let src = source::open(&options.inferencex).map_err(|e| SyncFailure::new(vec![e]))?;
    let previous: BTreeMap<String, PreviousPage> = match &options.previous {
        Some(dir) => previous::load(dir).map_err(SyncFailure::new)?,
        None => BTreeMap::new(),
    };
    let known_files = previous::known_files(&previous);
    let mut reader = reader::Reader::new(src.as_ref());
    let mut results = Vec::new();
    let mut failures = Vec::new();
    let total = m.lanes.len();
    for (i, l) in m.lanes.iter().enumerate() {
        progress(&format!(
            "sync: lane {}/{total} `{}` ({})",
            i + 1,
            l.config_key,
            l.page
        ));
        match lane::translate(l, &m, &known_files, &mut reader) {
            Ok(r) => results.push(r),
            Err(e) => failures.push((l, e)),
        }
    }
    if !failures.is_empty() {
        return Err(SyncFailure {
            problems: failures
                .iter()
                .filter_map(|(_, f)| f.refused.clone())
                .collect(),
            unclassified: group_unclassified(&failures),
        });
    }
    let mut notes = Vec::new();
    let pages = write::build_pages(&m, &results, &previous, options, &mut notes)?;
    write::check_renames(&pages, &previous, options.allow_rename).map_err(SyncFailure::new)?;
    notes.push(
        "nginx.conf files are written by this tool (srt-slurm's patched template is not \
         available offline); the commands do not depend on their text"
            .to_string(),
    );
    let changes: Vec<PageChanges> = pages
        .iter()
        .filter_map(|p| {
            let prev = previous.get(&p.page)?;
            let lanes: Vec<&str> = m
                .lanes
                .iter()
                .filter(|l| l.page == p.page)
                .map(|l| l.config_key.as_str())
                .collect();
            Some(changes::of(p, prev, &lanes))
        })
        .collect();
    let previous_dir = options.previous.as_ref().map(|p| p.display().to_string());
    let report = report::Report::new(&report::Input {
        changes: &changes,
        manifest: &m,
        source: reader.describe(),
        pages: &pages,
        lanes: &results,
        previous_dir: previous_dir.as_deref(),
        notes: &notes,
    });
    let comparison = options
        .previous
        .is_some()
        .then(|| report::compare(&pages, &previous));
    let written =
        write::write_pages(&options.out, &pages).map_err(|e| SyncFailure::new(vec![e]))?;
    Ok(Synced {
        written,
        pages: pages.into_iter().map(|p| p.decoded).collect(),
        comparison,
        changes,
        report,
    })
}
