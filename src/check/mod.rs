//! `check`: every command line against the flag registry of its image, the
//! KV-offload tiers against what each image supports, and every internal link
//! and anchor of the built site.
//!
//! May use: `book` (the book's config and paths), `site` (the built site,
//! for links), `preprocessor` (the data library), `decode`, `data`, `shell`,
//! `util`.

mod lines;
mod registries;
pub(crate) mod registry;
mod report;
mod tiers;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Result, bail};

pub(crate) use self::lines::argument_lists;
use self::lines::{Tallies, check_set};
pub(crate) use self::registries::{Registries, RegistryConfig};
pub(crate) use self::report::ArgumentLists;
pub use self::report::{CheckReport, Finding, ImageTally, KvTally, LinkReport, TierProblem};
use self::tiers::check_tiers;
use crate::book::BookDir;
use crate::decode::DecodedPage;
use crate::preprocessor::Library;
use crate::site::pages::links;
use crate::site::{EntrySink, check_links};

/// What the checks of one data file's page found, kept until every page
/// is checked (a page's findings, not its decoded data).
struct PageFindings {
    /// Its command lines; an error when a registry could not be used.
    lines: Option<Result<(CheckReport, Tallies)>>,
    /// Its KV tiers (problems and tallies); the same.
    tiers: Option<Result<CheckReport>>,
}

/// Checks the command lines and KV tiers of one page.
fn check_page(decoded: &DecodedPage, registries: &mut Registries) -> PageFindings {
    let page = decoded.model.as_str();
    let mut report = CheckReport::default();
    let mut tallies = Tallies::new();
    let lines = decoded
        .command_sets()
        .try_for_each(|set| check_set(page, set, registries, &mut tallies, &mut report))
        .map(|()| (report, tallies));
    let mut report = CheckReport::default();
    let tiers = check_tiers(page, decoded, registries, &mut report).map(|()| report);
    PageFindings {
        lines: Some(lines),
        tiers: Some(tiers),
    }
}

/// The findings of every page of `lib`, in page-name order: command lines
/// of all pages, then tiers (the first error in that order is returned),
/// as if each page had been checked in that order.
fn merge(lib: &Library, mut found: HashMap<PathBuf, PageFindings>) -> Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut tallies = Tallies::new();
    for (_, path) in lib.page_files() {
        let findings = found.get_mut(path).expect("every loaded page was checked");
        let (page, page_tallies) = findings.lines.take().expect("taken once")?;
        report.failures.extend(page.failures);
        report.warnings.extend(page.warnings);
        for u in page.unconfigured {
            if !report.unconfigured.contains(&u) {
                report.unconfigured.push(u);
            }
        }
        for (key, lists) in page.arguments {
            report.arguments.entry(key).or_default().extend(lists);
        }
        for (key, t) in page_tallies {
            let total = tallies.entry(key).or_insert_with(|| ImageTally {
                lines: 0,
                parsed: 0,
                distinct: 0,
                ..t.clone()
            });
            total.lines += t.lines;
            total.parsed += t.parsed;
        }
    }
    report.images = tallies.into_values().collect();
    for t in &mut report.images {
        t.distinct = report.arguments[&(t.image.clone(), t.entrypoint.clone())].len();
    }
    for (_, path) in lib.page_files() {
        let findings = found.get_mut(path).expect("every loaded page was checked");
        let page = findings.tiers.take().expect("taken once")?;
        report.tiers.extend(page.tiers);
        for k in page.kv {
            match (report.kv.iter_mut())
                .find(|t| t.image == k.image && t.entrypoint == k.entrypoint)
            {
                Some(t) => {
                    let flags: Vec<&str> = k.flags.iter().map(String::as_str).collect();
                    for tier in &k.tiers {
                        tiers::merge_tally(t, *tier, &flags, &k.missing);
                    }
                }
                None => report.kv.push(k),
            }
        }
    }
    report
        .kv
        .sort_by(|a, b| (&a.image, &a.entrypoint).cmp(&(&b.image, &b.entrypoint)));
    Ok(report)
}

/// `check`: renders the book page by page, as `build` does but without
/// writing it, and runs every check. Each data file is checked as it is
/// decoded and dropped; links are checked as pages go by.
pub fn run(root: &Path) -> Result<CheckReport> {
    run_visiting(root, &mut |_, _| {}, &mut |_| Ok(()))
}

/// [`run`], showing each decoded page to `page` and each chapter's command
/// sets to `sets` as the book is read (`report` counts and compares them).
pub(crate) fn run_visiting(
    root: &Path,
    page: &mut dyn FnMut(&Path, &DecodedPage),
    sets: &mut EntrySink<'_>,
) -> Result<CheckReport> {
    let dir = BookDir::open(root)?;
    let config = RegistryConfig::from_toml(dir.agentx.registries.as_ref())?;
    let mut registries = Registries::new(&dir.root, dir.bounds.clone(), config)?;
    let mut found = HashMap::new();
    let lib = Library::open_visiting(&dir, &mut |path, decoded| {
        page(path, decoded);
        found.insert(path.to_path_buf(), check_page(decoded, &mut registries));
    })?;
    if !lib.failures().is_empty() {
        bail!(
            "data files failed to load:\n  {}",
            lib.failures().join("\n  ")
        );
    }
    let lib = OnceLock::from(lib);
    let notices = lib.get().map(Library::take_notices).unwrap_or_default();
    let (links::LinkCheck { stats, problems }, built) =
        check_links(dir, &lib, &["404.html"], sets)?;
    let mut report = merge(lib.get().expect("opened above"), found)?;
    report.links = LinkReport {
        pages: stats.pages,
        links: stats.links,
        anchors: stats.anchors,
        problems: problems.iter().map(|p| p.to_string()).collect(),
    };
    report.notices = notices.into_iter().chain(built).collect();
    Ok(report)
}
