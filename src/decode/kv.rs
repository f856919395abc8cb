//! The KV-tier transform: a point's blocks moved from the tier it was
//! measured with to another (none, HiCache, Mooncake), touching only the KV
//! settings of the workers that own the prefix cache.

use std::borrow::Cow;

use anyhow::{Result, anyhow};

use super::edit::sort_worker_args;
use crate::data::{AgentxData, Block, BlockKind, Cell, Env, KvTier, Role, Router};

/// Env only a Mooncake *store* needs; dropped when leaving a measured Mooncake tier.
const MOONCAKE_STORE_ENV: [&str; 4] = [
    "MOONCAKE_MASTER",
    "MOONCAKE_TE_META_DATA_SERVER",
    "MOONCAKE_GLOBAL_SEGMENT_SIZE",
    "MOONCAKE_STANDALONE_STORAGE",
];

/// Whether a worker flag belongs to a KV-offload tier (and is swapped by the tier transform).
pub(crate) fn is_kv_flag(flag: &str) -> bool {
    flag == "--enable-hierarchical-cache"
        || flag.starts_with("--hicache-")
        || flag == "--enable-unified-cache-external-linker"
        || flag == "--unified-cache-external-linker-backend"
}

/// Swaps the KV tier of one point's blocks from `measured` to `target`;
/// the blocks themselves (not a copy) when the tier is the measured one.
pub(crate) fn kv_transform<'b>(
    data: &AgentxData,
    cell: &Cell,
    blocks: &'b [Block],
    measured: KvTier,
    target: KvTier,
    router: Router,
) -> Result<Cow<'b, [Block]>> {
    if measured == target {
        return Ok(Cow::Borrowed(blocks));
    }
    let mut out: Vec<Block> = blocks
        .iter()
        .filter(|b| {
            measured != KvTier::Mooncake
                || !matches!(b.kind, BlockKind::MooncakeMaster | BlockKind::MooncakeStore)
        })
        .cloned()
        .collect();
    for b in out.iter_mut().filter(|b| b.kind == BlockKind::Worker) {
        b.args.retain(|a| !is_kv_flag(&a.flag));
        if measured == KvTier::Mooncake {
            for k in MOONCAKE_STORE_ENV {
                b.env.remove(k);
            }
        }
    }
    match target {
        KvTier::None => {}
        KvTier::Hicache => {
            let hc = cell
                .kv
                .hicache
                .as_ref()
                .ok_or_else(|| anyhow!("no kv.hicache settings to derive HiCache from"))?;
            for b in out.iter_mut().filter(|b| owns_cache(b)) {
                b.args.extend(hc.args.iter().cloned());
                sort_worker_args(&mut b.args);
            }
        }
        KvTier::Mooncake => {
            let km = data
                .kv_mooncake
                .as_ref()
                .ok_or_else(|| anyhow!("no top-level kvMooncake to derive Mooncake from"))?;
            for b in out.iter_mut().filter(|b| b.kind == BlockKind::Worker) {
                if owns_cache(b) {
                    b.args.extend(km.args.iter().cloned());
                    sort_worker_args(&mut b.args);
                    extend_env(&mut b.env, &km.env);
                } else {
                    extend_env(&mut b.env, &km.decode_env);
                }
            }
            let master = km
                .master
                .get(&router)
                .ok_or_else(|| anyhow!("kvMooncake.master has no `{router}` block"))?;
            let at = out
                .iter()
                .position(|b| b.kind == BlockKind::Worker)
                .unwrap_or(out.len());
            out.insert(at, master.clone());
        }
    }
    Ok(Cow::Owned(out))
}

pub(super) fn owns_cache(b: &Block) -> bool {
    b.kind == BlockKind::Worker && b.role.unwrap_or(Role::Agg).owns_cache()
}

fn extend_env(env: &mut Env, add: &Env) {
    for (k, v) in add {
        env.insert(k.clone(), v.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kv_flags() {
        for f in [
            "--enable-hierarchical-cache",
            "--hicache-ratio",
            "--hicache-storage-backend-extra-config",
            "--enable-unified-cache-external-linker",
            "--unified-cache-external-linker-backend",
        ] {
            assert!(is_kv_flag(f), "{f}");
        }
        for f in [
            "--hicache",
            "--enable-cache-report",
            "--disable-radix-cache",
        ] {
            assert!(!is_kv_flag(f), "{f}");
        }
    }
}
