//! What a page loses against its `--previous` version, for the reviewer:
//! cells removed (their lanes are not in the manifest, or the lane no longer
//! makes them) and what a regenerated cell of the same id no longer has
//! (hand-added setup steps, a label, detail or disclosure). The comparison
//! table counts command sets; this says why they went. Uses `data`,
//! `util` (escaping) and `sync::*`.

use std::collections::BTreeSet;

use super::page::PageOut;
use super::previous::PreviousPage;
use crate::data::Cell;
use crate::util::escape::{code, text};

/// One page's losses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageChanges {
    /// The page (`model`).
    pub page: String,
    /// Cells of the previous page the new one does not have.
    pub removed: Vec<RemovedCell>,
    /// Fields a regenerated cell no longer has.
    pub lost: Vec<LostField>,
}

/// A cell of the previous page that is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedCell {
    /// The cell id.
    pub id: String,
    /// Its lane.
    pub config_key: String,
    /// Whether the lane is in the manifest (then it no longer makes this cell).
    pub lane_synced: bool,
}

/// A field of a previous cell its regenerated cell does not keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostField {
    /// The cell id.
    pub cell: String,
    /// `setup`, `label`, `detail` or `disclosures`.
    pub field: String,
    /// What the previous cell had.
    pub before: String,
    /// What the new cell has.
    pub after: String,
}

impl PageChanges {
    /// Nothing lost.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.lost.is_empty()
    }
}

/// The losses of a written page against its previous version.
pub(in crate::sync) fn of(page: &PageOut, prev: &PreviousPage, lanes: &[&str]) -> PageChanges {
    let new: &[Cell] = &page.data.cells;
    let mut out = PageChanges {
        page: page.page.clone(),
        removed: Vec::new(),
        lost: Vec::new(),
    };
    for old in &prev.loaded.data.cells {
        match new.iter().find(|c| c.id == old.id) {
            None => out.removed.push(RemovedCell {
                id: old.id.clone(),
                config_key: old.config_key.clone(),
                lane_synced: lanes.contains(&old.config_key.as_str()),
            }),
            Some(c) => out.lost.extend(lost(old, c)),
        }
    }
    out
}

fn lost(old: &Cell, new: &Cell) -> Vec<LostField> {
    let mut out = Vec::new();
    let mut push = |field: &str, before: String, after: String| {
        out.push(LostField {
            cell: old.id.clone(),
            field: field.into(),
            before,
            after,
        });
    };
    let steps = |c: &Cell| -> Vec<String> {
        c.setup
            .iter()
            .map(|s| {
                let what = s.command.as_deref().or(s.script.as_deref()).unwrap_or("");
                format!(
                    "{what} ({})",
                    s.reason.as_deref().unwrap_or("no reason given")
                )
            })
            .collect()
    };
    let (old_steps, new_steps) = (steps(old), steps(new));
    for s in old_steps.iter().filter(|s| !new_steps.contains(s)) {
        push("setup", s.clone(), "(not in the regenerated cell)".into());
    }
    if old.label != new.label {
        push("label", old.label.clone(), new.label.clone());
    }
    if old.detail != new.detail {
        let text = |d: &Option<String>| d.clone().unwrap_or_default();
        push("detail", text(&old.detail), text(&new.detail));
    }
    let kept: BTreeSet<&String> = new.disclosures.iter().collect();
    for d in old.disclosures.iter().filter(|d| !kept.contains(d)) {
        push(
            "disclosures",
            d.clone(),
            "(not in the regenerated cell)".into(),
        );
    }
    out
}

/// The report's section: per page, what is removed and what is lost. The
/// report is Markdown for a pull request, and every value here is data (the
/// previous page's text): each goes through the escaping module.
pub(in crate::sync) fn markdown(all: &[PageChanges]) -> String {
    let mut out = String::new();
    for p in all.iter().filter(|p| !p.is_empty()) {
        out.push_str(&format!("\n### {}\n\n", text(&p.page)));
        let unsynced: Vec<&RemovedCell> = p.removed.iter().filter(|r| !r.lane_synced).collect();
        if !unsynced.is_empty() {
            let mut keys: Vec<&str> = Vec::new();
            for r in &unsynced {
                if !keys.contains(&r.config_key.as_str()) {
                    keys.push(&r.config_key);
                }
            }
            out.push_str(&format!(
                "- {} cells removed: their lanes are not in the manifest ({}); carry them over \
                 (`carry-over = true`) to keep them\n",
                unsynced.len(),
                keys.iter().map(|k| code(k)).collect::<Vec<_>>().join(", ")
            ));
        }
        for r in p.removed.iter().filter(|r| r.lane_synced) {
            out.push_str(&format!(
                "- cell {} removed: lane {} no longer makes it\n",
                code(&r.id),
                code(&r.config_key)
            ));
        }
        for l in &p.lost {
            out.push_str(&format!(
                "- cell {} loses its {} {} (now: {})\n",
                code(&l.cell),
                l.field,
                code(&l.before),
                text(&l.after)
            ));
        }
    }
    if out.is_empty() {
        out
    } else {
        format!("\n## What the pages lose against the previous data\n{out}")
    }
}
