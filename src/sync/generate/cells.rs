//! Points → cells: a lane's points grouped by deployment label, a search-space
//! row joining a cell only when none of its concurrencies is there yet (a
//! cell's id is `<config key>#<item of its first point>`), the cell facts, the detail's
//! disambiguator, and the page's cell order. Uses `data` and `sync::*`.

use super::lane::{LanePoint, LaneResult, Outcome, concs_text};
use crate::data::{BlockKind, ImageStatus, KvTier, Router};
use crate::sync::input::lane_manifest::{Lane, LaneManifest};

/// Chip order of hardware on a page (docs/sync.md, "Cells").
pub(in crate::sync) const HARDWARE_ORDER: [&str; 6] =
    ["gb300", "gb200", "b300", "b200", "h200", "h100"];

/// One deployment before encoding.
#[derive(Debug, Clone)]
pub(in crate::sync) struct CellDraft {
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
    /// `(command, reason)` of the setup steps the lane's cluster runs.
    pub setup: Vec<(String, String)>,
    /// Disclosures of what the rules dropped, over all points.
    pub disclosures: std::collections::BTreeSet<String>,
    pub recipe_path: String,
    pub points: Vec<LanePoint>,
}

/// Where a cell stands on its page (docs/sync.md, "Cells"): hardware in chip
/// order, then checkpoint, first concurrency, GPUs of one worker, config key, id.
pub(in crate::sync) type OrderKey = (usize, String, u32, u32, String, String);

pub(in crate::sync) fn order_key(
    hw: &str,
    ckpt: &str,
    conc: u32,
    gpus: u32,
    key: &str,
    id: &str,
) -> OrderKey {
    let hw = HARDWARE_ORDER
        .iter()
        .position(|h| *h == hw)
        .unwrap_or(HARDWARE_ORDER.len());
    (hw, ckpt.into(), conc, gpus, key.into(), id.into())
}

impl CellDraft {
    pub(in crate::sync) fn order_key(&self) -> OrderKey {
        let p0 = &self.points[0];
        order_key(
            &self.hw,
            &self.ckpt,
            p0.first_conc(),
            p0.worker_gpus,
            &self.lane.config_key,
            &self.id,
        )
    }
}

/// The cells of one rendered lane, in point order.
pub(in crate::sync) fn group(
    result: &LaneResult,
    m: &LaneManifest,
) -> Result<Vec<CellDraft>, String> {
    let (Outcome::Rendered(points), Some(entry)) = (&result.outcome, &result.entry) else {
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
            c.disclosures.extend(p.disclosures.iter().cloned());
            c.points.push(p.clone());
            continue;
        }
        joined.push((key, cells.len()));
        let (image_status, image_commit) = image_facts(&p.image, m);
        cells.push(CellDraft {
            id: format!("{}#{}", lane.config_key, p.item),
            lane: lane.clone(),
            hw: p.hw.clone(),
            ckpt: entry.model.clone(),
            label: p.label.clone(),
            detail: p.detail.clone(),
            gpus: p.gpus,
            image: p.image.clone(),
            image_status,
            image_commit,
            submitted: p.routers.submitted,
            speculates: p.golden_al.is_some(),
            setup: cluster_setup(m, &entry.runner, p.routers.submitted),
            disclosures: p.disclosures.clone(),
            recipe_path: p.recipe_path.clone(),
            points: vec![p.clone()],
        });
    }
    name_twins(&mut cells);
    Ok(cells)
}

/// The cell a row's points of one label join: the lane's cell of that label
/// unless it already has one of the row's concurrencies (a cell holds one
/// point per concurrency), in which case the row starts its own cell.
fn joining_cell(cells: &[CellDraft], points: &[LanePoint], p: &LanePoint) -> Option<usize> {
    let concs: Vec<u32> = points
        .iter()
        .filter(|q| q.item == p.item && q.label == p.label)
        .flat_map(|q| q.concs.iter().copied())
        .collect();
    cells.iter().position(|c| {
        c.label == p.label
            && !c
                .points
                .iter()
                .any(|q| q.concs.iter().any(|n| concs.contains(n)))
    })
}

