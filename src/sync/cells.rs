//! Points → cells: a lane's points grouped by deployment label, a search-space
//! row joining a cell only when none of its concurrencies is there yet (a
//! cell's id is `<config key>#<item of its first point>`), the cell facts, the detail's
//! disambiguator, and the page's cell order. Uses `data` and `sync::*`.

use super::lane::{LanePoint, LaneResult, Outcome};
use super::lane_manifest::{Lane, LaneManifest};
use crate::data::{ImageStatus, Router};

/// Chip order of hardware on a page (research/generator.md §2.5).
pub(super) const HARDWARE_ORDER: [&str; 6] = ["gb300", "gb200", "b300", "b200", "h200", "h100"];

/// One deployment before encoding.
#[derive(Debug, Clone)]
pub(super) struct CellDraft {
    pub id: String,
    pub lane: Lane,
    pub hw: String,
    pub ckpt: String,
    pub label: String,
    pub detail: String,
    pub gpus: u32,
    pub image: String,
    pub image_status: ImageStatus,
    pub image_commit: Option<String>,
    pub submitted: Router,
    pub speculates: bool,
    pub recipe_path: String,
    pub points: Vec<LanePoint>,
}

impl CellDraft {
    fn order_key(&self) -> (usize, u32, u32, String, String) {
        let hw = HARDWARE_ORDER
            .iter()
            .position(|h| *h == self.hw)
            .unwrap_or(HARDWARE_ORDER.len());
        let p0 = &self.points[0];
        (
            hw,
            p0.conc,
            p0.worker_gpus,
            self.lane.config_key.clone(),
            self.id.clone(),
        )
    }
}

/// The cells of one rendered lane, in point order.
pub(super) fn group(result: &LaneResult, m: &LaneManifest) -> Result<Vec<CellDraft>, String> {
    let Outcome::Rendered(points) = &result.outcome else {
        return Ok(Vec::new());
    };
    let lane = &result.lane;
    let mut cells: Vec<CellDraft> = Vec::new();
    // (row, label) → its cell, decided at the pair's first point.
    let mut joined: Vec<((usize, &str), usize)> = Vec::new();
    for p in points {
        let key = (p.item, p.label.as_str());
        let target = match joined.iter().find(|(k, _)| *k == key) {
            Some((_, i)) => Some(*i),
            None => {
                let t = joining_cell(&cells, points, p);
                if let Some(i) = t {
                    joined.push((key, i));
                }
                t
            }
        };
        if let Some(i) = target {
            let c = &mut cells[i];
            check_same(c, p)
                .map_err(|e| format!("{}: lane `{}`: {e}", lane.at, lane.config_key))?;
            c.points.push(p.clone());
            continue;
        }
        joined.push((key, cells.len()));
        let (image_status, image_commit) = image_facts(&p.image, m);
        cells.push(CellDraft {
            id: format!("{}#{}", lane.config_key, p.item),
            lane: lane.clone(),
            hw: p.hw.clone(),
            ckpt: result.entry.model.clone(),
            label: p.label.clone(),
            detail: p.detail.clone(),
            gpus: p.gpus,
            image: p.image.clone(),
            image_status,
            image_commit,
            submitted: p.routers.submitted,
            speculates: p.golden_al.is_some(),
            recipe_path: p.recipe_path.clone(),
            points: vec![p.clone()],
        });
    }
    Ok(cells)
}

/// The cell a row's points of one label join: the lane's cell of that label
/// unless it already has one of the row's concurrencies (a cell holds one
/// point per concurrency), in which case the row starts its own cell.
fn joining_cell(cells: &[CellDraft], points: &[LanePoint], p: &LanePoint) -> Option<usize> {
    let concs: Vec<u32> = points
        .iter()
        .filter(|q| q.item == p.item && q.label == p.label)
        .map(|q| q.conc)
        .collect();
    cells
        .iter()
        .position(|c| c.label == p.label && !c.points.iter().any(|q| concs.contains(&q.conc)))
}

fn check_same(c: &CellDraft, p: &LanePoint) -> Result<(), String> {
    let first = &c.points[0];
    let what = if p.hw != c.hw {
        "hardware"
    } else if p.image != c.image {
        "image"
    } else if p.routers.submitted != c.submitted {
        "front door"
    } else if p.detail != c.detail {
        "speculative decoding"
    } else if p.golden_al.is_some() != first.golden_al.is_some() {
        "synthetic acceptance"
    } else {
        return Ok(());
    };
    Err(format!(
        "search-space[{}] c{} has the label `{}` of cell `{}` but another {what}; the data \
         format keeps one {what} per cell",
        p.item, p.conc, c.label, c.id
    ))
}

/// Status from the manifest (default `ok`), commit from the tag's `-<8 hex>` suffix.
fn image_facts(image: &str, m: &LaneManifest) -> (ImageStatus, Option<String>) {
    let no_digest = image.split('@').next().unwrap_or(image);
    let status = m
        .images
        .get(image)
        .or_else(|| m.images.get(no_digest))
        .map(|i| i.status)
        .unwrap_or_default();
    let tag = no_digest.rsplit_once(':').map_or("", |(_, t)| t);
    let commit = tag
        .rsplit_once('-')
        .map(|(_, c)| c)
        .filter(|c| c.len() == 8 && c.chars().all(|ch| ch.is_ascii_hexdigit()))
        .map(str::to_string);
    (status, commit)
}

/// Orders a page's cells and adds ` · <config key>` to the detail of cells
/// that share hardware, checkpoint and label with a cell of another lane.
pub(super) fn finish_page(cells: &mut [CellDraft]) {
    cells.sort_by_key(|c| c.order_key());
    let twins: Vec<bool> = cells
        .iter()
        .map(|c| {
            cells.iter().any(|o| {
                o.lane.config_key != c.lane.config_key
                    && o.hw == c.hw
                    && o.ckpt == c.ckpt
                    && o.label == c.label
            })
        })
        .collect();
    for (c, twin) in cells.iter_mut().zip(twins) {
        if twin {
            c.detail = format!("{} \u{b7} {}", c.detail, c.lane.config_key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_commit_is_the_tag_suffix() {
        let m = crate::sync::lane_manifest::parse(
            "[source]\nrepo = \"o/r\"\nmain = \"0000000000000000000000000000000000000000\"\ngenerated-on = 2026-10-08\n[image.\"lmsysorg/sglang:nightly-dev-20260914-4358a161\"]\nstatus = \"pruned\"\n",
            std::path::Path::new("m.toml"),
        )
        .unwrap();
        let (s, c) = image_facts("lmsysorg/sglang:nightly-dev-20260914-4358a161", &m);
        assert_eq!((s, c.as_deref()), (ImageStatus::Pruned, Some("4358a161")));
        let (s, c) = image_facts(
            "lmsysorg/sglang:nightly-dev-20260928-81f27fb3@sha256:d9e4",
            &m,
        );
        assert_eq!((s, c.as_deref()), (ImageStatus::Ok, Some("81f27fb3")));
        assert_eq!(
            image_facts("lmsysorg/sglang:v0.5.21-cu130@sha256:1f17", &m).1,
            None
        );
        assert_eq!(
            image_facts("lmsysorg/sglang:dev-cu13-nightly-0924", &m).1,
            None
        );
    }
}
