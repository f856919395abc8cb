//! Decoding: every (cell, point, router, available KV tier) of a data file
//! becomes a [`CommandSet`]: ordered processes with their command text,
//! placeholders, status, notes, provenance and image status.
//!
//! The rules follow the cookbook renderer and its generator, as
//! `docs/agentx-format.md` states them: materialising a router's blocks
//! (§3.1), diffs (§3.2), points (§3.3), KV tiers (§3.4), routers (§3.5),
//! status (§3.6) and the shell text (§4).
//!
//! The decoded model ([`model`]) is the single source for everything
//! downstream: `render`, `stats`, `check` and `manifest` never read the raw
//! data.
//!
//! May use: `data`, `shell`, `util`.

use std::collections::HashSet;

use anyhow::{Result, bail};

use crate::data::{AgentxData, KvTier, Router};
use crate::util::text::slug;

mod decoder;
mod edit;
mod kv;
mod labels;
mod model;
mod notes;
mod placeholders;
mod processes;
mod provenance;
mod status;
mod validate;

use self::decoder::Decoder;
pub(crate) use self::edit::{apply_diff, sort_worker_args};
pub(crate) use self::kv::is_kv_flag;
pub(crate) use self::labels::hardware_label;
pub(crate) use self::model::concs_label;
pub use self::model::{
    CommandSet, ConfigFile, DecodedFile, DecodedPage, Deployment, ImageInfo, KvDonor, Placeholder,
    Process, Provenance, UnavailableTier, decode_file, decode_str,
};
pub use self::notes::Note;
pub(crate) use self::placeholders::env_exports;
pub(crate) use self::processes::command_text;
pub use self::status::Status;

/// Hardware ids used by the deployments, in the data's hardware order
/// (ids the data does not list follow, in the order cells use them).
fn hardware_used(data: &AgentxData, deployments: &[Deployment]) -> Vec<String> {
    let used: HashSet<&str> = deployments.iter().map(|d| d.hw.as_str()).collect();
    let mut out: Vec<String> = data
        .hardware
        .iter()
        .filter(|h| used.contains(h.id.as_str()))
        .map(|h| h.id.clone())
        .collect();
    for d in deployments {
        if !out.contains(&d.hw) {
            out.push(d.hw.clone());
        }
    }
    out
}

/// Decodes every command set of a data file.
pub(crate) fn decode_page(data: &AgentxData) -> Result<DecodedPage> {
    let mut decoder = Decoder::new(data);
    let mut deployments = Vec::with_capacity(data.cells.len());
    let mut anchors = HashSet::new();
    for ci in 0..data.cells.len() {
        let mut d = decoder.deployment(ci)?;
        decoder.done_with(ci);
        if !anchors.insert(d.anchor.clone()) {
            bail!(
                "cells[{ci}]: cell id `{}` gives the anchor `{}`, which another cell already uses; \
                 cell ids must differ in more than punctuation",
                d.cell_id,
                d.anchor
            );
        }
        for set in &mut d.command_sets {
            let mut anchor = set.anchor.clone();
            if anchors.contains(&anchor) {
                // Two points with the same concurrencies: the point index keeps them apart.
                anchor = format!("{anchor}-p{}", set.point);
            }
            if !anchors.insert(anchor.clone()) {
                bail!(
                    "cells[{ci}].points[{}]: anchor `{anchor}` is not unique",
                    set.point
                );
            }
            set.anchor = anchor;
        }
        deployments.push(d);
    }
    Ok(DecodedPage {
        model: data.model.clone(),
        hardware: hardware_used(data, &deployments),
        mooncake: data.kv_mooncake.as_ref().map(|k| KvDonor {
            donor: k.donor.clone(),
            donor_hardware: hardware_label(data, &k.donor_hardware),
            args: k.args.clone(),
        }),
        deployments,
    })
}

/// Anchor of one command set: cell id, concurrencies, tier, router.
pub(crate) fn command_set_anchor(
    cell_id: &str,
    concs: &[u32],
    tier: KvTier,
    router: Router,
) -> String {
    let c: Vec<String> = concs.iter().map(|c| c.to_string()).collect();
    format!(
        "{}-c{}-{}-{}",
        slug(cell_id),
        c.join("-"),
        tier.id(),
        router.id()
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The schema's maximal sample (every field set) decodes, with no key
    /// ignored: the injection test relies on both.
    #[test]
    fn maximal_sample_decodes() {
        let text = crate::data::sample::maximal_json();
        let file = decode_str(&text, Path::new("maximal.json")).unwrap();
        assert!(file.ignored.is_empty(), "{:?}", file.ignored);
        assert_eq!(file.page.deployments.len(), 2);
    }

    #[test]
    fn anchors() {
        assert_eq!(
            command_set_anchor("m#0", &[1, 4], KvTier::Hicache, Router::Dynamo),
            "m-0-c1-4-hicache-dynamo"
        );
    }
}

#[cfg(test)]
mod tests_edit_kv;
