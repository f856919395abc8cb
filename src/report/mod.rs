//! `report`: one document for a pull request's description, from the book
//! as it is and as it was at a base commit: the per-page counts (`stats`),
//! the command sets identical, added, removed and changed against the base
//! (`diff`), and every check (`check`): arguments per image and entry point
//! (with the distinct argument lists new since the base), KV flags per
//! image, links and anchors, warnings. Nothing is counted twice here: each
//! part is what its own command computes, returned as values.
//!
//! The base is read from git: the repository holding the book is archived
//! at the base commit into a scratch directory (removed afterwards), and the
//! book there is expanded, nothing rendered.
//!
//! May use: `book` (the book's title), `check`, `diff`, `manifest`, `site`,
//! `stats`, `util`.

mod markdown;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::check::{ArgumentLists, CheckReport, argument_lists};
use crate::manifest::{Manifest, ManifestDiff};
use crate::stats::{PageStats, page_stats};
use crate::util::notice::Notice;

/// The base the book was compared with.
#[derive(Debug, Clone, Serialize)]
pub struct BaseRef {
    /// The ref as given (`origin/main`).
    pub spec: String,
    /// The commit it names.
    pub commit: String,
}

/// Per (image, entry point): distinct argument lists the base did not have.
#[derive(Debug, Clone, Serialize)]
pub struct NewLines {
    /// The image.
    pub image: String,
    /// The entry point.
    pub entrypoint: String,
    /// Distinct argument lists of the book not among the base's for the
    /// same image and entry point.
    pub new: usize,
}

/// Everything `report` found; [`Report::ok`] says whether every check passed.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The book's title.
    pub title: String,
    /// The base commit.
    pub base: BaseRef,
    /// Per page (data file), in page-name order.
    pub pages: Vec<PageStats>,
    /// Command sets against the base.
    pub diff: ManifestDiff,
    /// Distinct argument lists new since the base, per image and entry
    /// point, in the order of `check.images`.
    pub new_lines: Vec<NewLines>,
    /// Every check, as `check` reports it (its notices in `check.notices`).
    pub check: CheckReport,
    /// What expanding the book at the base had to say: for the terminal,
    /// not part of the report.
    #[serde(skip)]
    pub notices: Vec<Notice>,
}

impl Report {
    /// Whether every check passed (the comparison with the base fails nothing).
    pub fn ok(&self) -> bool {
        self.check.ok()
    }

    /// The report as Markdown for a pull-request description.
    pub fn markdown(&self) -> String {
        markdown::render(self)
    }
}

/// What one side of the comparison gives: its manifest and its argument lists.
struct Side {
    manifest: Manifest,
    arguments: ArgumentLists,
    notices: Vec<Notice>,
}

/// Reports on the book at `book` against the commit `base` names in the
/// repository holding it.
pub fn run(book: &Path, base: &str) -> Result<Report> {
    let commit = crate::diff::resolve_commit(book, base)?;
    let old = crate::diff::with_book_at_commit(book, &commit, &mut |at| {
        base_side(at).with_context(|| format!("reading the book at `{base}` ({commit})"))
    })?;
    let mut stats: BTreeMap<String, PageStats> = BTreeMap::new();
    let mut entries = Vec::new();
    let check = crate::check::run_visiting(
        book,
        &mut |_, page| {
            stats
                .entry(page.model.clone())
                .or_insert_with(|| page_stats(page));
        },
        &mut |sets| {
            entries.extend(sets.iter().cloned());
            Ok(())
        },
    )?;
    let new = Manifest::new(entries);
    let new_lines = new_lines(&check, &old.arguments);
    Ok(Report {
        title: crate::book::BookDir::open(book)?.title(),
        base: BaseRef {
            spec: base.to_string(),
            commit,
        },
        pages: stats.into_values().collect(),
        diff: crate::manifest::compare(&old.manifest, &new),
        new_lines,
        check,
        notices: old.notices,
    })
}

/// The manifest and argument lists of the book at `root` (the base).
fn base_side(root: &Path) -> Result<Side> {
    let mut arguments = ArgumentLists::new();
    let (manifest, notices) =
        crate::site::book_manifest(root, &mut |page| argument_lists(page, &mut arguments))?;
    Ok(Side {
        manifest,
        arguments,
        notices,
    })
}

/// For each image and entry point `check` counted, how many of its distinct
/// argument lists `base` lacks.
fn new_lines(check: &CheckReport, base: &ArgumentLists) -> Vec<NewLines> {
    let none = HashSet::new();
    check
        .images
        .iter()
        .map(|t| {
            let key = (t.image.clone(), t.entrypoint.clone());
            let old = base.get(&key).unwrap_or(&none);
            let new = check.arguments.get(&key).map_or(0, |lists| {
                lists.iter().filter(|l| !old.contains(*l)).count()
            });
            NewLines {
                image: t.image.clone(),
                entrypoint: t.entrypoint.clone(),
                new,
            }
        })
        .collect()
}
