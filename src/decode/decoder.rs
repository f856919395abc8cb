//! The decoder: blocks materialized from `ref`/`from`/`envRef`, point
//! patches applied, then every (point, router, tier) of a cell as a command set.

use crate::util::hash::{FastMap, FastSet};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};

use super::command_set_anchor;
use super::edit::{apply_diff, apply_edit};
use super::kv::kv_transform;
use super::labels::{checkpoint_label, detail_label, hardware_label, image_info, node_count};
use super::model::{CommandSet, Deployment, ImageInfo, KvDonor, Provenance, UnavailableTier};
use super::notes::NoteContext;
use super::placeholders::placeholders_in;
use super::processes::processes_for;
use super::provenance::provenance;
use super::status::{Status, point_pr, point_status};
use super::validate::validate_cell;
use crate::data::{AgentxData, Block, Cell, EncodedBlock, KvTier, Patch, Router, RunStatus};
use crate::util::text::slug;

pub(super) struct Decoder<'a> {
    data: &'a AgentxData,
    /// Materialized point-0 blocks per (cell, router), shared (not copied)
    /// by every point and tier that uses them unchanged.
    cache: FastMap<(usize, Router), Arc<[Block]>>,
    /// Command texts already made, shared by every set that repeats one.
    texts: SharedTexts,
    /// Cells another cell's `ref` names: their blocks stay cached until the
    /// page is done; any other cell's are dropped once it is decoded.
    referenced: FastSet<usize>,
}

/// Equal texts stored once. Why: a page's command sets repeat most of their
/// commands (etcd, NATS, the router, workers a tier leaves alone), and
/// holding each copy made decoding take about 30× the data file's size.
#[derive(Debug, Default)]
pub(super) struct SharedTexts(FastSet<Arc<str>>);

impl SharedTexts {
    pub(super) fn share(&mut self, text: String) -> Arc<str> {
        if let Some(t) = self.0.get(text.as_str()) {
            return Arc::clone(t);
        }
        let t: Arc<str> = text.into();
        self.0.insert(Arc::clone(&t));
        t
    }
}

impl<'a> Decoder<'a> {
    pub(super) fn new(data: &'a AgentxData) -> Self {
        let mut referenced = FastSet::default();
        for cell in &data.cells {
            let routers = cell.routers.values().flat_map(|r| &r.blocks);
            let patches = cell.points.iter().filter_map(|p| p.patch.as_ref());
            let replaced = patches.flat_map(|p| p.values()).filter_map(|p| match p {
                Some(Patch::Replace(list)) => Some(list),
                _ => None,
            });
            for eb in routers.chain(replaced.flatten()) {
                if let EncodedBlock::Ref { cell, .. } = eb {
                    referenced.insert(*cell);
                }
            }
        }
        Decoder {
            data,
            cache: FastMap::default(),
            texts: SharedTexts::default(),
            referenced,
        }
    }

    /// Drops the cached blocks of cell `ci` once it is decoded, unless a
    /// `ref` names it: a page's blocks need not all be held at once.
    pub(super) fn done_with(&mut self, ci: usize) {
        if !self.referenced.contains(&ci) {
            self.cache.retain(|(c, _), _| *c != ci);
        }
    }

