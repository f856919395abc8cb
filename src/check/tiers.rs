//! KV tiers against each image: a tier offered for an image must have its
//! flags in the image's worker registry.

use anyhow::Result;

use super::registries::Registries;
use super::report::{CheckReport, TierProblem};
use crate::data::{Arg, KvTier};
use crate::decode::{DecodedPage, is_kv_flag};

/// Checks that each offered KV tier's flags exist for the image's worker
/// entry points, on one page.
pub(super) fn check_tiers(
    page: &str,
    decoded: &DecodedPage,
    registries: &mut Registries,
    report: &mut CheckReport,
) -> Result<()> {
    for d in &decoded.deployments {
        for tier in [KvTier::Hicache, KvTier::Mooncake] {
            if !d.available.contains(&tier) {
                continue;
            }
            let donor = match tier {
                KvTier::Hicache => d.hicache.as_ref(),
                KvTier::Mooncake => decoded.mooncake.as_ref(),
                KvTier::None => None,
            };
            let args: &[Arg] = donor.map_or(&[], |k| &k.args);
            for ep in d.routers.iter().map(|r| r.worker_entry_point()) {
                let Some(reg) = registries.for_image(&d.image.image, ep)? else {
                    continue;
                };
                let missing: Vec<String> = args
                    .iter()
                    .filter(|a| is_kv_flag(&a.flag) && !reg.contains(&a.flag))
                    .map(|a| a.flag.clone())
                    .collect();
                if !missing.is_empty() {
                    report.tiers.push(TierProblem {
                        page: page.to_string(),
                        cell: d.cell_id.clone(),
                        image: d.image.image.clone(),
                        tier,
                        entrypoint: ep.to_string(),
                        registry: reg.label.clone(),
                        missing,
                    });
                }
            }
        }
    }
    Ok(())
}