/// Cells of one lane that a reader could not tell apart (same hardware,
/// checkpoint, label and detail) get what differs in their detail: the tier
/// they measured (` · measured with HiCache`), else the first worker flag whose
/// value differs (` · --max-running-requests 4`); and cells that start from
/// the same search-space row get `@c<first concurrency>` in their id.
fn name_twins(cells: &mut [CellDraft]) {
    let suffixes: Vec<Option<String>> = (0..cells.len())
        .map(|i| {
            let c = &cells[i];
            let twin = cells.iter().enumerate().find(|(j, o)| {
                *j != i
                    && o.hw == c.hw
                    && o.ckpt == c.ckpt
                    && o.label == c.label
                    && o.detail == c.detail
            })?;
            Some(twin_suffix(c, twin.1))
        })
        .collect();
    for (c, s) in cells.iter_mut().zip(suffixes) {
        if let Some(s) = s {
            c.detail = format!("{} \u{b7} {s}", c.detail);
        }
    }
    let items: Vec<usize> = cells.iter().map(|c| c.points[0].item).collect();
    for c in cells.iter_mut() {
        let item = c.points[0].item;
        if items.iter().filter(|i| **i == item).count() > 1 {
            c.id = format!("{}@c{}", c.id, c.points[0].first_conc());
        }
    }
}

/// What tells `c` from its twin `o`.
fn twin_suffix(c: &CellDraft, o: &CellDraft) -> String {
    let (kc, ko) = (c.points[0].kv, o.points[0].kv);
    if kc != ko {
        let tier = match kc {
            KvTier::None => "no KV offload",
            KvTier::Hicache => "HiCache",
            KvTier::Mooncake => "Mooncake",
        };
        return format!("measured with {tier}");
    }
    // Worker arguments in block order (prefill, decode, agg), as `(block, arg)`.
    let worker = |d: &CellDraft| {
        let p = &d.points[0];
        let blocks = &p.routers.by_router[&p.routers.submitted].blocks;
        let workers = blocks.iter().filter(|b| b.kind == BlockKind::Worker);
        workers
            .enumerate()
            .flat_map(|(i, b)| b.args.iter().map(move |a| (i, a.clone())))
            .collect::<Vec<_>>()
    };
    let theirs = worker(o);
    worker(c)
        .into_iter()
        .find(|a| !theirs.contains(a))
        .map(|(_, a)| a)
        .map_or_else(
            || c.lane.config_key.clone(),
            |a| {
                std::iter::once(a.flag)
                    .chain(a.values)
                    .collect::<Vec<_>>()
                    .join(" ")
            },
        )
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
        "search-space[{}] {} has the label `{}` of cell `{}` but another {what}; the data \
         format keeps one {what} per cell",
        p.item,
        concs_text(&p.concs),
        c.label,
        c.id
    ))
}

/// The setup steps the manifest records for the lane's cluster (`runner:
/// cluster:<name>`) and front door.
fn cluster_setup(m: &LaneManifest, runner: &str, submitted: Router) -> Vec<(String, String)> {
    let cluster = runner
        .strip_prefix("cluster:")
        .and_then(|c| m.clusters.get(c));
    cluster
        .into_iter()
        .flat_map(|c| c.setup.iter())
        .filter(|s| s.front_door.is_none_or(|d| d == submitted))
        .map(|s| (s.command.clone(), s.reason.clone()))
        .collect()
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
/// that share hardware, checkpoint, label and detail with a cell of another
/// lane (a reader could not tell them apart otherwise).
pub(in crate::sync) fn finish_page(cells: &mut [CellDraft]) {
    cells.sort_by_key(|c| c.order_key());
    let twins: Vec<bool> = cells
        .iter()
        .map(|c| {
            cells.iter().any(|o| {
                o.lane.config_key != c.lane.config_key
                    && o.hw == c.hw
                    && o.ckpt == c.ckpt
                    && o.label == c.label
                    && o.detail == c.detail
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
        let m = crate::sync::input::lane_manifest::parse(
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
