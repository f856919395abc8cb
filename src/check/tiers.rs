//! KV tiers against each image: a tier offered for an image must have its
//! flags in the image's worker registry.

use anyhow::Result;

use super::registries::Registries;
use super::report::{CheckReport, KvTally, TierProblem};
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
                let flags: Vec<&str> = (args.iter())
                    .filter(|a| is_kv_flag(&a.flag))
                    .map(|a| a.flag.as_str())
                    .collect();
                let missing: Vec<String> = (flags.iter())
                    .filter(|f| !reg.contains(f))
                    .map(|f| f.to_string())
                    .collect();
                tally(
                    &mut report.kv,
                    &d.image.image,
                    ep,
                    &reg.label,
                    tier,
                    &flags,
                    &missing,
                );
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

/// Adds the flags of `tier` checked against the registry of (`image`,
/// `entrypoint`) to its tally.
fn tally(
    kv: &mut Vec<KvTally>,
    image: &str,
    entrypoint: &str,
    registry: &str,
    tier: KvTier,
    flags: &[&str],
    missing: &[String],
) {
    let at = match kv
        .iter()
        .position(|k| k.image == image && k.entrypoint == entrypoint)
    {
        Some(at) => at,
        None => {
            kv.push(KvTally {
                image: image.to_string(),
                entrypoint: entrypoint.to_string(),
                registry: registry.to_string(),
                tiers: Vec::new(),
                flags: Vec::new(),
                missing: Vec::new(),
            });
            kv.len() - 1
        }
    };
    merge_tally(&mut kv[at], tier, flags, missing);
}

/// Adds tiers, flags and missing flags to a tally, each once, sorted.
pub(super) fn merge_tally(k: &mut KvTally, tier: KvTier, flags: &[&str], missing: &[String]) {
    if !k.tiers.contains(&tier) {
        k.tiers.push(tier);
        k.tiers.sort();
    }
    for f in flags {
        if !k.flags.iter().any(|x| x == f) {
            k.flags.push(f.to_string());
        }
    }
    for f in missing {
        if !k.missing.contains(f) {
            k.missing.push(f.clone());
        }
    }
    k.flags.sort();
    k.missing.sort();
}
