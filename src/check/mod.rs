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

use self::lines::{Tallies, check_set};
pub(crate) use self::registries::{Registries, RegistryConfig};
pub use self::report::{CheckReport, Finding, ImageTally, LinkReport, TierProblem};
use self::tiers::check_tiers;
use crate::book::BookDir;
use crate::decode::DecodedPage;
use crate::preprocessor::Library;
use crate::site::{check_links, links};

/// What the checks of one data file's page found, kept until every page
/// is checked (a page's findings, not its decoded data).
struct PageFindings {
    /// Its command lines; an error when a registry could not be used.
    lines: Option<Result<(CheckReport, Tallies)>>,
    /// Its KV tiers; the same.
    tiers: Option<Result<Vec<TierProblem>>>,
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
    let tiers = check_tiers(page, decoded, registries, &mut report).map(|()| report.tiers);
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
        for (key, t) in page_tallies {
            let total = tallies.entry(key).or_insert_with(|| ImageTally {
                lines: 0,
                parsed: 0,
                ..t.clone()
            });
            total.lines += t.lines;
            total.parsed += t.parsed;
        }
    }
    report.images = tallies.into_values().collect();
    for (_, path) in lib.page_files() {
        let findings = found.get_mut(path).expect("every loaded page was checked");
        report
            .tiers
            .extend(findings.tiers.take().expect("taken once")?);
    }
    Ok(report)
}

/// `check`: renders the book page by page, as `build` does but without
/// writing it, and runs every check. Each data file is checked as it is
/// decoded and dropped; links are checked as pages go by.
pub fn run(root: &Path) -> Result<CheckReport> {
    let dir = BookDir::open(root)?;
    let config = RegistryConfig::from_toml(dir.agentx.registries.as_ref())?;
    let mut registries = Registries::new(&dir.root, dir.bounds.clone(), config)?;
    let mut found = HashMap::new();
    let lib = Library::open_visiting(&dir, &mut |path, page| {
        found.insert(path.to_path_buf(), check_page(page, &mut registries));
    })?;
    if !lib.failures().is_empty() {
        bail!(
            "data files failed to load:\n  {}",
            lib.failures().join("\n  ")
        );
    }
    let lib = OnceLock::from(lib);
    let notices = lib.get().map(Library::take_notices).unwrap_or_default();
    let (links::LinkCheck { stats, problems }, built) = check_links(dir, &lib, &["404.html"])?;
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
