//! Per-page counts: lanes, deployments, points, hardware, command sets,
//! from the decoded model only.
//!
//! May use: `decode`, `util` (escaping page names into the table).

use serde::Serialize;

use crate::decode::DecodedPage;
use crate::util::escape::{table_cell, text};

/// Counts of one page (a data file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageStats {
    /// Page name.
    pub page: String,
    /// Distinct configKeys.
    pub lanes: usize,
    /// Cells.
    pub deployments: usize,
    /// Points (concurrency groups).
    pub points: usize,
    /// Hardware ids, in the data's order.
    pub hardware: Vec<String>,
    /// Command sets.
    pub command_sets: usize,
}

/// The counts of a decoded page.
pub fn page_stats(page: &DecodedPage) -> PageStats {
    PageStats {
        page: page.model.clone(),
        lanes: page.lane_count(),
        deployments: page.deployments.len(),
        points: page.point_count(),
        hardware: page.hardware.clone(),
        command_sets: page.command_set_count(),
    }
}

/// Sums the pages; hardware is the union in first-seen order.
pub(crate) fn total(pages: &[PageStats]) -> PageStats {
    let mut hardware: Vec<String> = Vec::new();
    for p in pages {
        for h in &p.hardware {
            if !hardware.contains(h) {
                hardware.push(h.clone());
            }
        }
    }
    PageStats {
        page: "Total".into(),
        lanes: pages.iter().map(|p| p.lanes).sum(),
        deployments: pages.iter().map(|p| p.deployments).sum(),
        points: pages.iter().map(|p| p.points).sum(),
        hardware,
        command_sets: pages.iter().map(|p| p.command_sets).sum(),
    }
}

/// A Markdown table with a total row.
pub fn markdown_table(pages: &[PageStats]) -> String {
    let mut out = String::from(
        "| Page | Lanes | Deployments | Points | Hardware | Command sets |\n|---|---:|---:|---:|---|---:|\n",
    );
    let tot = total(pages);
    for p in pages.iter().chain(std::iter::once(&tot)) {
        // Page names and hardware ids are data: escaped into the cell.
        let name = if std::ptr::eq(p, &tot) {
            format!("**{}**", p.page)
        } else {
            table_cell(&text(&p.page))
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            name,
            p.lanes,
            p.deployments,
            p.points,
            table_cell(&text(&p.hardware.join(", "))),
            p.command_sets
        ));
    }
    out
}
