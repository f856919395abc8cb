//! The sync report (Markdown, for a pull-request description): per page
//! Lanes / Deployments / Points / Hardware / Command sets, the comparison
//! with the previous data (identical / added / removed / changed command
//! sets, by the build manifest's comparison), every lane and what became of
//! it, skipped lanes, and the notes a reviewer needs. The two tables are
//! formatted by the caller (see [`crate::sync::Synced::report`]); this module
//! writes the rest.

use std::collections::BTreeMap;

use super::page::PageOut;
use super::previous::PreviousPage;
use crate::manifest::{self, Manifest, ManifestDiff, ManifestEntry};
use crate::sync::generate::lane::{LaneResult, Outcome};
use crate::sync::input::lane_manifest::{LaneManifest, status_id};
use crate::util::escape::{code, table_cell, text};

pub(in crate::sync) struct Input<'a> {
    pub(in crate::sync) manifest: &'a LaneManifest,
    pub(in crate::sync) source: String,
    pub(in crate::sync) pages: &'a [PageOut],
    pub(in crate::sync) lanes: &'a [LaneResult],
    /// `--previous`, when given.
    pub(in crate::sync) previous_dir: Option<&'a str>,
    pub(in crate::sync) notes: &'a [String],
    /// Against `--previous`: what each page loses.
    pub(in crate::sync) changes: &'a [crate::sync::PageChanges],
}

/// The comparison with the previous data, for the pages this sync writes.
pub(in crate::sync) fn compare(
    pages: &[PageOut],
    previous: &BTreeMap<String, PreviousPage>,
) -> ManifestDiff {
    let mut old = Vec::new();
    let mut new = Vec::new();
    for p in pages {
        new.extend(
            p.decoded
                .command_sets()
                .map(|s| ManifestEntry::of(&p.page, s)),
        );
        if let Some(prev) = previous.get(&p.page) {
            old.extend(
                prev.decoded
                    .command_sets()
                    .map(|s| ManifestEntry::of(&p.page, s)),
            );
        }
    }
    manifest::compare(&Manifest::new(old), &Manifest::new(new))
}

/// The report's text around the two tables.
#[derive(Debug, Clone)]
pub(in crate::sync) struct Report {
    /// Title and the line saying what was synced from what.
    intro: String,
    /// Which file each page went to.
    page_files: String,
    previous_dir: Option<String>,
    /// Lanes, skipped lanes, notes.
    rest: String,
}

impl Report {
    pub(in crate::sync) fn new(input: &Input<'_>) -> Report {
        let m = input.manifest;
        // Data text (manifest, recipes, lane names) goes in through the
        // escaping module: the report is Markdown for a pull request.
        let intro = format!(
            "# AgentX sync\n\nManifest {} over the InferenceX {} (main {}), generated on {}.\n\n",
            code(&m.path.display().to_string()),
            text(&input.source),
            code(short(&m.source.main)),
            text(&m.source.generated_on.to_string())
        );
        let mut page_files = String::new();
        for p in input.pages {
            page_files.push_str(&format!("\n- {} → {}", code(&p.page), code(&p.file_name)));
            if !p.carried.is_empty() {
                page_files.push_str(&format!(" ({} cells carried over)", p.carried.len()));
            }
        }
        page_files.push('\n');
        Report {
            intro,
            page_files,
            previous_dir: input.previous_dir.map(str::to_string),
            rest: lanes_and_notes(input),
        }
    }

    /// The whole report, with the page table and (against `--previous`) the
    /// comparison table.
    pub(in crate::sync) fn markdown(
        &self,
        pages_table: &str,
        comparison_table: Option<&str>,
    ) -> String {
        let mut out = self.intro.clone();
        out.push_str("## Pages\n\n");
        out.push_str(pages_table);
        out.push_str(&self.page_files);
        if let (Some(dir), Some(table)) = (&self.previous_dir, comparison_table) {
            out.push_str(&format!(
                "\n## Against the previous data ({})\n\n",
                code(dir)
            ));
            out.push_str(table);
        }
        out.push_str(&self.rest);
        out
    }
}

fn lanes_and_notes(input: &Input<'_>) -> String {
    let m = input.manifest;
    let mut out = String::from(
        "\n## Lanes\n\n| Page | Lane | Commit | Status | Cells | Points | Rows left out |\n|---|---|---|---|---:|---:|---|\n",
    );
    for r in input.lanes {
        out.push_str(&lane_row(r, input.pages));
    }
    out.push_str(&super::changes::markdown(input.changes));
    if !m.skips.is_empty() {
        out.push_str("\n## Skipped lanes\n\n");
        for s in &m.skips {
            out.push_str(&format!("- {}: {}\n", code(&s.config_key), text(&s.reason)));
        }
    }
    let mut notes: Vec<String> = input.notes.to_vec();
    for r in input.lanes {
        // A lane's notes are Markdown made with the escaping module; the
        // manifest's own note is text.
        let key = code(&r.lane.config_key);
        notes.extend(r.notes.iter().map(|n| format!("{key}: {n}")));
        if let Some(n) = &r.lane.note {
            notes.push(format!("{key}: {}", text(n)));
        }
    }
    if !notes.is_empty() {
        out.push_str("\n## Notes\n\n");
        for n in notes {
            out.push_str(&format!("- {n}\n"));
        }
    }
    out
}

fn short(sha: &str) -> &str {
    sha.get(..8).unwrap_or(sha)
}

fn lane_row(r: &LaneResult, pages: &[PageOut]) -> String {
    let key = &r.lane.config_key;
    let (cells, points, how) = match &r.outcome {
        Outcome::Rendered(points) => {
            let cells = pages
                .iter()
                .filter(|p| p.page == r.lane.page)
                .flat_map(|p| p.data.cells.iter())
                .filter(|c| c.config_key == *key)
                .count();
            (cells, points.len(), String::new())
        }
        Outcome::CarriedOver => {
            let cells: Vec<_> = pages
                .iter()
                .filter(|p| p.page == r.lane.page)
                .flat_map(|p| p.data.cells.iter())
                .filter(|c| c.config_key == *key)
                .collect();
            let points = cells.iter().map(|c| c.points.len()).sum();
            (cells.len(), points, " (carried over)".to_string())
        }
    };
    let left_out = if r.excluded_rows.is_empty() {
        String::new()
    } else {
        r.excluded_rows
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "| {} | {}{how} | {} | {} | {cells} | {points} | {left_out} |\n",
        table_cell(&text(&r.lane.page)),
        table_cell(&code(key)),
        // A carry-over lane may name no commit.
        table_cell(&code(r.lane.commit.as_deref().map_or("\u{2014}", short))),
        status_id(r.lane.status)
    )
}
