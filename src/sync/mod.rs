//! `sync`: AgentX data files generated from InferenceX lanes.
//!
//! A lane manifest ([`lane_manifest`]) pins each lane to an InferenceX commit;
//! the master config and srt-slurm recipes are read at those commits through
//! one [`source::Source`] (a git directory or a snapshot folder); variants are
//! resolved with srt-slurm's deep-merge ([`recipe`]), typed ([`spec`]) and
//! turned into worker and front-door blocks ([`workers`], [`doors`]) through
//! the rules table ([`rules`], data in `rules.toml`); points become cells
//! ([`cells`], [`kv`]), encoded against point 0 ([`encode`]), written as one
//! file per page ([`page`], [`json`]) only after every point decoded back to
//! its blocks; then a report ([`report`]).
//!
//! Sits beside `decode` and writes data; nothing in the library uses it.
//!
//! May use: `data`, `decode` (the round trip, and the rules the encoding
//! mirrors), `manifest` (the comparison with `--previous`), `util`.

mod bash;
mod cells;
mod doors;
mod encode;
mod golden;
mod json;
mod kv;
mod lane;
mod lane_manifest;
mod master;
mod page;
mod previous;
mod reader;
mod recipe;
mod report;
mod rules;
mod source;
mod spec;
mod workers;
mod yaml;

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::decode::DecodedPage;
use crate::manifest::ManifestDiff;
use lane::{LaneResult, Outcome};
use page::PageOut;
use previous::PreviousPage;

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
}

/// Every reason a sync stopped, each naming its manifest line, file or lane.
/// Nothing was written (short of a rename into `out` failing part-way, after
/// every file was staged).
#[derive(Debug, Clone)]
pub struct SyncFailure(Vec<String>);

impl SyncFailure {
    /// The reasons, in manifest order.
    pub fn problems(&self) -> &[String] {
        &self.0
    }
}

impl fmt::Display for SyncFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("\n"))
    }
}

impl std::error::Error for SyncFailure {}

/// Runs a sync: every lane, every check, then the files (all staged before
/// the first is renamed into place).
/// `progress` gets one line per lane (`sync: lane 3/7 …`).
pub fn sync(options: &SyncOptions, progress: &mut dyn FnMut(&str)) -> Result<Synced, SyncFailure> {
    let m = lane_manifest::load(&options.manifest).map_err(SyncFailure)?;
    let src = source::open(&options.inferencex).map_err(|e| SyncFailure(vec![e]))?;
    let previous: BTreeMap<String, PreviousPage> = match &options.previous {
        Some(dir) => previous::load(dir).map_err(SyncFailure)?,
        None => BTreeMap::new(),
    };
    let mut reader = reader::Reader::new(src.as_ref());
    let mut results = Vec::new();
    let mut errors = Vec::new();
    let total = m.lanes.len();
    for (i, l) in m.lanes.iter().enumerate() {
        progress(&format!(
            "sync: lane {}/{total} `{}` ({})",
            i + 1,
            l.config_key,
            l.page
        ));
        match lane::translate(l, &m, &mut reader) {
            Ok(r) => results.push(r),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(SyncFailure(errors));
    }
    let mut notes = Vec::new();
    let pages = build_pages(
        &m,
        &results,
        &previous,
        options.previous.is_some(),
        &mut notes,
    )?;
    notes.push(
        "nginx.conf files are written by this tool (srt-slurm's patched template is not \
         available offline); the commands do not depend on their text"
            .to_string(),
    );
    let previous_dir = options.previous.as_ref().map(|p| p.display().to_string());
    let report = report::Report::new(&report::Input {
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
    let written = write_pages(&options.out, &pages).map_err(|e| SyncFailure(vec![e]))?;
    Ok(Synced {
        written,
        pages: pages.into_iter().map(|p| p.decoded).collect(),
        comparison,
        report,
    })
}

fn build_pages(
    m: &lane_manifest::LaneManifest,
    results: &[LaneResult],
    previous: &BTreeMap<String, PreviousPage>,
    has_previous: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<PageOut>, SyncFailure> {
    let mut pages = Vec::new();
    let mut errors = Vec::new();
    for page in m.pages() {
        let mut drafts = Vec::new();
        let mut carried = Vec::new();
        for r in results.iter().filter(|r| r.lane.page == page) {
            match &r.outcome {
                Outcome::Rendered(_) => match cells::group(r, m) {
                    Ok(c) => drafts.extend(c),
                    Err(e) => errors.push(e),
                },
                Outcome::CarriedOver if !has_previous => errors.push(format!(
                    "{}: lane `{}`: carry-over needs --previous",
                    r.lane.at, r.lane.config_key
                )),
                Outcome::CarriedOver => carried.push(r.lane.config_key.clone()),
            }
        }
        if !errors.is_empty() {
            continue;
        }
        match page::build(&page, drafts, &carried, previous.get(&page), m, notes) {
            Ok(p) => pages.push(p),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(pages)
    } else {
        Err(SyncFailure(errors))
    }
}

/// Another data file in `out` that holds one of the pages under a different
/// name would leave the page twice: refused before anything is written.
fn check_no_twins(out: &Path, pages: &[PageOut]) -> Result<(), String> {
    if !out.is_dir() {
        return Ok(());
    }
    let files = crate::data::data_files_in(out).map_err(|e| format!("{e:#}"))?;
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let Ok(page) = crate::data::page_name(&text, &f) else {
            continue;
        };
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
        if let Some(p) = pages.iter().find(|p| p.page == page)
            && name.as_deref() != Some(p.file_name.as_str())
        {
            return Err(format!(
                "{} already holds page `{page}`; writing {} beside it would leave the page twice \
                 (remove it, or write to another --out)",
                f.display(),
                p.file_name
            ));
        }
    }
    Ok(())
}

/// Writes every page to a temporary file beside its target first, then renames
/// them all: a failed write leaves the directory as it was (the temporary
/// files are removed when dropped).
fn write_pages(out: &Path, pages: &[PageOut]) -> Result<Vec<PathBuf>, String> {
    check_no_twins(out, pages)?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut staged = Vec::new();
    for p in pages {
        let target = out.join(&p.file_name);
        let cannot = |e: std::io::Error| format!("cannot write {}: {e}", target.display());
        let prefix = format!(".{}.", p.file_name);
        let mut b = tempfile::Builder::new();
        b.prefix(&prefix);
        // The mode any new file gets (umask applies), not tempfile's private one.
        #[cfg(unix)]
        b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let mut tmp = b.tempfile_in(out).map_err(cannot)?;
        tmp.write_all(p.text.as_bytes()).map_err(cannot)?;
        staged.push((tmp, target));
    }
    let mut written = Vec::new();
    for (tmp, target) in staged {
        tmp.persist(&target)
            .map_err(|e| format!("cannot write {}: {}", target.display(), e.error))?;
        written.push(target);
    }
    Ok(written)
}
