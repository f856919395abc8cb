//! Labels from the data: chip details, hardware and checkpoint labels, image.

use super::model::ImageInfo;
use crate::data::{AgentxData, Block, BlockKind, Cell};

/// Chip detail: the data's, else `DFlash N` read from the worker flags.
pub(crate) fn detail_label(cell: &Cell, blocks: &[Block]) -> Option<String> {
    if let Some(d) = cell.detail.as_deref().filter(|d| !d.trim().is_empty()) {
        return Some(d.to_string());
    }
    let worker = blocks.iter().find(|b| b.kind == BlockKind::Worker)?;
    let value = |flag: &str| {
        worker
            .args
            .iter()
            .find(|a| a.flag == flag)
            .and_then(|a| a.values.first())
            .map(String::as_str)
    };
    if value("--speculative-algorithm")?.eq_ignore_ascii_case("DFLASH") {
        let n = value("--speculative-num-draft-tokens")?;
        return Some(format!("DFlash {n}"));
    }
    None
}

/// The nodes a deployment's workers run on, from its submitted launch's
/// blocks: each worker block's workers times the nodes a worker spans;
/// workers pinned to GPUs share a node, as many per node as the pinning
/// lists. At least 1. (The data's `gpus` counts GPUs allocated, which can
/// be more than the workers use; nodes are what a reader's cluster must
/// have.)
pub(crate) fn node_count(blocks: &[Block]) -> u32 {
    let nodes: u32 = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Worker)
        .map(|b| {
            let workers = b.workers.unwrap_or(1).max(1);
            let span = b.nodes_per_worker.unwrap_or(1).max(1);
            match &b.gpu_pinning {
                Some(pins) if span == 1 && !pins.is_empty() => workers.div_ceil(pins.len() as u32),
                _ => workers.saturating_mul(span),
            }
        })
        .fold(0, u32::saturating_add);
    nodes.max(1)
}

/// The data's label for a hardware id (`gb300` → `GB300`).
pub(crate) fn hardware_label(data: &AgentxData, hw: &str) -> String {
    data.hardware
        .iter()
        .find(|h| h.id == hw)
        .map(|h| h.label.clone())
        .unwrap_or_else(|| hw.to_uppercase())
}

pub(super) fn checkpoint_label(data: &AgentxData, ckpt: &str) -> String {
    match data
        .checkpoints
        .iter()
        .find(|c| c.id == ckpt)
        .and_then(|c| c.precision.as_deref())
    {
        Some(p) => format!("{ckpt} ({})", p.to_uppercase()),
        None => ckpt.to_string(),
    }
}

pub(super) fn image_info(cell: &Cell) -> ImageInfo {
    ImageInfo {
        image: cell.image.clone(),
        status: cell.image_status,
        commit: cell.image_commit.clone(),
    }
}