    fn cell(&self, ci: usize) -> Result<&'a Cell> {
        self.data.cells.get(ci).ok_or_else(|| {
            anyhow!(
                "there is no cells[{ci}]: the file has {} cells",
                self.data.cells.len()
            )
        })
    }

    /// Point 0's blocks for a router, with `ref`/`from`/`envRef` resolved.
    fn materialize(
        &mut self,
        ci: usize,
        router: Router,
        stack: &mut Vec<(usize, Router)>,
    ) -> Result<Arc<[Block]>> {
        if let Some(b) = self.cache.get(&(ci, router)) {
            return Ok(Arc::clone(b));
        }
        if stack.contains(&(ci, router)) {
            let chain: Vec<String> = stack
                .iter()
                .chain(std::iter::once(&(ci, router)))
                .map(|(c, r)| format!("cells[{c}].routers.{r}"))
                .collect();
            bail!("cycle of refs: {}", chain.join(" → "));
        }
        let cell = self.cell(ci)?;
        let rd = cell.routers.get(&router).ok_or_else(|| {
            anyhow!(
                "cells[{ci}] (`{}`) has no router `{router}`; it has: {}",
                cell.id,
                router_list(cell)
            )
        })?;
        stack.push((ci, router));
        let mut out = Vec::with_capacity(rd.blocks.len());
        for (bi, eb) in rd.blocks.iter().enumerate() {
            let path = format!("cells[{ci}].routers.{router}.blocks[{bi}]");
            let b = self.resolve(ci, eb, stack).context(path)?;
            out.push(b);
        }
        stack.pop();
        for (bi, b) in out.iter_mut().enumerate() {
            self.resolve_env_ref(b)
                .with_context(|| format!("cells[{ci}].routers.{router}.blocks[{bi}].envRef"))?;
        }
        let out: Arc<[Block]> = out.into();
        self.cache.insert((ci, router), Arc::clone(&out));
        Ok(out)
    }

    fn resolve_env_ref(&self, b: &mut Block) -> Result<()> {
        if let Some(i) = b.env_ref.take() {
            b.env = self.data.envs.get(i).cloned().ok_or_else(|| {
                anyhow!(
                    "envRef {i} points past the end of `envs` ({} entries)",
                    self.data.envs.len()
                )
            })?;
        }
        Ok(())
    }

    /// Resolves an encoded block in the context of cell `ci`.
    fn resolve(
        &mut self,
        ci: usize,
        eb: &EncodedBlock,
        stack: &mut Vec<(usize, Router)>,
    ) -> Result<Block> {
        match eb {
            EncodedBlock::Full(b) => Ok((**b).clone()),
            EncodedBlock::Ref {
                cell,
                router,
                block,
                edit,
            } => {
                if *cell >= self.data.cells.len() {
                    bail!(
                        "ref: [{cell}, \"{router}\", {block}] names cells[{cell}], but the file has {} cells",
                        self.data.cells.len()
                    );
                }
                let base = self.materialize(*cell, *router, stack).context("ref")?;
                let b = base.get(*block).ok_or_else(|| {
                    anyhow!(
                        "ref: [{cell}, \"{router}\", {block}] names block {block}, but cells[{cell}].routers.{router} has {} blocks",
                        base.len()
                    )
                })?;
                apply_edit(b, edit)
            }
            EncodedBlock::From { block, edit } => {
                let submitted = self.cell(ci)?.submitted;
                let base = self.materialize(ci, submitted, stack).context("from")?;
                let b = base.get(*block).ok_or_else(|| {
                    anyhow!(
                        "from: {block} names block {block} of the submitted router `{submitted}`, which has {} blocks",
                        base.len()
                    )
                })?;
                apply_edit(b, edit)
            }
        }
    }

    /// Point `pi`'s blocks for a router: point 0's with the point's patch applied.
    fn point_blocks(&mut self, ci: usize, pi: usize, router: Router) -> Result<Arc<[Block]>> {
        let base = self.materialize(ci, router, &mut Vec::new())?;
        let cell = self.cell(ci)?;
        let point = &cell.points[pi];
        let Some(patches) = &point.patch else {
            return Ok(base);
        };
        for r in patches.keys() {
            if !cell.routers.contains_key(r) {
                bail!(
                    "cells[{ci}].points[{pi}].patch.{r}: the cell has no router `{r}` (it has: {})",
                    router_list(cell)
                );
            }
        }
        let path = format!("cells[{ci}].points[{pi}].patch.{router}");
        match patches.get(&router) {
            None | Some(None) => Ok(base),
            Some(Some(Patch::Replace(list))) => {
                let mut out = Vec::with_capacity(list.len());
                for (bi, eb) in list.iter().enumerate() {
                    let mut b = self
                        .resolve(ci, eb, &mut Vec::new())
                        .with_context(|| format!("{path}.replace[{bi}]"))?;
                    self.resolve_env_ref(&mut b)
                        .with_context(|| format!("{path}.replace[{bi}].envRef"))?;
                    out.push(b);
                }
                Ok(out.into())
            }
            Some(Some(Patch::PerBlock(diffs))) => {
                if diffs.len() > base.len() {
                    bail!(
                        "{path}: the patch list has {} entries but point 0 has {} blocks for \
                         router `{router}`; expected at most one diff (or null) per block",
                        diffs.len(),
                        base.len()
                    );
                }
                let mut out = base.to_vec();
                for (bi, d) in diffs.iter().enumerate() {
                    if let Some(d) = d {
                        apply_diff(&mut out[bi], d);
                        self.resolve_env_ref(&mut out[bi])
                            .with_context(|| format!("{path}[{bi}].block.envRef"))?;
                    }
                }
                Ok(out.into())
            }
        }
    }

    pub(super) fn deployment(&mut self, ci: usize) -> Result<Deployment> {
        let data = self.data;
        let cell = self.cell(ci)?;
        validate_cell(data, ci)?;
        let point0 = &cell.points[0];
        let status = Status::measured(point_status(cell, point0, ci, 0)?, point_pr(cell, point0));
        let base = self.point_blocks(ci, 0, cell.submitted)?;
        let mut measured: Vec<KvTier> = cell.points.iter().map(|p| p.kv).collect();
        measured.sort();
        measured.dedup();
        let available: Vec<KvTier> = KvTier::ALL
            .into_iter()
            .filter(|t| cell.kv.available.contains(t))
            .collect();
        Ok(Deployment {
            cell_id: cell.id.clone(),
            config_key: cell.config_key.clone(),
            hw: cell.hw.clone(),
            hw_label: hardware_label(data, &cell.hw),
            ckpt: cell.ckpt.clone(),
            ckpt_label: checkpoint_label(data, &cell.ckpt),
            label: cell.label.clone(),
            detail: detail_label(cell, &base),
            gpus: cell.gpus,
            nodes: node_count(&base),
            concs: cell.points.iter().map(|p| p.concs.clone()).collect(),
            submitted: cell.submitted,
            measured,
            command_sets: self.command_sets(ci, &available)?,
            available,
            unavailable: unavailable_tiers(cell),
            hicache: cell.kv.hicache.as_ref().map(|h| KvDonor {
                donor: h.donor.clone(),
                donor_hardware: hardware_label(data, &h.donor_hardware),
                args: h.args.clone(),
            }),
            routers: cell.routers.keys().copied().collect(),
            status,
            provenance: provenance(data, cell, point0),
            image: image_info(cell),
            anchor: slug(&cell.id),
        })
    }

    /// Every command set of cell `ci`: per point, router and available tier.
    fn command_sets(&mut self, ci: usize, available: &[KvTier]) -> Result<Vec<CommandSet>> {
        let (data, cell) = (self.data, self.cell(ci)?);
        let mut sets = Vec::with_capacity(cell.points.len() * cell.routers.len() * available.len());
        let image = Arc::new(image_info(cell));
        for (pi, point) in cell.points.iter().enumerate() {
            let run_status = point_status(cell, point, ci, pi)?;
            let provenance = Arc::new(provenance(data, cell, point));
            for &router in cell.routers.keys() {
                let blocks = self.point_blocks(ci, pi, router)?;
                for &tier in available {
                    let blocks = kv_transform(data, cell, &blocks, point.kv, tier, router)
                        .with_context(|| format!("cells[{ci}].points[{pi}] ({router}, {tier})"))?;
                    let status = if router == cell.submitted && tier == point.kv {
                        Status::measured(run_status, point_pr(cell, point))
                    } else {
                        Status::Derived
                    };
                    let at = SetAt {
                        ci,
                        cell,
                        point: pi,
                        router,
                        tier,
                        run_status,
                        provenance: Arc::clone(&provenance),
                        image: Arc::clone(&image),
                    };
                    sets.push(self.command_set(&at, &blocks, status)?);
                }
            }
        }
        Ok(sets)
    }

    /// One command set from its blocks (already in their tier).
    fn command_set(
        &mut self,
        at: &SetAt<'_>,
        blocks: &[Block],
        status: Status,
    ) -> Result<CommandSet> {
        let (data, cell, router) = (self.data, at.cell, at.router);
        let point = &cell.points[at.point];
        let files = &cell.routers[&router].files;
        let (processes, loose_files) = processes_for(data, blocks, router, files, &mut self.texts)
            .with_context(|| format!("cells[{}].routers.{router}", at.ci))?;
        let placeholders = placeholders_in(&processes, &loose_files);
        let notes = NoteContext {
            data,
            cell,
            point,
            router,
            tier: at.tier,
            status: &status,
            run_status: at.run_status,
            blocks,
            placeholders: &placeholders,
        }
        .notes();
        Ok(CommandSet {
            cell_id: cell.id.clone(),
            point: at.point,
            concs: point.concs.clone(),
            router,
            tier: at.tier,
            measured: point.kv,
            status,
            anchor: command_set_anchor(&cell.id, &point.concs, at.tier, router),
            processes,
            loose_files,
            placeholders,
            notes,
            provenance: Arc::clone(&at.provenance),
            image: Arc::clone(&at.image),
        })
    }
}

/// Which command set of a cell is being made.
struct SetAt<'a> {
    /// Index of the cell, for messages.
    ci: usize,
    cell: &'a Cell,
    point: usize,
    router: Router,
    tier: KvTier,
    /// The point's run status, even when the set is derived.
    run_status: RunStatus,
    /// The point's provenance and the cell's image, shared by its sets.
    provenance: Arc<Provenance>,
    image: Arc<ImageInfo>,
}

/// Tiers a cell does not offer, with the data's reason or a default one.
fn unavailable_tiers(cell: &Cell) -> Vec<UnavailableTier> {
    KvTier::ALL
        .into_iter()
        .filter(|t| !cell.kv.available.contains(t))
        .map(|t| {
            let reason = cell
                .kv
                .unavailable
                .get(&t)
                .cloned()
                .unwrap_or_else(|| "not offered for this configuration".into());
            UnavailableTier { tier: t, reason }
        })
        .collect()
}

pub(super) fn router_list(cell: &Cell) -> String {
    let v: Vec<&str> = cell.routers.keys().map(|r| r.id()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}
