//! `check`: every command line against the flag registry of its image, the
//! KV-offload tiers against what each image supports, and every internal link
//! and anchor of the built site.
//!
//! May use: `site` (the built site, for links; the book's config),
//! `preprocessor` (the data library), `decode`, `data`, `shell`, `util`.

mod lines;
mod registries;
pub(crate) mod registry;
mod report;
mod tiers;

use std::path::Path;

use anyhow::{Result, bail};

use self::lines::{Tallies, check_set};
pub(crate) use self::registries::{Registries, RegistryConfig};
pub use self::report::*;
use self::tiers::check_tiers;
use crate::preprocessor::Library;
use crate::site::book::BookDir;
use crate::site::links;
use crate::site::{BuildOptions, Site};

/// Checks command lines and tiers of every page in a library.
pub(crate) fn check_library(lib: &Library, registries: &mut Registries) -> Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut tallies = Tallies::new();
    for (page, decoded) in lib.pages() {
        for set in decoded.command_sets() {
            check_set(page, set, registries, &mut tallies, &mut report)?;
        }
    }
    report.images = tallies.into_values().collect();
    check_tiers(lib, registries, &mut report)?;
    Ok(report)
}

/// `check`: builds the book in memory and runs every check.
pub fn run(root: &Path) -> Result<CheckReport> {
    let dir = BookDir::open(root)?;
    let config = RegistryConfig::from_toml(dir.agentx.registries.as_ref())?;
    let mut registries = Registries::new(root, dir.bounds.clone(), config)?;
    let bounds = dir.bounds.clone();
    let mut lib = Some(Library::open(
        root,
        &dir.agentx.data_dir,
        bounds,
        crate::preprocessor::Residency::Resident,
    )?);
    if let Some(l) = &lib
        && !l.failures().is_empty()
    {
        bail!(
            "data files failed to load:\n  {}",
            l.failures().join("\n  ")
        );
    }
    let site = Site::expand(dir, &mut lib, None)?;
    let files = site.render_files(&BuildOptions::default())?;
    let links::LinkCheck { stats, problems } = links::check(&files, &["404.html"]);
    let mut report = check_library(lib.as_ref().expect("loaded above"), &mut registries)?;
    report.links = LinkReport {
        pages: stats.pages,
        links: stats.links,
        anchors: stats.anchors,
        problems: problems.iter().map(|p| p.to_string()).collect(),
    };
    Ok(report)
}
